"""The loaded constituency parser that the command line and users call.

import lstmparse
constituency = lstmparse.load("models/en_gum_seq2seq")  # see docs/constituency.md
for tree in constituency.parse([["The", "dog", "barks", "."], ["It", "is", "late", "."]]):
    print(tree.to_bracketed())
for candidates in constituency.parse_kbest([["The", "dog", "barks", "."]], beam=10, k=3):
    print([(c.rank, round(c.log_prob, 2)) for c in candidates])
tagged = lstmparse.load_constituency("models/en_gum_seq2seq", tagger="models/en_ewt_pipeline")  # POS tags, not XX
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lstmparse.core.batching import SENTENCE_WINDOW, windows
from lstmparse.core.ensembles import SEQ2SEQ_ENSEMBLE as ENSEMBLE_ARCH
from lstmparse.core.ensembles import TAGGER_ENSEMBLE
from lstmparse.core.model_io import model_repr
from lstmparse.core.records import ModelRecord, read_record
from lstmparse.errors import InputError, ModelError
from lstmparse.io.formats import BLANK_VALUES, Sentence
from lstmparse.io.inputs import as_sentence
from lstmparse.io.ptb import PTBTree, escape_word, to_bracketed, unescape_word
from lstmparse.seq2seq.linearization import delinearize
from lstmparse.seq2seq.model import Seq2SeqParser

if TYPE_CHECKING:
    from lstmparse.seq2seq.decoding import Seq2SeqDecoding
    from lstmparse.tagger.api import POSTagger


@dataclass
class ParsedTree:
    """A constituency parse: the tree, and whether the decoder's output had to be repaired."""

    tree: PTBTree
    repaired: bool
    log_prob: float
    rank: int = 1

    def to_bracketed(self) -> str:
        return to_bracketed(self.tree)

    def _repr_html_(self) -> str:
        """The tree drawn in a notebook (inline SVG)."""
        return self.tree._repr_html_()


class ConstituencyParser:
    """A loaded sequence-to-sequence constituency parser, or an ensemble of them (decoded as one).

    The parser predicts brackets, not POS tags: a tree's preterminals carry the
    input's own tags (a bracketed tree's, or CoNLL-U XPOS that every word has),
    else those of ``tagger`` (a :class:`~lstmparse.tagger.api.POSTagger`'s XPOS,
    the Penn tags of an English UD tagger), else ``XX`` as in the paper.
    """

    def __init__(self, model, tagger=None, source: str | Path | None = None) -> None:
        self.model = model
        self.tagger = tagger
        self.source = source  # the model directory, for repr

    def __repr__(self) -> str:
        members = getattr(self.model, "members", None)
        details = f"ensemble of {len(members)}" if members else "sequence to sequence with attention"
        return model_repr("constituency parser", self.source, details + (", with a tagger" if self.tagger else ""))

    def __call__(self, *args, **kwargs):
        raise TypeError(
            "a ConstituencyParser reads tokenized sentences: parser.parse([['Dogs', 'bark', '.']]); for raw text, "
            "tokenize first (a pipeline's tokenize(text))"
        )

    @classmethod
    def load(cls, path: str | Path | ModelRecord, tagger: str | Path | None = None) -> ConstituencyParser:
        """The model (or ensemble) in ``path``; ``tagger``: a tagger's directory or a pipeline's with one."""
        record = read_record(path)
        if not record.path.exists():
            raise ModelError(f"{record.path}: no such model directory")
        model: Seq2SeqDecoding
        if record.arch == ENSEMBLE_ARCH:
            from lstmparse.seq2seq.ensemble import Seq2SeqEnsemble

            model = Seq2SeqEnsemble.load(record)
        else:
            model = Seq2SeqParser.load(str(record.path))
        return cls(model, _load_tagger(tagger) if tagger is not None else None, record.path)

    def parse(
        self,
        sentences: Iterable[PTBTree | Sentence | Sequence[str]],
        beam: int = 10,
        constrained: bool = True,
        batch_size: int | None = None,
    ) -> Iterator[ParsedTree]:
        """Parse sentences, in order: the best tree of each sentence's beam.

        ``sentences`` is an iterable of token lists, CoNLL-U sentences or bracketed
        trees (re-parsed from their words), as every family's ``parse`` takes; a
        string is refused (raw text: tokenize it first, ``lstmparse.load().tokenize(text)``).
        The preterminals carry the input's own POS tags, else the tagger's, else XX
        (see the class).  ``constrained`` decoding only follows prefixes of
        well-formed trees; without it, as in the paper, a malformed output is
        repaired afterwards.  ``batch_size`` hypotheses (sentences times
        beam) are decoded together (None: ``default_hypotheses(beam)`` of
        :mod:`lstmparse.seq2seq.decoding`); the trees are those of one sentence at a time.
        """
        for candidates in self.parse_kbest(sentences, beam, 1, constrained, batch_size):
            yield candidates[0]

    def parse_kbest(
        self,
        sentences: Iterable[PTBTree | Sentence | Sequence[str]],
        beam: int = 10,
        k: int = 1,
        constrained: bool = True,
        batch_size: int | None = None,
    ) -> Iterator[list[ParsedTree]]:
        """For each sentence (in order) the ``k`` best trees of its beam, best first (``k <= beam``).

        Each tree carries its rank and the log-probability the model gives the
        sequence the search found (before any repair).
        """
        if not 1 <= k <= beam:
            raise ValueError(f"k = {k} needs 1 <= k <= beam (beam = {beam})")
        if isinstance(sentences, (str, Sentence, PTBTree)):
            raise TypeError(
                "parse() takes an iterable of sentences, each a token list, Sentence or PTBTree; "
                f"got one {type(sentences).__name__} (raw text: tokenize it first, lstmparse.load().tokenize(text))"
            )
        for batch in windows(iter(sentences), SENTENCE_WINDOW):
            words = [words_of(item) for item in batch]
            tags = self._tags([given_tags(item) for item in batch], words)
            decoded_batch = self.model.kbest_many(words, beam, k, constrained, batch_size)
            for decoded, forms, tree_tags in zip(decoded_batch, words, tags, strict=True):
                yield [
                    ParsedTree(delinearize(d.tokens, forms, tree_tags), d.repaired, d.log_prob, rank)
                    for rank, d in enumerate(decoded, start=1)
                ]

    def _tags(self, given: list[list[str] | None], words: list[list[str]]) -> list[list[str] | None]:
        """Each sentence's preterminal tags: its own, else the tagger's XPOS, else None (``XX``)."""
        untagged = [k for k, tags in enumerate(given) if tags is None]
        if self.tagger is None or not untagged:
            return given
        tagged = self.tagger.tag([[unescape_word(word) for word in words[k]] for k in untagged])
        predicted = dict(zip(untagged, (given_tags(sentence) for sentence in tagged), strict=True))
        return [predicted.get(k, tags) for k, tags in enumerate(given)]


