"""``lstmparse parse``: dependency or constituency trees, whichever the model builds."""

from __future__ import annotations

import functools
import time

import click

from lstmparse import backend
from lstmparse.cli.common import MEMORY_MB, clean_errors, written
from lstmparse.errors import ConfigurationError
from lstmparse.formats import FORMATS


@click.command()
@click.option("--model", "model_dir", type=click.Path(file_okay=False), help="model directory [default: shipped]")
@click.option("--input", "input_file", default="-", show_default=True, help="input file, - for stdin")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option(
    "--input-format",
    type=click.Choice(FORMATS + ("raw", "ptb")),
    default="conllu",
    show_default=True,
    help="raw: plain text, paragraphs separated by blank lines (a pipeline model tokenizes it); "
    "ptb: bracketed trees, for constituency models (their words are parsed, their POS tags kept)",
)
@click.option(
    "--retag",
    is_flag=True,
    help="pipeline models: predict UPOS, XPOS and FEATS even where the input has them (by default only blank "
    "columns are tagged)",
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
@click.option(
    "--tagger",
    "tagger_dir",
    type=click.Path(exists=True, file_okay=False),
    help="constituency models: put this tagger's XPOS (a tagger or a pipeline's, e.g. models/en_ewt_pipeline) on "
    "the preterminals where the input has no tags, instead of XX",
)
@click.option("--quiet", is_flag=True, help="no progress or speed report on stderr")
@click.option("--memory-mb", default=backend.DEFAULT_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def parse(
    model_dir,
    input_file,
    output_file,
    input_format,
    retag,
    beam,
    kbest,
    batch_size,
    constrained,
    jobs,
    tagger_dir,
    quiet,
    memory_mb,
) -> None:
    """Parse raw text, tokenized text, CoNLL-U or CoNLL-X; write CoNLL-U (bracketed trees with a constituency model).

    The default model is the English pipeline (tokenizer, tagger, parser): it takes
    all four; CoNLL-U columns the input fills are kept.
    """
    from lstmparse.model_io import CONSTITUENCY_ARCHS, DEFAULT_MODEL, model_arch
    from lstmparse.outputs import check_output_path

    arch = model_arch(model_dir or DEFAULT_MODEL)
    if arch in CONSTITUENCY_ARCHS:
        if retag:
            raise ConfigurationError(f"--retag: {model_dir} is a constituency model, which reads no tags")
        _parse_constituency(
            model_dir,
            input_file,
            output_file,
            input_format,
            tagger_dir,
            (beam or 10, constrained, kbest, jobs),
            quiet,
            memory_mb,
        )
        return
    if tagger_dir:
        raise ConfigurationError(
            f"--tagger applies to constituency models; {model_dir or DEFAULT_MODEL} is a {arch} model "
            "(a pipeline tags with its own tagger)"
        )
    check_output_path(output_file, (input_file,))  # before the model is loaded: fail fast
    beam = beam or 1
    if input_format == "ptb":
        raise click.BadParameter("bracketed input needs a constituency (seq2seq) model", param_hint="--input-format")
    if arch != "pipeline" and (input_format == "raw" or retag):
        option = "--retag" if retag else "--input-format raw"
        raise ConfigurationError(
            f"{option} needs a pipeline model with a tokenizer and tagger (such as the default, {DEFAULT_MODEL.name}); "
            f"{model_dir or DEFAULT_MODEL} is a {arch} model"
        )
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.pipeline.api import Pipeline

    load_start = time.time()
    # with --jobs too: a bad model fails here, with a clean error, not in a worker
    pipeline = Pipeline.load_any(model_dir or DEFAULT_MODEL)
    load_seconds = time.time() - load_start
    start, sentences, words = time.time(), 0, 0
    streaming = batch_size == 1  # every stage hands on each sentence at once (interactive use)
    inputs = pipeline.tag(pipeline.read(input_file, input_format, streaming), retag, streaming)
    parsed = _parsed(pipeline.parser, inputs, beam, kbest, batch_size, jobs, str(pipeline.parts["parser"]), memory_mb)
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


def _parse_constituency(model_dir, input_file, output_file, input_format, tagger_dir, search, quiet, memory_mb):
    """Parse with a seq2seq model: one bracketed tree per line, and how many outputs needed repair.

    ``search`` is (beam, constrained, kbest, jobs).
    """
    beam, constrained, kbest, jobs = search
    if jobs > 1:
        raise click.BadParameter("constituency models parse in one process (batched beam search)", param_hint="--jobs")
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.formats import read_sentences
    from lstmparse.ptb import iter_ptb
    from lstmparse.seq2seq.api import ConstituencyParser
    from lstmparse.tokenizer.api import read_raw

    load_start = time.time()
    parser = ConstituencyParser.load(model_dir, tagger_dir)
    load_seconds = time.time() - load_start
    if input_format == "ptb":
        inputs = iter_ptb(input_file)
    elif input_format == "raw":
        inputs = _default_tokenizer().tokenize_paragraphs(read_raw(input_file))
    else:
        inputs = read_sentences(input_file, input_format)
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


def _default_tokenizer():
    """The default pipeline's tokenizer: it splits raw text for a constituency model."""
    from lstmparse.model_io import DEFAULT_MODEL
    from lstmparse.pipeline.manifest import part_directories
    from lstmparse.tokenizer.api import Tokenizer

    return Tokenizer.load(part_directories(DEFAULT_MODEL)["tokenizer"])


def _parsed(parser, sentences, beam: int, kbest: int, batch_size: int, jobs: int, parser_dir: str, memory_mb):
    """Lists of parsed candidates per input sentence: greedy or beam search, ``batch_size`` at a time.

    With ``--jobs``, tokenizing and tagging stay in this process; the parser's
    processes get tagged sentences.
    """
    from lstmparse.stacklstm.parallel import parse_in_processes

    if jobs > 1:
        return parse_in_processes(parser_dir, sentences, jobs, beam, kbest, memory_mb, batch_size)
    return parser.candidates(sentences, beam, kbest, batch_size)
