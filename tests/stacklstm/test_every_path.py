"""Every path computes the same model, for every transition system and feature set.

Two defects of this kind once went unnoticed because only one model was tested:
arc-hybrid's RIGHT left the head's pre-composition vector in the stack LSTM, and a
word's FEATS vector changed with the feature counts of the other words in its
batch.  These tests check the invariants themselves over the whole matrix of
systems (with and without pseudo-projective encoding) and token features:

- after every transition, each stack LSTM holds each element's current vector;
- a token vector is the same alone, in its sentence and in a batch of sentences;
- one sentence per graph, lock-step greedy and beam 1 give the same trees, and
  ``--jobs 2`` writes byte for byte what ``--jobs 1`` writes.

The decoders are compared on *scrambled* models (every weight drawn again from
N(0, 1)): equivalence is a property of the computation, not of training, and wide
random weights make varied trees and labels, as a trained model does (an untrained
model attaches every word the same way, which would hide a wrong decision).  One
trained model per system checks the same on weights that training wrote and saved.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import dynet as dy
import numpy as np
import pytest

from lstmparse.io.formats import read_treebank
from lstmparse.stacklstm.api import Parser
from lstmparse.stacklstm.lockstep import LockstepGraph, vector_value
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.options import StackLSTMDimensions, StackLSTMOptions
from lstmparse.stacklstm.systems import make_system
from lstmparse.stacklstm.training import build_vocabularies, train

SYSTEMS = {  # id: (system, pseudo-projective); arc-swap builds non-projective trees itself
    "standard": ("arc-standard", False),
    "standard-pp": ("arc-standard", True),
    "swap": ("arc-swap", False),
    "hybrid": ("arc-hybrid", False),
    "hybrid-pp": ("arc-hybrid", True),
    "eager": ("arc-eager", False),
}
FEATURE_SETS = {  # id: (features, bi-LSTM layers over the token vectors)
    "feats": (["words", "feats"], 0),
    "chars": (["words", "chars"], 0),
    "pretrained-pos": (["words", "pos", "pretrained"], 0),
    "all-context": (["words", "pos", "feats", "chars", "pretrained"], 1),
    "joint-upos": (["words", "chars", "pretrained"], 1),
    "encoder-context": (["words", "pos", "encoder"], 1),
}
JOINT_UPOS = {"joint-upos"}  # feature sets whose context layers also predict UPOS (--joint-upos)
SMALL = {
    "word": 8,
    "pos": 4,
    "feats": 4,
    "char_embedding": 8,
    "chars": 8,
    "token": 16,
    "lstm": 16,
    "layers": 1,
    "composition_action": 4,
    "action_history": 4,
    "state": 8,
}
MATRIX = [(s, f) for s in SYSTEMS for f in FEATURE_SETS]
# the encoder's vectors come before any transition: one system shows that each process computes them alike
PROCESS_MATRIX = [(s, f) for s, f in MATRIX if f != "encoder-context" or s == "standard"]


@pytest.fixture(scope="module")
def trained(hungarian, tmp_path_factory):
    """A small model per (system, feature set), trained for two epochs on demand (the tests ask for one per system)."""
    models: dict[tuple[str, str], Path] = {}

    def model(system_id: str, features_id: str) -> Path:
        if (system_id, features_id) not in models:
            system, pseudo_projective = SYSTEMS[system_id]
            features, _ = FEATURE_SETS[features_id]
            directory = tmp_path_factory.mktemp(f"{system_id}-{features_id}")
            options = StackLSTMOptions(
                train=str(hungarian["train"]),
                model_dir=str(directory),
                features=features,
                system=system,
                pseudo_projective=pseudo_projective,
                epochs=2,
                pretrained=str(hungarian["vectors"]) if "pretrained" in features else None,
                dims=dimensions(features_id),
            )
            train(options, log=io.StringIO())
            models[system_id, features_id] = directory
        return models[system_id, features_id]

    return model


def untrained_parser(system_id: str, features_id: str, sentences) -> StackLSTMParser:
    system_name, pseudo_projective = SYSTEMS[system_id]
    features, _ = FEATURE_SETS[features_id]
    labels = {t.deprel for s in sentences for t in s.tokens}
    system = make_system(system_name, labels, "root")
    vocabs = build_vocabularies(sentences, ["a", "the"])
    return StackLSTMParser(system, features, vocabs, dimensions(features_id), 6, pseudo_projective)


def dimensions(features_id: str) -> StackLSTMDimensions:
    _, context_layers = FEATURE_SETS[features_id]
    return StackLSTMDimensions(**SMALL, context_layers=context_layers, joint_upos=features_id in JOINT_UPOS)


def scrambled_parser(system_id: str, features_id: str, sentences, seed: int = 0) -> StackLSTMParser:
    """An untrained parser whose every weight is drawn again from N(0, 1): varied trees without training."""
    parser = untrained_parser(system_id, features_id, sentences)
    rng = np.random.default_rng(seed)
    for parameter in parser.model.parameters_list():
        parameter.set_value(rng.normal(0.0, 1.0, parameter.shape()))
    for table in parser.model.lookup_parameters_list():
        table.init_from_array(rng.normal(0.0, 1.0, table.shape()))
    return parser


def held_inputs(pointer) -> list:
    """The element vectors a stack LSTM was fed, from its top down."""
    inputs = []
    while pointer.depth > 0:
        inputs.append(pointer.input)
        pointer = pointer.below
    return inputs


def assert_stack_lstms_hold_current_vectors(config) -> None:
    for top, items in ((config.stack_top, config.stack), (config.buffer_top, config.buffer)):
        held = held_inputs(top)
        current = [config.vectors[item] for item in reversed(items)]
        assert len(held) == len(current)
        stale = [item for item, a, b in zip(reversed(items), held, current, strict=True) if a is not b]
        assert not stale, f"elements {stale} are held with an old vector"


def random_transitions(parser, config, rng: random.Random, check) -> None:
    """Random legal transitions to the end (or a step limit: SWAP can wander), checking after each."""
    limit = 4 * config.n * config.n + 10
    for _ in range(limit):
        if parser.system.is_final(config):
            return
        parser.step(config, rng.choice(parser.system.legal(config)))
        check(config)


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_every_stack_lstm_sees_each_elements_current_vector(system_id, hungarian):
    sentences = read_treebank(str(hungarian["train"]))
    parser = untrained_parser(system_id, "all-context", sentences)
    rng = random.Random(7)
    for sentence in sentences[:25]:
        for _ in range(3):
            dy.renew_cg()
            config = parser.start(sentence.tokens, train=False)  # one graph per sentence
            random_transitions(parser, config, rng, assert_stack_lstms_hold_current_vectors)
            (config,) = LockstepGraph(parser).start([sentence.tokens])  # pending pushes and compositions
            random_transitions(parser, config, rng, assert_stack_lstms_hold_current_vectors)


@pytest.mark.parametrize("features_id", list(FEATURE_SETS))
def test_a_token_vector_does_not_depend_on_the_rest_of_the_batch(features_id, hungarian):
    """Alone, in its sentence, or in a batch of sentences (as lock-step decoding encodes them)."""
    sentences = read_treebank(str(hungarian["train"]))
    parser = untrained_parser("standard", features_id, sentences)
    feature_counts = [t.feats.count("|") for t in sentences[3].tokens]
    assert len(set(feature_counts)) > 1, "the test needs words with different numbers of features"

    def vectors_of(batch: list, which: int) -> list[np.ndarray]:
        config = LockstepGraph(parser).start([s.tokens for s in batch])[which]
        vectors = config.vectors[1:]  # after the root
        return [vector_value(v).npvalue() for v in vectors]

    target = sentences[3]
    alone = vectors_of([target], 0)
    for batch, which in (([sentences[0], target, sentences[9]], 1), (sentences[:12], 3)):
        for mine, there in zip(alone, vectors_of(batch, which), strict=True):
            np.testing.assert_allclose(there, mine, rtol=0, atol=1e-6)
    dy.renew_cg()
    one_sentence_graph = [v.npvalue() for v in parser.tokens.encode(target.tokens, train=False)]
    for mine, there in zip(alone, one_sentence_graph, strict=True):
        np.testing.assert_allclose(there, mine, rtol=0, atol=1e-6)
    if not FEATURE_SETS[features_id][1]:  # without a context bi-LSTM, a word is encoded from itself alone
        for position, token in enumerate(target.tokens):
            dy.renew_cg()
            (word_alone,) = parser.tokens.encode([token], train=False)
            np.testing.assert_allclose(word_alone.npvalue(), alone[position], rtol=0, atol=1e-6)


@pytest.fixture(scope="module")
def scrambled(hungarian):
    """A scrambled parser per (system, feature set), made on demand."""
    sentences = read_treebank(str(hungarian["train"]))
    return lambda system_id, features_id: scrambled_parser(system_id, features_id, sentences)


@pytest.mark.parametrize(("system_id", "features_id"), MATRIX, ids=[f"{s}-{f}" for s, f in MATRIX])
def test_greedy_decoders_give_the_same_trees(system_id, features_id, scrambled, hungarian):
    assert_greedy_decoders_agree(Parser(scrambled(system_id, features_id)), hungarian)


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_trained_models_decode_alike_on_every_path(system_id, trained, hungarian):
    parser = Parser.load(trained(system_id, "all-context"))
    assert_greedy_decoders_agree(parser, hungarian)
    assert_each_sentence_has_its_own_kbest_list(parser, hungarian)


def assert_greedy_decoders_agree(parser: Parser, hungarian) -> None:
    dev = read_treebank(str(hungarian["dev"]))[:80]
    one_per_graph = [(s.heads, s.deprels) for s in parser.parse(dev, batch_size=1)]
    assert [(s.heads, s.deprels) for s in parser.parse(dev, batch_size=16)] == one_per_graph
    assert [(s.heads, s.deprels) for s in parser.parse(dev, batch_size=64)] == one_per_graph
    beam_one = [(k[0].heads, k[0].deprels) for k in parser.parse_kbest(dev, beam=1, kbest=1, batch_size=7)]
    assert beam_one == one_per_graph


@pytest.mark.parametrize(("system_id", "features_id"), MATRIX, ids=[f"{s}-{f}" for s, f in MATRIX])
def test_beam_search_gives_each_sentence_its_own_kbest_list(system_id, features_id, scrambled, hungarian):
    assert_each_sentence_has_its_own_kbest_list(Parser(scrambled(system_id, features_id)), hungarian)


def assert_each_sentence_has_its_own_kbest_list(parser: Parser, hungarian) -> None:
    dev = read_treebank(str(hungarian["dev"]))[:24]
    alone = list(parser.parse_kbest(dev, beam=3, kbest=2, batch_size=3))  # one sentence per batch
    together = list(parser.parse_kbest(dev, beam=3, kbest=2, batch_size=48))
    assert [[(c.heads, c.deprels) for c in k] for k in together] == [[(c.heads, c.deprels) for c in k] for k in alone]
    # float32 sums in batches of other sizes: equal to a few parts in 10^4 (scrambled weights make large scores)
    expected = [score(c) for k in alone for c in k]
    assert [score(c) for k in together for c in k] == pytest.approx(expected, rel=1e-3, abs=1e-3)


def score(candidate) -> float:
    return float(next(line for line in candidate.lines if line.startswith("# parser_score = ")).split("= ")[1])


@pytest.mark.parametrize(("system_id", "features_id"), PROCESS_MATRIX, ids=[f"{s}-{f}" for s, f in PROCESS_MATRIX])
def test_two_processes_write_what_one_writes(system_id, features_id, scrambled, hungarian, tmp_path):
    """300 sentences: more than one chunk, so both workers parse (and batch) their own share."""
    model = tmp_path / "scrambled"
    scrambled(system_id, features_id).save(str(model))
    outputs = []
    for jobs in (1, 2):
        command = [
            sys.executable,
            "-m",
            "cli",
            "parse",
            "--model",
            str(model),
            "--input",
            str(hungarian["dev"]),
            "--jobs",
            str(jobs),
            "--quiet",
        ]
        outputs.append(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    assert outputs[0].count("\n\n") == 300
    assert outputs[1] == outputs[0]
