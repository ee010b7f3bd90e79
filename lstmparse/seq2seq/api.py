"""The loaded constituency parser that the command line and users call.

import lstmparse
constituency = lstmparse.load("models/en_gum_seq2seq")  # see models/README.md
for tree in constituency.parse("The dog barks .\nIt is late ."):
    print(tree.to_bracketed())
for candidates in constituency.parse_kbest([["The", "dog", "barks", "."]], beam=10, k=3):
    print([(c.rank, round(c.log_prob, 2)) for c in candidates])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lstmparse.batching import SENTENCE_WINDOW, windows
from lstmparse.errors import InputError, ModelError
from lstmparse.formats import Sentence
from lstmparse.inputs import as_sentence
from lstmparse.model_io import model_arch
from lstmparse.ptb import PTBTree, escape_word, to_bracketed
from lstmparse.seq2seq.ensemble_manifest import ARCH as ENSEMBLE_ARCH
from lstmparse.seq2seq.linearization import delinearize
from lstmparse.seq2seq.model import Seq2SeqParser


@dataclass
class ParsedTree:
    """A constituency parse: the tree, and whether the decoder's output had to be repaired."""

    tree: PTBTree
    repaired: bool
    log_prob: float
    rank: int = 1

    def to_bracketed(self) -> str:
        return to_bracketed(self.tree)


class ConstituencyParser:
    """A loaded sequence-to-sequence constituency parser, or an ensemble of them (decoded as one)."""

    def __init__(self, model) -> None:
        self.model = model

    @classmethod
    def load(cls, path: str | Path) -> ConstituencyParser:
        if not Path(path).exists():
            raise ModelError(f"{path}: no such model directory")
        if model_arch(path) == ENSEMBLE_ARCH:
            from lstmparse.seq2seq.ensemble import Seq2SeqEnsemble

            return cls(Seq2SeqEnsemble.load(path))
        return cls(Seq2SeqParser.load(str(path)))

    def parse(
        self,
        sentences: str | Iterable[PTBTree | Sentence | Sequence[str] | str],
        beam: int = 10,
        constrained: bool = True,
        batch_size: int = 64,
    ) -> Iterator[ParsedTree]:
        """Parse sentences, in order: the best tree of each sentence's beam.

        ``sentences`` is text (one sentence per line, tokens separated by spaces) or
        an iterable of token lists, strings (one sentence each), CoNLL-U sentences or
        bracketed trees (re-parsed from their words).  A tree's POS tags are kept on
        the output's preterminals; other inputs get XX.  ``constrained`` decoding only
        follows prefixes of well-formed trees; without it, as in the paper, a malformed
        output is repaired afterwards.  ``batch_size`` hypotheses (sentences times
        beam) are decoded together; the trees are those of one sentence at a time.
        """
        for candidates in self.parse_kbest(sentences, beam, 1, constrained, batch_size):
            yield candidates[0]

    def parse_kbest(
        self,
        sentences: str | Iterable[PTBTree | Sentence | Sequence[str] | str],
        beam: int = 10,
        k: int = 1,
        constrained: bool = True,
        batch_size: int = 64,
    ) -> Iterator[list[ParsedTree]]:
        """For each sentence (in order) the ``k`` best trees of its beam, best first (``k <= beam``).

        Each tree carries its rank and the log-probability the model gives the
        sequence the search found (before any repair).
        """
        if not 1 <= k <= beam:
            raise ValueError(f"k = {k} needs 1 <= k <= beam (beam = {beam})")
        if isinstance(sentences, str):
            sentences = sentences.splitlines()
        for batch in windows((item for item in sentences if not _blank(item)), SENTENCE_WINDOW):
            words = [words_of(item) for item in batch]
            tags = [item.tags if isinstance(item, PTBTree) else None for item in batch]
            decoded_batch = self.model.kbest_many(words, beam, k, constrained, batch_size)
            for decoded, forms, tree_tags in zip(decoded_batch, words, tags, strict=True):
                yield [
                    ParsedTree(delinearize(d.tokens, forms, tree_tags), d.repaired, d.log_prob, rank)
                    for rank, d in enumerate(decoded, start=1)
                ]


def _blank(item: object) -> bool:
    """A blank line of text input: not a sentence."""
    return isinstance(item, str) and not item.strip()


def words_of(item: PTBTree | Sentence | Sequence[str] | str, number: int = 0) -> list[str]:
    """The words to parse, written as a bracketed tree holds them (parentheses as -LRB-/-RRB-).

    Token lists are checked as every family's ``parse`` checks them
    (:func:`lstmparse.inputs.as_sentence`); a bracketed tree cannot hold a space either.
    """
    if isinstance(item, PTBTree):
        return item.words
    try:
        forms = as_sentence(item.split() if isinstance(item, str) else item, number).forms
    except (TypeError, ValueError) as error:
        raise InputError("<input>", None, f"a sentence must be non-empty words without spaces: {error}") from None
    if any(" " in form for form in forms):
        raise InputError("<input>", None, f"a sentence must be non-empty words without spaces: {forms!r}")
    return [escape_word(form) for form in forms]
