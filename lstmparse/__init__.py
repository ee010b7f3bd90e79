"""lstmparse: neural syntactic parsing with DyNet (stack-LSTM transition parser).

Importing the package does not import DyNet; call :func:`configure` first to set
DyNet's seed, memory or autobatching, then use :func:`load` or the modules.
"""

from __future__ import annotations

from .backend import configure, configure_from_environment
from .errors import InputError, ModelError
from .formats import Sentence, Token, read_sentences

__version__ = "0.1.0"

configure_from_environment()


def load(path=None):
    """Load a parser model directory (default: the shipped English model)."""
    from .api import Parser

    return Parser.load(path)


__all__ = ["InputError", "ModelError", "Sentence", "Token", "configure", "load", "read_sentences"]
