"""Several stack-LSTM parsers decoded as one: each step follows the mean of their action distributions.

Members trained alone (other seeds, features or oracles) make different mistakes;
averaging their probabilities of the next action, step by step, as the seq2seq
ensemble averages next-token distributions, gives one parser that is usually more
accurate than any member (docs/experiments/beam.md has the figures) and as slow as all of
them together.  The members follow one derivation: the transition state (stack,
buffer, arcs) is shared, while each member keeps its own stack LSTMs over its own
token vectors, in one DyNet graph.  Greedy and beam decoding are
:class:`~lstmparse.stacklstm.decoding.BatchDecoder`'s, with the members' mean in
place of one model's distribution, so every search the single parser has (lock-step
batches, beam, k-best, confidence) works for an ensemble and gives the same trees
whatever else is in the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

import dynet as dy
import numpy as np

from lstmparse.core.ensembles import checked_members, member_directories, mixture_log_probs
from lstmparse.core.records import ModelRecord
from lstmparse.io.formats import Token
from lstmparse.stacklstm.decoding import BatchDecoder
from lstmparse.stacklstm.lockstep import LockstepConfiguration, LockstepGraph, legal_log_softmax
from lstmparse.stacklstm.model import StackLSTMParser


class StackLSTMEnsemble:
    """Member parsers with one transition system and label set, used where one parser is."""

    def __init__(self, members: Sequence[StackLSTMParser]) -> None:
        mismatch = "an ensemble's parsers share one transition system, label set and projectivity"
        self.members = checked_members(members, _outputs, mismatch)
        first = self.members[0]
        self.system = first.system
        self.pseudo_projective = first.pseudo_projective
        # what the input must fill: every column some member reads
        self.features = list(dict.fromkeys(feature for member in members for feature in member.features))

    @classmethod
    def load(cls, directory: str | Path | ModelRecord) -> StackLSTMEnsemble:
        return cls([StackLSTMParser.load(str(member)) for member in member_directories(directory)])

    def step(self, config: EnsembleConfiguration, action: int) -> None:
        """Apply ``action`` to every member's view of the parse."""
        for member, view in zip(self.members, config.views, strict=True):
            member.step(view, action)

    def finished_tree(self, config: EnsembleConfiguration) -> tuple[list[int], list[str]]:
        return self.members[0].finished_tree(config.views[0])

    def parse(self, tokens: Sequence[Token]) -> tuple[list[int], list[str]]:
        """Greedy decoding of one sentence: (heads, deprels)."""
        (best,) = EnsembleDecoder(self).parse([tokens])[0]
        return best.heads, best.labels


def _outputs(parser: StackLSTMParser) -> tuple:
    """What members must share: the actions whose probabilities are averaged (as ``ensembles`` checks on disk)."""
    system = parser.system
    return system.name, tuple(system.labels), system.root_label, parser.pseudo_projective


class EnsembleConfiguration:
    """One parse as every member sees it: the transition state is the first view's, the vectors each member's.

    The decoder reads the transition state (stack, buffer, ``is_final``) through
    this object as it reads a :class:`LockstepConfiguration`; the score and each
    word's attaching log-probability are the ensemble's, kept here.
    """

    def __init__(self, views: list[LockstepConfiguration]) -> None:
        self.views = views
        self.score = 0.0
        self.arc_log_probs = [0.0] * len(views[0].arc_log_probs)

    def __getattr__(self, name: str):
        return getattr(self.views[0], name)  # the transition state, equal in every view

    def copy(self) -> EnsembleConfiguration:
        clone = EnsembleConfiguration([view.copy() for view in self.views])
        clone.score, clone.arc_log_probs = self.score, self.arc_log_probs[:]
        return clone

    # the arcs made so far are read through the first view; the score and log-probabilities are this object's
    take = LockstepConfiguration.take


class EnsembleDecoder(BatchDecoder):
    """Greedy and beam decoding over the members' mean action distribution.

    The decoder is written for one parser and its configurations; it reads of them
    only what an ensemble and an :class:`EnsembleConfiguration` also have (the
    system, ``step``, ``finished_tree``; the transition state, ``score``, ``take``,
    ``copy``), so they are handed to it as such (the casts below).
    """

    def __init__(self, ensemble: StackLSTMEnsemble) -> None:
        super().__init__(cast(StackLSTMParser, ensemble))
        self.ensemble = ensemble

    def _start(self, sentences: Sequence[Sequence[Token]]) -> list[LockstepConfiguration]:
        dy.renew_cg(autobatching=False)  # one graph shared by the members
        self.graphs = [LockstepGraph(member, fresh=False) for member in self.ensemble.members]
        starts = [graph.start(sentences) for graph in self.graphs]
        return cast(
            list[LockstepConfiguration], [EnsembleConfiguration(list(views)) for views in zip(*starts, strict=True)]
        )

    def _log_probs(self, configs: list[LockstepConfiguration], legal: list[list[int]]) -> np.ndarray:
        """Log of the members' mean probability of each action, one column per configuration."""
        views = [config.views for config in cast(list[EnsembleConfiguration], configs)]
        member_log_probs = []
        for k, graph in enumerate(self.graphs):
            scores = graph.scores([view[k].tops() for view in views]).npvalue()
            member_log_probs.append(legal_log_softmax(scores.reshape(-1, len(configs)), legal))
        return mixture_log_probs(member_log_probs)
