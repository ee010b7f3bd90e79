"""lstmparse: neural syntactic parsing with DyNet (tokenizer, tagger, stack-LSTM parser, TreeLSTM reranker, seq2seq
constituency parser).

Importing the package does not import DyNet; call :func:`configure` first to set
DyNet's seed, memory or autobatching, then use :func:`load` or the modules.
"""

from __future__ import annotations

from lstmparse.backend import configure, configure_from_environment
from lstmparse.errors import InputError, ModelError
from lstmparse.formats import Sentence, Token, read_sentences

__version__ = "0.5.0"

configure_from_environment()


def load(path=None):
    """Load a model directory (default: the shipped English pipeline): the object its kind calls for.

    A pipeline gives a :class:`Pipeline` (``parse_text`` for raw text, ``parse``
    for tokenized sentences), a dependency model a :class:`Parser`, a
    sequence-to-sequence model a :class:`ConstituencyParser` (both with ``parse``
    and ``parse_kbest``), a tagger a ``POSTagger`` (``tag``) and a tokenizer a
    ``Tokenizer`` (``tokenize``).
    """
    from lstmparse.model_io import CONSTITUENCY_ARCHS, DEFAULT_MODEL, model_arch

    path = path or DEFAULT_MODEL
    arch = model_arch(path)
    if arch in CONSTITUENCY_ARCHS:
        return load_constituency(path)
    if arch == "pipeline":
        from lstmparse.pipeline.api import Pipeline

        return Pipeline.load(path)
    if arch == "tagger":
        from lstmparse.tagger.api import POSTagger

        return POSTagger.load(path)
    if arch == "tokenizer":
        from lstmparse.tokenizer.api import Tokenizer

        return Tokenizer.load(path)
    from lstmparse.stacklstm.api import Parser

    return Parser.load(path)


def load_constituency(path, tagger=None):
    """Load a sequence-to-sequence constituency parser model directory (or an ensemble's).

    ``tagger`` (a tagger's directory, or a pipeline's with one) puts its XPOS tags
    on the trees' preterminals where the input brings none (else ``XX``).
    """
    from lstmparse.seq2seq.api import ConstituencyParser

    return ConstituencyParser.load(path, tagger)


def __getattr__(name: str):
    """``lstmparse.Parser``, ``ConstituencyParser`` and ``Pipeline``, imported (with DyNet) on first use."""
    if name == "Parser":
        from lstmparse.stacklstm.api import Parser

        return Parser
    if name == "ConstituencyParser":
        from lstmparse.seq2seq.api import ConstituencyParser

        return ConstituencyParser
    if name == "Pipeline":
        from lstmparse.pipeline.api import Pipeline

        return Pipeline
    raise AttributeError(f"module 'lstmparse' has no attribute {name!r}")


__all__ = [
    "ConstituencyParser",
    "InputError",
    "ModelError",
    "Parser",
    "Pipeline",
    "Sentence",
    "Token",
    "configure",
    "load",
    "load_constituency",
    "read_sentences",
]
