"""Each transition system and oracle trains and parses end to end through the API."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from lstmparse.io.formats import read_treebank
from lstmparse.io.tree import tree_problem
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.options import StackLSTMOptions
from lstmparse.stacklstm.oracles import sample
from lstmparse.stacklstm.training import train


@pytest.fixture(scope="module")
def hungarian(tmp_path_factory, ewt):
    from conftest import first_sentences

    folder = tmp_path_factory.mktemp("hu")
    path = folder / "train.conllu"
    path.write_text(first_sentences(ewt.parent / "hu_szeged" / "train.conllu", 120), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "settings",
    [
        {"system": "arc-swap"},
        {"system": "arc-hybrid", "oracle": "dynamic", "explore_after": 0, "alpha": 1.0},
        {"system": "arc-standard", "pseudo_projective": True},
    ],
    ids=["swap", "hybrid-dynamic", "standard-pseudo-projective"],
)
def test_training_modes_produce_loadable_models_and_trees(tmp_path, hungarian, settings):
    options = StackLSTMOptions(
        train=str(hungarian),
        dev=str(hungarian),
        model_dir=str(tmp_path / "m"),
        features=["words", "pos"],
        epochs=1,
        **settings,
    )
    log = io.StringIO()
    record = train(options, log=log)
    assert "skipped" not in log.getvalue() or settings["system"] == "arc-hybrid"
    parser = StackLSTMParser.load(str(tmp_path / "m"))
    assert parser.system.name == settings["system"]
    assert parser.pseudo_projective == settings.get("pseudo_projective", False)
    sentences = read_treebank(str(hungarian))
    for sentence in sentences[:30]:
        heads, labels = parser.parse(sentence.tokens)
        assert tree_problem(heads) is None
        assert not any("||" in label or label.endswith("^") for label in labels)
    assert record["epochs"][0]["dev_las"] >= 0


def test_exploration_samples_from_the_sharpened_distribution():
    rng = random.Random(3)
    log_probs = np.log(np.array([0.1, 0.2, 0.7]))
    counts = np.bincount([sample([0, 1, 2], log_probs, 0.5, rng) for _ in range(20000)], minlength=3)
    expected = np.sqrt([0.1, 0.2, 0.7])
    np.testing.assert_allclose(counts / counts.sum(), expected / expected.sum(), atol=0.015)
    assert sample([2], log_probs, 0.75, rng) == 2


@pytest.mark.slow
def test_resumed_training_repeats_the_uninterrupted_run(tmp_path, small_treebank):
    """Two epochs in one go equal one epoch, an interruption, and --resume for the second."""

    def options(model_dir, epochs, resume=False):
        return StackLSTMOptions(
            train=str(small_treebank["train"]),
            dev=str(small_treebank["dev"]),
            model_dir=str(model_dir),
            features=["words", "pos"],
            epochs=epochs,
            dropout=0.2,
            resume=resume,
        )

    whole = train(options(tmp_path / "whole", 2), log=io.StringIO())
    train(options(tmp_path / "split", 1), log=io.StringIO())
    log = io.StringIO()
    resumed = train(options(tmp_path / "split", 2, resume=True), log=log)
    assert "after epoch 1" in log.getvalue()
    assert [e["epoch"] for e in resumed["epochs"]] == [1, 2]
    assert resumed["epochs"][1]["dev_las"] == pytest.approx(whole["epochs"][1]["dev_las"], abs=0.3)
    a = StackLSTMParser.load(str(tmp_path / "whole" / "checkpoint")).parameter_values()
    b = StackLSTMParser.load(str(tmp_path / "split" / "checkpoint")).parameter_values()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], atol=1e-4, err_msg=name)


def test_resume_refuses_a_model_trained_on_other_data(tmp_path, small_treebank, hungarian):
    from lstmparse.errors import ConfigurationError

    first = StackLSTMOptions(train=str(hungarian), model_dir=str(tmp_path / "m"), features=["words", "pos"], epochs=1)
    train(first, log=io.StringIO())
    other = StackLSTMOptions(
        train=str(small_treebank["train"]),
        model_dir=str(tmp_path / "m"),
        features=["words", "pos"],
        epochs=2,
        resume=True,
    )
    with pytest.raises(ConfigurationError, match="other data"):
        train(other, log=io.StringIO())


def test_minibatches_keep_learning_at_a_sentence_learning_rate(tmp_path, small_treebank):
    """Batches of 8 summed losses still learn: the clipping limit grows with the batch.

    Clipped at one sentence's limit, the loss per action of this run only fell from
    2.54 to 2.18 in four epochs (batch 1: 2.21 to 0.86).
    """
    options = StackLSTMOptions(
        train=str(small_treebank["train"]),
        model_dir=str(tmp_path / "m"),
        features=["words", "pos"],
        epochs=4,
        batch_size=8,
    )
    losses = [e["loss_per_action"] for e in train(options, log=io.StringIO())["epochs"]]
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.parametrize(
    ("batch_size", "optimizer", "rate"),
    [(1, "sgd", 0.1), (8, "sgd", 0.1), (16, "sgd", 0.07), (32, "sgd", 0.05), (16, "adam", 0.002)],
)
def test_the_default_learning_rate_follows_the_update_rule_and_the_batch(batch_size, optimizer, rate):
    options = StackLSTMOptions(train="t", model_dir="m", batch_size=batch_size, optimizer=optimizer)
    assert options.learning_rate == rate
    assert StackLSTMOptions(train="t", model_dir="m", batch_size=batch_size, learning_rate=0.3).learning_rate == 0.3


@pytest.mark.parametrize(("sentences", "batch_size"), [(1, 1), (400, 1), (999, 1), (1000, 2), (2000, 4), (12544, 16)])
def test_the_default_batch_follows_the_training_sets_size_and_a_given_one_stays(sentences, batch_size):
    chosen = StackLSTMOptions(train="t", model_dir="m").for_training_set(sentences)
    assert (chosen.batch_size, chosen.learning_rate) == (batch_size, 0.1 if batch_size <= 8 else 0.07)
    given = StackLSTMOptions(train="t", model_dir="m", batch_size=32).for_training_set(sentences)
    assert (given.batch_size, given.learning_rate) == (32, 0.05)
    assert (
        StackLSTMOptions(train="t", model_dir="m", learning_rate=0.3).for_training_set(sentences).learning_rate == 0.3
    )