def _load_tagger(path: str | Path) -> POSTagger:
    """A POS tagger that predicts XPOS, from its directory or from a pipeline that has one."""
    from lstmparse.pipeline.manifest import ARCH as PIPELINE_ARCH
    from lstmparse.pipeline.manifest import part_directories
    from lstmparse.tagger.api import POSTagger

    record = read_record(path)
    if record.arch == PIPELINE_ARCH:
        parts = part_directories(record)
        if "tagger" not in parts:
            raise ModelError(f"{record.path}: the pipeline has no tagger")
        record = read_record(parts["tagger"])
    if record.arch not in ("tagger", TAGGER_ENSEMBLE):
        raise ModelError(f"{path}: not a tagger (nor a pipeline with one); the tags come from a tagger's XPOS")
    tagger = POSTagger.load(record)
    if "xpos" not in tagger.model.outputs:
        raise ModelError(f"{path}: the tagger predicts no XPOS, the tags a bracketed tree carries")
    return tagger


def given_tags(item: object) -> list[str] | None:
    """The POS tags an input sentence brings: a bracketed tree's, or CoNLL-U XPOS if every word has one."""
    if isinstance(item, PTBTree):
        return item.tags
    if isinstance(item, Sentence):
        xpos = [token.xpos for token in item.tokens]
        if all(tag not in BLANK_VALUES for tag in xpos):
            return [escape_word(tag) for tag in xpos]
    return None


def words_of(item: PTBTree | Sentence | Sequence[str], number: int = 0) -> list[str]:
    """The words to parse, written as a bracketed tree holds them (parentheses as -LRB-/-RRB-).

    Token lists are checked as every family's ``parse`` checks them
    (:func:`lstmparse.io.inputs.as_sentence`); a bracketed tree cannot hold a space either.
    """
    if isinstance(item, PTBTree):
        return item.words
    if isinstance(item, str):
        raise TypeError(f"a sentence is a token list, not a str: {item.split()[:3]!r}...")
    try:
        forms = as_sentence(item, number).forms
    except (TypeError, ValueError) as error:
        raise InputError("<input>", None, f"a sentence must be non-empty words without spaces: {error}") from None
    if any(" " in form for form in forms):
        raise InputError("<input>", None, f"a sentence must be non-empty words without spaces: {forms!r}")
    return [escape_word(form) for form in forms]
