"""Raw paragraphs and their character labels, rebuilt from a UD treebank's token lines.

A paragraph starts at ``# newpar`` or ``# newdoc`` (a treebank without either is
one paragraph).  Its text is the tokens' forms, each followed by a space unless
its MISC says ``SpaceAfter=No``; so the labels line up with the text by
construction, whatever the ``# text`` comments hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from lstmparse.io.formats import Sentence

# Character labels: what ends at this character.
INSIDE, TOKEN, MULTIWORD, TOKEN_SENTENCE, MULTIWORD_SENTENCE = range(5)
LABELS = ("inside", "token", "multiword", "token+sentence", "multiword+sentence")


@dataclass
class SurfaceToken:
    """A token as it appears in the text: its form, its syntactic words, and whether a space follows."""

    form: str
    words: list[str]
    space_after: bool = True

    @property
    def is_multiword(self) -> bool:
        return len(self.words) > 1


@dataclass
class Paragraph:
    """A paragraph's text and one label per character."""

    text: str
    labels: list[int] = field(default_factory=list)


def surface_tokens(sentence: Sentence) -> list[SurfaceToken]:
    """A sentence's tokens: multi-word token lines with their words, and words outside them."""
    tokens: list[SurfaceToken] = []
    covered_until = 0
    for line in sentence.lines:
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        ident, form, misc = columns[0], columns[1], columns[-1]
        space_after = "SpaceAfter=No" not in misc.split("|")
        if "-" in ident:
            first, last = (int(part) for part in ident.split("-"))
            tokens.append(SurfaceToken(form, [], space_after))
            covered_until = last
        elif "." not in ident:
            if int(ident) <= covered_until:
                tokens[-1].words.append(form)
            else:
                tokens.append(SurfaceToken(form, [form], space_after))
    return tokens


def starts_paragraph(sentence: Sentence) -> bool:
    return any(line.startswith(("# newpar", "# newdoc")) for line in sentence.lines if line.startswith("#"))


def paragraphs(sentences: Iterable[Sentence]) -> Iterator[Paragraph]:
    """The paragraphs of a treebank, labelled character by character."""
    current: Paragraph | None = None
    for sentence in sentences:
        if current is None or starts_paragraph(sentence):
            if current is not None and current.text:
                yield _stripped(current)
            current = Paragraph("")
        tokens = surface_tokens(sentence)
        for k, token in enumerate(tokens):
            last = k == len(tokens) - 1
            current.labels.extend([INSIDE] * (len(token.form) - 1))
            current.labels.append(_label(token.is_multiword, last))
            current.text += token.form
            if token.space_after:
                current.text += " "
                current.labels.append(INSIDE)
    if current is not None and current.text:
        yield _stripped(current)


def spaces_inside_tokens(found: Iterable[Paragraph]) -> bool:
    """Whether a space is ever inside a token (Vietnamese words of several syllables): its previous
    character does not end a token."""
    return any(
        char == " " and i > 0 and paragraph.labels[i - 1] == INSIDE and not paragraph.text[i - 1].isspace()
        for paragraph in found
        for i, char in enumerate(paragraph.text)
    )


def _label(multiword: bool, sentence_end: bool) -> int:
    if multiword:
        return MULTIWORD_SENTENCE if sentence_end else MULTIWORD
    return TOKEN_SENTENCE if sentence_end else TOKEN


def _stripped(paragraph: Paragraph) -> Paragraph:
    """The paragraph without its trailing space."""
    end = len(paragraph.text.rstrip(" "))
    return Paragraph(paragraph.text[:end], paragraph.labels[:end])


def raw_text_paragraphs(gold: Sequence[Sentence]) -> tuple[list[str], str]:
    """The gold file's raw text as paragraphs, and one line saying how it was cut."""
    texts = [paragraph.text for paragraph in paragraphs(gold)]
    marked = any(starts_paragraph(sentence) for sentence in gold)
    how = "paragraphs at # newpar/# newdoc" if marked else "one paragraph (the file marks no paragraphs)"
    return texts, f"raw text rebuilt from {len(gold)} gold sentences: {len(texts)} paragraph(s), {how}"
