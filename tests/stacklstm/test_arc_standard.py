"""The arc-standard system and its static oracle on real treebanks."""

from __future__ import annotations

import pytest

from lstmparse.io.formats import read_treebank
from lstmparse.io.tree import is_projective, non_projective_arcs, tree_problem
from lstmparse.stacklstm.systems import make_system
from lstmparse.stacklstm.systems.base import LEFT, RIGHT, SHIFT


@pytest.mark.slow
@pytest.mark.parametrize("treebank", ["en_ewt/train.conllu", "hu_szeged/train.conllu"])
def test_static_oracle_reproduces_exactly_the_projective_trees(treebank, ewt):
    sentences = read_treebank(str(ewt.parent / treebank))
    system = make_system("arc-standard", {d for s in sentences for d in s.deprels})
    reproduced = projective = 0
    for sentence in sentences:
        sequence = system.oracle_sequence(sentence.heads, sentence.deprels)
        assert (sequence is not None) == is_projective(sentence.heads), sentence.first_line
        if sequence is not None:
            assert len(sequence) == 2 * len(sentence)
        reproduced += sequence is not None
        projective += is_projective(sentence.heads)
    assert reproduced == projective > 0.9 * len(sentences) if "ewt" in treebank else reproduced == projective


def test_legal_actions_keep_a_single_root():
    system = make_system("arc-standard", ["nsubj", "obj", "root"])
    config = system.initial(2)
    assert [system.actions[a].kind for a in system.legal(config)] == [SHIFT]
    system.apply(config, system.action_id(SHIFT))
    # Stack [root, 1], buffer [2]: the root may not take a dependent while words remain.
    assert {system.actions[a].kind for a in system.legal(config)} == {SHIFT}
    system.apply(config, system.action_id(SHIFT))
    kinds = {(system.actions[a].kind, system.actions[a].label) for a in system.legal(config)}
    assert (LEFT, "root") not in kinds and (RIGHT, "root") not in kinds
    system.apply(config, system.action_id(LEFT, "nsubj"))
    assert [system.actions[a] for a in system.legal(config)] == [system.actions[system.action_id(RIGHT, "root")]]
    system.apply(config, system.action_id(RIGHT, "root"))
    assert system.is_final(config)
    assert config.tree() == ([2, 0], ["nsubj", "root"])


def test_tree_checks():
    assert tree_problem([2, 0, 2]) is None
    assert "multiple roots" in tree_problem([0, 0])
    assert "cycle" in tree_problem([2, 3, 2, 0])
    assert "no word attached" in tree_problem([2, 1])
    assert is_projective([2, 0, 2])
    # 4 -> 2 crosses both 3 -> 1 and the root arc 0 -> 3
    heads = [3, 4, 0, 3]
    assert not is_projective(heads)
    assert non_projective_arcs(heads) == {1, 2, 3}
