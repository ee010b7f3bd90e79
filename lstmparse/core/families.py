"""The model families, each in one record: what ``--arch`` and ``config.json`` call it and where its parts are.

Everything that treats families differently reads this registry: ``lstmparse
train`` (its options class, trainer and ``--help`` section), ``lstmparse.load`` (the
object that loads a directory), the pipeline trainer, ``parse``/``parse-corpus``/
``serve`` (whether a model writes constituency trees) and ``lstmparse models`` (its
task).  Parts are named ``"module:attribute"`` and imported only when used, so that
reading the registry loads no DyNet.  A new family is its subpackage plus one
record here (and a ``family_option`` line in ``cli/train.py`` for each option no
family had before; its options class reads them, ``from_command_line``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lstmparse.core.options import RunOptions
from lstmparse.errors import ModelError

if TYPE_CHECKING:
    from lstmparse.core.records import ModelRecord


@dataclass(frozen=True)
class Family:
    """One architecture: its name, its title in ``train --help``, its task, and its parts by import path."""

    arch: str
    title: str
    task: str
    options: str | None  # the training options dataclass (a DyNet-free module), None: not trained by ``train``
    trainer: str | None  # ``train_*(options, log) -> record``
    loader: str  # a callable: model directory or its ModelRecord -> the API object
    constituency: bool = False  # writes bracketed trees rather than dependency trees

    def options_class(self) -> type[RunOptions]:
        return resolve(self.options)

    def trainer_function(self):
        return resolve(self.trainer)

    def load(self, record: ModelRecord):
        """The API object of a model directory, from its record (read once, handed on to the loaders)."""
        return resolve(self.loader)(record)


def resolve(reference: str | None):
    """``"package.module:Name.attribute"`` imported."""
    if reference is None:
        raise ValueError("this family has no such part")
    module, _, attributes = reference.partition(":")
    value = importlib.import_module(module)
    for name in attributes.split("."):
        value = getattr(value, name)
    return value


TREELSTM = Family(
    "treelstm",
    "TreeLSTM",
    "tree language model (reranking)",
    "lstmparse.treelstm.options:TreeLSTMOptions",
    "lstmparse.treelstm.training:train_treelstm",
    "lstmparse.treelstm.model:TreeLSTM.load",
)
SEQ2SEQ = Family(
    "seq2seq",
    "seq2seq constituency parser",
    "constituency parser",
    "lstmparse.seq2seq.options:Seq2SeqOptions",
    "lstmparse.seq2seq.training:train_seq2seq",
    "lstmparse.seq2seq.api:ConstituencyParser.load",
    constituency=True,
)
STACKLSTM = Family(
    "stacklstm",
    "stack-LSTM parser",
    "dependency parser",
    "lstmparse.stacklstm.options:StackLSTMOptions",
    "lstmparse.stacklstm.training:train",
    "lstmparse.stacklstm.api:Parser.load",
)

TAGGER = Family(
    "tagger",
    "tagger",
    "tagger",
    "lstmparse.tagger.options:TaggerOptions",
    "lstmparse.tagger.training:train_tagger",
    "lstmparse.tagger.api:POSTagger.load",
)


def ensemble_of(member: Family) -> Family:
    """An ensemble's manifest, made by ``lstmparse ensemble`` (not trained), loaded as one model of ``member``'s."""
    return replace(member, arch=f"{member.arch}_ensemble", task=f"{member.task} (ensemble)", options=None, trainer=None)


FAMILIES = (
    STACKLSTM,
    ensemble_of(STACKLSTM),
    TREELSTM,
    replace(TREELSTM, arch="ldtreelstm"),  # the same family, the left-dependent variant (``--arch`` picks it)
    SEQ2SEQ,
    ensemble_of(SEQ2SEQ),
    TAGGER,
    ensemble_of(TAGGER),
    Family(
        "tokenizer",
        "tokenizer",
        "tokenizer",
        "lstmparse.tokenizer.options:TokenizerOptions",
        "lstmparse.tokenizer.training:train_tokenizer",
        "lstmparse.tokenizer.api:Tokenizer.load",
    ),
    Family(
        "pipeline",
        "pipeline",
        "raw text to dependency trees",
        "lstmparse.pipeline.options:PipelineOptions",
        "lstmparse.pipeline.training:train_pipeline",
        "lstmparse.pipeline.api:Pipeline.load",
    ),
)
BY_ARCH = {family.arch: family for family in FAMILIES}
TRAINABLE = tuple(family.arch for family in FAMILIES if family.trainer is not None)
CONSTITUENCY_ARCHS = tuple(family.arch for family in FAMILIES if family.constituency)


def family(arch: str) -> Family:
    """The family of an architecture name (``model_io.model_arch`` gives ``stacklstm`` for the oldest models)."""
    if arch not in BY_ARCH:
        raise ModelError(f"unknown model architecture {arch!r}; this lstmparse knows {', '.join(BY_ARCH)}")
    return BY_ARCH[arch]
