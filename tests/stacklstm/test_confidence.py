"""`parse --confidence`: each word's number is the probability of the action that attached it (greedy) or its arc's
share of the k-best mass (kbest), the same whatever the batch, and written where the README says."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from conftest import HU, ROOT, first_sentences
from test_every_path import SYSTEMS, untrained_parser

from lstmparse.io.formats import read_treebank, sentences_from_text
from lstmparse.stacklstm.api import Parser, kbest_confidence
from lstmparse.stacklstm.decoding import BatchDecoder, DecodedTree
from lstmparse.stacklstm.lockstep import LockstepGraph


@pytest.fixture(scope="module")
def sentences(tmp_path_factory):
    path = tmp_path_factory.mktemp("hu_confidence") / "train.conllu"
    path.write_text(first_sentences(HU / "train.conllu", 40), encoding="utf-8")
    return read_treebank(str(path))


def attaching_log_probs(parser, tokens) -> list[float]:
    """Decode greedily by hand, one step at a time, and note for each word the log-probability of the step
    that gave it a head (found by comparing the heads before and after, not by the decoder's bookkeeping)."""
    decoder = BatchDecoder(parser)
    decoder.graph = LockstepGraph(parser)
    (config,) = decoder.graph.start([tokens])
    found = [0.0] * len(tokens)
    while not parser.system.is_final(config):
        legal = parser.system.legal(config)
        action, log_prob = legal[0], 0.0
        if len(legal) > 1:
            log_probs = decoder._log_probs([config], [legal])[:, 0]
            action = int(np.argmax(log_probs))
            log_prob = float(log_probs[action])
        before = list(config.heads)
        parser.step(config, action)
        for word in range(1, len(tokens) + 1):
            if before[word] is None and config.heads[word] is not None:
                found[word - 1] = log_prob
    return found


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_greedy_confidence_is_the_attaching_actions_probability(system_id, sentences):
    parser = untrained_parser(system_id, "chars", sentences)
    for sentence in sentences[:8]:
        (tree,) = BatchDecoder(parser).parse([sentence.tokens])[0]
        expected = attaching_log_probs(parser, sentence.tokens)
        np.testing.assert_allclose(tree.arc_log_probs, expected, rtol=0, atol=1e-5)
        assert tree.score <= sum(tree.arc_log_probs) + 1e-6  # the tree's probability takes every action


@pytest.mark.parametrize("system_id", ["swap", "hybrid-pp"])
def test_confidence_does_not_depend_on_the_batch(system_id, sentences):
    parser = Parser(untrained_parser(system_id, "chars", sentences))
    for kind, search in (("greedy", (1, 1)), ("kbest", (4, 3))):
        alone = [c[0].to_conllu() for c in parser.candidates(sentences, *search, search[0], kind)]
        together = [c[0].to_conllu() for c in parser.candidates(sentences, *search, 64, kind)]
        assert alone == together
        assert all("Conf=" in line for text in alone for line in text.splitlines() if line[:1].isdigit())


def test_kbest_confidence_is_the_arcs_share_of_the_list():
    trees = [
        DecodedTree([2, 0], ["nsubj", "root"], math.log(0.5)),
        DecodedTree([0, 1], ["root", "obj"], math.log(0.3)),
        DecodedTree([2, 0], ["obj", "root"], math.log(0.2)),
    ]
    per_word, per_tree = kbest_confidence(trees)
    assert per_tree == pytest.approx([0.5, 0.3, 0.2])
    assert per_word[0] == pytest.approx([0.5, 0.7])  # word 2 is the root in trees 1 and 3
    assert per_word[1] == pytest.approx([0.3, 0.3])
    assert per_word[2] == pytest.approx([0.2, 0.7])


def test_the_cli_writes_confidence_in_misc_and_keeps_the_rest(tmp_path):
    text = "Dogs chase the cats.\nI saw her duck.\n"
    outputs = {}
    for kind in ("greedy", "kbest"):
        command = [sys.executable, "-m", "lstmparse", "parse", "--input-format", "presegmented", "--quiet"]
        result = subprocess.run([*command, "--confidence", kind], input=text, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        outputs[kind] = sentences_from_text(result.stdout)
    plain = subprocess.run([*command], input=text, capture_output=True, text=True).stdout
    for kind, parsed in outputs.items():
        assert len(parsed) == 2
        for sentence in parsed:
            values = [w.confidence for w in sentence]
            assert all(0 < v <= 1 for v in values), kind
            assert 0 < float(sentence.metadata["parse_confidence"]) <= 1
            assert any(w.misc.startswith("SpaceAfter=No|Conf=") for w in sentence)  # MISC keeps what it had
    assert [s.heads for s in outputs["greedy"]] == [s.heads for s in sentences_from_text(plain)]
    sample = ["--input", str(ROOT / "data" / "sample.conllu"), "--confidence", "greedy"]
    one, two = (
        subprocess.run([*command[:-3], *sample, "--jobs", jobs, "--quiet"], capture_output=True, text=True).stdout
        for jobs in ("1", "2")
    )
    assert one == two and one.count("Conf=") == sum(len(s) for s in sentences_from_text(one))
