"""A SentencePiece unigram tokenizer (Kudo 2018) over a vocabulary of pieces and their log-probabilities.

XLM-R's vocabulary, which the E5 encoders share, is such a model: text is
normalized code point by code point, spaces become the metaspace ``▁`` (one is put
in front), and the segmentation into pieces with the highest total score is found
by Viterbi.  A character no piece covers becomes the unknown piece, scored ten
below the least likely piece, as SentencePiece does.  No piece of the vocabulary
holds a metaspace after its first character, so a text's segmentation is its
words' segmentations one after another: :meth:`UnigramPieces.word_pieces` tokenizes
one word (and remembers it), which is how the encoder knows each word's pieces.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

METASPACE = "\u2581"
SPACES = re.compile(" {2,}")
UNKNOWN_PENALTY = 10.0  # an unknown character scores this much below the least likely piece
WORD_CACHE = 1 << 18  # words whose pieces are remembered


class UnigramPieces:
    """Pieces with their scores, the normalization map, and the ids the segmentation never produces itself."""

    def __init__(
        self,
        pieces: Sequence[str],
        scores: Sequence[float] | np.ndarray,
        normalization: Mapping[str, str],
        unknown: int,
        control: frozenset[int] = frozenset(),
    ) -> None:
        self.pieces = list(pieces)
        self.unknown = unknown
        self.normalization = dict(normalization)
        self.scores = {
            piece: (index, float(score))
            for index, (piece, score) in enumerate(zip(pieces, scores, strict=True))
            if piece and index != unknown and index not in control
        }
        self.unknown_score = min(float(s) for s in scores) - UNKNOWN_PENALTY
        self.longest = max(len(piece) for piece in self.scores)
        self.word_pieces = lru_cache(maxsize=WORD_CACHE)(self._word_pieces)

    def normalize(self, text: str) -> str:
        """The text with each code point replaced as the map says and runs of spaces made one."""
        mapped = "".join(self.normalization.get(char, char) for char in text)
        return SPACES.sub(" ", mapped)

    def text_pieces(self, text: str) -> list[int]:
        """The ids of a whole text's pieces, as the E5 engine segments it (a metaspace put in front)."""
        normal = self.normalize(text)
        if not normal.startswith(" "):
            normal = " " + normal
        return self.segment(normal.replace(" ", METASPACE))

    def _word_pieces(self, word: str) -> tuple[int, ...]:
        """The ids of one word's pieces, as they are in a text where spaces surround it (never empty)."""
        normal = self.normalize(word).strip(" ")
        return tuple(self.segment(METASPACE + normal.replace(" ", METASPACE)))

    def segment(self, text: str) -> list[int]:
        """The best-scoring segmentation of ``text`` (already normalized, spaces as metaspaces) into piece ids."""
        size = len(text)
        best = [float("-inf")] * (size + 1)
        back: list[tuple[int, int]] = [(0, self.unknown)] * (size + 1)
        best[0] = 0.0
        for start in range(size):
            if best[start] == float("-inf"):
                continue
            here = best[start]
            for end in range(start + 1, min(size, start + self.longest) + 1):
                found = self.scores.get(text[start:end])
                if found is not None and here + found[1] > best[end]:
                    best[end], back[end] = here + found[1], (start, found[0])
            if here + self.unknown_score > best[start + 1]:
                best[start + 1], back[start + 1] = here + self.unknown_score, (start, self.unknown)
        ids = []
        position = size
        while position > 0:
            start, piece = back[position]
            ids.append(piece)
            position = start
        return ids[::-1]
