"""Commands of the stack-LSTM family besides parse and train: ``lstmparse oracle``."""

from __future__ import annotations

import sys

import click

from lstmparse.cli.common import EXISTING_FILE, clean_errors
from lstmparse.stacklstm.systems import SYSTEMS


@click.command()
@click.argument("treebank", type=EXISTING_FILE)
@click.option(
    "--system",
    type=click.Choice(list(SYSTEMS)),
    default="arc-standard",
    show_default=True,
)
@click.option("--pseudo-projective", is_flag=True, help="run on projectivized trees")
@click.option("--transitions", is_flag=True, help="print each sentence's action sequence on stdout")
@click.option("--check", is_flag=True, help="exit 1 unless every tree the system can build is reproduced")
@click.option(
    "--input-format",
    type=click.Choice(["conllu", "conllx"]),
    default="conllu",
    show_default=True,
    help="the treebank's format",
)
@clean_errors
def oracle(treebank, system, pseudo_projective, transitions, check, input_format) -> None:
    """Run the static oracle on every tree of TREEBANK and report what it reproduces."""
    from lstmparse.stacklstm.oracle_report import run_oracle

    report = run_oracle(treebank, system, pseudo_projective, input_format)
    if transitions:
        for sent_id, actions in report.transitions:
            click.echo(f"{sent_id}\t{' '.join(actions) if actions is not None else '-'}")
    click.echo(report.summary(), err=transitions)
    if check and not report.complete:
        sys.exit(1)
