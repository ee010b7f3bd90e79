"""``lstmparse parse-corpus``: many shards, one output each, resumable, on local processes or a Dask cluster."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import click

from lstmparse.cli.common import MEMORY_MB, MODEL, MODEL_HELP, clean_errors
from lstmparse.core import backend
from lstmparse.core.batching import PARSE_BATCH_SIZE
from lstmparse.core.model_io import CONSTITUENCY_ARCHS, DEFAULT_MODEL
from lstmparse.core.records import ModelRecord, read_record
from lstmparse.io.formats import FORMATS, RAW_FORMATS


@click.command("parse-corpus")
@click.argument("shards", nargs=-1, required=True)
@click.option(
    "--output-dir", required=True, type=click.Path(file_okay=False), help="one output file per shard is written here"
)
@click.option("--model", "model_dir", type=MODEL, help=MODEL_HELP)
@click.option(
    "--input-format",
    type=click.Choice(FORMATS + RAW_FORMATS + ("ptb",)),
    default="conllu",
    show_default=True,
    help="raw: plain text, paragraphs separated by blank lines; presegmented: plain text, a sentence per line (both "
    "need a pipeline model, such as the default, or a constituency model); ptb: bracketed trees (constituency models)",
)
@click.option(
    "--output-format",
    type=click.Choice(("conllu", "json", "ptb")),
    help="as for parse; the outputs are named <shard>.conllu, .jsonl or .mrg [default: conllu; constituency "
    "models ptb]",
)
@click.option(
    "--beam", type=click.IntRange(min=1), help="beam width, 1: greedy [default: the model's; constituency models 10]"
)
@click.option("--kbest", default=1, show_default=True, type=click.IntRange(min=1), help="trees written per sentence")
@click.option(
    "--batch-size", default=PARSE_BATCH_SIZE, show_default=True, type=click.IntRange(min=1), help="as for parse"
)
@click.option("--workers", type=click.IntRange(min=1), help="local processes, each loading the model once [default: 1]")
@click.option("--scheduler", help="address of a Dask scheduler (tcp://HOST:8786) to run the shards on instead")
@click.option("--quiet", is_flag=True, help="no progress bar or summary on stderr")
@click.option(
    "--memory-mb",
    default=backend.DEFAULT_MEMORY_MB,
    show_default=True,
    type=MEMORY_MB,
    help="DyNet's memory pools at start in each worker, MB (they grow as needed)",
)
@clean_errors
def parse_corpus(
    shards,
    output_dir,
    model_dir,
    input_format,
    output_format,
    beam,
    kbest,
    batch_size,
    workers,
    scheduler,
    quiet,
    memory_mb,
) -> None:
    """Parse each SHARD (files or glob patterns) into OUTPUT_DIR/<shard name>, as `lstmparse parse` would.

    Outputs appear whole or not at all, so a rerun skips the shards already done.
    A malformed shard is reported with its file:line error and the others go on;
    the exit code is then 2.
    """
    from lstmparse.app import corpus
    from lstmparse.pipeline.manifest import decoding_beam

    if workers is not None and scheduler is not None:
        raise click.UsageError("--workers runs local processes, --scheduler a Dask cluster: pick one")
    record = read_record(model_dir or DEFAULT_MODEL)
    constituency = record.arch in CONSTITUENCY_ARCHS
    beam = beam or (10 if constituency else decoding_beam(record))
    output_format = output_format or ("ptb" if constituency else "conllu")
    _check_request(record, constituency, input_format, output_format, beam, kbest)
    settings = {"model": model_dir, "input_format": input_format, "output_format": output_format}
    jobs = corpus.plan_jobs(
        corpus.expand_shards(shards),
        output_dir,
        beam=beam,
        kbest=kbest,
        constituency=constituency,
        batch_size=batch_size,
        memory_mb=memory_mb,
        **settings,
    )
    os.makedirs(output_dir, exist_ok=True)
    corpus.remove_partial_outputs(jobs)
    todo = [job for job in jobs if not os.path.exists(job.output)]
    if todo:  # a missing or damaged model is one error here, not one per shard (and no load when all is done)
        _check_model_files(record.path)
    todo.sort(key=lambda job: os.path.getsize(job.shard), reverse=True)  # largest first: the last to end are short
    summary = Summary(skipped=len(jobs) - len(todo))
    start = time.time()
    try:
        with _progress(len(todo), summary, quiet) as bar:

            def report(result) -> None:
                summary.add(result)
                if result.error:
                    click.echo(f"\nlstmparse: {result.error}", err=True)
                bar.update(1)

            if scheduler:
                corpus.run_dask(todo, scheduler, report)
            else:
                corpus.run_local(todo, workers or 1, report)
    finally:  # the workers are stopped by now, also after Ctrl-C: what they left half-written goes
        corpus.remove_partial_outputs(jobs)
    if not quiet:
        click.echo(summary.line(time.time() - start), err=True)
    if summary.failed:
        sys.exit(2)


def _check_request(
    record: ModelRecord, constituency: bool, input_format: str, output_format: str, beam: int, kbest: int
) -> None:
    """Refuse, before any work, what the model cannot do."""
    from lstmparse.errors import ConfigurationError
    from lstmparse.pipeline.manifest import PART_ARCHS, part_directories

    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    if constituency:
        return
    model, arch = record.path, record.arch
    if arch != "pipeline" and PART_ARCHS.get(arch) != "parser":
        raise ConfigurationError(f"{model}: parse-corpus parses with dependency models, pipelines and seq2seq models")
    if "ptb" in (input_format, output_format):
        raise ConfigurationError(f"bracketed input or output needs a constituency (seq2seq) model; {model} is not one")
    parts = part_directories(record) if arch == "pipeline" else {"parser": model}
    if input_format in RAW_FORMATS and "tokenizer" not in parts:
        raise ConfigurationError(
            f"--input-format {input_format} needs a pipeline model with a tokenizer; {model} has none"
        )


def _check_model_files(model) -> None:
    """Read every file of the model (configuration and parameters, without DyNet): damage is one error here."""
    from lstmparse.core.model_io import load_directory
    from lstmparse.pipeline.manifest import component_directories

    for directory in component_directories(model):
        load_directory(directory)


@contextmanager
def _progress(shards: int, summary: Summary, quiet: bool) -> Iterator[Any]:
    """A progress bar over the shards, showing the sentences parsed so far (nothing with --quiet)."""
    if quiet:
        yield SimpleNamespace(update=lambda steps: None)
        return
    bar: Any  # click's ProgressBar, over shard counts
    with click.progressbar(
        length=shards, label="shards", file=sys.stderr, item_show_func=lambda _: f"{summary.sentences} sentences"
    ) as bar:
        yield bar


class Summary:
    """Shards done, skipped and failed, and the sentences parsed."""

    def __init__(self, skipped: int) -> None:
        self.done, self.skipped, self.failed, self.sentences = 0, skipped, 0, 0

    def add(self, result) -> None:
        self.sentences += result.sentences
        if result.error:
            self.failed += 1
        else:
            self.done += 1

    def line(self, seconds: float) -> str:
        rate = self.sentences / max(seconds, 1e-9)
        return (
            f"parse-corpus: {self.done} shards parsed, {self.skipped} skipped (output exists), {self.failed} failed; "
            f"{self.sentences} sentences in {seconds:.1f} s ({rate:.1f} sentences/s)"
        )
