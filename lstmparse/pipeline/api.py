"""The loaded pipeline: raw text, tokenized text or CoNLL-U in; tagged, parsed CoNLL-U out.

import lstmparse
pipeline = lstmparse.load()  # the default English pipeline (models/en_ewt_pipeline)
for sentence in pipeline.parse_text("Hello, world! I don't know what to say."):
    print(sentence.to_conllu())

Input that already has tag columns keeps them (a tagger fills only what is blank,
unless ``retag``); tokenized input skips the tokenizer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import cast

from lstmparse.core.batching import PARSE_BATCH_SIZE, SENTENCE_WINDOW
from lstmparse.core.model_io import model_repr
from lstmparse.core.records import ModelRecord, directory_of, read_record
from lstmparse.errors import ModelError
from lstmparse.io.document import Document
from lstmparse.io.formats import RAW_FORMATS, Sentence, read_sentences
from lstmparse.io.inputs import checked_sentences
from lstmparse.pipeline.choices import CHOICES_KEY, apply_choices
from lstmparse.pipeline.manifest import ARCH, PART_ARCHS, decoding_beam, part_directories
from lstmparse.stacklstm.api import Parser
from lstmparse.tagger.api import POSTagger
from lstmparse.tokenizer.api import PARAGRAPHS_PER_WINDOW, Tokenizer


class Pipeline:
    """Tokenizer, tagger and dependency parser, each optional: ``pipeline(text)`` gives a :class:`Document`."""

    def __init__(
        self, parser: Parser | None, tagger: POSTagger | None = None, tokenizer: Tokenizer | None = None
    ) -> None:
        self.parser, self.tagger, self.tokenizer = parser, tagger, tokenizer
        self.parts: dict[str, Path] = {}
        self.source: Path | None = None  # the model directory it was assembled from, for repr

    def __repr__(self) -> str:
        return model_repr("pipeline", self.source, ", ".join(self.processors))

    def __call__(self, text: str | Document, batch_size: int = PARSE_BATCH_SIZE) -> Document:
        """Raw text to a :class:`~lstmparse.io.document.Document` of parsed sentences (tagged only without a parser);
        a ``Document`` given (``lstmparse.read``, ``Document.from_tokenlists``) is tagged and parsed as it is."""
        if isinstance(text, Document):
            given = cast(list[Sentence], text.sentences)  # a Document's sentences are read as io.formats Sentences
            parsed = self.parse(given, batch_size=batch_size) if self.parser else self.tag(given)
            return Document(list(parsed), text.text)
        sentences = self.tokenize(text)
        if self.parser is None:
            return Document(list(self.tag(sentences)), text)
        return Document(list(self.parse(sentences, batch_size=batch_size)), text)

    @classmethod
    def assemble(
        cls,
        model: str | Path | ModelRecord | None = None,
        tagger: str | Path | None = None,
        tokenizer: str | Path | None = None,
    ) -> Pipeline:
        """A pipeline of any model directory (a pipeline, parser, tagger or tokenizer), with parts swapped in.

        ``tagger`` and ``tokenizer`` are a tagger's (tokenizer's) directory or a
        pipeline's that has one: any tagger can feed any tag-reading parser without
        writing a manifest.
        """
        record = read_record(model) if model is not None else None
        parts = dict(parts_of(record)) if record is not None else {}
        parts.update({kind: _part(path, kind) for kind, path in (("tagger", tagger), ("tokenizer", tokenizer)) if path})

        def source(kind: str) -> Path | ModelRecord:
            """A part's directory, or the model's record when the model is that part (read once)."""
            return record if record is not None and parts[kind] == record.path else parts[kind]

        pipeline = cls(
            Parser.load(source("parser")) if "parser" in parts else None,
            POSTagger.load(source("tagger")) if "tagger" in parts else None,
            Tokenizer.load(source("tokenizer")) if "tokenizer" in parts else None,
        )
        pipeline.parts = parts
        pipeline.source = directory_of(model) if model is not None else None
        if pipeline.parser is not None and record is not None:
            pipeline.parser.beam = decoding_beam(record)
        if record is not None and record.config.get("arch") == ARCH:
            apply_choices(pipeline, record.config.get(CHOICES_KEY, {}))  # the choices made on dev as it ships
        return pipeline

    @classmethod
    def load(cls, path: str | Path | ModelRecord) -> Pipeline:
        """A pipeline directory (its manifest names the parts)."""
        record = read_record(path)
        part_directories(record)  # not a pipeline manifest: the manifest reader's error
        return cls.assemble(record)

    @property
    def processors(self) -> list[str]:
        """The stages this pipeline can run, in order: ``tokenize``, ``tag``, ``parse``."""
        present = {"tokenize": self.tokenizer, "tag": self.tagger, "parse": self.parser}
        return [name for name, part in present.items() if part is not None]

    def read(self, path: str, fmt: str, streaming: bool = False) -> Iterator[Sentence]:
        """The sentences of a file: ``raw`` and ``presegmented`` text is tokenized, other formats are read as they are.

        ``streaming``: each paragraph is tokenized as soon as it ends (otherwise in windows of paragraphs).
        """
        if fmt in RAW_FORMATS:
            window = 1 if streaming else PARAGRAPHS_PER_WINDOW
            return self._tokenizer().tokenize_file(path, fmt == "presegmented", window)
        return read_sentences(path, fmt)

    def parse_file(self, path: str, fmt: str = "conllu", retag: bool = False) -> Iterator[Sentence]:
        """Parse every sentence of a file (``-`` = stdin; ``raw`` text too) lazily."""
        return self.parse(self.read(path, fmt), retag)

    def tokenize(self, text: str, presegmented: bool = False) -> Iterator[Sentence]:
        """The sentences of raw text (paragraphs separated by blank lines; ``presegmented``: one per line)."""
        return iter(self._tokenizer().tokenize(text, presegmented))

    def tag(
        self, sentences: Iterable[Sentence | Sequence[str]], retag: bool = False, streaming: bool = False
    ) -> Iterator[Sentence]:
        """The sentences with their blank tag columns filled (all of them with ``retag``).

        ``streaming``: each sentence is tagged as soon as it is read (otherwise in windows of sentences).
        """
        if self.tagger is None:
            return checked_sentences(sentences)
        if self.parser is None or not self.parser.predicts_upos:
            return self.tagger.tag(sentences, retag, *((1,) if streaming else ()))
        return self._upos_from_parser(checked_sentences(sentences), retag, streaming)

    def _upos_from_parser(self, sentences: Iterator[Sentence], retag: bool, streaming: bool) -> Iterator[Sentence]:
        """The tagger's columns, with a parser that predicts UPOS (``--joint-upos``) as a second opinion: wherever the
        input leaves UPOS blank (every word with ``retag``), a word's UPOS is the likeliest under the mean of the
        tagger's and the parser's probabilities, and XPOS, FEATS and lemmas are tagged for it."""
        assert self.tagger is not None and self.parser is not None
        if retag:
            to_blank = ["upos", *self.tagger.model.columns]
            sentences = (sentence.with_columns({c: ["_"] * len(sentence) for c in to_blank}) for sentence in sentences)
        return self.tagger.tag(sentences, False, 1 if streaming else SENTENCE_WINDOW, self.parser.upos_distributions)

    def parse_text(self, text: str, batch_size: int = PARSE_BATCH_SIZE) -> list[Sentence]:
        """Raw text to parsed sentences (``pipeline(text)`` gives them as a :class:`Document`)."""
        return list(self.parse(self.tokenize(text), batch_size=batch_size))

    def parse(
        self, sentences: Iterable[Sentence | Sequence[str]], retag: bool = False, batch_size: int = PARSE_BATCH_SIZE
    ) -> Iterator[Sentence]:
        """Tokenized sentences (``Sentence`` objects or lists of word forms), tagged and parsed, in order."""
        return self._parser().parse(self.tag(sentences, retag), batch_size)

    def candidates(
        self, sentences: Iterable[Sentence | Sequence[str]], *search, retag: bool = False
    ) -> Iterator[list[Sentence]]:
        """Each sentence's parses after tagging: ``search`` is what :meth:`Parser.candidates` takes after the
        sentences (beam, kbest, batch size, confidence; beam ``None``: the pipeline's own)."""
        return self._parser().candidates(self.tag(sentences, retag), *search)

    def _tokenizer(self) -> Tokenizer:
        if self.tokenizer is None:
            raise ModelError("this pipeline has no tokenizer: give tokenized text or CoNLL-U (or add --tokenizer)")
        return self.tokenizer

    def _parser(self) -> Parser:
        if self.parser is None:
            raise ModelError("this pipeline has no parser: it can tokenize and tag only")
        return self.parser


def pipeline_parser(path: str | Path) -> Parser:
    """The parser a model directory parses with, as its pipeline uses it: a pipeline's parser with the choices
    made on dev that concern it (its members, its beam) applied; any other model's parser as it is.  What the
    ``--jobs`` processes load, so that they parse as the parent's pipeline does."""
    record = read_record(path)
    if record.config.get("arch") != ARCH:
        return Parser.load(record)
    parsing = Pipeline(Parser.load(part_directories(record)["parser"]))
    assert parsing.parser is not None
    parsing.parser.beam = decoding_beam(record)
    apply_choices(parsing, record.config.get(CHOICES_KEY, {}))  # with no tagger or tokenizer, only the parser's
    return parsing.parser


def parts_of(path: str | Path | ModelRecord) -> dict[str, Path]:
    """The parts a model directory brings: a pipeline's, or the one part it is."""
    record = read_record(path)
    if record.arch == ARCH:
        return part_directories(record)
    if record.arch not in PART_ARCHS:
        raise ModelError(
            f"{record.path}: a {record.arch} model is not a pipeline's part (a parser, tagger or tokenizer)"
        )
    return {PART_ARCHS[record.arch]: record.path}


def _part(path: str | Path, kind: str) -> Path:
    """The ``kind`` part (tagger, tokenizer) that a directory is or, as a pipeline, has."""
    found = parts_of(path).get(kind)
    if found is None:
        raise ModelError(f"{path}: neither a {kind} nor a pipeline with one")
    return found
