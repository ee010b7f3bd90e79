"""Vocabularies: strings to ids, with an unknown entry at id 0."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

UNK = "<unk>"


class Vocabulary:
    """A string-to-id map with counts; id 0 is reserved for unknown strings."""

    def __init__(self, items: Iterable[str] = (), counts: dict[str, int] | None = None) -> None:
        self.strings = [UNK]
        self.ids = {UNK: 0}
        self.counts: dict[str, int] = dict(counts or {})
        for item in items:
            self.add(item)

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
        return {"strings": self.strings[1:], "counts": [self.counts.get(s, 0) for s in self.strings[1:]]}

    @classmethod
    def from_json(cls, data: dict) -> Vocabulary:
        return cls(data["strings"], dict(zip(data["strings"], data["counts"], strict=True)))
