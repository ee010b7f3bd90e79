"""Commands of the TreeLSTM family: ``rerank``, ``score`` and ``sample``."""

from __future__ import annotations

import sys

import click

from lstmparse.cli.common import EXISTING_FILE, MEMORY_MB, MODEL, clean_errors, configure_dynet
from lstmparse.core import backend


@click.command()
@click.argument("kbest", required=False)
@click.option("--model", "model_dir", required=True, type=MODEL, help="TreeLSTM model directory or name")
@click.option("--k", "k", type=click.IntRange(min=1), help="candidates considered per sentence [default: tuned]")
@click.option("--weight", type=click.FloatRange(0, 1), help="W of the TreeLSTM's log-probability [default: tuned]")
@click.option("--tune", "tune_file", type=EXISTING_FILE, help="dev k-best file: pick W and K by UAS against --gold")
@click.option("--gold", "gold_file", type=EXISTING_FILE, help="gold trees of the --tune sentences")
@click.option("--save", is_flag=True, help="store the tuned W and K in the model directory")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option("--memory-mb", default=backend.AUTOBATCH_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def rerank(kbest, model_dir, k, weight, tune_file, gold_file, save, output_file, memory_mb) -> None:
    """Pick the best of each sentence's k-best trees (KBEST, - for stdin) with a TreeLSTM.

    Score = W * log P_treelstm(S|T) + (1 - W) * parser_score over the first K
    candidates; writes the chosen trees as CoNLL-U.
    """
    if bool(tune_file) != bool(gold_file):
        raise click.UsageError("--tune and --gold go together")
    if kbest is None and tune_file is None:
        raise click.UsageError("give a KBEST file to rerank, or --tune and --gold")
    configure_dynet(seed=1, memory_mb=memory_mb)
    from lstmparse.core.model_io import update_config
    from lstmparse.io.outputs import check_output_path, open_output
    from lstmparse.treelstm import rerank as reranking
    from lstmparse.treelstm.model import TreeLSTM

    model = TreeLSTM.load(model_dir)
    settings = dict(model.tuned)
    if tune_file:
        tuning = _tuned(model, tune_file, gold_file)
        settings = {"weight": tuning.weight, "k": tuning.k, "dev_uas": round(tuning.uas, 2)}
        if save:
            update_config(model_dir, {"rerank": settings})
    if kbest is None:
        return
    weight = settings.get("weight") if weight is None else weight
    k = settings.get("k", 10**9) if k is None else k
    if weight is None:
        raise click.UsageError(f"{model_dir} has no tuned weight: give --weight, or --tune and --gold (with --save)")
    check_output_path(output_file, (kbest,))
    groups = reranking.read_kbest(kbest)
    k = min(k, max((len(group) for group in groups), default=1))  # the K that applies to this file
    if weight:  # at W = 0 the TreeLSTM's score counts for nothing: no candidate is scored
        _score(model, groups, k)
    with open_output(output_file, (kbest,)) as out:
        for sentence in reranking.rerank(groups, weight, k):
            out.write(sentence.to_conllu())
    scored = "" if weight else " (W = 0: the parser's scores alone, nothing scored by the TreeLSTM)"
    click.echo(f"reranked {len(groups)} sentences with W = {weight}, K = {k}{scored}", err=True)


def _score(model, groups, k: int | None = None) -> None:
    """Each candidate's TreeLSTM score, among the first ``k`` of its sentence, with a progress bar."""
    from lstmparse.treelstm import rerank as reranking

    count = sum(len(reranking.candidates_within(group, k)) for group in groups)
    with click.progressbar(length=count, label="scoring candidates", file=sys.stderr) as bar:
        reranking.score_candidates(model, groups, bar.update, k)


def _tuned(model, tune_file: str, gold_file: str):
    from lstmparse.io.formats import read_treebank
    from lstmparse.treelstm import rerank as reranking

    groups = reranking.read_kbest(tune_file)
    _score(model, groups)
    tuning = reranking.tune(groups, read_treebank(gold_file))
    click.echo(
        f"tuned on {tune_file}: W = {tuning.weight}, K = {tuning.k}; UAS 1-best {tuning.one_best_uas:.2f}, "
        f"reranked {tuning.uas:.2f}, oracle {tuning.oracle_uas:.2f}",
        err=True,
    )
    return tuning


@click.command()
@click.argument("treebank")
@click.option("--model", "model_dir", required=True, type=MODEL, help="TreeLSTM model directory or name")
@click.option("--memory-mb", default=backend.AUTOBATCH_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def score(treebank, model_dir, memory_mb) -> None:
    """Print log P(S|T), word count and perplexity of each tree in TREEBANK (- for stdin)."""
    configure_dynet(seed=1, memory_mb=memory_mb)
    from lstmparse.treelstm.model import TreeLSTM
    from lstmparse.treelstm.rerank import comment_value
    from lstmparse.treelstm.training import corpus_perplexity, read_trees, tree_scores

    model = TreeLSTM.load(model_dir)
    sentences = read_trees(treebank)
    scores = tree_scores(model, sentences)
    click.echo("sent_id\tlog_prob\twords\tperplexity")
    for number, (sentence, tree) in enumerate(zip(sentences, scores, strict=True), start=1):
        sent_id = comment_value(sentence, "sent_id") or str(number)
        click.echo(f"{sent_id}\t{tree.log_prob:.4f}\t{tree.words}\t{tree.perplexity:.2f}")
    click.echo(f"{len(sentences)} trees, perplexity {corpus_perplexity(scores):.2f}", err=True)


@click.command()
@click.option("--model", "model_dir", required=True, type=MODEL, help="TreeLSTM model directory or name")
@click.option("-n", "count", default=10, show_default=True, type=click.IntRange(min=1), help="trees to generate")
@click.option("--max-words", default=60, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=1, show_default=True, type=int, help="seeds Python, NumPy and DyNet")
@clean_errors
def sample(model_dir, count, max_words, seed) -> None:
    """Generate trees from a TreeLSTM and write them as CoNLL-U (HEAD filled, DEPREL _)."""
    configure_dynet(seed=seed)
    from lstmparse.io.formats import Sentence
    from lstmparse.treelstm.model import TreeLSTM

    model = TreeLSTM.load(model_dir)
    for number in range(1, count + 1):
        forms, heads = model.sample_tree(max_words)
        sentence = Sentence.from_forms(forms, [f"# sent_id = sample-{number}", f"# text = {' '.join(forms)}"])
        click.echo(sentence.to_conllu(heads, [None] * len(forms)), nl=False)
