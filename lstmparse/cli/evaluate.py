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
        from lstmparse.scoring.evalb import evaluate_ptb_files

        scores = evaluate_ptb_files(gold, system)
        click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())
        return
    from lstmparse.io.formats import check_trees, read_sentences
    from lstmparse.scoring.conll18 import document, report, score_documents
    from lstmparse.scoring.evaluation import check_tree_shapes, same_words, score_sentences

    gold_sentences, system_sentences = list(read_sentences(gold)), list(read_sentences(system))
    check_tree_shapes(gold_sentences, "gold file's")
    check_tree_shapes(system_sentences, "system's")
    conll18 = score_documents(document(gold_sentences), document(system_sentences), system)
    scores = None
    if same_words(gold_sentences, system_sentences):
        scores = score_sentences(check_trees(gold_sentences), check_trees(system_sentences), system)
    if as_json:
        result = scores.as_dict() if scores is not None else {}
        result["conll18"] = {name: round(score.f1, 2) for name, score in conll18.items()}
        click.echo(json.dumps(result, indent=2))
        return
    if scores is not None:
        click.echo(scores.report() + "\n")
    click.echo(report(conll18))
