"""The TreeLSTM's generation order, its distribution, its training, sampling and reranking."""

from __future__ import annotations

import io
import random
from pathlib import Path

import dynet as dy
import numpy as np
import pytest
from click.testing import CliRunner

from cli import main
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import InputError
from lstmparse.io.formats import read_sentences
from lstmparse.io.tree import tree_problem
from lstmparse.treelstm.dependency_paths import LEFT, NX_LEFT, NX_RIGHT, RIGHT, Step, dependency_path, generation_order
from lstmparse.treelstm.model import ROOT_WORD, TreeLSTM, grow_decisions
from lstmparse.treelstm.options import TreeLSTMDimensions, TreeLSTMOptions
from lstmparse.treelstm.rerank import KBestCandidate, read_kbest, tune
from lstmparse.treelstm.training import read_trees, train_treelstm

# A head with two left dependents (one of them with its own left dependents) and
# three right dependents, so that all four edge types occur.
EXAMPLE = """\
# sent_id = example
# text = The big dog chased a cat yesterday .
1	The	the	DET	_	_	3	det	_	_
2	big	big	ADJ	_	_	3	amod	_	_
3	dog	dog	NOUN	_	_	4	nsubj	_	_
4	chased	chase	VERB	_	_	0	root	_	_
5	a	a	DET	_	_	6	det	_	_
6	cat	cat	NOUN	_	_	4	obj	_	_
7	yesterday	yesterday	NOUN	_	_	4	obl	_	_
8	.	.	PUNCT	_	_	4	punct	_	_

"""
HEADS = [3, 3, 4, 0, 6, 4, 4, 4]
FORMS = "The big dog chased a cat yesterday .".split()
TINY = TreeLSTMDimensions(embedding=16, hidden=16, layers=2, left_hidden=8, classifier_hidden=8)


def test_generation_order_is_breadth_first_left_then_right_closest_first():
    assert generation_order(HEADS) == [
        Step(4, RIGHT, 0),  # ROOT's only dependent
        Step(3, LEFT, 4),
        Step(6, RIGHT, 4),
        Step(7, NX_RIGHT, 6),
        Step(8, NX_RIGHT, 7),
        Step(2, LEFT, 3),  # closest left dependent first
        Step(1, NX_LEFT, 2),
        Step(5, LEFT, 6),
    ]


def test_dependency_paths_chain_the_four_edge_types():
    assert dependency_path(HEADS, 1) == [(RIGHT, 4), (LEFT, 3), (LEFT, 2), (NX_LEFT, 1)]
    assert dependency_path(HEADS, 8) == [(RIGHT, 4), (RIGHT, 6), (NX_RIGHT, 7), (NX_RIGHT, 8)]
    assert dependency_path(HEADS, 5) == [(RIGHT, 4), (RIGHT, 6), (LEFT, 5)]


def test_example_tree_read_from_conllu_gives_the_same_order(tmp_path):
    path = tmp_path / "example.conllu"
    path.write_text(EXAMPLE, encoding="utf-8")
    (sentence,) = read_trees(str(path))
    assert [step.node for step in generation_order(sentence.heads)] == [4, 3, 6, 7, 8, 2, 1, 5]


def test_grow_decisions_describe_the_shape():
    decisions = {(node, edge): grows for node, edge, grows in grow_decisions(HEADS)}
    assert decisions[(4, LEFT)] and decisions[(4, RIGHT)]
    assert decisions[(3, LEFT)] and not decisions[(3, RIGHT)]
    assert decisions[(2, NX_LEFT)] and not decisions[(1, NX_LEFT)]
    assert decisions[(6, NX_RIGHT)] and decisions[(7, NX_RIGHT)] and not decisions[(8, NX_RIGHT)]
    assert not decisions[(3, NX_LEFT)]  # the head's only left dependent


def toy_model(arch: str) -> TreeLSTM:
    vocab = Vocabulary(FORMS + [ROOT_WORD], {form: 2 for form in FORMS})
    return TreeLSTM(arch, vocab, TINY)


def step_log_probs(model: TreeLSTM, forms, heads) -> dict[int, np.ndarray]:
    dy.renew_cg()
    outputs = model.hidden_states(model.word_ids(forms), heads)
    return {node: model.word_log_probs(output) for node, output in outputs.items()}


@pytest.mark.parametrize("arch", ["treelstm", "ldtreelstm"])
def test_each_step_is_a_distribution_and_the_tree_score_is_their_product(arch):
    model = toy_model(arch)
    steps = step_log_probs(model, FORMS, HEADS)
    for log_probs in steps.values():
        assert np.exp(log_probs).sum() == pytest.approx(1.0, abs=1e-5)
    ids = model.word_ids(FORMS)
    expected = sum(steps[node][ids[node]] for node in steps)
    (score,) = model.score_trees([(FORMS, HEADS)])
    assert score.log_prob == pytest.approx(expected, abs=1e-3)
    assert score.words == len(FORMS)


