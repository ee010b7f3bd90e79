"""Lock-step training computes the model that one sentence per graph computes.

For every transition system (with and without pseudo-projective encoding), every
oracle it has (the dynamic one exploring at every step) and every feature set, a
minibatch's lock-step loss equals the sum of its sentences' one-graph losses
(:meth:`StackLSTMParser.oracle_loss`), and so do the gradients; a sentence's loss,
exploration included, does not depend on the other sentences of its batch; and
training dropout draws a mask of its own for every word of every sentence.
"""

from __future__ import annotations

import io
import random

import dynet as dy
import numpy as np
import pytest
from conftest import HU, first_sentences
from test_every_path import FEATURE_SETS, SYSTEMS, untrained_parser

from lstmparse.io.formats import read_treebank
from lstmparse.stacklstm.batch_loss import lockstep_loss
from lstmparse.stacklstm.examples import oracle_examples, sentence_rng, training_trees
from lstmparse.stacklstm.lockstep import LockstepGraph, vector_value
from lstmparse.stacklstm.options import StackLSTMOptions
from lstmparse.stacklstm.oracles import ORACLES, Exploration, make_oracle
from lstmparse.stacklstm.systems import SYSTEMS as SYSTEM_TYPES
from lstmparse.stacklstm.training import train

ORACLE_CASES = [
    (system_id, oracle, features_id)
    for system_id, (system, _) in SYSTEMS.items()
    for oracle in ORACLES
    if SYSTEM_TYPES[system].has_oracle(oracle)
    for features_id in FEATURE_SETS
]
BATCH = 9  # sentences of the minibatch: different lengths, several finishing early


@pytest.fixture(scope="module")
def sentences(tmp_path_factory):
    """150 Hungarian Szeged sentences: rich FEATS, non-projective trees."""
    path = tmp_path_factory.mktemp("hu_lockstep") / "train.conllu"
    path.write_text(first_sentences(HU / "train.conllu", 150), encoding="utf-8")
    return read_treebank(str(path))


def examples_for(parser, sentences):
    trees = training_trees(sentences, parser.pseudo_projective)
    examples, _ = oracle_examples(parser.system, sentences, trees)
    return examples


def oracle_of(parser, name: str):
    return make_oracle(parser.system, name, Exploration(p=0.9 if name == "dynamic" else 0.0, alpha=0.75))


def gradients(parser) -> dict[str, np.ndarray]:
    """Every parameter's accumulated gradient; the gradients are then cleared (an update at rate 0)."""
    values = {name: np.array(p.grad_as_array()) for name, p in parser.named_parameters().items()}
    dy.SimpleSGDTrainer(parser.model, learning_rate=0.0).update()
    return values


def one_graph_per_sentence(parser, batch, oracle, epoch=0):
    dy.renew_cg()
    losses = [parser.oracle_loss(example, oracle, sentence_rng(5, epoch, example)) for example in batch]
    total = dy.esum([loss for loss in losses if loss is not None])
    value = total.value()
    total.backward()
    return value, gradients(parser)


def lock_step(parser, batch, oracle, epoch=0):
    loss = lockstep_loss(parser, batch, oracle, [sentence_rng(5, epoch, example) for example in batch])
    value = loss.value()
    loss.backward()
    return value, gradients(parser)


@pytest.mark.parametrize(
    ("system_id", "oracle", "features_id"), ORACLE_CASES, ids=["-".join(case) for case in ORACLE_CASES]
)
def test_lockstep_loss_and_gradients_are_the_one_sentence_sums(system_id, oracle, features_id, sentences):
    parser = untrained_parser(system_id, features_id, sentences)
    batch = examples_for(parser, sentences)[:BATCH]
    assert len({len(example.sentence) for example in batch}) > 3
    chosen = oracle_of(parser, oracle)
    gradients(parser)  # start from zero
    alone_loss, alone_gradients = one_graph_per_sentence(parser, batch, chosen)
    together_loss, together_gradients = lock_step(parser, batch, chosen)
    assert together_loss == pytest.approx(alone_loss, rel=1e-5)
    for name, alone in alone_gradients.items():
        scale = max(1.0, float(np.abs(alone).max()))
        np.testing.assert_allclose(together_gradients[name], alone, rtol=0, atol=2e-5 * scale, err_msg=name)
    assert any(np.abs(g).max() > 0 for g in together_gradients.values())


@pytest.mark.parametrize("system_id", ["hybrid", "eager"])
def test_a_sentence_explores_the_same_path_whatever_its_batch(system_id, sentences):
    """Losses add up over any split of the batch: each sentence samples from its own stream."""
    parser = untrained_parser(system_id, "chars", sentences)
    batch = examples_for(parser, sentences)[:BATCH]
    oracle = oracle_of(parser, "dynamic")
    whole, _ = lock_step(parser, batch, oracle, epoch=3)
    parts = [lock_step(parser, part, oracle, epoch=3)[0] for part in (batch[:1], batch[1:4], batch[4:])]
    assert whole == pytest.approx(sum(parts), rel=1e-5)
    other_epoch, _ = lock_step(parser, batch, oracle, epoch=4)
    assert other_epoch != pytest.approx(whole, rel=1e-3), "another epoch draws other paths"


def test_training_dropout_draws_a_mask_per_word_and_sentence(sentences):
    parser = untrained_parser("standard", "chars", sentences)
    parser.set_dropout(0.5)
    twice = [sentences[2].tokens, sentences[2].tokens]
    first, second = LockstepGraph(parser, train=True).start(twice, [random.Random(1), random.Random(1)])
    values = [[vector_value(v).npvalue() for v in config.vectors[1:]] for config in (first, second)]
    assert not np.allclose(values[0][0], values[1][0]), "the same word in two sentences shares a mask"
    assert not np.allclose(values[0][0] == 0, values[0][1] == 0), "two words share a mask"
    decoding = LockstepGraph(parser, train=False).start(twice)
    plain = [[vector_value(v).npvalue() for v in config.vectors[1:]] for config in decoding]
    np.testing.assert_allclose(plain[0][0], plain[1][0])  # no dropout when decoding


@pytest.mark.slow
def test_both_batchings_train_the_same_model(small_treebank, tmp_path):
    """One epoch at batch 4, exploring, with each batching: the same loss and dev scores."""
    records = {}
    for batching in ("lockstep", "autobatch"):
        options = StackLSTMOptions(
            train=str(small_treebank["train"]),
            dev=str(small_treebank["dev"]),
            model_dir=str(tmp_path / batching),
            features=["words", "pos"],
            system="arc-hybrid",
            oracle="dynamic",
            explore_after=0,
            epochs=1,
            batch_size=4,
            batching=batching,
        )
        records[batching] = train(options, log=io.StringIO())["epochs"][0]
    lockstep, autobatch = records["lockstep"], records["autobatch"]
    assert lockstep["loss_per_action"] == pytest.approx(autobatch["loss_per_action"], rel=1e-4)
    assert lockstep["dev_las"] == pytest.approx(autobatch["dev_las"], abs=0.01)
