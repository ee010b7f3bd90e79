"""Token boundaries the training text never makes: character contexts a tokenizer keeps joined.

A character model splits text where its window looks like a split it has seen, and
a rare shape inside a word can look like a common one.  EWT train has two Irish
surnames (``O'Rourke``, ``O'Connell``) against thousands of apostrophes that start a
token, and the network split ``O'Sullivan`` after its apostrophe (and ``re-used``
after its hyphen), though no training token ends in a letter and an apostrophe (or a
hyphen) before a letter.  So the tokenizer learns, from its training text, every
context of a possible token end: the last two characters of the token that would end
there (a space for the first if the token has one character) and the character after
it, each read as its shape (upper- or lower-case letter, other letter, digit, or the
punctuation or symbol itself).  A context that occurs inside white-space-delimited
chunks at least ``MIN_JOINED`` times and never with a token end is kept joined,
whatever the network's labels.  EWT splits ``self-rule`` into three tokens, so a
hyphen that is a token of its own may still be split off (`` -l``), while ``re-`` as
a token (``l-l``) is never made; a language that splits after an apostrophe (French
``l'homme``) does so in its training text, so the rule never forbids it.

``MIN_JOINED`` was chosen on EWT dev: with 10, dev token F1 goes from
99.00 to 99.06 (ten tokens right, one wrong); 5 gives 99.07 (one more, on half the
evidence, which small treebanks cannot spare); 20 gives 99.04 and misses ``O'Sullivan``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

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


def context(text: str, labels: list[int], i: int) -> str:
    """The context of a token ending after ``text[i - 1]`` (before ``text[i]``): the token's last two characters
    (a space for the first if the token starts at ``i - 1``: after white space or a token end) and the next one."""
    first = " " if i < 2 or labels[i - 2] != INSIDE else shape(text[i - 2])
    return first + shape(text[i - 1]) + shape(text[i])


class JoinRule:
    """The contexts where the training text never ends a token (see the module's docstring)."""

    def __init__(self, joined: Iterable[str]) -> None:
        self.joined = frozenset(joined)

    @classmethod
    def learn(cls, paragraphs: Iterable[Paragraph], min_joined: int = MIN_JOINED) -> JoinRule:
        split: Counter[str] = Counter()
        kept: Counter[str] = Counter()
        for paragraph in paragraphs:
            text, labels = paragraph.text, paragraph.labels
            for i in range(1, len(text)):
                if not (text[i - 1].isspace() or text[i].isspace()):
                    (kept if labels[i - 1] == INSIDE else split)[context(text, labels, i)] += 1
        return cls(found for found, count in kept.items() if count >= min_joined and not split[found])

    def __len__(self) -> int:
        return len(self.joined)

    def keep_joined(self, text: str, labels: list[int]) -> list[int]:
        """``labels`` with no token ending at a context of the rule (the characters stay in one token).

        Only the labelled token ends are visited, left to right: an end undone makes the
        next one's token longer, which its context reads from ``labels``."""
        for end in [k for k, label in enumerate(labels) if label != INSIDE]:
            i = end + 1
            if i < len(text) and not text[i].isspace() and context(text, labels, i) in self.joined:
                labels[end] = INSIDE
        return labels

    def to_json(self) -> list[str]:
        return sorted(self.joined)

    @classmethod
    def from_json(cls, contexts: list[str]) -> JoinRule:
        return cls(contexts)
