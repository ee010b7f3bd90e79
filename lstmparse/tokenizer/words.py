"""Splitting a multi-word token into its syntactic words, as the training treebank did.

A dictionary-plus-copy model: a token seen as a multi-word token in training gets
its most frequent split; where those words spell the token (English ``don't`` ->
``do n't``, ``Bush's`` -> ``Bush 's``) the token's own characters are cut at the
same places, so its spelling and capitals are kept exactly.  An unseen token is
cut before the longest final word that ended such tokens at least twice in
training (``'s``, ``n't``, ``'ll``); a token that neither rule splits stays one
word.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

MIN_ENDING_COUNT = 2  # an ending must have closed this many training tokens to split unseen ones


class MultiwordSplitter:
    """The splits of multi-word tokens seen in training, and the word endings that split unseen ones."""

    def __init__(self, splits: dict[str, list[str]], endings: list[str]) -> None:
        self.splits = splits  # lower-cased token -> its most frequent words (lower-cased)
        self.endings = sorted(endings, key=len, reverse=True)  # longest first

    @classmethod
    def learn(cls, tokens: Iterable[tuple[str, list[str]]]) -> MultiwordSplitter:
        """From (token form, its words) pairs of multi-word tokens."""
        seen: dict[str, Counter] = defaultdict(Counter)
        endings: Counter = Counter()
        for form, words in tokens:
            lowered = [word.lower() for word in words]
            seen[form.lower()][tuple(lowered)] += 1
            if "".join(lowered) == form.lower() and len(words) == 2:
                endings[lowered[-1]] += 1
        splits = {form: list(counter.most_common(1)[0][0]) for form, counter in seen.items()}
        return cls(splits, [ending for ending, count in endings.items() if count >= MIN_ENDING_COUNT])

    def split(self, form: str) -> list[str]:
        """The syntactic words of a token that the tokenizer marked as a multi-word token."""
        lowered = form.lower()
        words = self.splits.get(lowered)
        if words is None:
            ending = next((e for e in self.endings if lowered.endswith(e) and len(lowered) > len(e)), None)
            if ending is None:
                return [form]
            words = [lowered[: -len(ending)], ending]
        if "".join(words) == lowered:
            return _cut(form, [len(word) for word in words])
        return _cased(words, form)

    def to_json(self) -> dict:
        return {"splits": self.splits, "endings": self.endings}

    @classmethod
    def from_json(cls, data: dict) -> MultiwordSplitter:
        return cls(dict(data["splits"]), list(data["endings"]))


def _cut(form: str, lengths: list[int]) -> list[str]:
    """``form`` cut into pieces of the given lengths."""
    pieces, start = [], 0
    for length in lengths:
        pieces.append(form[start : start + length])
        start += length
    return pieces


def _cased(words: list[str], form: str) -> list[str]:
    """Words that do not spell the token, given its case: all capitals, or a capital first letter."""
    if form.isupper() and len(form) > 1:
        return [word.upper() for word in words]
    if form[:1].isupper():
        return [words[0][:1].upper() + words[0][1:], *words[1:]]
    return list(words)
