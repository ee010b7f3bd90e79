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

from lstmparse.batching import windows
from lstmparse.errors import ModelError
from lstmparse.formats import N_COLUMNS, Sentence, Token, numbered_lines, open_input
from lstmparse.tokenizer.model import CharacterLabeller
from lstmparse.tokenizer.segmentation import Span, label_paragraphs, segment

PARAGRAPHS_PER_WINDOW = 256  # paragraphs labelled together (their windows share batched graphs)
WHITE_SPACE = re.compile(r"\s")


@dataclass
class RawParagraph:
    """A paragraph of raw text and where it starts, for messages."""

    text: str
    path: str = "<input>"
    line: int = 1


def read_raw(path: str) -> Iterator[RawParagraph]:
    """The paragraphs of a raw text file (``-`` = stdin): runs of non-blank lines, read lazily."""
    name = "<stdin>" if path == "-" else path
    with open_input(path) as handle:
        yield from raw_paragraphs(numbered_lines(handle, name), name)


def raw_paragraphs(numbered: Iterable[tuple[int, str]], name: str = "<input>") -> Iterator[RawParagraph]:
    lines: list[str] = []
    first = 1
    for number, line in numbered:
        if line.strip():
            if not lines:
                first = number
            lines.append(line)
        elif lines:
            yield RawParagraph("\n".join(lines), name, first)
            lines = []
    if lines:
        yield RawParagraph("\n".join(lines), name, first)


class Tokenizer:
    """A loaded tokenizer and sentence splitter."""

    def __init__(self, labeller: CharacterLabeller) -> None:
        self.labeller = labeller

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        if not Path(path).exists():
            raise ModelError(f"{path}: no such model directory")
        return cls(CharacterLabeller.load(str(path)))

    def tokenize(self, text: str) -> list[Sentence]:
        """The sentences of raw text (paragraphs separated by blank lines)."""
        return list(self.tokenize_paragraphs(raw_paragraphs(enumerate(text.splitlines(), start=1))))

    def tokenize_paragraphs(
        self, paragraphs: Iterable[RawParagraph], window_size: int = PARAGRAPHS_PER_WINDOW
    ) -> Iterator[Sentence]:
        """The sentences of each paragraph, in order, numbered from 1 (``# sent_id``).

        Paragraphs are read and labelled ``window_size`` at a time (1: each as soon as
        it ends, for interactive use); a paragraph's labels depend on its own text alone.
        """
        number = 0
        for window in windows(paragraphs, window_size):
            log_probs = label_paragraphs(self.labeller, [p.text for p in window])
            for paragraph, values in zip(window, log_probs, strict=True):
                for k, spans in enumerate(segment(paragraph.text, values)):
                    number += 1
                    yield self.sentence(paragraph, spans, number, new_paragraph=k == 0)

    def sentence(self, paragraph: RawParagraph, spans: list[Span], number: int, new_paragraph: bool) -> Sentence:
        """A CoNLL-U sentence of the given tokens, multi-word tokens split into their words."""
        text = paragraph.text
        comments = ["# newpar"] if new_paragraph else []
        comments += [f"# sent_id = {number}", f"# text = {WHITE_SPACE.sub(' ', text[spans[0].start : spans[-1].end])}"]
        sentence = Sentence([], comments, [], paragraph.path, paragraph.line)
        for span in spans:
            form = text[span.start : span.end]
            misc = "_" if span.end >= len(text) or text[span.end].isspace() else "SpaceAfter=No"
            words = self.labeller.splitter.split(form) if span.multiword else [form]
            first = len(sentence.tokens) + 1
            if len(words) > 1:
                sentence.lines.append(_line(f"{first}-{first + len(words) - 1}", form, misc))
                misc = "_"
            for word in words:
                sentence.token_lines.append(len(sentence.lines))
                sentence.lines.append(_line(str(len(sentence.tokens) + 1), word, misc))
                sentence.tokens.append(Token(len(sentence.tokens) + 1, word))
        return sentence


def _line(ident: str, form: str, misc: str) -> str:
    return "\t".join([ident, form] + ["_"] * (N_COLUMNS - 3) + [misc])
