"""Reading CoNLL-U, CoNLL-X and pre-tokenized text; writing CoNLL-U losslessly.

A parser is only trusted in a pipeline if it changes nothing but what it predicts,
so every sentence keeps its raw input lines.  Writing replaces the HEAD and DEPREL
columns of the word lines and copies every other byte (comments, multi-word token
lines, empty nodes, the other columns) from the input.  Field syntax is checked
with the ``conllu`` library, one line at a time so that errors can name the line.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO

from conllu.parser import DEFAULT_FIELDS, ParseException, parse_line

from lstmparse.errors import PLAIN_TEXT, InputError
from lstmparse.io.document import Word, comments, sentence_dict, sentence_text

FORMATS = ("conllu", "conllx", "text", "vertical")
RAW_FORMATS = ("raw", "presegmented")  # text a tokenizer reads: paragraphs, or one sentence per line
TAG_COLUMNS = {"lemma": 2, "upos": 3, "xpos": 4, "feats": 5}  # the columns a tagger fills, by Token field
BLANK_VALUES = ("", "_")  # a column left blank: empty, or CoNLL-U's underscore
HEAD_COLUMN = 6
DEPREL_COLUMN = 7
MISC_COLUMN = 9
N_COLUMNS = 10
TOKEN_SEPARATORS = re.compile(r"[ \t]+")


@dataclass(slots=True)
class Token:
    """One syntactic word (integer ID) with the columns the models read.

    ``start_char``/``end_char``: where the tokenizer found the word (its whole token,
    for the words of a multi-word token) in the raw text; None for read input.
    """

    id: int
    form: str
    lemma: str = "_"
    upos: str = "_"
    xpos: str = "_"
    feats: str = "_"
    head: int | None = None
    deprel: str | None = None
    start_char: int | None = field(default=None, compare=False)
    end_char: int | None = field(default=None, compare=False)


@dataclass
class Sentence:
    """A sentence's words plus its raw lines, so that output can be lossless."""

    tokens: list[Token]
    lines: list[str] = field(default_factory=list)
    token_lines: list[int] = field(default_factory=list)
    path: str = "<input>"
    first_line: int = 1
    # a tagger that predicts FEATS filled the sentence's blank columns: a word's "_" is its answer, not missing input
    feats_tagged: bool = field(default=False, compare=False)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def words(self) -> list[Word]:
        """The words as :class:`~lstmparse.io.document.Word` views: head, children, offsets, multi-word token."""
        return [Word(self, index) for index in range(len(self.tokens))]

    def __iter__(self) -> Iterator[Word]:
        return iter(self.words)

    def __getitem__(self, index: int) -> Word:
        """The word at a 0-based position (``sentence[0]`` is the word with ID 1; negative counts from the end)."""
        return Word(self, range(len(self.tokens))[index])

    @property
    def text(self) -> str:
        """The ``# text`` comment, else the words joined as their ``SpaceAfter=No`` marks say."""
        return sentence_text(self)

    @property
    def sent_id(self) -> str | None:
        return comments(self).get("sent_id")

    @property
    def metadata(self) -> dict[str, str | None]:
        """Every ``# key = value`` comment (``sent_id`` and ``text`` included)."""
        return comments(self)

    def to_dict(self) -> dict:
        """The sentence as JSON-ready data (docs/python-api.md, "Document API")."""
        return sentence_dict(self)

    @property
    def forms(self) -> list[str]:
        return [t.form for t in self.tokens]

    @property
    def heads(self) -> list[int | None]:
        return [t.head for t in self.tokens]

    @property
    def deprels(self) -> list[str | None]:
        return [t.deprel for t in self.tokens]

    @property
    def gold_heads(self) -> list[int]:
        """The HEAD column of a complete tree (training and scoring read it); a missing head is an InputError."""
        return [head for head, _ in self._tree_columns()]

    @property
    def gold_deprels(self) -> list[str]:
        """The DEPREL column of a complete tree; a missing relation is an InputError."""
        return [deprel for _, deprel in self._tree_columns()]

    def _tree_columns(self) -> list[tuple[int, str]]:
        columns = []
        for i, token in enumerate(self.tokens):
            if token.head is None or token.deprel is None or token.deprel == "_":
                raise InputError(self.path, self.line_of(i), "missing HEAD or DEPREL")
            columns.append((token.head, token.deprel))
        return columns

    def line_of(self, token_index: int) -> int:
        """1-based line number of a token in its file, for error messages."""
        return self.first_line + self.token_lines[token_index]

    def _repr_html_(self) -> str:
        """The sentence drawn in a notebook (Jupyter calls this): its tree as inline SVG."""
        from lstmparse.io.render import notebook_html

        return notebook_html([self])

    def to_conllu(self, heads: Sequence[int | None] | None = None, deprels: Sequence[str | None] | None = None) -> str:
        """The sentence as CoNLL-U text with HEAD/DEPREL replaced by the given tree."""
        tree_heads: Sequence[int | None] = self.heads if heads is None else heads
        tree_labels: Sequence[str | None] = self.deprels if deprels is None else deprels
        out = list(self.lines)
        for i, line_index in enumerate(self.token_lines):
            columns = out[line_index].split("\t")
            columns[HEAD_COLUMN] = "_" if tree_heads[i] is None else str(tree_heads[i])
            columns[DEPREL_COLUMN] = tree_labels[i] or "_"
            out[line_index] = "\t".join(columns)
        return "\n".join(out) + "\n\n"

    def with_tree(self, heads: Sequence[int], deprels: Sequence[str]) -> Sentence:
        """A copy whose words carry the given tree (every other column and line as read)."""
        tokens = [replace(t, head=h, deprel=r) for t, h, r in zip(self.tokens, heads, deprels, strict=True)]
        return replace(self, tokens=tokens)

    def with_columns(self, values: dict[str, Sequence[str]]) -> Sentence:
        """A copy whose words carry the given tag columns (``{"upos": [...]}``), in its tokens and its lines."""
        lines, tokens = list(self.lines), []
        for i, (token, line_index) in enumerate(zip(self.tokens, self.token_lines, strict=True)):
            columns = lines[line_index].split("\t")
            for name, column_values in values.items():
                columns[TAG_COLUMNS[name]] = column_values[i]
            lines[line_index] = "\t".join(columns)
            changed: dict[str, Any] = {name: column_values[i] for name, column_values in values.items()}
            tokens.append(replace(token, **changed))
        return replace(self, tokens=tokens, lines=lines)

    def with_misc(self, key: str, values: Sequence[str]) -> Sentence:
        """A copy whose words' MISC column carries ``key=value`` (replacing an earlier ``key``; the rest kept)."""
        lines = list(self.lines)
        for line_index, value in zip(self.token_lines, values, strict=True):
            columns = lines[line_index].split("\t")
            kept = [
                item
                for item in columns[MISC_COLUMN].split("|")
                if item not in BLANK_VALUES and not item.startswith(f"{key}=")
            ]
            columns[MISC_COLUMN] = "|".join([*kept, f"{key}={value}"])
            lines[line_index] = "\t".join(columns)
        return replace(self, lines=lines)

    def blank_columns(self) -> list[str]:
        """The columns a tagger fills (``lemma``, ``upos``, ``xpos``, ``feats``) that no word of the sentence fills."""
        return [name for name in TAG_COLUMNS if all(getattr(t, name) in BLANK_VALUES for t in self.tokens)]

    def with_comments(self, extra: Iterable[str]) -> Sentence:
        """A copy whose comment lines gain ``extra`` after the input's own comments.

        Comments that ``extra`` redefines (same ``# key =``) are dropped, so a k-best
        file parsed again does not pile up ranks and scores.
        """
        extra = list(extra)
        keys = {line.split("=", 1)[0].strip() for line in extra if "=" in line}
        first_word = self.token_lines[0] if self.token_lines else len(self.lines)
        head = [line for line in self.lines[:first_word] if line.split("=", 1)[0].strip() not in keys]
        comments_end = next((i for i, line in enumerate(head) if not line.startswith("#")), len(head))
        lines = head[:comments_end] + extra + head[comments_end:] + self.lines[first_word:]
        shift = len(lines) - len(self.lines)
        return Sentence(self.tokens, lines, [i + shift for i in self.token_lines], self.path, self.first_line)

    @classmethod
    def from_forms(cls, forms: list[str], comments: Iterable[str] = ()) -> Sentence:
        """A sentence built from tokens alone (text input or the Python API)."""
        lines = list(comments)
        tokens, token_lines = [], []
        for i, form in enumerate(forms, start=1):
            tokens.append(Token(i, form))
            token_lines.append(len(lines))
            lines.append("\t".join([str(i), form] + ["_"] * (N_COLUMNS - 2)))
        return cls(tokens, lines, token_lines)


