"""The loaded constituency parser that the command line and users call.

import lstmparse
constituency = lstmparse.load_constituency("runs/gum_seq2seq")  # see models/README.md
for tree in constituency.parse([["The", "dog", "barks", "."]]):
    print(tree.to_bracketed())
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lstmparse.batching import SENTENCE_WINDOW, windows
from lstmparse.errors import ModelError
from lstmparse.formats import Sentence
from lstmparse.ptb import PTBTree, to_bracketed
from lstmparse.seq2seq.linearization import delinearize
from lstmparse.seq2seq.model import Seq2SeqParser


@dataclass
class ParsedTree:
    """A constituency parse: the tree, and whether the decoder's output had to be repaired."""

    tree: PTBTree
    repaired: bool
    log_prob: float

    def to_bracketed(self) -> str:
        return to_bracketed(self.tree)


class ConstituencyParser:
    """A loaded sequence-to-sequence constituency parser."""

    def __init__(self, model) -> None:
        self.model = model

    @classmethod
    def load(cls, path: str | Path) -> ConstituencyParser:
        if not Path(path).exists():
            raise ModelError(f"{path}: no such model directory")
        return cls(Seq2SeqParser.load(str(path)))

    def parse(
        self,
        sentences: Iterable[PTBTree | Sentence | Sequence[str]],
        beam: int = 10,
        constrained: bool = True,
        batch_size: int = 64,
    ) -> Iterator[ParsedTree]:
        """Parse token lists, CoNLL-U sentences or bracketed trees (re-parsed from their words), in order.

        A tree's POS tags are kept on the output's preterminals; other inputs get XX.
        ``constrained`` decoding only follows prefixes of well-formed trees; without
        it, as in the paper, a malformed output is repaired afterwards.  Sentences
        are read ``SENTENCE_WINDOW`` at a time, and those of one length decoded
        together, ``batch_size`` hypotheses (sentences times beam) per batch.
        """
        for batch in windows(sentences, SENTENCE_WINDOW):
            words = [words_of(item) for item in batch]
            tags = [item.tags if isinstance(item, PTBTree) else None for item in batch]
            decoded_batch = self.model.decode_many(words, beam, constrained, batch_size)
            for decoded, forms, tree_tags in zip(decoded_batch, words, tags, strict=True):
                tree = delinearize(decoded.tokens, forms, tree_tags)
                yield ParsedTree(tree, decoded.repaired, decoded.log_prob)


def words_of(item: PTBTree | Sentence | Sequence[str]) -> list[str]:
    if isinstance(item, PTBTree):
        return item.words
    if isinstance(item, Sentence):
        return item.forms
    return list(item)
