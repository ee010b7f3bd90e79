"""``lstmparse evaluate``: dependency and bracket scores, as the CoNLL 2018 scorer and EVALB give them."""

from __future__ import annotations

import click

from lstmparse.cli.common import EXISTING_FILE, MEMORY_MB, MODEL, clean_errors, configure_dynet
from lstmparse.errors import ConfigurationError


@click.command()
@click.argument("gold", type=EXISTING_FILE)
@click.argument("system", type=EXISTING_FILE, required=False)
@click.option("--model", type=MODEL, help="run this model (name or directory) on GOLD instead of reading SYSTEM")
@click.option(
    "--from",
    "source",
    type=click.Choice(["raw", "tokens"]),
    default="raw",
    show_default=True,
    help="with --model: raw: GOLD's text rebuilt as the CoNLL 2018 shared task did (paragraphs at # newpar/# newdoc); "
    "tokens: GOLD's words with the columns the model's tagger predicts blanked",
)
@click.option("--output", type=click.Path(dir_okay=False, allow_dash=True), help="with --model: keep its parse here")
@click.option("--beam", type=click.IntRange(min=1), help="with --model: beam width [default: the model's]")
@click.option("--memory-mb", type=MEMORY_MB, default=512, show_default=True, help="with --model: DyNet's memory, MB")
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
def evaluate(gold, system, model, source, output, beam, memory_mb, as_json, fmt) -> None:
    """Score SYSTEM against GOLD: UAS, LAS, CLAS as the CoNLL 2018 scorer, and without punctuation;
    with --format ptb, labelled bracket recall, precision and F1 as EVALB.

    With --model instead of SYSTEM, run the model on GOLD first (as UDPipe's --accuracy
    does): from GOLD's raw text (--from raw, a pipeline with a tokenizer) or from its
    gold tokens (--from tokens), and print the CoNLL 2018 table of what it made.

    CoNLL-U files are also scored as the CoNLL 2018 scorer does (tokens, sentences,
    words, tags, UAS, LAS, CLAS as F1 of aligned words), so a system that tokenized
    raw text itself is scored against gold; the gold-tokenization figures above the
    table need the same words on both sides.
    """
    import json

    if (system is None) == (model is None):
        raise click.UsageError("give either SYSTEM (a parse to score) or --model (a model to run on GOLD)")
    if model is not None:
        _evaluate_model(gold, model, source, output, beam, memory_mb, as_json)
        return
    if fmt == "ptb":
        from lstmparse.scoring.evalb import evaluate_ptb_files

        brackets = evaluate_ptb_files(gold, system)
        click.echo(json.dumps(brackets.as_dict(), indent=2) if as_json else brackets.report())
        return
    from lstmparse.io.formats import check_trees, read_sentences
    from lstmparse.scoring.conll18 import document, report, score_documents, unannotated_measures
    from lstmparse.scoring.evaluation import check_tree_shapes, same_words, score_sentences

    gold_sentences, system_sentences = list(read_sentences(gold)), list(read_sentences(system))
    if not gold_sentences:
        raise ConfigurationError(f"{gold}: no sentences to score against")
    check_tree_shapes(gold_sentences, "gold file's")
    check_tree_shapes(system_sentences, "system's")
    conll18 = score_documents(document(gold_sentences), document(system_sentences), system)
    scores = None
    if same_words(gold_sentences, system_sentences):
        scores = score_sentences(check_trees(gold_sentences), check_trees(system_sentences), system)
    unannotated = unannotated_measures(gold_sentences)
    if as_json:
        result: dict[str, object] = dict(scores.as_dict()) if scores is not None else {}
        result["conll18"] = {name: round(s.f1, 2) for name, s in conll18.items() if name not in unannotated}
        click.echo(json.dumps(result, indent=2))
        return
    if scores is not None:
        click.echo(scores.report() + "\n")
    else:
        click.echo(
            "lstmparse: no gold-tokenization scores (UAS/LAS/CLAS without alignment): the system's words differ "
            "from the gold file's (it tokenized the text itself); the CoNLL 2018 table aligns them",
            err=True,
        )
    click.echo(report(conll18, unannotated))


def _evaluate_model(
    gold: str, model: str, source: str, output: str | None, beam: int | None, memory_mb: int, as_json: bool
):
    """Run ``model`` on ``gold`` from raw text or gold tokens, keep its parse if asked, print the CoNLL 2018 table."""
    import json

    from lstmparse.app.accuracy import evaluate_model
    from lstmparse.io.outputs import open_output
    from lstmparse.scoring.conll18 import report

    configure_dynet(seed=1, memory_mb=memory_mb)
    run = evaluate_model(model, gold, source, beam)
    click.echo(f"lstmparse: {run.input_note}", err=True)
    if output is not None:
        with open_output(output, (gold,)) as handle:
            handle.writelines(sentence.to_conllu() for sentence in run.sentences)
    click.echo(json.dumps({"conll18": run.f1()}, indent=2) if as_json else report(run.scores, run.unannotated))