def open_input(path: str) -> BinaryIO:
    """Open a file (or ``-`` for stdin) for reading bytes; lines are decoded one by one.

    Decoding each line separately lets a bad byte be reported with its line.
    """
    if path == "-":
        return sys.stdin.buffer
    return open(path, "rb")


def read_sentences(path: str, fmt: str = "conllu") -> Iterator[Sentence]:
    """Read sentences from ``path`` (``-`` = stdin) in one of :data:`FORMATS`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of {FORMATS}")
    name = "<stdin>" if path == "-" else path
    with open_input(path) as handle:
        yield from _read_numbered(numbered_lines(handle, name), name, fmt)


def sentences_from_text(text: str, fmt: str = "conllu", name: str = "<input>") -> list[Sentence]:
    """The sentences of a string in one of :data:`FORMATS` (``name`` is what error messages call it)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of {FORMATS}")
    lines = text.replace("\r\n", "\n").split("\n")
    return list(_read_numbered(enumerate(lines, start=1), name, fmt))


def _read_numbered(numbered: Iterable[tuple[int, str]], name: str, fmt: str) -> Iterator[Sentence]:
    if fmt == "text":
        return _read_text(numbered, name)
    if fmt == "vertical":
        return _read_vertical(numbered, name)
    return _read_conll(numbered, name, fmt)


