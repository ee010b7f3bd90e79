"""lstmparse: neural syntactic parsing with DyNet (tokenizer, tagger, stack-LSTM parser, TreeLSTM reranker, seq2seq
constituency parser).

Importing the package neither imports nor configures DyNet.  :func:`load` (and
``lstmparse.Parser`` and the other classes) apply the toolkit's DyNet settings on
first use; call :func:`configure` before them to choose DyNet's seed, memory,
autobatching or GPU.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lstmparse.core.backend import configure, configure_defaults
from lstmparse.errors import InputError, ModelError
from lstmparse.io.formats import Sentence, Token, read_sentences

if TYPE_CHECKING:
    from lstmparse.io.document import Document

__version__ = "0.7.0"


def load(path=None):
    """Load a model by name (``"en_ewt_upos"``, see ``lstmparse models``) or directory (default: the shipped
    English pipeline): the object its kind calls for.

    A pipeline gives a :class:`Pipeline` (callable on raw text, giving a
    :class:`~lstmparse.io.document.Document`; ``parse`` for tokenized sentences), a
    dependency model a :class:`Parser`, a sequence-to-sequence model a
    :class:`ConstituencyParser` (both with ``parse`` and ``parse_kbest``), a tagger
    a ``POSTagger`` (``tag``) and a tokenizer a ``Tokenizer`` (``tokenize``).
    """
    from lstmparse.app.catalog import resolve_model
    from lstmparse.core.families import family
    from lstmparse.core.model_io import DEFAULT_MODEL
    from lstmparse.core.records import read_record

    configure_defaults()
    record = read_record(resolve_model(path or DEFAULT_MODEL))
    return family(record.arch).load(record)


def read(source) -> Document:
    """A :class:`Document` of CoNLL-U: a file's path, the CoNLL-U text itself (a string with a line break), or
    the ``conllu`` package's ``TokenList``s (what ``conllu.parse`` gives, and ``Document.to_tokenlists()``).

    Every comment, multi-word token, empty node and column is kept (``to_conllu()``
    writes the input back byte for byte), and a pipeline parses a document in place
    of text (``pipeline(document)``).
    """
    from pathlib import Path

    from lstmparse.io.document import Document
    from lstmparse.io.formats import sentences_from_text

    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source):
        return Document(list(read_sentences(str(source))))
    if isinstance(source, str):
        return Document(sentences_from_text(source))
    if isinstance(source, list | tuple) and all(hasattr(item, "serialize") for item in source):
        return Document(sentences_from_text("".join(tokenlist.serialize() for tokenlist in source)))
    raise TypeError(f"read() takes a path, CoNLL-U text or conllu TokenLists; got {type(source).__name__}")


def load_constituency(path, tagger=None):
    """Load a sequence-to-sequence constituency parser (or an ensemble) by name or directory.

    ``tagger`` (a tagger, or a pipeline with one, by name or directory) puts its
    XPOS tags on the trees' preterminals where the input brings none (else ``XX``).
    """
    from lstmparse.app.catalog import resolve_model

    configure_defaults()
    from lstmparse.seq2seq.api import ConstituencyParser

    return ConstituencyParser.load(resolve_model(path), resolve_model(tagger) if tagger is not None else None)


def __getattr__(name: str):
    """``lstmparse.Parser``, ``ConstituencyParser`` and ``Pipeline``, imported (with DyNet) on first use."""
    if name in ("Parser", "ConstituencyParser", "Pipeline"):
        configure_defaults()
    if name == "Parser":
        from lstmparse.stacklstm.api import Parser

        return Parser
    if name == "ConstituencyParser":
        from lstmparse.seq2seq.api import ConstituencyParser

        return ConstituencyParser
    if name == "Pipeline":
        from lstmparse.pipeline.api import Pipeline

        return Pipeline
    if name in ("Document", "Word"):
        from lstmparse.io import document

        return getattr(document, name)
    raise AttributeError(f"module 'lstmparse' has no attribute {name!r}")


__all__ = [
    "ConstituencyParser",
    "Document",
    "InputError",
    "ModelError",
    "Parser",
    "Pipeline",
    "Sentence",
    "Token",
    "Word",
    "configure",
    "load",
    "load_constituency",
    "read",
    "read_sentences",
]
