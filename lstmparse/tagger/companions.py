"""The XPOS and FEATS seen with each UPOS in training: a word's tags kept consistent with its UPOS.

The tagger predicts UPOS, XPOS and FEATS from one bi-LSTM but with separate output
layers, so a word can get tags that never go together (UPOS VERB with XPOS NN).  When
a joint parser gives the UPOS (``stacklstm/joint_tags.py``), about 3 % of EWT dev's
words had such a pair, half of them with the right UPOS: the tagger's XPOS and FEATS
followed its own UPOS, not the parser's.  Here a word whose XPOS (or FEATS, where the
whole string is predicted) training never saw with its UPOS, given or the tagger's
own, takes the best-scored one it did see; the per-feature outputs already follow the
UPOS (``features_by_upos``), and there a combination training never saw is the
point.  On EWT dev this raised the default pipeline's AllTags 91.60 -> 92.95 and the
tagger's alone 92.29 -> 92.72 (docs/experiments/joint-upos.md).  Models saved without the table tag
as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np

UPOS_COMPANIONS = "upos_companions"  # the vocabulary file's entry: column -> UPOS -> values seen with it


class UposCompanions:
    """column ("xpos", "feats") -> UPOS -> the values that column had with that UPOS in training."""

    def __init__(self, table: dict[str, dict[str, list[str]]]) -> None:
        self.table = table
        self.sets = {column: _values_by_upos(by_upos, set) for column, by_upos in table.items()}

    @classmethod
    def learn(cls, words: Iterable[tuple[str, str, str]]) -> UposCompanions:
        """From (UPOS, XPOS, FEATS) triples of the training data."""
        seen: dict[str, dict[str, set[str]]] = {"xpos": {}, "feats": {}}
        for upos, xpos, feats in words:
            seen["xpos"].setdefault(upos, set()).add(xpos)
            seen["feats"].setdefault(upos, set()).add(feats)
        return cls({column: _values_by_upos(by_upos, sorted) for column, by_upos in seen.items()})

    def best(self, column: str, upos: str, scores: np.ndarray, strings: list[str]) -> str | None:
        """The best-scored value of ``column`` seen with ``upos`` (``scores`` by ``strings``' ids); None: no constraint
        (a UPOS training never saw, or none of its values in the vocabulary)."""
        allowed = self.table.get(column, {}).get(upos)
        if not allowed:
            return None
        index = {value: i for i, value in enumerate(strings)}
        ids = [index[value] for value in allowed if value in index]
        return strings[max(ids, key=lambda i: scores[i])] if ids else None

    def allows(self, column: str, upos: str, value: str) -> bool:
        allowed = self.sets.get(column, {}).get(upos)
        return allowed is None or value in allowed

    def mend(self, predicted: list, scores: Mapping[str, np.ndarray], vocabs: Mapping, columns: list[str]) -> None:
        """Each word's value of ``columns`` becomes the best-scored one seen with its UPOS where it was not.

        ``predicted``: a length group's tags by sentence and column; ``scores``: each
        column's (values x words) scores, words word-major (``Tagger.scores``).
        """
        size = len(predicted)
        for k in range(size * len(predicted[0]["upos"])):
            tags, j = predicted[k % size], k // size
            for column in columns:
                if not self.allows(column, tags["upos"][j], tags[column][j]):
                    best = self.best(column, tags["upos"][j], scores[column][:, k], vocabs[column].strings)
                    tags[column][j] = best if best is not None else tags[column][j]

    def to_json(self) -> dict:
        return self.table

    @classmethod
    def from_json(cls, table: dict) -> UposCompanions:
        return cls({column: _values_by_upos(by_upos, list) for column, by_upos in table.items()})


def _values_by_upos(by_upos: Mapping[str, Iterable[str]], kind: Callable) -> dict:
    return {upos: kind(values) for upos, values in by_upos.items()}
