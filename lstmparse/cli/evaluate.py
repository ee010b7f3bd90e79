"""``lstmparse evaluate``: dependency and bracket scores, as the CoNLL 2018 scorer and EVALB give them."""

from __future__ import annotations

import click

from lstmparse.cli.common import EXISTING_FILE, clean_errors


@click.command()
@click.argument("gold", type=EXISTING_FILE)
@click.argument("system", type=EXISTING_FILE)
@click.option("--json", "as_json", is_flag=True, help="print the scores as JSON")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["conllu", "ptb"]),
    default="conllu",
    show_default=True,
    help="ptb: labelled brackets with EVALB's COLLINS.prm conventions",
)
@clean_errors
def evaluate(gold, system, as_json, fmt) -> None:
    """Score SYSTEM against GOLD: UAS, LAS, CLAS as the CoNLL 2018 scorer, and without punctuation;
    with --format ptb, labelled bracket recall, precision and F1 as EVALB."""
    import json

    if fmt == "ptb":
        from lstmparse.evalb import evaluate_ptb_files

        scores = evaluate_ptb_files(gold, system)
        click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())
        return
    from lstmparse.evaluation import evaluate_files

    scores = evaluate_files(gold, system)
    click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())
