"""``lstmparse train``'s options sorted by model family: which architectures each applies to, and ``--help`` in
one section per family, with each family's defaults read from its options dataclass."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import click

from lstmparse.core.families import TRAINABLE, family
from lstmparse.core.options import RunOptions
from lstmparse.seq2seq.options import Seq2SeqOptions
from lstmparse.stacklstm.options import BATCH_SIZE_HELP, FEATURES, LEARNING_RATE_HELP, StackLSTMOptions
from lstmparse.tagger.options import TaggerOptions
from lstmparse.tokenizer.options import TokenizerOptions
from lstmparse.treelstm.options import TreeLSTMOptions

FAMILIES = {arch: family(arch).title for arch in TRAINABLE}  # --arch: its section of --help
EVERY = tuple(FAMILIES)
STACK = ("stacklstm",)
TREE = ("treelstm", "ldtreelstm")
SEQ2SEQ = ("seq2seq",)
TAGGER = ("tagger",)
TOKENIZER = ("tokenizer",)
PIPELINE = ("pipeline",)
FEATURE_HELP = f"comma-separated token features from {','.join(FEATURES)}"


class FamilyOption(click.Option):
    """An option that knows which architectures (``--arch``) it applies to."""

    def __init__(self, *args, families: tuple[str, ...] = EVERY, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.families = families

    @property
    def section(self) -> str:
        if self.families == EVERY:
            return "Every architecture"
        names = sorted({FAMILIES[f] for f in self.families}, key=list(FAMILIES.values()).index)
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return listed + f" (--arch {', '.join(self.families)})"


class FamilyCommand(click.Command):
    """A command whose ``--help`` lists options in one section per family."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                sections.setdefault(getattr(param, "section", "Every architecture"), []).append(record)
        for title, rows in sections.items():
            with formatter.section(title):
                formatter.write_dl(rows)


def family_option(*decls: str, families: tuple[str, ...] = EVERY, **kwargs) -> Callable:
    """``click.option`` for an option of the given architectures (every one by default)."""
    return click.option(*decls, cls=FamilyOption, families=families, **kwargs)


def default_of(options_class: type[RunOptions], name: str) -> object:
    """A field's default in an options dataclass."""
    return next(f.default for f in dataclasses.fields(options_class) if f.name == name)


def defaults_of(name: str, per_class: Callable[[type[RunOptions]], object] | None = None) -> str:
    """'[default: stacklstm 1; TreeLSTMs 32; seq2seq 16]', read from each family's options dataclass."""
    named: dict[str, type[RunOptions]] = {
        "stacklstm": StackLSTMOptions,
        "TreeLSTMs": TreeLSTMOptions,
        "seq2seq": Seq2SeqOptions,
        "tagger": TaggerOptions,
        "tokenizer": TokenizerOptions,
    }
    value_of = per_class or (lambda options_class: default_of(options_class, name))
    return "[default: " + "; ".join(f"{label} {value_of(cls)}" for label, cls in named.items()) + "]"


def batch_size_default(options_class: type[RunOptions]) -> object:
    """The stack-LSTM's batch size follows the training set's size; the others have one value."""
    return BATCH_SIZE_HELP if options_class is StackLSTMOptions else default_of(options_class, "batch_size")


def learning_rate_default(options_class: type[RunOptions]) -> object:
    """The stack-LSTM's learning rate follows its optimizer and batch size; the others have one value."""
    return LEARNING_RATE_HELP if options_class is StackLSTMOptions else default_of(options_class, "learning_rate")


def was_given(ctx: click.Context, name: str) -> bool:
    """Whether the command line (not the option's default) gave the parameter ``name``."""
    return ctx.get_parameter_source(name) not in (click.core.ParameterSource.DEFAULT, None)


def refuse_foreign_options(ctx: click.Context, arch: str) -> None:
    """An option of another family is an error: training without it would not be what the user asked for."""
    for param in ctx.command.params:
        if isinstance(param, FamilyOption) and arch not in param.families and was_given(ctx, param.name):
            raise click.UsageError(
                f"{param.opts[0]} applies to --arch {', '.join(param.families)}, not {arch}", ctx=ctx
            )
