"""Morphological features predicted one by one, as UDPipe 2 and Stanza do.

A FEATS column predicted as one class (``Case=Nom|Number=Sing|Person=3``) can only
produce combinations seen in training: in a language with rich morphology many
correct combinations of a test word never occur in a small treebank.  Here each UD
feature (Case, Number, ...) has its own output over the sentence bi-LSTM, with the
value ``_`` for a word that lacks the feature, and the predicted features are
joined in UD's order (names sorted case-insensitively).  A feature is only kept
for a UPOS it occurs with in training, so a verb gets no Case because the Case
layer guessed one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from lstmparse.core.vocab import Vocabulary
from lstmparse.io.formats import BLANK_VALUES

ABSENT = "_"  # the value of a feature a word does not have
PREFIX = "feat:"  # a feature's output and vocabulary are named feat:NAME


def split_features(feats: str) -> dict[str, str]:
    """``Case=Nom|Number=Sing`` as {name: value}; ``_`` and an empty column as {}."""
    if feats in BLANK_VALUES:
        return {}
    pairs = (pair.partition("=") for pair in feats.split("|"))
    return {name: value for name, _, value in pairs if name and value}


def joined_features(values: Mapping[str, str]) -> str:
    """The FEATS column of {name: value} (``_`` values left out), in UD's order; ``_`` when none is left."""
    kept = sorted((name for name, value in values.items() if value != ABSENT), key=str.lower)
    return "|".join(f"{name}={values[name]}" for name in kept) or "_"


def feature_vocabularies(columns: Iterable[tuple[str, str]]) -> dict[str, Vocabulary]:
    """A vocabulary of values (with ``_``) per feature name of the (UPOS, FEATS) pairs, keyed ``feat:NAME``."""
    pairs = [split_features(feats) for _, feats in columns]
    names = sorted({name for features in pairs for name in features}, key=str.lower)
    return {
        PREFIX + name: Vocabulary.from_counts(Counter(features.get(name, ABSENT) for features in pairs))
        for name in names
    }


def features_by_upos(columns: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """The feature names each UPOS occurs with in (UPOS, FEATS) pairs."""
    seen: dict[str, set[str]] = defaultdict(set)
    for upos, feats in columns:
        seen[upos] |= set(split_features(feats))
    return {upos: sorted(names) for upos, names in seen.items()}
