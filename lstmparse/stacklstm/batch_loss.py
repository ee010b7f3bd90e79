"""Lock-step training: the loss of a minibatch of sentences, parsed together in one graph.

The sentences of a minibatch advance one transition per step, as in lock-step
decoding, with the same machinery (:mod:`~lstmparse.stacklstm.lockstep`): every
push, composition and action scoring is one batched DyNet operation for all of
them.  At each configuration with a choice the oracle (:mod:`~lstmparse.stacklstm.oracles`)
names the correct actions, and the loss is -log of their total probability; the
minibatch's loss is the sum of its sentences' (with ``joint_upos``, plus their
words' UPOS loss), exactly what :meth:`StackLSTMParser.oracle_loss` gives one
sentence at a time.

Scores are computed during the parse only for the configurations whose next
action depends on them (exploration, or a choice among several correct actions),
in one forward pass per step for the whole batch.  Every other configuration's
scores are needed only by the loss, so they are computed at the end, after one
:func:`~lstmparse.stacklstm.lockstep.materialize` of the whole minibatch: with the
static oracle that is every configuration, and each batched operation then spans
every step of every sentence.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import dynet as dy
import numpy as np

from lstmparse.stacklstm.examples import Example
from lstmparse.stacklstm.lockstep import LockstepConfiguration, LockstepGraph, Pointer, legal_log_softmax
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.oracles import Oracle

EXCLUDED = -1e30  # added to the score of an action outside a softmax: exp() of it is exactly 0


@dataclass
class _Parse:
    """One sentence's parse during training: its configuration, random stream and action count."""

    config: LockstepConfiguration
    example: Example
    rng: random.Random
    step: int = 0


@dataclass
class _Terms:
    """Configurations to score together: their stack tops, legal and correct actions."""

    tops: list[tuple[Pointer, Pointer, Pointer]] = field(default_factory=list)
    legal: list[list[int]] = field(default_factory=list)
    correct: list[list[int]] = field(default_factory=list)

    def add(self, config: LockstepConfiguration, legal: list[int], correct: list[int]) -> None:
        self.tops.append(config.tops())
        self.legal.append(legal)
        self.correct.append(correct)


def lockstep_loss(
    parser: StackLSTMParser, examples: Sequence[Example], oracle: Oracle, rngs: Sequence[random.Random]
) -> dy.Expression | None:
    """The summed loss of ``examples`` in a new graph (None when no configuration had a wrong choice).

    ``rngs`` are the sentences' own random streams, so each sentence draws what it
    would draw alone.
    """
    graph = LockstepGraph(parser, train=True)
    configs = graph.start([example.sentence.tokens for example in examples], rngs)
    parses = [_Parse(config, example, rng) for config, example, rng in zip(configs, examples, rngs, strict=True)]
    tagging = parser.tagging_loss(graph.token_table, [example.sentence.tokens for example in examples])
    deferred, losses = _Terms(), [] if tagging is None else [tagging]
    active = [parse for parse in parses if not parser.system.is_final(parse.config)]
    while active:
        losses.extend(_advance(parser, graph, oracle, active, deferred))
        active = [parse for parse in active if not parser.system.is_final(parse.config)]
    if deferred.tops:
        losses.append(_negative_log_likelihood(graph.scores(deferred.tops), deferred.legal, deferred.correct))
    return dy.esum(losses) if losses else None


def _advance(
    parser: StackLSTMParser, graph: LockstepGraph, oracle: Oracle, active: list[_Parse], deferred: _Terms
) -> list[dy.Expression]:
    """One transition of every active parse; the loss of the configurations scored now (if any).

    A configuration whose next action the oracle can name without the model's
    scores leaves its loss term in ``deferred``; the others are scored together now.
    """
    moves: list[tuple[_Parse, int]] = []
    now, waiting = _Terms(), []
    for parse in active:
        legal = parser.system.legal(parse.config)
        if len(legal) == 1:
            moves.append((parse, legal[0]))
            continue
        correct = oracle.correct(parse.config, parse.example, parse.step, legal)
        exploring = oracle.explores(correct, parse.rng)
        if oracle.needs_scores(correct, exploring):
            now.add(parse.config, legal, correct)
            waiting.append((parse, exploring))
            continue
        if len(correct) < len(legal):
            deferred.add(parse.config, legal, correct)
        moves.append((parse, oracle.follow(correct, legal, None, exploring, parse.rng)))
    losses = _follow_scores(graph, oracle, now, waiting, moves) if waiting else []
    for parse, action in moves:
        parser.step(parse.config, action)
        parse.step += 1
    return losses


def _follow_scores(
    graph: LockstepGraph,
    oracle: Oracle,
    now: _Terms,
    waiting: list[tuple[_Parse, bool]],
    moves: list[tuple[_Parse, int]],
) -> list[dy.Expression]:
    """Score ``now``'s configurations in one forward pass, add the actions they follow to ``moves``; their loss."""
    scores = graph.scores(now.tops)
    log_probs = legal_log_softmax(scores.npvalue().reshape(-1, len(waiting)), now.legal)
    for column, (parse, exploring) in enumerate(waiting):
        legal, correct = now.legal[column], now.correct[column]
        moves.append((parse, oracle.follow(correct, legal, log_probs[:, column], exploring, parse.rng)))
    learning = [column for column, correct in enumerate(now.correct) if len(correct) < len(now.legal[column])]
    if not learning:
        return []
    picked = scores if len(learning) == len(waiting) else dy.pick_batch_elems(scores, learning)
    return [_negative_log_likelihood(picked, [now.legal[c] for c in learning], [now.correct[c] for c in learning])]


def _negative_log_likelihood(
    scores: dy.Expression, legal: Sequence[Sequence[int]], correct: Sequence[Sequence[int]]
) -> dy.Expression:
    """The sum over batch elements of -log p(correct | legal) under the softmax of their ``scores``.

    Actions outside a set get a score of :data:`EXCLUDED`, so each element's
    log-sum-exp runs over its own set alone, as ``log_softmax`` with a restriction does.
    """
    n_actions = scores.dim()[0][0]
    normalizer = dy.logsumexp_dim(scores + _mask(legal, n_actions), 0)
    if all(len(actions) == 1 for actions in correct):
        target = dy.pick_batch(scores, [actions[0] for actions in correct])
    else:
        target = dy.logsumexp_dim(scores + _mask(correct, n_actions), 0)
    return dy.sum_batches(normalizer - target)


def _mask(allowed: Sequence[Sequence[int]], n_actions: int) -> dy.Expression:
    """A batched constant: 0 for the allowed actions of each element, :data:`EXCLUDED` for the others.

    Elements are grouped by their allowed set (a few kinds of configuration): one
    small input vector per kind, picked into the batch.  A whole (actions x batch)
    array through ``inputTensor`` would be copied number by number.
    """
    kinds: dict[tuple[int, ...], int] = {}
    rows = [kinds.setdefault(tuple(actions), len(kinds)) for actions in allowed]
    vectors = []
    for actions in kinds:
        mask = np.full(n_actions, EXCLUDED, dtype=np.float32)
        mask[list(actions)] = 0.0
        vectors.append(dy.inputVector(mask))
    if len(vectors) == 1:
        return vectors[0]  # broadcasts over the batch
    return dy.pick_batch_elems(dy.concatenate_to_batch(vectors), rows)
