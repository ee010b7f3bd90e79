"""PTB trees, their linearization and repair, and EVALB scoring: no model needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GUM
from hypothesis import given, settings
from hypothesis import strategies as st

from lstmparse.errors import InputError
from lstmparse.io.ptb import Constituent, PTBTree, base_label, parse_ptb_text, read_ptb, to_bracketed
from lstmparse.scoring.evalb import brackets, evaluate_ptb_files, score_bracketings
from lstmparse.seq2seq.linearization import LEAF, Prefix, delinearize, is_well_formed, linearize, repair


def tree(text: str) -> PTBTree:
    (only,) = parse_ptb_text(text)
    return only


def without_function_tags(node: Constituent) -> Constituent:
    if node.is_preterminal:
        return node
    return Constituent(base_label(node.label), [without_function_tags(c) for c in node.children])


# -- reading and writing ------------------------------------------------------------


def test_reader_removes_wrappers_empty_elements_and_the_constituents_they_empty() -> None:
    read = tree("( (S (NP-SBJ (-NONE- *T*-1)) (NP-SBJ-2 (NNP Byron)) (VP (VBD slept) (SBAR (-NONE- 0))) (. .)) )")
    assert to_bracketed(read) == "(ROOT (S (NP-SBJ-2 (NNP Byron)) (VP (VBD slept)) (. .)))"
    assert read.words == ["Byron", "slept", "."]
    assert tree("(TOP (S (NN x)))").children[0].label == "S"


def test_reader_reads_multi_line_trees_and_several_trees_per_line(tmp_path: Path) -> None:
    path = tmp_path / "trees.ptb"
    path.write_text("(ROOT\n  (S (NP (-LRB- -LRB-) (NN a))\n     (VP (VB b))))\n(ROOT (X (Y c))) (ROOT (X (Y d)))\n")
    trees = read_ptb(path)
    assert [t.words for t in trees] == [["-LRB-", "a", "b"], ["c"], ["d"]]
    assert [t.line for t in trees] == [1, 4, 4]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("(ROOT (S (NN a)))\n(ROOT (S (NN b))\n(ROOT (S (NN c)))\n", 2, "unbalanced"),
        ("(ROOT (S (NN a))))\n", 1, "outside a tree"),
        ("(ROOT (S (NN a) b))\n", 1, "mixes a word"),
        ("(ROOT (S (NN a (NN b))))\n", 1, "has a word and a phrase"),
        ("(ROOT (S (NN a)))\n\n(ROOT (S ()))\n", 3, "empty bracket"),
        ("(ROOT (-NONE- *))\n", 1, "without words"),
    ],
)
def test_malformed_trees_are_reported_with_their_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "bad.ptb"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as caught:
        read_ptb(path)
    assert (caught.value.path, caught.value.line) == (str(path), line)


def test_written_words_with_parentheses_read_back() -> None:
    written = to_bracketed([Constituent("S", [Constituent("XX", word=":-)"), Constituent("XX", word="(")])])
    assert tree(written).words == [":--RRB-", "-LRB-"]


def test_function_tags_are_stripped_but_hyphenated_names_kept() -> None:
    assert [base_label(x) for x in ["NP-SBJ", "PP-TMP-2", "NP=3", "-LRB-", "-NONE-", "S"]] == [
        "NP",
        "PP",
        "NP",
        "-LRB-",
        "-NONE-",
        "S",
    ]


# -- linearization --------------------------------------------------------------------


def test_linearization_of_the_papers_example() -> None:
    read = tree("(ROOT (S (NP-SBJ (NNP John)) (VP (VBZ has) (NP (DT a) (NN dog))) (. .)))")
    assert " ".join(linearize(read)) == "(S (NP XX )NP (VP XX (NP XX XX )NP )VP XX )S"


def test_every_gum_dev_tree_round_trips_through_its_linearization(small_gum) -> None:
    trees = read_ptb(GUM / "dev.ptb")
    assert len(trees) == 1575
    for gold in trees:
        tokens = linearize(gold)
        assert is_well_formed(tokens, len(gold))
        rebuilt = delinearize(tokens, gold.words, gold.tags)
        expected = PTBTree([without_function_tags(c) for c in gold.children])
        assert to_bracketed(rebuilt) == to_bracketed(expected)


def test_delinearize_without_tags_writes_xx_preterminals() -> None:
    rebuilt = delinearize(["(S", "(NP", LEAF, ")NP", LEAF, ")S"], ["Dogs", "bark"])
    assert to_bracketed(rebuilt) == "(ROOT (S (NP (XX Dogs)) (XX bark)))"


@pytest.mark.parametrize(
    ("tokens", "words"),
    [
        (["(S", "XX", ")NP"], 1),  # wrong closing label
        (["(S", "XX"], 1),  # unclosed
        (["(S", "XX", ")S", ")S"], 1),  # too many closing brackets
        (["(S", "(NP", ")NP", "XX", ")S"], 1),  # empty constituent
        (["(S", "XX", ")S"], 2),  # too few leaves
        ([], 0),  # no sentence
    ],
)
def test_malformed_sequences_are_recognized(tokens: list[str], words: int) -> None:
    assert not is_well_formed(tokens, words)


TOKENS = st.sampled_from(["XX", "(S", ")S", "(NP", ")NP", "(VP", ")VP"])


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=40), st.integers(min_value=1, max_value=15))
def test_repair_always_gives_a_tree_with_one_leaf_per_word(tokens: list[str], words: int) -> None:
    repaired = repair(tokens, words)
    assert is_well_formed(repaired, words)
    assert repaired.count(LEAF) == words
    if is_well_formed(tokens, words):
        assert repaired == tokens


def admitted(tokens: list[str], words: int) -> bool:
    """Whether constrained decoding could produce ``tokens`` and then end."""
    prefix = Prefix()
    for token in tokens:
        if token == LEAF or token.startswith("("):
            allowed = prefix.can_place_word(words)
        else:
            allowed = prefix.closable() == token[1:]
        if not allowed:
            return False
        prefix = prefix.then(token)
    return prefix.can_end(words)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=30), st.integers(min_value=1, max_value=8))
def test_constrained_decoding_admits_exactly_the_well_formed_sequences(tokens: list[str], words: int) -> None:
    assert admitted(tokens, words) == is_well_formed(tokens, words)
    repaired = repair(tokens, words)
    assert admitted(repaired, words)


def test_repair_keeps_what_it_can() -> None:
    assert repair(["(S", "(NP", "XX", ")VP", "XX", "XX", "XX"], 3) == ["(S", "(NP", "XX", ")NP", "XX", "XX", ")S"]
    assert repair([")S", "(S", "XX", ")S"], 3) == ["(S", "XX", "XX", "XX", ")S"]


# -- EVALB -----------------------------------------------------------------------------


def scores(gold: str, system: str) -> dict:
    return score_bracketings([tree(gold)], [tree(system)]).as_dict()


def test_identical_trees_score_100_and_preterminals_and_root_are_not_brackets() -> None:
    text = "(ROOT (S (NP (DT The) (NN dog)) (VP (VBZ barks))))"
    result = scores(text, text)
    assert (result["gold_brackets"], result["f1"], result["complete_match"]) == (3, 100.0, 100.0)


def test_punctuation_is_deleted_by_the_gold_tags() -> None:
    gold = "(ROOT (S (NP (NN Dogs)) (VP (VBP bark)) (. .)))"
    # the system attaches the full stop inside the VP: spans over non-punctuation words are the same
    system = "(ROOT (S (NP (XX Dogs)) (VP (XX bark) (XX .))))"
    assert scores(gold, system)["f1"] == 100.0
    # a constituent of punctuation alone covers no word and is no bracket
    assert brackets(tree("(ROOT (S (NP (NN a)) (PRN (, ,))))"), ["NN", ","]) == {("S", 0, 1): 1, ("NP", 0, 1): 1}


def test_prt_equals_advp_and_function_tags_are_ignored() -> None:
    gold = "(ROOT (S (NP-SBJ (PRP I)) (VP (VBD gave) (PRT (RP up)))))"
    system = "(ROOT (S (NP (XX I)) (VP (XX gave) (ADVP-TMP (XX up)))))"
    assert scores(gold, system)["f1"] == 100.0


def test_brackets_match_as_a_multiset_and_unary_chains_count_per_bracket() -> None:
    gold = "(ROOT (S (S (VP (VB Go)))))"  # (S,0,1) twice and (VP,0,1)
    once = "(ROOT (S (VP (XX Go))))"
    result = scores(gold, once)
    assert (result["gold_brackets"], result["system_brackets"], result["matched_brackets"]) == (3, 2, 2)
    assert result["recall"] == 66.67
    assert result["precision"] == 100.0


def test_wrong_spans_and_labels_score_as_evalb() -> None:
    gold = "(ROOT (S (NP (DT the) (NN dog)) (VP (VBZ bites) (NP (NN man)))))"
    system = "(ROOT (S (NP (XX the)) (VP (XX dog) (XX bites) (PP (XX man)))))"
    result = scores(gold, system)  # only S matches: 1 of 4 gold, 1 of 4 system
    assert (result["matched_brackets"], result["recall"], result["precision"]) == (1, 25.0, 25.0)
    assert result["complete_match"] == 0.0


def test_sentences_of_punctuation_alone_are_skipped_like_evalb() -> None:
    result = scores("(ROOT (X (. .)))", "(ROOT (X (XX .)))")
    assert (result["skipped_sentences"], result["gold_brackets"]) == (1, 0)


def test_the_length_cutoff_counts_punctuation(tmp_path: Path) -> None:
    long_tree = "(ROOT (S " + " ".join(["(NN w)"] * 39 + ["(. .)", "(. .)"]) + "))"
    (tmp_path / "g.ptb").write_text(long_tree + "\n(ROOT (S (NN a)))\n")
    result = evaluate_ptb_files(str(tmp_path / "g.ptb"), str(tmp_path / "g.ptb"))
    assert result.subset(0, 40).as_dict()["sentences"] == 1  # 41 words with punctuation


def test_different_words_are_an_error_naming_the_sentence() -> None:
    with pytest.raises(InputError, match="words differ"):
        scores("(ROOT (S (NN a)))", "(ROOT (S (NN b)))")


# -- the model -------------------------------------------------------------------------
