"""The document view of parsed sentences: words with their head as a word, children, offsets and JSON.

:class:`~lstmparse.io.formats.Sentence` keeps the input's lines so that CoNLL-U output is
lossless; the classes here are views over it, built on demand, for users who want
to walk a tree (``word.head``, ``word.children``), read a sentence's ``text`` and
``sent_id``, or hand the result to other programs as JSON (``to_dict``).  JSON
uses ``null`` where CoNLL-U writes ``_``; the schema is in docs/python-api.md ("Document API").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lstmparse.io.render import Sentence as DrawnSentence

MISC_COLUMN = 9
RANGE_ID = re.compile(r"^(\d+)-(\d+)$")


class Token(Protocol):
    """What a view reads of a word's record (:class:`lstmparse.io.formats.Token`); read only."""

    @property
    def id(self) -> int: ...
    @property
    def form(self) -> str: ...
    @property
    def lemma(self) -> str: ...
    @property
    def upos(self) -> str: ...
    @property
    def xpos(self) -> str: ...
    @property
    def feats(self) -> str: ...
    @property
    def head(self) -> int | None: ...
    @property
    def deprel(self) -> str | None: ...
    @property
    def start_char(self) -> int | None: ...
    @property
    def end_char(self) -> int | None: ...


class Sentence(DrawnSentence, Protocol):
    """What a view reads of a sentence (:class:`lstmparse.io.formats.Sentence`, which imports this module): what a
    drawing reads (id, text, forms, words), and its tokens and lines."""

    @property
    def tokens(self) -> Sequence[Token]: ...
    @property
    def lines(self) -> Sequence[str]: ...
    @property
    def token_lines(self) -> Sequence[int]: ...
    @property
    def words(self) -> list[Word]: ...

    def to_conllu(self) -> str: ...


def _value(column: str | None) -> str | None:
    """A CoNLL-U column's value, None where it is blank (``_``)."""
    return None if column in (None, "", "_") else column


@dataclass(frozen=True)
class MultiwordToken:
    """A multi-word token (``don't`` = ``do`` + ``n't``): its range ID, surface form and words' IDs."""

    id: str
    form: str
    word_ids: tuple[int, ...]
    start_char: int | None = None
    end_char: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "form": self.form,
            "words": list(self.word_ids),
            "start_char": self.start_char,
            "end_char": self.end_char,
        }


class Word:
    """One syntactic word of a sentence, seen with its tree: ``head`` is a :class:`Word` (None for the root)."""

    def __init__(self, sentence: Sentence, index: int) -> None:
        self.sentence = sentence
        self.index = index  # 0-based position; ``id`` is CoNLL-U's 1-based one

    @property
    def _token(self) -> Token:
        return self.sentence.tokens[self.index]

    id = property(lambda self: self._token.id)
    form = property(lambda self: self._token.form)
    lemma = property(lambda self: _value(self._token.lemma))
    upos = property(lambda self: _value(self._token.upos))
    xpos = property(lambda self: _value(self._token.xpos))
    feats = property(lambda self: _value(self._token.feats))
    deprel = property(lambda self: _value(self._token.deprel))
    head_id = property(lambda self: self._token.head, doc="HEAD: 0 for the root, None before parsing")

    @property
    def head(self) -> Word | None:
        """The word this one depends on; None for the root (and for unparsed input)."""
        head = self._token.head
        return Word(self.sentence, head - 1) if head else None

    @property
    def children(self) -> list[Word]:
        """The words that depend on this one, in sentence order."""
        return [Word(self.sentence, k) for k, token in enumerate(self.sentence.tokens) if token.head == self.id]

    @property
    def misc(self) -> str | None:
        """The MISC column as the input (or the tokenizer) wrote it."""
        columns = self.sentence.lines[self.sentence.token_lines[self.index]].split("\t")
        return _value(columns[MISC_COLUMN]) if len(columns) > MISC_COLUMN else None

    @property
    def confidence(self) -> float | None:
        """The parser's confidence in the word's arc (MISC ``Conf``, written by ``parse --confidence``)."""
        for item in (self.misc or "").split("|"):
            if item.startswith("Conf="):
                return float(item[5:])
        return None

    @property
    def token(self) -> MultiwordToken | None:
        """The multi-word token this word belongs to, if any."""
        return multiword_tokens(self.sentence).get(self.id)

    @property
    def start_char(self) -> int | None:
        """Offset of the word's token in the raw text the tokenizer read (None for read input)."""
        return self._token.start_char

    @property
    def end_char(self) -> int | None:
        return self._token.end_char

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "form": self.form,
            "lemma": self.lemma,
            "upos": self.upos,
            "xpos": self.xpos,
            "feats": self.feats,
            "head": self.head_id,
            "deprel": self.deprel,
            "misc": self.misc,
            "confidence": self.confidence,
            "start_char": self.start_char,
            "end_char": self.end_char,
        }

    def __repr__(self) -> str:
        return f"Word({self.id}, {self.form!r}, head={self.head_id}, deprel={self.deprel!r})"


