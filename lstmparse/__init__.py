"""lstmparse: neural syntactic parsing with DyNet (tokenizer, tagger, stack-LSTM parser, TreeLSTM reranker, seq2seq
constituency parser).

Importing the package neither imports nor configures DyNet.  :func:`load` (and
``lstmparse.Parser`` and the other classes) apply the toolkit's DyNet settings on
first use; call :func:`configure` before them to choose DyNet's seed, memory,
autobatching or GPU.
"""

from __future__ import annotations

from lstmparse.core.backend import configure, configure_defaults
from lstmparse.errors import InputError, ModelError
from lstmparse.io.formats import Sentence, Token, read_sentences

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
    from lstmparse.core.model_io import DEFAULT_MODEL, model_arch

    configure_defaults()
    path = resolve_model(path or DEFAULT_MODEL)
    return family(model_arch(path)).load(path)


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
    "read_sentences",
]
