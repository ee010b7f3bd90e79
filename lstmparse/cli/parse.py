"""``lstmparse parse``: dependency or constituency trees, whichever the model builds."""

from __future__ import annotations

import functools
import time

import click

from lstmparse import backend
from lstmparse.cli.common import MEMORY_MB, clean_errors, written
from lstmparse.formats import FORMATS


@click.command()
@click.option("--model", "model_dir", type=click.Path(file_okay=False), help="model directory [default: shipped]")
@click.option("--input", "input_file", default="-", show_default=True, help="input file, - for stdin")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option(
    "--input-format",
    type=click.Choice(FORMATS + ("ptb",)),
    default="conllu",
    show_default=True,
    help="ptb: bracketed trees, for constituency models (their words are parsed, their POS tags kept)",
)
@click.option("--beam", type=click.IntRange(min=1), help="beam width, 1: greedy [default: 1; constituency models 10]")
@click.option(
    "--kbest",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="write the K best trees per sentence, ranked and scored (needs --beam >= K); constituency models write "
    "a block per sentence of 'rank<TAB>log-probability<TAB>tree' lines",
)
@click.option(
    "--jobs",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="parse with N processes (output stays in input order)",
)
@click.option(
    "--batch-size",
    default=32,
    show_default=True,
    type=click.IntRange(min=1),
    help="dependency models: parses advanced together in lock-step, sentences x beam (1: one sentence at a time; "
    "the output is the same, larger batches are faster and take more memory)",
)
@click.option(
    "--constrained/--unconstrained",
    default=True,
    show_default=True,
    help="constituency models: search only well-formed trees, or (the paper's way) repair malformed output",
)
@click.option("--quiet", is_flag=True, help="no progress or speed report on stderr")
@click.option("--memory-mb", default=backend.DEFAULT_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def parse(
    model_dir, input_file, output_file, input_format, beam, kbest, batch_size, constrained, jobs, quiet, memory_mb
) -> None:
    """Parse CoNLL-U, CoNLL-X or tokenized text; write CoNLL-U (bracketed trees with a constituency model)."""
    from lstmparse.model_io import DEFAULT_MODEL, model_arch
    from lstmparse.outputs import check_output_path

    if model_arch(model_dir or DEFAULT_MODEL) == "seq2seq":
        _parse_constituency(
            model_dir, input_file, output_file, input_format, beam or 10, constrained, kbest, jobs, quiet, memory_mb
        )
        return
    check_output_path(output_file, (input_file,))  # before the model is loaded: fail fast
    beam = beam or 1
    if input_format == "ptb":
        raise click.BadParameter("bracketed input needs a constituency (seq2seq) model", param_hint="--input-format")
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.stacklstm.api import Parser

    load_start = time.time()
    parser = Parser.load(model_dir)  # with --jobs too: a bad model fails here, with a clean error, not in a worker
    load_seconds = time.time() - load_start
    start, sentences, words = time.time(), 0, 0
    parsed = _parsed(parser, input_file, input_format, beam, kbest, batch_size, jobs, model_dir, memory_mb)
    for candidates in written(output_file, parsed, lambda cs: "".join(c.to_conllu() for c in cs), quiet, input_file):
        sentences += 1
        words += len(candidates[0])
    seconds = max(time.time() - start, 1e-9)
    if not quiet:
        click.echo(
            f"parsed {sentences} sentences, {words} words in {seconds:.1f} s "
            f"({sentences / seconds:.1f} sentences/s, {words / seconds:.0f} words/s); "
            f"model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _bracketed_lines(candidates, kbest: bool) -> str:
    """One tree per line; with --kbest, a block per sentence of ``rank<TAB>log-probability<TAB>tree`` lines."""
    if not kbest:
        return candidates[0].to_bracketed() + "\n"
    return "".join(f"{c.rank}\t{c.log_prob:.4f}\t{c.to_bracketed()}\n" for c in candidates) + "\n"


def _parse_constituency(
    model_dir, input_file, output_file, input_format, beam, constrained, kbest, jobs, quiet, memory_mb
):
    """Parse with a seq2seq model: one bracketed tree per line, and how many outputs needed repair."""
    if jobs > 1:
        raise click.BadParameter("constituency models parse in one process (batched beam search)", param_hint="--jobs")
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.formats import read_sentences
    from lstmparse.ptb import iter_ptb
    from lstmparse.seq2seq.api import ConstituencyParser

    load_start = time.time()
    parser = ConstituencyParser.load(model_dir)
    load_seconds = time.time() - load_start
    inputs = iter_ptb(input_file) if input_format == "ptb" else read_sentences(input_file, input_format)
    start, sentences, repaired = time.time(), 0, 0
    parsed = parser.parse_kbest(inputs, beam, kbest, constrained)
    lines = functools.partial(_bracketed_lines, kbest=kbest > 1)
    for candidates in written(output_file, parsed, lines, quiet, input_file):
        sentences += 1
        repaired += candidates[0].repaired
    seconds = max(time.time() - start, 1e-9)
    if not quiet:
        click.echo(
            f"parsed {sentences} sentences in {seconds:.1f} s ({sentences / seconds:.1f} sentences/s, beam {beam}, "
            f"{'constrained' if constrained else 'unconstrained'}); {repaired} outputs repaired into well-formed "
            f"trees; model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _parsed(
    parser, input_file: str, input_format: str, beam: int, kbest: int, batch_size: int, jobs: int, model_dir, memory_mb
):
    """Lists of parsed candidates per input sentence: greedy or beam search, ``batch_size`` at a time."""
    from lstmparse.formats import read_sentences
    from lstmparse.stacklstm.parallel import parse_in_processes

    sentences = read_sentences(input_file, input_format)
    if jobs > 1:
        return parse_in_processes(model_dir, sentences, jobs, beam, kbest, memory_mb, batch_size)
    return parser.candidates(sentences, beam, kbest, batch_size)
