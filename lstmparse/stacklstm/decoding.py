"""Fast decoding: many parses advanced in lock-step, greedy or with a beam.

The sentences of a batch, or the K hypotheses of a beam, or both, move forward
together in one graph (:mod:`~lstmparse.stacklstm.lockstep`, the machinery lock-step
training shares), scored by one batched forward pass per step.  Greedy decoding has
its own loop without the beam's bookkeeping, and gives the trees of
:meth:`StackLSTMParser.parse`.  Beam search ranks the successors of all sentences of
a batch with one partial sort per step.  bench/RESULTS.md has the speed of each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from lstmparse.io.formats import Token
from lstmparse.stacklstm.lockstep import LockstepConfiguration, LockstepGraph, legal_log_softmax
from lstmparse.stacklstm.model import StackLSTMParser


@dataclass
class DecodedTree:
    """A complete parse, its total log-probability under the model, and each word's attaching action's.

    ``arc_log_probs[i]`` is the log-probability the parser gave the action that
    attached word ``i + 1`` (0.0 where that move was forced), given the
    derivation so far: a greedy action probability, not a marginal over trees.
    """

    heads: list[int]
    labels: list[str]
    score: float
    arc_log_probs: list[float] = field(default_factory=list)


class BatchDecoder:
    """Greedy and beam decoding of batches of sentences with a trained parser."""

    def __init__(self, parser: StackLSTMParser) -> None:
        self.parser = parser
        self.system = parser.system
        self.finished = len(parser.system.actions)  # the id of FINISHED, a finished hypothesis's one option

    def parse(self, sentences: Sequence[Sequence[Token]], beam: int = 1, kbest: int = 1) -> list[list[DecodedTree]]:
        """The ``kbest`` best distinct trees of each sentence, best first, found with a beam.

        Different action sequences can build the same tree (arc-standard has
        spurious ambiguity), so only the best derivation of each tree is kept and
        fewer than ``kbest`` trees may come back.
        """
        if beam < 1 or kbest < 1:
            raise ValueError("beam and kbest must be at least 1")
        if not sentences:
            return []
        beams = [[config] for config in self._start(sentences)]
        if beam == 1:
            self._decode_greedily([hypotheses[0] for hypotheses in beams])
        else:
            self._search(beams, beam)
        return [self._candidates(hypotheses, kbest) for hypotheses in beams]

    def _start(self, sentences: Sequence[Sequence[Token]]) -> list[LockstepConfiguration]:
        """The initial configuration of each sentence, in a fresh graph."""
        self.graph = LockstepGraph(self.parser)
        return self.graph.start(sentences)

    def _decode_greedily(self, configs: list[LockstepConfiguration]) -> None:
        """Beam 1 without the beam's bookkeeping: each step, every parse takes its best legal action."""
        system, step = self.system, self.parser.step
        unfinished = [config for config in configs if not system.is_final(config)]
        while unfinished:
            legal = [system.legal(config) for config in unfinished]
            actions = [options[0] for options in legal]
            gains = [0.0] * len(unfinished)
            to_score = [i for i, options in enumerate(legal) if len(options) > 1]
            if to_score:
                log_probs = self._log_probs([unfinished[i] for i in to_score], [legal[i] for i in to_score])
                best = np.argmax(log_probs, axis=0)
                best_log_probs = log_probs[best, np.arange(len(to_score))]
                for i, action, gain in zip(to_score, best.tolist(), best_log_probs.tolist(), strict=True):
                    actions[i], gains[i] = action, gain
            for config, action, gain in zip(unfinished, actions, gains, strict=True):
                config.take(step, action, gain)
            unfinished = [config for config in unfinished if not system.is_final(config)]

    def _search(self, beams: list[list[LockstepConfiguration]], beam: int) -> None:
        """Beam search, in place: each step, every sentence keeps its ``beam`` best successors.

        A step's options are laid out as one array, sentences x hypotheses x
        (actions + FINISHED), so that the best successors of all sentences are
        found with one sort.  A finished hypothesis competes through its FINISHED
        option at its own score.
        """
        finished = self.finished
        active = [i for i, hypotheses in enumerate(beams) if not self._all_final(hypotheses)]
        while active:
            totals = self._option_totals([beams[i] for i in active], beam)
            flat = totals.reshape(len(active), -1)
            best = _best_columns(flat, beam)
            for row, i in enumerate(active):
                values = flat[row, best[row]]
                options = best[row][values > -np.inf]  # fewer than ``beam`` when fewer moves exist
                beams[i] = self._successors(
                    beams[i],
                    [divmod(option, finished + 1) for option in options.tolist()],
                    values[values > -np.inf].tolist(),
                )
            active = [i for i in active if not self._all_final(beams[i])]

    def _all_final(self, hypotheses: list[LockstepConfiguration]) -> bool:
        return all(self.system.is_final(config) for config in hypotheses)

    def _option_totals(self, beams: list[list[LockstepConfiguration]], beam: int) -> np.ndarray:
        """Total log-probability of every successor: [sentence, hypothesis, action or FINISHED] (-inf: none)."""
        system, finished = self.system, self.finished
        totals = np.full((len(beams), beam, finished + 1), -np.inf)
        to_score, legal, rows, columns = [], [], [], []
        for row, hypotheses in enumerate(beams):
            for column, config in enumerate(hypotheses):
                if system.is_final(config):
                    totals[row, column, finished] = config.score
                    continue
                actions = system.legal(config)
                if len(actions) == 1:  # a forced move: nothing to score
                    totals[row, column, actions[0]] = config.score
                    continue
                to_score.append(config)
                legal.append(actions)
                rows.append(row)
                columns.append(column)
        if to_score:
            scores = np.array([config.score for config in to_score])
            totals[rows, columns, :finished] = (self._log_probs(to_score, legal) + scores).T
        return totals

    def _log_probs(self, configs: list[LockstepConfiguration], legal: list[list[int]]) -> np.ndarray:
        """Log-probabilities of the actions, one column per configuration (-inf where not legal)."""
        scores = self.graph.scores([config.tops() for config in configs]).npvalue()
        return legal_log_softmax(scores.reshape(-1, len(configs)), legal)

    def _successors(
        self, hypotheses: list[LockstepConfiguration], moves: list[tuple[int, int]], totals: list[float]
    ) -> list[LockstepConfiguration]:
        """The hypotheses that ``moves`` (parent, action) lead to, with their total scores."""
        uses = Counter(parent for parent, _ in moves)
        successors = []
        for (parent, action), total in zip(moves, totals, strict=True):
            config = hypotheses[parent]
            uses[parent] -= 1
            if uses[parent]:  # a later successor still needs the original
                config = config.copy()
            if action != self.finished:
                config.take(self.parser.step, action, total - config.score)
                config.score = total  # the exact total, free of the rounding of the sum
            successors.append(config)
        return successors

    def _candidates(self, hypotheses: list[LockstepConfiguration], kbest: int) -> list[DecodedTree]:
        best: dict[tuple, DecodedTree] = {}
        for config in sorted(hypotheses, key=lambda c: -c.score):
            heads, labels = self.parser.finished_tree(config)
            tree = DecodedTree(heads, labels, config.score, config.arc_log_probs[1:])
            best.setdefault((tuple(heads), tuple(labels)), tree)
        return list(best.values())[:kbest]


def _best_columns(values: np.ndarray, k: int) -> np.ndarray:
    """The columns of the ``k`` largest values of each row, largest first.

    A partial selection, then a sort of only the ``k`` chosen (ties among them go
    to the lower column): most of a row is the -inf of illegal actions.
    """
    if values.shape[1] > k:
        chosen = np.argpartition(-values, k - 1, axis=1)[:, :k]
    else:
        chosen = np.broadcast_to(np.arange(values.shape[1]), values.shape)
    order = np.lexsort((chosen, -np.take_along_axis(values, chosen, axis=1)), axis=1)
    return np.take_along_axis(chosen, order, axis=1)
