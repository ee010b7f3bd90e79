"""lstmparse: neural syntactic parsing with DyNet (stack-LSTM parser, TreeLSTM reranker, seq2seq constituency parser).

Importing the package does not import DyNet; call :func:`configure` first to set
DyNet's seed, memory or autobatching, then use :func:`load` or the modules.
"""

from __future__ import annotations

from lstmparse.backend import configure, configure_from_environment
from lstmparse.errors import InputError, ModelError
from lstmparse.formats import Sentence, Token, read_sentences

__version__ = "0.3.0"

configure_from_environment()


def load(path=None):
    """Load a model directory (default: the shipped English model): the parser its kind calls for.

    A dependency model gives a :class:`Parser`, a sequence-to-sequence model a
    :class:`ConstituencyParser`; both have ``parse`` (and ``parse_kbest``).
    """
    from lstmparse.model_io import DEFAULT_MODEL, model_arch

    if model_arch(path or DEFAULT_MODEL) == "seq2seq":
        return load_constituency(path)
    from lstmparse.stacklstm.api import Parser

    return Parser.load(path)


def load_constituency(path):
    """Load a sequence-to-sequence constituency parser model directory."""
    from lstmparse.seq2seq.api import ConstituencyParser

    return ConstituencyParser.load(path)


def __getattr__(name: str):
    """``lstmparse.Parser`` and ``lstmparse.ConstituencyParser``, imported (with DyNet) on first use."""
    if name == "Parser":
        from lstmparse.stacklstm.api import Parser

        return Parser
    if name == "ConstituencyParser":
        from lstmparse.seq2seq.api import ConstituencyParser

        return ConstituencyParser
    raise AttributeError(f"module 'lstmparse' has no attribute {name!r}")


__all__ = [
    "ConstituencyParser",
    "InputError",
    "ModelError",
    "Parser",
    "Sentence",
    "Token",
    "configure",
    "load",
    "load_constituency",
    "read_sentences",
]