def read_treebank(path: str, fmt: str = "conllu") -> list[Sentence]:
    """All sentences of a file whose trees must be complete (training, evaluation)."""
    return check_trees(list(read_sentences(path, fmt)))


def check_trees(sentences: list[Sentence]) -> list[Sentence]:
    """The sentences, once every word has a HEAD and a DEPREL; the first that lacks one is an InputError."""
    for sentence in sentences:
        sentence._tree_columns()
    return sentences


def numbered_lines(handle: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    """(line number, line) pairs decoded as UTF-8, without line ends; a leading BOM is skipped."""
    for number, raw in enumerate(handle, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(name, number, f"not valid UTF-8 ({error.reason} at byte {error.start + 1})") from None
        if number == 1:
            line = line.removeprefix("\ufeff")
        line = line.rstrip("\r\n")
        if "\r" in line:
            raise InputError(name, number, "a carriage return inside a line: convert CR-only line ends to LF")
        yield number, line


def _read_text(numbered: Iterable[tuple[int, str]], name: str) -> Iterator[Sentence]:
    """One sentence per line, tokens separated by spaces or tabs.

    Only ASCII spaces and tabs separate tokens, so a token may contain other
    white space (a no-break space in "New\u00a0York" keeps it one token).
    """
    for number, line in numbered:
        forms = TOKEN_SEPARATORS.split(line.strip(" \t"))
        if forms == [""]:
            continue
        sentence = Sentence.from_forms(forms, [f"# text = {' '.join(forms)}"])
        # Line 0 of the block is the generated comment; the words sit on input line ``number``.
        sentence.path, sentence.first_line = name, number - 1
        yield sentence


def _read_vertical(numbered: Iterable[tuple[int, str]], name: str) -> Iterator[Sentence]:
    """One token per line (its first tab-separated field), sentences separated by blank lines (UDPipe's vertical)."""
    forms: list[str] = []
    first = 1
    for number, line in itertools.chain(numbered, [(0, "")]):  # a last blank line closes the last sentence
        form = line.split("\t", 1)[0].strip(" ")
        if form:
            first = first if forms else number
            forms.append(form)
        elif forms:
            sentence = Sentence.from_forms(forms, [f"# text = {' '.join(forms)}"])
            sentence.path, sentence.first_line = name, first - 1
            yield sentence
            forms = []


def _read_conll(numbered: Iterable[tuple[int, str]], name: str, fmt: str) -> Iterator[Sentence]:
    block: list[tuple[int, str]] = []
    for number, line in numbered:
        if line.strip():
            block.append((number, line))
        elif block:
            yield _parse_block(block, name, fmt)
            block = []
    if block:
        yield _parse_block(block, name, fmt)


def _parse_block(block: list[tuple[int, str]], name: str, fmt: str) -> Sentence:
    first_line = block[0][0]
    sentence = Sentence([], [line for _, line in block], [], name, first_line)
    for offset, (number, line) in enumerate(block):
        if line.startswith("#"):
            continue
        token = _parse_word_line(line, name, number, fmt)
        if token is None:  # multi-word token or empty node: kept as a raw line only
            continue
        if token.id != len(sentence.tokens) + 1:
            raise InputError(name, number, f"word ID {token.id} out of sequence (expected {len(sentence.tokens) + 1})")
        sentence.tokens.append(token)
        sentence.token_lines.append(offset)
    if not sentence.tokens:
        raise InputError(name, first_line, "sentence without any word line")
    for i, token in enumerate(sentence.tokens):
        if token.head is not None and not 0 <= token.head <= len(sentence.tokens):
            raise InputError(name, sentence.line_of(i), f"HEAD {token.head} out of range 0..{len(sentence.tokens)}")
    return sentence


EXPECTED = {  # what a CoNLL-U column the conllu library parses may hold
    "id": "a word number (1, 2, ...), a range such as 1-2 or an empty node such as 1.1",
    "head": "a word number, 0 for the root, or _",
    "deps": "head:relation pairs joined by |, or _",
}
FIELD_COLUMNS = {"id": 0, "head": HEAD_COLUMN, "deps": 8}


def _column_problem(error: ParseException, columns: list[str]) -> str:
    """The conllu library's complaint about a column, said in CoNLL-U's terms."""
    match = re.match(r"Failed parsing field '(\w+)'", str(error))
    field = match.group(1) if match else None
    if field not in EXPECTED:
        return str(error).removesuffix(".")
    return f"{field.upper()} {columns[FIELD_COLUMNS[field]]!r} is not {EXPECTED[field]}"


def _parse_word_line(line: str, name: str, number: int, fmt: str) -> Token | None:
    columns = line.split("\t")
    if len(columns) != N_COLUMNS:
        hint = PLAIN_TEXT if len(columns) == 1 else None  # no tab at all: most likely text given as CoNLL-U
        raise InputError(name, number, f"expected {N_COLUMNS} tab-separated columns, found {len(columns)}", hint)
    try:
        parsed = parse_line(line, DEFAULT_FIELDS)
    except ParseException as error:
        raise InputError(name, number, _column_problem(error, columns)) from None
    if not isinstance(parsed["id"], int):
        if fmt == "conllx":
            raise InputError(name, number, f"CoNLL-X allows integer IDs only, found {columns[0]!r}")
        return None
    if columns[1] == "":
        raise InputError(name, number, "empty FORM")
    head = None if columns[HEAD_COLUMN] == "_" else parsed["head"]
    deprel = None if columns[DEPREL_COLUMN] == "_" else columns[DEPREL_COLUMN]
    return Token(parsed["id"], columns[1], columns[2], columns[3], columns[4], columns[5], head, deprel)