def test_only_the_ld_variant_conditions_right_dependents_on_left_ones():
    """Word 6 ("cat") is head 4's first right dependent; word 3 is its left dependent."""
    changed = FORMS[:2] + ["a"] + FORMS[3:]
    for arch, depends in (("treelstm", False), ("ldtreelstm", True)):
        model = toy_model(arch)
        cat = model.vocab.get("cat")
        before = step_log_probs(model, FORMS, HEADS)[6][cat]
        after = step_log_probs(model, changed, HEADS)[6][cat]
        assert (abs(before - after) > 1e-6) == depends, arch


def perturbed(heads: list[int], rng: random.Random) -> list[int] | None:
    """The tree with one word attached to another head, if that stays a tree."""
    for _ in range(20):
        word = rng.randrange(len(heads))
        if heads[word] == 0:
            continue
        new_head = rng.randrange(1, len(heads) + 1)
        candidate = heads[:word] + [new_head] + heads[word + 1 :]
        if new_head != heads[word] and tree_problem(candidate) is None:
            return candidate
    return None


@pytest.fixture(scope="module")
def trained_model(small_treebank, tmp_path_factory) -> Path:
    model_dir = tmp_path_factory.mktemp("treelstm")
    options = TreeLSTMOptions(
        train=str(small_treebank["train"]),
        dev=str(small_treebank["dev"]),
        model_dir=str(model_dir),
        arch="ldtreelstm",
        epochs=6,
        batch_size=8,
        dims=TreeLSTMDimensions(32, 32, 1, 16, 16),
    )
    record = train_treelstm(options)
    assert record["best_dev_perplexity"] < 1000
    return model_dir


def test_trained_model_prefers_gold_trees_to_perturbed_ones(trained_model, small_treebank):
    model = TreeLSTM.load(str(trained_model))
    rng = random.Random(1)
    wins = total = 0
    for sentence in read_trees(str(small_treebank["dev"])):
        wrong = perturbed(sentence.heads, rng)
        if wrong is None:
            continue
        gold, other = model.score_trees([(sentence.forms, sentence.heads), (sentence.forms, wrong)])
        wins += gold.log_prob > other.log_prob
        total += 1
    assert total > 30
    assert wins / total > 0.6


def test_sampled_trees_are_trees_of_known_words(trained_model):
    model = TreeLSTM.load(str(trained_model))
    for _ in range(5):
        forms, heads = model.sample_tree(max_words=15)
        assert 1 <= len(forms) <= 15
        assert tree_problem(heads) is None
        assert all(form in model.vocab and form != ROOT_WORD for form in forms)


def tiny_options(small_treebank, model_dir: Path, **fields) -> TreeLSTMOptions:
    """One epoch of a small TreeLSTM on the 50 dev sentences, without a dev set."""
    return TreeLSTMOptions(
        train=str(small_treebank["dev"]),
        model_dir=str(model_dir),
        epochs=1,
        dims=TreeLSTMDimensions(16, 16, 1, 8, 8),
        **fields,
    )


def test_nce_objective_trains(small_treebank, tmp_path):
    options = tiny_options(small_treebank, tmp_path / "nce", objective="nce")
    record = train_treelstm(options)
    assert np.isfinite(record["epochs"][0]["loss_per_word"])
    assert TreeLSTM.load(str(tmp_path / "nce")).objective == "nce"


def write_kbest(path: Path, gold_text: str, candidates: int, rng: random.Random) -> None:
    """A k-best file from gold trees: rank 1 perturbed, the gold tree further down."""
    blocks = []
    for sentence in read_sentences(str(gold_text)):
        trees = [perturbed(sentence.heads, rng) or sentence.heads for _ in range(candidates - 1)]
        trees.insert(rng.randrange(1, candidates), sentence.heads)
        for rank, heads in enumerate(trees, start=1):
            extra = [f"# kbest_rank = {rank}", f"# parser_score = {-rank * 0.01:.4f}"]
            blocks.append(sentence.with_comments(extra).to_conllu(heads))
    path.write_text("".join(blocks), encoding="utf-8")


def test_read_kbest_groups_candidates_and_names_bad_lines(tmp_path, small_treebank):
    kbest = tmp_path / "kbest.conllu"
    write_kbest(kbest, small_treebank["dev"], 3, random.Random(2))
    groups = read_kbest(str(kbest))
    assert len(groups) == 50 and all(len(g) == 3 for g in groups)
    assert [c.rank for c in groups[0]] == [1, 2, 3]
    broken = kbest.read_text(encoding="utf-8").replace("# parser_score", "# parser_scor", 1)
    kbest.write_text(broken, encoding="utf-8")
    with pytest.raises(InputError, match=r"kbest\.conllu:1: .*parser_score"):
        read_kbest(str(kbest))


