"""Pseudo-projective encoding: projective output, and invertible on real treebanks."""

from __future__ import annotations

import pytest

from lstmparse.io.formats import read_treebank
from lstmparse.io.tree import is_projective
from lstmparse.stacklstm.pseudo_projective import SEPARATOR, deprojectivize, projectivize


def test_a_lift_is_encoded_and_undone():
    # "A hearing is scheduled on the issue today": 'on' (5) attaches to 'hearing' (2), crossing 3 <- 4.
    heads = [2, 4, 4, 0, 2, 7, 5, 4]
    labels = ["det", "nsubj", "aux", "root", "nmod", "det", "obj", "obl"]
    assert not is_projective(heads)
    p_heads, p_labels = projectivize(heads, labels)
    assert is_projective(p_heads)
    assert p_heads[4] == 4 and p_labels[4] == f"nmod{SEPARATOR}nsubj"
    assert p_labels[1] == "nsubj^"  # the path mark on the original head
    assert deprojectivize(p_heads, p_labels) == (heads, labels)


@pytest.mark.parametrize("treebank", ["en_ewt", "hu_szeged"])
def test_round_trip_share_is_at_least_99_percent(ewt, treebank):
    sentences = read_treebank(str(ewt.parent / treebank / "train.conllu"))
    restored = 0
    for sentence in sentences:
        heads, labels = projectivize(sentence.heads, sentence.deprels)
        assert is_projective(heads)
        if is_projective(sentence.heads):
            assert (heads, labels) == (sentence.heads, sentence.deprels)
        restored += deprojectivize(heads, labels) == (sentence.heads, sentence.deprels)
    share = restored / len(sentences)
    print(f"{treebank}: {100 * share:.2f}% of training trees restored exactly")
    assert share >= 0.99
