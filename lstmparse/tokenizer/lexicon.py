"""The training treebank's words of several syllables, marked in running text for the tokenizer (no DyNet).

Vietnamese writes every syllable apart, so a fifth of VTB's words contain spaces
(`thành phố`), and whether a space is inside a word or between two is the
tokenizer's main decision there.  A window of characters tells that badly from
1,400 training sentences (dev token F1 78.6; UDPipe 1 82.7), while the treebank's
own vocabulary tells it well: a longest match of the training words of several
syllables gives F1 84.9 on dev's syllables.  So a tokenizer trained on a treebank
with spaces inside tokens also reads, for every character, whether such a longest
match puts it in the first syllable of a known word, in the rest of one (its
spaces included) or in neither (:meth:`Lexicon.mark`).

Marked with the whole training vocabulary, every training word would be known and
the network would learn to trust the marks entirely, then split every unknown word
it meets.  Training text is therefore marked with the words of the *other* folds
(:func:`held_out_marks`): a known word is as rare in training as in new text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

import numpy as np

SYLLABLE = re.compile(r"[^\W_]+")  # letters and digits: what a word's syllables are (punctuation is not)
MARKS = ("none", "first", "rest")  # what mark() gives each character, by index
FOLDS = 5  # training text is marked with the words of the other four fifths
BLOCK = 2000  # characters of training text per fold block (blocks go to the folds in turn)


class Lexicon:
    """Known words of several syllables, each a tuple of lower-cased syllables."""

    def __init__(self, entries: Iterable[tuple[str, ...]]) -> None:
        self.entries = set(entries)
        self.longest = max((len(entry) for entry in self.entries), default=0)

    @classmethod
    def from_forms(cls, forms: Iterable[str]) -> Lexicon:
        """The forms that are syllables separated by single spaces (`84 . 4` is not: its `.` is no syllable)."""
        entries = []
        for form in forms:
            parts = form.lower().split(" ")
            if len(parts) > 1 and all(SYLLABLE.fullmatch(part) for part in parts):
                entries.append(tuple(parts))
        return cls(entries)

    def __len__(self) -> int:
        return len(self.entries)

    def mark(self, text: str) -> np.ndarray:
        """Each character's mark, an index into :data:`MARKS`, from a left-to-right longest match of the
        text's syllables (runs of letters and digits one white-space character apart) against the entries."""
        marks = np.zeros(len(text), dtype=np.int64)
        syllables = [(m.start(), m.end(), m.group().lower()) for m in SYLLABLE.finditer(text)]
        i = 0
        while i < len(syllables):
            length = self._match_length(text, syllables, i)
            if length > 1:
                first, last = syllables[i], syllables[i + length - 1]
                marks[first[0] : first[1]] = MARKS.index("first")
                marks[first[1] : last[1]] = MARKS.index("rest")
            i += max(length, 1)
        return marks

    def _match_length(self, text: str, syllables: list[tuple[int, int, str]], i: int) -> int:
        """The syllables of the longest entry that starts at syllable ``i``, or 0."""
        for length in range(min(self.longest, len(syllables) - i), 1, -1):
            run = syllables[i : i + length]
            apart = all(b[0] - a[1] == 1 and text[a[1]].isspace() for a, b in pairwise(run))
            if apart and tuple(s[2] for s in run) in self.entries:
                return length
        return 0

    def to_json(self) -> list[str]:
        return sorted(" ".join(entry) for entry in self.entries)

    @classmethod
    def from_json(cls, words: list[str]) -> Lexicon:
        return cls(tuple(word.split(" ")) for word in words)


def held_out_marks(texts: Sequence[str], tokens: Sequence[Sequence[tuple[int, int]]]) -> list[np.ndarray]:
    """Each training text's marks, every block of :data:`BLOCK` characters marked with the lexicon of the
    words outside its fold (``tokens``: each text's token character spans)."""
    blocks = [range(0, len(text), BLOCK) for text in texts]  # each text's block starts
    fold_of: dict[tuple[int, int], int] = {}  # (text, block start) -> fold, the blocks dealt in reading order
    for t, starts in enumerate(blocks):
        for start in starts:
            fold_of[t, start] = len(fold_of) % FOLDS
    forms: list[list[str]] = [[] for _ in range(FOLDS)]
    for t, spans in enumerate(tokens):
        for start, end in spans:
            forms[fold_of[t, start - start % BLOCK]].append(texts[t][start:end])
    lexicons = [Lexicon.from_forms(w for k in range(FOLDS) if k != fold for w in forms[k]) for fold in range(FOLDS)]
    marked = []
    for t, text in enumerate(texts):
        by_fold = {fold: lexicons[fold].mark(text) for fold in {fold_of[t, start] for start in blocks[t]}}
        marks = np.zeros(len(text), dtype=np.int64)
        for start in blocks[t]:
            marks[start : start + BLOCK] = by_fold[fold_of[t, start]][start : start + BLOCK]
        marked.append(marks)
    return marked
