"""The output layers' scores for a group of sentences of one length, from one tagger or the mean of several."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import dynet as dy
import numpy as np

from lstmparse.core.ensembles import log_softmax_columns, mixture_log_probs
from lstmparse.core.vocab import Vocabulary
from lstmparse.tagger.options import LEMMA


class ScoringTagger(Protocol):
    """What a member gives: the encoding of a group and an output layer's scores (``tagger.model.Tagger``)."""

    @property
    def vocabs(self) -> Mapping[str, Vocabulary]: ...

    def encode(self, group: Sequence[Sequence[str]], train: bool = False) -> tuple[dy.Expression, dy.Expression]: ...

    def column_scores(self, column: str, inputs: dy.Expression) -> dy.Expression: ...


class GroupOutputs:
    """The output layers' scores for one length group, column by column: one tagger's, or several taggers' mean.

    Each column is a (classes x words) array, words word-major as :meth:`Tagger.scores`
    lays them out, class 0 (the unknown value) ruled out.  One tagger's are its raw
    scores, so tagging alone computes exactly what it always did; several taggers'
    are the log of the mean of their probabilities (members with one set of outputs,
    checked by :class:`~lstmparse.tagger.ensemble.TaggerEnsemble`).  Each member
    encodes the group once, in the one graph; a column is computed when asked for.
    """

    def __init__(self, members: Sequence[ScoringTagger], group: Sequence[Sequence[str]]) -> None:
        self.members = list(members)
        self.encoded = [member.encode(group) for member in self.members]

    def column(self, name: str) -> np.ndarray:
        """A tag column's or a feature's scores over every word of the group."""
        return self._mean(name, [hidden for hidden, _ in self.encoded])

    def lemma_rules(self, positions: list[int]) -> np.ndarray:
        """The lemma rules' scores over the words at ``positions`` (the others need none)."""
        return self._mean(LEMMA, [dy.pick_batch_elems(lemma_input, positions) for _, lemma_input in self.encoded])

    def _mean(self, name: str, inputs: list[dy.Expression]) -> np.ndarray:
        values = []
        for member, vectors in zip(self.members, inputs, strict=True):
            scores = member.column_scores(name, vectors).npvalue().reshape(len(member.vocabs[name]), -1)
            scores[0] = -np.inf  # never the unknown value
            values.append(scores)
        if len(values) == 1:
            return values[0]
        return mixture_log_probs([log_softmax_columns(scores) for scores in values])
