"""Vocabularies: strings to ids, with an unknown entry at id 0."""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Iterable

UNK = "<unk>"


class Vocabulary:
    """A string-to-id map with counts; id 0 is reserved for unknown strings."""

    def __init__(self, items: Iterable[str] = (), counts: dict[str, int] | None = None) -> None:
        self.strings = [UNK]
        self.ids = {UNK: 0}
        self._counts: dict[str, int] | None = dict(counts or {})
        self._saved_counts: list[int] = []  # with ``_counts`` None: the counts of strings[1:], as a file holds them
        for item in items:
            self.add(item)

    @property
    def counts(self) -> dict[str, int]:
        """Each string's count in the training data (training reads them; a loaded model rarely does)."""
        if self._counts is None:
            self._counts = dict(zip(self.strings[1:], self._saved_counts, strict=True))
            self._saved_counts = []
        return self._counts

    @classmethod
    def from_counts(cls, counter: Counter, min_count: int = 1) -> Vocabulary:
        """Items seen at least ``min_count`` times, most frequent first (ties by string)."""
        kept = sorted((s for s, c in counter.items() if c >= min_count), key=lambda s: (-counter[s], s))
        return cls(kept, {s: counter[s] for s in kept})

    def add(self, item: str) -> int:
        if item not in self.ids:
            self.ids[item] = len(self.strings)
            self.strings.append(item)
        return self.ids[item]

    def __len__(self) -> int:
        return len(self.strings)

    def __contains__(self, item: str) -> bool:
        return item in self.ids

    def get(self, item: str) -> int:
        """The id of ``item``, 0 (unknown) if absent."""
        return self.ids.get(item, 0)

    def to_json(self) -> dict:
        counts = self._saved_counts if self._counts is None else [self._counts.get(s, 0) for s in self.strings[1:]]
        return {"strings": self.strings[1:], "counts": list(counts)}

    @classmethod
    def from_json(cls, data: dict) -> Vocabulary:
        """A saved vocabulary: the one already read if this process read an equal one, else a new one.

        The parts of a pipeline, and the members of an ensemble, are trained on the same
        data and often hold the same word and pretrained-word lists: the default
        pipeline's tagger and parser hold the same 70,000 strings, 11 MB of Python
        objects each.  A loaded model never changes its vocabularies, so equal ones are
        shared.  Counts become a dictionary only when asked for.
        """
        strings, counts = data["strings"], data["counts"]
        if len(strings) != len(counts):
            raise ValueError(f"a vocabulary of {len(strings)} strings has {len(counts)} counts")
        key = (len(strings), hash(tuple(strings)), hash(tuple(counts)))
        loaded = _LOADED.get(key)
        if loaded is not None and loaded.strings[1:] == strings and loaded.to_json()["counts"] == counts:
            return loaded
        vocabulary = cls(strings)
        if len(vocabulary.strings) == len(strings) + 1:  # no string twice (as ``to_json`` writes them)
            vocabulary._counts, vocabulary._saved_counts = None, list(counts)
        else:
            vocabulary._counts = dict(zip(strings, counts, strict=True))
        _LOADED[key] = vocabulary
        return vocabulary


# Vocabularies read from model files, while a model holds them (``Vocabulary.from_json``).
_LOADED: weakref.WeakValueDictionary[tuple[int, int, int], Vocabulary] = weakref.WeakValueDictionary()