def test_tuning_finds_the_weight_that_recovers_gold(small_treebank):
    gold = list(read_sentences(str(small_treebank["dev"])))
    rng = random.Random(3)
    groups = []
    for sentence in gold:
        wrong = perturbed(sentence.heads, rng) or sentence.heads
        groups.append(
            [
                KBestCandidate(_with_heads(sentence, wrong), 1, -0.1, tree_score=-50.0),
                KBestCandidate(sentence, 2, -0.2, tree_score=-40.0),
            ]
        )
    tuning = tune(groups, gold)
    assert tuning.one_best_uas < 100.0
    assert tuning.uas == pytest.approx(100.0) == pytest.approx(tuning.oracle_uas)
    assert tuning.weight > 0 and tuning.k == 2


def _with_heads(sentence, heads):
    return sentence.with_tree(heads, sentence.deprels)


def test_rerank_cli_tunes_saves_and_writes_one_tree_per_sentence(trained_model, small_treebank, tmp_path):
    kbest = tmp_path / "kbest.conllu"
    write_kbest(kbest, small_treebank["dev"], 4, random.Random(4))
    runner = CliRunner()
    tuned = runner.invoke(
        main,
        ["rerank", "--model", str(trained_model), "--tune", str(kbest), "--gold", str(small_treebank["dev"]), "--save"],
    )
    assert tuned.exit_code == 0, tuned.output
    assert "W = " in tuned.output
    result = runner.invoke(main, ["rerank", str(kbest), "--model", str(trained_model)])
    assert result.exit_code == 0, result.output
    chosen = list(read_sentences_from_text(result.stdout, tmp_path))
    gold = list(read_sentences(str(small_treebank["dev"])))
    assert [s.forms for s in chosen] == [s.forms for s in gold]
    assert all(any(line.startswith("# rerank_score = ") for line in s.lines) for s in chosen)
    assert all(any(line.startswith("# sent_id = ") for line in s.lines) for s in chosen)


@pytest.mark.parametrize(("weight", "k", "scored"), [("0", "1", 0), ("0.3", "2", 100), ("0.3", "9", 200)])
def test_rerank_scores_only_the_candidates_that_can_be_chosen(
    trained_model, small_treebank, tmp_path, monkeypatch, weight, k, scored
):
    """50 sentences with 4 candidates: none scored at W = 0, the first K of each otherwise; K as applied."""
    from lstmparse.treelstm import model as treelstm_model

    kbest = tmp_path / "kbest.conllu"
    write_kbest(kbest, small_treebank["dev"], 4, random.Random(4))
    counted = []
    original = treelstm_model.TreeLSTM.score_trees
    monkeypatch.setattr(
        treelstm_model.TreeLSTM,
        "score_trees",
        lambda self, trees, *rest: counted.append(len(trees)) or original(self, trees, *rest),
    )
    result = CliRunner().invoke(
        main, ["rerank", str(kbest), "--model", str(trained_model), "--weight", weight, "--k", k]
    )
    assert result.exit_code == 0, result.output
    assert sum(counted) == scored
    assert f"K = {min(int(k), 4)}" in result.stderr
    if weight == "0":  # the parser's best tree, unchanged
        chosen = list(read_sentences_from_text(result.stdout, tmp_path))
        assert all(any(line == "# kbest_rank = 1" for line in s.lines) for s in chosen)


def read_sentences_from_text(text: str, folder: Path):
    path = folder / "out.conllu"
    path.write_text(text, encoding="utf-8")
    return read_sentences(str(path))


def test_score_cli_prints_one_line_per_tree(trained_model, small_treebank):
    result = CliRunner().invoke(main, ["score", "--model", str(trained_model), str(small_treebank["dev"])])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:]]
    assert len(rows) == 50
    assert all(float(row[1]) < 0 and float(row[3]) > 1 for row in rows)


def test_without_dev_no_dev_perplexity_is_claimed(small_treebank, tmp_path):
    """The model is chosen by its training loss, and the record and summary say so."""
    from lstmparse.cli.train_setup import summary

    options = tiny_options(small_treebank, tmp_path / "m", arch="ldtreelstm", batch_size=8)
    record = train_treelstm(options, log=io.StringIO())
    assert "best_dev_perplexity" not in record
    assert record["best_training_loss_per_word"] == pytest.approx(record["epochs"][0]["loss_per_word"], abs=1e-3)
    assert "training loss per word (no --dev)" in summary(record)
