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

from lstmparse.errors import ModelError
from lstmparse.formats import Sentence, read_sentences
from lstmparse.inputs import checked_sentences
from lstmparse.model_io import model_arch
from lstmparse.pipeline.manifest import ARCH, part_directories
from lstmparse.stacklstm.api import Parser
from lstmparse.tagger.api import POSTagger
from lstmparse.tokenizer.api import Tokenizer, read_raw


class Pipeline:
    """Tokenizer (optional), tagger (optional) and dependency parser."""

    def __init__(self, parser: Parser, tagger: POSTagger | None = None, tokenizer: Tokenizer | None = None) -> None:
        self.parser, self.tagger, self.tokenizer = parser, tagger, tokenizer
        self.parts: dict[str, Path] = {}

    @classmethod
    def load(cls, path: str | Path) -> Pipeline:
        parts = part_directories(path)
        pipeline = cls(
            Parser.load(parts["parser"]),
            POSTagger.load(parts["tagger"]) if "tagger" in parts else None,
            Tokenizer.load(parts["tokenizer"]) if "tokenizer" in parts else None,
        )
        pipeline.parts = parts
        return pipeline

    @classmethod
    def load_any(cls, path: str | Path) -> Pipeline:
        """A pipeline directory, or a dependency parser's directory as a pipeline of that parser alone."""
        if model_arch(path) == ARCH:
            return cls.load(path)
        pipeline = cls(Parser.load(path))
        pipeline.parts = {"parser": Path(path)}
        return pipeline

    def read(self, path: str, fmt: str, streaming: bool = False) -> Iterator[Sentence]:
        """The sentences of a file: ``raw`` text is tokenized, other formats are read as they are.

        ``streaming``: each paragraph is tokenized as soon as it ends (otherwise in windows of paragraphs).
        """
        if fmt == "raw":
            return self._tokenizer().tokenize_paragraphs(read_raw(path), *((1,) if streaming else ()))
        return read_sentences(path, fmt)

    def parse_file(self, path: str, fmt: str = "conllu", retag: bool = False) -> Iterator[Sentence]:
        """Parse every sentence of a file (``-`` = stdin; ``raw`` text too) lazily."""
        return self.parse(self.read(path, fmt), retag)

    def tokenize(self, text: str) -> Iterator[Sentence]:
        """The sentences of raw text (paragraphs separated by blank lines), untagged and unparsed."""
        return iter(self._tokenizer().tokenize(text))

    def tag(
        self, sentences: Iterable[Sentence | Sequence[str]], retag: bool = False, streaming: bool = False
    ) -> Iterator[Sentence]:
        """The sentences with their blank tag columns filled (all of them with ``retag``).

        ``streaming``: each sentence is tagged as soon as it is read (otherwise in windows of sentences).
        """
        if self.tagger is None:
            return checked_sentences(sentences)
        return self.tagger.tag(sentences, retag, *((1,) if streaming else ()))

    def parse_text(self, text: str, batch_size: int = 32) -> list[Sentence]:
        """Raw text to parsed sentences."""
        return list(self.parse(self.tokenize(text), batch_size=batch_size))

    def parse(
        self, sentences: Iterable[Sentence | Sequence[str]], retag: bool = False, batch_size: int = 32
    ) -> Iterator[Sentence]:
        """Tokenized sentences (``Sentence`` objects or lists of word forms), tagged and parsed, in order."""
        return self.parser.parse(self.tag(sentences, retag), batch_size)

    def candidates(
        self,
        sentences: Iterable[Sentence | Sequence[str]],
        beam: int = 1,
        kbest: int = 1,
        batch_size: int = 32,
        retag: bool = False,
    ) -> Iterator[list[Sentence]]:
        """Each sentence's parses (the parser's ``candidates``) after tagging."""
        return self.parser.candidates(self.tag(sentences, retag), beam, kbest, batch_size)

    def _tokenizer(self) -> Tokenizer:
        if self.tokenizer is None:
            raise ModelError("this pipeline has no tokenizer: give tokenized text or CoNLL-U")
        return self.tokenizer
