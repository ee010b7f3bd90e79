"""Tagging many sentences: groups of one length, each one graph, and the UPOS a caller already knows.

A group of sentences of one length is one dense batched graph (no padding), so a
sentence's tags never depend on the others in its group.  A caller that already
has a sentence's UPOS (the input's, or a joint parser's, ``stacklstm/joint_tags.py``)
passes it: the tagger then takes XPOS, FEATS and lemmas for that UPOS, so the
columns agree with each other and follow the better tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import dynet as dy
import numpy as np

from lstmparse.core.batching import batches, length_batches
from lstmparse.core.ensembles import TagDistribution, log_softmax_columns, mixture_log_probs
from lstmparse.io.formats import BLANK_VALUES

TAGGING_GROUP = 64  # sentences of one length tagged in one graph (more take more memory, for no speed)
TAGGING_WORDS = 512  # and no more words than this (unless one sentence has more): a graph's memory grows with them


class GroupTagger(Protocol):
    """What tags a length group: a :class:`~lstmparse.tagger.model.Tagger`, or an ensemble of them."""

    def prepare(self, forms: Sequence[Sequence[str]]) -> None: ...

    def predict(
        self,
        group: Sequence[Sequence[str]],
        upos: Sequence[Sequence[str]] | None = None,
        others: Sequence[TagDistribution | None] | None = None,
    ) -> list[dict[str, list[str]]]: ...


def length_groups(items: Sequence, length_of, max_items: int, max_words: int | None = None) -> list[list[int]]:
    """Indices of ``items`` grouped by length, groups longest first: at most ``max_items`` per group, and at most
    ``max_words`` words (``length_of`` summed; at least one item)."""
    longest_first = sorted(range(len(items)), key=lambda index: -length_of(items[index]))  # stable: input order

    def words(index: int) -> int:  # an empty item counts as a word, so that it too is bounded by max_words
        return max(length_of(items[index]), 1)

    return [
        group
        for same_length in length_batches(longest_first, lambda index: length_of(items[index]), max(len(items), 1))
        for group in batches(same_length, max_items, max_words, words, strict=True)
    ]


def tag_all(
    tagger: GroupTagger,
    forms: Sequence[Sequence[str]],
    upos: Sequence[Sequence[str]] | None = None,
    others: Sequence[TagDistribution | None] | None = None,
) -> list[dict[str, list[str]]]:
    """Predicted tags of every sentence (lists of forms), in order; equal lengths are tagged together.

    ``upos``: each sentence's known UPOS ("_" or "" where the tagger is to choose), which
    the tagger keeps and tags the other columns for.  ``others``: another model's UPOS
    distribution for a sentence (or None), averaged with the tagger's (:func:`mix_upos`).
    """
    results: list = [None] * len(forms)
    tagger.prepare(forms)  # the encoder's vectors in batches of all lengths, not one per length group
    for group in length_groups(forms, len, TAGGING_GROUP, TAGGING_WORDS):
        dy.renew_cg()
        given = [upos[i] for i in group] if upos is not None else None
        opinions = [others[i] for i in group] if others is not None else None
        for index, tags in zip(group, tagger.predict([forms[i] for i in group], given, opinions), strict=True):
            results[index] = tags
    return results


def mix_upos(
    predicted: list[dict[str, list[str]]],
    scores: np.ndarray,
    others: Sequence[TagDistribution | None],
    strings: Sequence[str],
) -> None:
    """A sentence with another model's UPOS distribution takes, word by word, the UPOS likeliest under the mean of
    both models' probabilities: an ensemble of the tagger and, in a pipeline, the joint parser's tag layer.

    ``scores``: the tagger's (UPOS x words) scores for the length group, words word-major.
    """
    size = len(predicted)
    own = log_softmax_columns(scores)
    theirs = own.copy()
    for k, other in enumerate(others):
        if other is not None:
            theirs[:, k::size] = other.over(strings)
    best = mixture_log_probs([own, theirs]).argmax(axis=0)
    for k, (tags, other) in enumerate(zip(predicted, others, strict=True)):
        if other is not None:
            tags["upos"] = [strings[b] for b in best[k::size]]


def keep_given_upos(predicted: list[dict[str, list[str]]], upos: Sequence[Sequence[str]]) -> None:
    """Each sentence's UPOS (``predicted``, by column) becomes the caller's wherever the caller gave one."""
    for tags, given in zip(predicted, upos, strict=True):
        tags["upos"] = [own if tag in BLANK_VALUES else tag for own, tag in zip(tags["upos"], given, strict=True)]
