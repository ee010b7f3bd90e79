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
    with --format ptb, labelled bracket recall, precision and F1 as EVALB.

    CoNLL-U files are also scored as the CoNLL 2018 scorer does (tokens, sentences,
    words, tags, UAS, LAS, CLAS as F1 of aligned words), so a system that tokenized
    raw text itself is scored against gold; the gold-tokenization figures above the
    table need the same words on both sides.
    """
    import json

    if fmt == "ptb":
        from lstmparse.evalb import evaluate_ptb_files

        scores = evaluate_ptb_files(gold, system)
        click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())
        return
    from lstmparse.conll18 import evaluate_conll18, report
    from lstmparse.evaluation import evaluate_files, same_words

    conll18 = evaluate_conll18(gold, system)
    scores = evaluate_files(gold, system) if same_words(gold, system) else None
    if as_json:
        result = scores.as_dict() if scores is not None else {}
        result["conll18"] = {name: round(score.f1, 2) for name, score in conll18.items()}
        click.echo(json.dumps(result, indent=2))
        return
    if scores is not None:
        click.echo(scores.report() + "\n")
    click.echo(report(conll18))
