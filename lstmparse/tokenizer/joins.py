"""Token boundaries the training text never makes: character contexts a tokenizer keeps joined.

A character model splits text where its window looks like a split it has seen, and
a rare shape inside a word can look like a common one.  EWT train has two Irish
surnames (``O'Rourke``, ``O'Connell``) against thousands of apostrophes that start a
token, and the network split ``O'Sullivan`` after its apostrophe, though no
training token ever ends at an apostrophe between two letters.  So the tokenizer
learns, from its training text, every context of three characters (the one before
a possible boundary, the one it would end a token with, the one after; each read
as its shape: upper- or lower-case letter, other letter, digit, or the punctuation
or symbol itself) that occurs inside a white-space-delimited chunk at least
``MIN_JOINED`` times and never with a token boundary; at those contexts it does not
end a token, whatever the network's labels.  A language that splits there (French
``l'homme``) splits in its training text, so the rule never forbids it.

``MIN_JOINED`` was chosen on EWT dev (models/README.md): 10 corrects four of dev's
tokens and breaks none; 5 also breaks one (``love..pls``); 20 changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from lstmparse.tokenizer.data import INSIDE, Paragraph

MIN_JOINED = 10


def shape(char: str | None) -> str:
    """A character as a context reads it: its kind for letters and digits, itself otherwise (None: outside the text)."""
    if char is None or char.isspace():
        return " "
    if char.isdigit():
        return "d"
    if char.isalpha():
        return "U" if char.isupper() else "l" if char.islower() else "a"
    return char


def boundary_contexts(text: str) -> Iterator[tuple[int, str]]:
    """Every place a token could end inside a chunk (after ``text[i - 1]``, before ``text[i]``) and its context."""
    for i in range(1, len(text)):
        if text[i].isspace() or text[i - 1].isspace():
            continue
        yield i, shape(text[i - 2] if i >= 2 else None) + shape(text[i - 1]) + shape(text[i])


class JoinRule:
    """The contexts where the training text never ends a token (see the module's docstring)."""

    def __init__(self, joined: Iterable[str]) -> None:
        self.joined = frozenset(joined)

    @classmethod
    def learn(cls, paragraphs: Iterable[Paragraph], min_joined: int = MIN_JOINED) -> JoinRule:
        split: Counter[str] = Counter()
        kept: Counter[str] = Counter()
        for paragraph in paragraphs:
            for i, context in boundary_contexts(paragraph.text):
                (kept if paragraph.labels[i - 1] == INSIDE else split)[context] += 1
        return cls(context for context, count in kept.items() if count >= min_joined and not split[context])

    def __len__(self) -> int:
        return len(self.joined)

    def keep_joined(self, text: str, labels: list[int]) -> list[int]:
        """``labels`` with no token ending at a context of the rule (the characters stay in one token)."""
        for i, context in boundary_contexts(text):
            if labels[i - 1] != INSIDE and context in self.joined:
                labels[i - 1] = INSIDE
        return labels

    def to_json(self) -> list[str]:
        return sorted(self.joined)

    @classmethod
    def from_json(cls, contexts: list[str]) -> JoinRule:
        return cls(contexts)
