"""The loaded tokenizer: raw text in, CoNLL-U sentences out.

import lstmparse
tokenizer = lstmparse.load("models/en_ewt_pipeline/tokenizer")
for sentence in tokenizer.tokenize("Hello, world! I don't know."):
    print(sentence.to_conllu())

Raw text is paragraphs separated by blank lines; a paragraph's line breaks are
spaces.  Each sentence gets ``# sent_id``, ``# text`` (and ``# newpar`` when it
starts a paragraph), multi-word token range lines, and ``SpaceAfter=No`` where the
text had no space, so that the CoNLL 2018 scorer can align it with gold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lstmparse.core.batching import windows
from lstmparse.core.model_io import model_repr
from lstmparse.core.records import ModelRecord, directory_of
from lstmparse.errors import ModelError
from lstmparse.io.formats import N_COLUMNS, Sentence, Token, numbered_lines, open_input
from lstmparse.io.inputs import checked_text
from lstmparse.tokenizer.model import CharacterLabeller
from lstmparse.tokenizer.segmentation import Span, label_paragraphs, segment

PARAGRAPHS_PER_WINDOW = 256  # paragraphs labelled together (their windows share batched graphs)
WHITE_SPACE = re.compile(r"\s")


@dataclass
class RawParagraph:
    """A paragraph of raw text and where it starts: its line (for messages) and character offset (for words)."""

    text: str
    path: str = "<input>"
    line: int = 1
    offset: int = 0


def read_raw(path: str, presegmented: bool = False) -> Iterator[RawParagraph]:
    """The paragraphs of a raw text file (``-`` = stdin): runs of non-blank lines, read lazily.

    ``presegmented``: each line is one sentence, a paragraph that is not split.
    """
    name = "<stdin>" if path == "-" else path
    with open_input(path) as handle:
        yield from (presegmented_lines if presegmented else raw_paragraphs)(numbered_lines(handle, name), name)


def raw_paragraphs(numbered: Iterable[tuple[int, str]], name: str = "<input>") -> Iterator[RawParagraph]:
    """Runs of non-blank lines; offsets count each line end as one character (as ``\\n`` does)."""
    lines: list[str] = []
    first = offset = first_offset = 0
    for number, line in numbered:
        if line.strip():
            if not lines:
                first, first_offset = number, offset
            lines.append(line)
        elif lines:
            yield RawParagraph("\n".join(lines), name, first, first_offset)
            lines = []
        offset += len(line) + 1
    if lines:
        yield RawParagraph("\n".join(lines), name, first, first_offset)


def presegmented_lines(numbered: Iterable[tuple[int, str]], name: str = "<input>") -> Iterator[RawParagraph]:
    """Each non-blank line as a paragraph of its own: text given one sentence per line (UDPipe's presegmented)."""
    offset = 0
    for number, line in numbered:
        if line.strip():
            yield RawParagraph(line, name, number, offset)
        offset += len(line) + 1


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of a string, cut at line ends so that each end is one character.

    ``\\r\\n`` becomes a space and ``\\n`` (the same length) and a lone ``\\r`` a ``\\n``:
    the words' character offsets then index the caller's own string.
    """
    return enumerate(text.replace("\r\n", " \n").replace("\r", "\n").split("\n"), start=1)


class Tokenizer:
    """A loaded tokenizer and sentence splitter."""

    def __init__(self, labeller: CharacterLabeller, source: str | Path | None = None) -> None:
        self.labeller = labeller
        self.source = source  # the model directory, for repr

    def __repr__(self) -> str:
        return model_repr("tokenizer", self.source, "tokens, multi-word tokens, sentences")

    @classmethod
    def load(cls, path: str | Path | ModelRecord) -> Tokenizer:
        path = directory_of(path)
        if not path.exists():
            raise ModelError(f"{path}: no such model directory")
        return cls(CharacterLabeller.load(str(path)), path)

    def tokenize_file(
        self, path: str, presegmented: bool = False, window_size: int = PARAGRAPHS_PER_WINDOW
    ) -> Iterator[Sentence]:
        """The sentences of a raw text file (``-`` = stdin), read lazily; ``presegmented``: one per line, not split."""
        return self.tokenize_paragraphs(read_raw(path, presegmented), window_size, split=not presegmented)

    def tokenize(self, text: str, presegmented: bool = False) -> list[Sentence]:
        """The sentences of raw text (paragraphs separated by blank lines); words know their offsets in ``text``.

        ``presegmented``: each line is one sentence, tokenized but not split.
        """
        lines = text_lines(checked_text(text))
        if presegmented:
            return list(self.tokenize_paragraphs(presegmented_lines(lines), split=False))
        return list(self.tokenize_paragraphs(raw_paragraphs(lines)))

    def tokenize_texts(
        self, texts: Iterable[str], window_size: int = PARAGRAPHS_PER_WINDOW
    ) -> Iterator[list[Sentence]]:
        """Each text's sentences, as :meth:`tokenize` gives them, the paragraphs of ``window_size`` texts at a time
        labelled together (many short documents: spaCy's ``nlp.pipe``)."""
        for chunk in windows(iter(texts), window_size):
            per_text = [list(raw_paragraphs(text_lines(checked_text(text)))) for text in chunk]
            segmented = iter(self._segmented([p for paragraphs in per_text for p in paragraphs]))
            for paragraphs in per_text:
                sentences: list[Sentence] = []
                for paragraph in paragraphs:
                    for k, spans in enumerate(next(segmented)):
                        sentences.append(self.sentence(paragraph, spans, len(sentences) + 1, new_paragraph=k == 0))
                yield sentences

    def tokenize_paragraphs(
        self, paragraphs: Iterable[RawParagraph], window_size: int = PARAGRAPHS_PER_WINDOW, split: bool = True
    ) -> Iterator[Sentence]:
        """The sentences of each paragraph, in order, numbered from 1 (``# sent_id``).

        Paragraphs are read and labelled ``window_size`` at a time (1: each as soon as
        it ends, for interactive use); a paragraph's labels depend on its own text alone.
        Without ``split`` a paragraph is one sentence (presegmented text).
        """
        number = 0
        for window in windows(paragraphs, window_size):
            for paragraph, found in zip(window, self._segmented(window), strict=True):
                if not split:
                    found = [[span for sentence in found for span in sentence]]
                for k, spans in enumerate(found):
                    number += 1
                    yield self.sentence(paragraph, spans, number, new_paragraph=k == 0 and split)

    def _segmented(self, paragraphs: list[RawParagraph]) -> list[list[list[Span]]]:
        """Each paragraph's sentences as token spans, the paragraphs labelled together (in shared graphs)."""
        log_probs = label_paragraphs(self.labeller, [p.text for p in paragraphs])
        spaces, joins = self.labeller.dims.spaces_in_tokens, self.labeller.joins
        return [segment(p.text, values, spaces, joins) for p, values in zip(paragraphs, log_probs, strict=True)]

    def sentence(self, paragraph: RawParagraph, spans: list[Span], number: int, new_paragraph: bool) -> Sentence:
        """A CoNLL-U sentence of the given tokens, multi-word tokens split into their words."""
        text = paragraph.text
        comments = ["# newpar"] if new_paragraph else []
        comments += [f"# sent_id = {number}", f"# text = {WHITE_SPACE.sub(' ', text[spans[0].start : spans[-1].end])}"]
        sentence = Sentence([], comments, [], paragraph.path, paragraph.line)
        for span in spans:
            form = text[span.start : span.end]
            start, end = paragraph.offset + span.start, paragraph.offset + span.end
            misc = "_" if span.end >= len(text) or text[span.end].isspace() else "SpaceAfter=No"
            splitter = self.labeller.splitter
            words = splitter.split(form) if splitter.is_multiword(form, span.multiword) else [form]
            first = len(sentence.tokens) + 1
            if len(words) > 1:
                sentence.lines.append(_line(f"{first}-{first + len(words) - 1}", form, misc))
                misc = "_"
            for word in words:
                sentence.token_lines.append(len(sentence.lines))
                sentence.lines.append(_line(str(len(sentence.tokens) + 1), word, misc))
                sentence.tokens.append(Token(len(sentence.tokens) + 1, word, start_char=start, end_char=end))
        return sentence


def _line(ident: str, form: str, misc: str) -> str:
    return "\t".join([ident, form] + ["_"] * (N_COLUMNS - 3) + [misc])
