"""Scores agree with hand-computed ones (CoNLL 2018 conventions)."""

from __future__ import annotations

import pytest

from lstmparse.errors import InputError
from lstmparse.scoring.evaluation import evaluate_files, score_trees


def test_hand_computed_scores():
    # 4 words: gold heads/rels/upos and a system tree.
    gold = [([2, 0, 2, 2], ["det", "root", "obj", "punct"], ["DET", "VERB", "NOUN", "PUNCT"])]
    system = [([2, 0, 2, 3], ["det", "root", "nsubj", "punct"])]
    scores = score_trees(gold, system)
    assert scores.uas == pytest.approx(75.0)  # word 4 has the wrong head
    assert scores.las == pytest.approx(50.0)  # word 3 has the wrong label
    # content words: gold {root, obj} = 2, system {root, nsubj} = 2, correct {root} = 1 -> F1 = 2/4
    assert scores.clas == pytest.approx(50.0)
    assert scores.uas_no_punct == pytest.approx(100.0)
    assert scores.las_no_punct == pytest.approx(200 / 3)


def test_subtypes_are_ignored_for_las_and_clas():
    gold = [([0, 1], ["root", "nmod:poss"], ["NOUN", "PRON"])]
    system = [([0, 1], ["root", "nmod"])]
    scores = score_trees(gold, system)
    assert (scores.las, scores.clas) == (100.0, 100.0)


def test_function_words_count_for_las_not_clas():
    gold = [([2, 0], ["det", "root"], ["DET", "NOUN"])]
    system = [([2, 0], ["case", "root"])]
    scores = score_trees(gold, system)
    assert scores.las == 50.0
    assert scores.clas == 100.0


def test_files_must_hold_the_same_words(tmp_path):
    gold = tmp_path / "gold.conllu"
    system = tmp_path / "sys.conllu"
    gold.write_text("1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    system.write_text("1\tb\t_\tX\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="words differ"):
        evaluate_files(str(gold), str(system))
    system.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="0 sentences, but the gold file has 1"):
        evaluate_files(str(gold), str(system))


def test_non_projective_recall_counts_crossing_gold_arcs():
    # gold 4 -> 2 crosses 3 -> 1 and the root arc 0 -> 3: three crossing arcs (words 1, 2, 3)
    gold = [([3, 4, 0, 3], ["a", "b", "root", "c"], ["X"] * 4)]
    system = [([3, 3, 0, 3], ["a", "b", "root", "c"])]
    scores = score_trees(gold, system)
    assert scores.non_projective == 3
    assert scores.non_projective_recall == pytest.approx(200 / 3)
