"""The stack-LSTM's graphs leave no infinity or NaN in DyNet's memory for a later graph to read.

DyNet's CPU matrix product (``*`` of two expressions) first scales its output
memory by zero (``y = 0 * y``), then adds the product.  The output memory is
whatever an earlier graph left in the pool: a finite leftover becomes exactly
0, but minus infinity becomes NaN, and the whole column with it.  DyNet's
restricted ``log_softmax(x, legal)`` writes minus infinity for the other
rows; the oracle loss once used it, and a seq2seq parser trained later in the
same process got NaN gradients (session 13).  A probe graph whose first
product covers the pool's first 4 MiB finds such leftovers: every training
and decoding path of every transition system and oracle is checked with it.
"""

from __future__ import annotations

import dynet as dy
import numpy as np
import pytest
from conftest import HU, first_sentences
from test_every_path import SYSTEMS, untrained_parser
from test_lockstep_training import examples_for, lock_step, one_graph_per_sentence, oracle_of

from lstmparse.io.formats import read_treebank
from lstmparse.stacklstm.api import Parser
from lstmparse.stacklstm.oracles import ORACLES
from lstmparse.stacklstm.systems import SYSTEMS as SYSTEM_TYPES

SIDE = 1024  # the probe's product is SIDE x SIDE floats: 4 MiB of the pool after its two operands
CASES = [
    (system_id, oracle)
    for system_id, (system, _) in SYSTEMS.items()
    for oracle in ORACLES
    if SYSTEM_TYPES[system].has_oracle(oracle)
]


class Probe:
    """A column times a row of ones: the product's memory, read back, shows what was left there."""

    def __init__(self) -> None:
        self.model = dy.ParameterCollection()
        self.column = self.model.add_parameters((SIDE, 1), init=dy.ConstInitializer(1.0))
        self.row = self.model.add_parameters((1, SIDE), init=dy.ConstInitializer(1.0))

    def non_finite_leftovers(self) -> int:
        dy.renew_cg()
        product = (self.column.expr() * self.row.expr()).npvalue()
        return int((~np.isfinite(product)).sum())


@pytest.fixture(scope="module")
def sentences(tmp_path_factory):
    path = tmp_path_factory.mktemp("hu_finite") / "train.conllu"
    path.write_text(first_sentences(HU / "train.conllu", 60), encoding="utf-8")
    return read_treebank(str(path))


@pytest.fixture(scope="module")
def probe() -> Probe:
    return Probe()


def test_the_probe_finds_the_minus_infinity_of_a_restricted_log_softmax(probe: Probe) -> None:
    """The mechanism itself: what the test below would see if a graph left minus infinity behind."""
    assert probe.non_finite_leftovers() == 0
    dy.renew_cg()
    padding = dy.inputVector(np.zeros(2 * SIDE + 64))  # past the probe's operands
    restricted = dy.log_softmax(dy.inputVector(np.arange(100.0)), [3, 5])
    padding.npvalue()
    assert np.isinf(restricted.npvalue()).sum() == 98
    assert probe.non_finite_leftovers() > 0
    dy.renew_cg()
    dy.inputVector(np.zeros(SIDE * SIDE + 4 * SIDE)).npvalue()  # finite values over it all
    assert probe.non_finite_leftovers() == 0


@pytest.mark.parametrize(("system_id", "oracle"), CASES, ids=["-".join(case) for case in CASES])
def test_training_and_decoding_leave_only_finite_values(system_id, oracle, sentences, probe: Probe) -> None:
    """One-sentence and lock-step losses with their gradients, then greedy decoding (joint UPOS included)."""
    parser = untrained_parser(system_id, "joint-upos", sentences)
    batch = examples_for(parser, sentences)[:6]
    chosen = oracle_of(parser, oracle)
    one_graph_per_sentence(parser, batch, chosen)
    assert probe.non_finite_leftovers() == 0, "a one-sentence loss left infinities"
    lock_step(parser, batch, chosen)
    assert probe.non_finite_leftovers() == 0, "a lock-step loss left infinities"
    api = Parser(parser)
    for batch_size in (1, 4):
        list(api.parse(sentences[:6], batch_size=batch_size))
        assert probe.non_finite_leftovers() == 0, f"decoding in batches of {batch_size} left infinities"
    list(api.parse_kbest(sentences[:4], beam=3, kbest=2, batch_size=4))
    assert probe.non_finite_leftovers() == 0, "beam search left infinities"
