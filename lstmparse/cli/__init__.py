"""The ``lstmparse`` command line: a thin shell over the :mod:`lstmparse` API, one module per family.

Data goes to stdout, progress and figures to stderr.  Malformed input ends with
``file:line: message`` and exit code 2; an interrupt exits with 130.
"""

from __future__ import annotations

import sys
import warnings

import click

from lstmparse.cli.average import average
from lstmparse.cli.common import GpuRequest
from lstmparse.cli.corpus import parse_corpus
from lstmparse.cli.ensemble import ensemble
from lstmparse.cli.evaluate import evaluate
from lstmparse.cli.farm import farm
from lstmparse.cli.models import models
from lstmparse.cli.parse import parse
from lstmparse.cli.refit import refit
from lstmparse.cli.release import release
from lstmparse.cli.render import render
from lstmparse.cli.serve import serve
from lstmparse.cli.stacklstm import oracle
from lstmparse.cli.train import train
from lstmparse.cli.treelstm import rerank, sample, score
from lstmparse.cli.vectors import vectors
from lstmparse.errors import UnfamiliarTextWarning


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """The toolkit's warnings as one line, ``lstmparse: warning: ...`` (others as Python shows them)."""
    if issubclass(category, UnfamiliarTextWarning):
        click.echo(f"lstmparse: warning: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


class OneLineErrors(click.Group):
    """A group whose usage errors are one line, ``lstmparse: ...`` and exit code 2, like every other error.

    Click would print a usage line, a hint and the error on three or four lines.
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        warnings.showwarning = _one_line_warning
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as error:
            command = error.ctx.command_path if error.ctx is not None else "lstmparse"
            click.echo(f"lstmparse: {error.format_message()} (see '{command} --help')", err=True)
            sys.exit(2)
        except click.ClickException as error:
            click.echo(f"lstmparse: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except click.exceptions.Abort:
            click.echo("lstmparse: interrupted", err=True)
            sys.exit(130)
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lstmparse")
@click.option("--gpu", is_flag=True, help="run DyNet on the GPU (needs DyNet built with CUDA: make dynet-gpu)")
@click.option("--dynet-gpus", type=click.IntRange(min=1), help="DyNet's --dynet-gpus: how many GPUs")
@click.option("--dynet-devices", help="DyNet's --dynet-devices, e.g. GPU:0 or GPU:0,GPU:1")
@click.pass_context
def main(ctx: click.Context, gpu, dynet_gpus, dynet_devices) -> None:
    """Syntactic parsing on DyNet: stack-LSTM dependency parsing, TreeLSTM reranking, seq2seq constituency parsing.

    GPU options go before the command: lstmparse --gpu train ...
    """
    wanted = bool(gpu or dynet_gpus or dynet_devices)
    ctx.obj = GpuRequest(gpus=(dynet_gpus or 1) if wanted else 0, devices=dynet_devices)


for command in (
    train,
    parse,
    parse_corpus,
    evaluate,
    farm,
    render,
    serve,
    models,
    average,
    ensemble,
    oracle,
    rerank,
    score,
    sample,
    vectors,
    refit,
    release,
):
    main.add_command(command)