def multiword_tokens(sentence: Sentence) -> dict[int, MultiwordToken]:
    """Each word ID of a multi-word token mapped to that token, read from the sentence's range lines."""
    found: dict[int, MultiwordToken] = {}
    for line in sentence.lines:
        columns = line.split("\t")
        match = RANGE_ID.match(columns[0]) if len(columns) > 1 else None
        if not match:
            continue
        ids = tuple(range(int(match.group(1)), int(match.group(2)) + 1))
        first = sentence.tokens[ids[0] - 1] if ids[0] <= len(sentence.tokens) else None
        token = MultiwordToken(
            columns[0], columns[1], ids, first.start_char if first else None, first.end_char if first else None
        )
        found.update(dict.fromkeys(ids, token))
    return found


def comments(sentence: Sentence) -> dict[str, str | None]:
    """The sentence's ``# key = value`` comments (``# newpar`` and other bare ones map to None)."""
    found: dict[str, str | None] = {}
    for line in sentence.lines:
        if not line.startswith("#"):
            continue
        key, equals, value = line[1:].partition("=")
        found[key.strip()] = value.strip() if equals else None
    return found


def sentence_text(sentence: Sentence) -> str:
    """The ``# text`` comment, else the words joined as their ``SpaceAfter=No`` marks say."""
    given = comments(sentence).get("text")
    if given is not None:
        return given
    surface = []
    covered: set[int] = set()
    tokens = multiword_tokens(sentence)
    for word in sentence.words:
        if word.id in covered:
            continue
        multiword = tokens.get(word.id)
        covered.update(multiword.word_ids if multiword else ())
        surface.append(multiword.form if multiword else word.form)
        misc = _multiword_misc(sentence, multiword) if multiword else word.misc
        surface.append("" if misc and "SpaceAfter=No" in misc.split("|") else " ")
    return "".join(surface).rstrip()


def _multiword_misc(sentence: Sentence, token: MultiwordToken) -> str | None:
    line = next(line for line in sentence.lines if line.split("\t")[0] == token.id)
    return _value(line.split("\t")[MISC_COLUMN]) if line.count("\t") >= MISC_COLUMN else None


def sentence_dict(sentence: Sentence) -> dict[str, Any]:
    """The JSON object of one sentence (the schema of docs/python-api.md)."""
    found = comments(sentence)
    tokens = {token.id: token for token in multiword_tokens(sentence).values()}
    return {
        "sent_id": found.get("sent_id"),
        "text": sentence_text(sentence),
        "comments": {key: value for key, value in found.items() if key not in ("sent_id", "text")},
        "words": [word.to_dict() for word in sentence.words],
        "multiword_tokens": [token.to_dict() for token in tokens.values()],
    }


def sentence_json(sentence: Sentence, extra: dict[str, Any] | None = None) -> str:
    """One JSON Lines record: the sentence's object (plus ``extra`` keys), on one line."""
    return json.dumps({**sentence_dict(sentence), **(extra or {})}, ensure_ascii=False) + "\n"


def sentences_text(sentences: Sequence[Sentence], output_format: str = "conllu") -> str:
    """Sentences written as ``conllu`` (lossless) or ``json`` (JSON Lines: an object per sentence)."""
    if output_format == "json":
        return "".join(sentence_json(sentence) for sentence in sentences)
    return "".join(sentence.to_conllu() for sentence in sentences)


class Document(Sequence["Sentence"]):
    """Parsed sentences of one text: iterate, index, ``to_conllu()`` and ``to_dict()``/``to_json()``."""

    def __init__(self, sentences: Sequence[Sentence], text: str | None = None) -> None:
        self.sentences = list(sentences)
        self.text = text

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, index):
        return self.sentences[index]

    def __iter__(self) -> Iterator[Sentence]:
        return iter(self.sentences)

    @property
    def words(self) -> list[Word]:
        return [word for sentence in self.sentences for word in sentence.words]

    def to_conllu(self) -> str:
        return "".join(sentence.to_conllu() for sentence in self.sentences)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "sentences": [sentence_dict(s) for s in self.sentences]}

    def to_json(self, **dumps_options: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **dumps_options)

    def __repr__(self) -> str:
        return f"Document({len(self.sentences)} sentences)"

    def to_tokenlists(self) -> list:
        """The sentences as the ``conllu`` package's ``TokenList``s (comments as metadata, every column kept);
        ``lstmparse.read(tokenlists)`` reads them back."""
        import conllu

        return conllu.parse(self.to_conllu())

    def _repr_html_(self) -> str:
        """The document drawn in a notebook: its first sentences' trees as inline SVG, and how many more."""
        from lstmparse.io.render import notebook_html

        return notebook_html(self.sentences)
