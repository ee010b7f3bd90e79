"""Corpus-scale parsing: one output file per input shard, on local processes or a Dask cluster.

A corpus is a list of shards (files).  Each shard is one job: a worker loads the
model once (a per-process cache, so a Dask worker keeps it between jobs), parses
the shard exactly as ``lstmparse parse`` would, and writes its output file
atomically (a temporary file renamed when the shard is done).  So a run that
crashes or is interrupted leaves only whole outputs, and running it again skips the
shards whose output exists.  A malformed shard fails alone, with its ``file:line``
error; a worker that dies mid-shard (killed, out of memory) costs a retry of its
shards elsewhere, not the run.

Engines: ``run_local`` (a pool of spawned processes on this machine) and
``run_dask`` (the jobs submitted to an existing Dask ``distributed`` scheduler,
whose workers must see the model and the shards at the same paths).
"""

from __future__ import annotations

import glob
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from lstmparse.core import backend
from lstmparse.core.batching import PARSE_BATCH_SIZE
from lstmparse.core.model_io import DEFAULT_MODEL
from lstmparse.core.processes import loaded
from lstmparse.errors import ConfigurationError, InputError
from lstmparse.io.document import sentences_text
from lstmparse.io.formats import RAW_FORMATS
from lstmparse.pipeline.manifest import default_tokenizer

ATTEMPTS = 3  # a shard whose worker died this often is reported as failed
_one_graph_at_a_time = threading.Lock()  # DyNet has one computation graph per process; Dask may use threads


@dataclass(frozen=True)
class ShardJob:
    """One shard to parse and where its output goes, with everything a worker needs to do it alone."""

    shard: str
    output: str
    model: str | None = None  # None: the default model
    input_format: str = "conllu"
    output_format: str = "conllu"
    constituency: bool = False  # a seq2seq model: its beam search, its output formats
    beam: int = 1
    kbest: int = 1
    batch_size: int = PARSE_BATCH_SIZE
    memory_mb: int = backend.DEFAULT_MEMORY_MB


@dataclass
class ShardResult:
    """What became of a shard: its sentences and time, or the one-line error that stopped it."""

    shard: str
    sentences: int = 0
    seconds: float = 0.0
    error: str | None = None
    skipped: bool = False  # its output existed before the run


def expand_shards(patterns: Iterable[str]) -> list[str]:
    """The shard files that the arguments name (files or glob patterns), each once, in order.

    A pattern that matches nothing is an error, as a missing file would be: a
    typo must not turn into a run that silently parses less.
    """
    shards: list[str] = []
    for pattern in patterns:
        matches = [pattern] if os.path.isfile(pattern) else sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
        if not matches:
            raise ConfigurationError(f"{pattern}: no such file (and no file matches it as a pattern)")
        shards.extend(match for match in matches if match not in shards)
    return shards


OUTPUT_SUFFIXES = {"conllu": ".conllu", "json": ".jsonl", "ptb": ".mrg"}


def plan_jobs(shards: list[str], output_dir: str, **settings) -> list[ShardJob]:
    """A job per shard, its output ``DIR/<shard name>`` (the output format's suffix added unless it has it).

    Two shards with the same name in different folders would write one output:
    that is refused before anything is parsed.
    """
    jobs: list[ShardJob] = []
    owners: dict[str, str] = {}
    suffix = OUTPUT_SUFFIXES[settings.get("output_format", "conllu")]
    for shard in shards:
        name = Path(shard).name if shard.endswith(suffix) else f"{Path(shard).name}{suffix}"
        if name in owners:
            raise ConfigurationError(f"{shard} and {owners[name]} would both be written to {output_dir}/{name}")
        owners[name] = shard
        jobs.append(ShardJob(shard, str(Path(output_dir) / name), **settings))
    return jobs


def parse_shard(job: ShardJob) -> ShardResult:
    """Parse one shard into its output file (runs in a worker).  Input errors are results, not exceptions."""
    with _one_graph_at_a_time:
        return _parse_shard(job)


def _parse_shard(job: ShardJob) -> ShardResult:
    parser = _model_of(job)
    from lstmparse.io.outputs import open_output

    start, count = time.time(), 0
    try:
        with open_output(job.output, (job.shard,)) as out:
            for text in _parsed_texts(parser, job):
                out.write(text)
                count += 1
    except InputError as error:
        return ShardResult(job.shard, count, time.time() - start, error=str(error))
    except OSError as error:  # unreadable shard, output folder full or gone: this shard fails, the others go on
        return ShardResult(
            job.shard, count, time.time() - start, error=f"{error.filename or job.shard}: {error.strerror}"
        )
    return ShardResult(job.shard, count, time.time() - start)


def _parsed_texts(parser, job: ShardJob) -> Iterator[str]:
    """Each sentence of the shard parsed, as the job's output format writes it (what ``lstmparse parse`` writes)."""
    if job.constituency:
        from lstmparse.seq2seq.outputs import constituency_text, read_inputs, with_inputs

        inputs = read_inputs(job.shard, job.input_format, _tokenizer_of(job))
        for item, candidates in with_inputs(parser.parse_kbest, inputs, job.beam, job.kbest):
            yield constituency_text(item, candidates, job.output_format, job.kbest > 1)
        return
    sentences = parser.read(job.shard, job.input_format)  # raw text: the pipeline's tokenizer
    for candidates in parser.candidates(sentences, job.beam, job.kbest, job.batch_size):
        yield sentences_text(candidates, job.output_format)


def _model_of(job: ShardJob):
    """The job's model, loaded once per process (a Dask worker keeps it between shards)."""
    if job.constituency:
        return loaded(job.model, job.memory_mb, "lstmparse.seq2seq.api:ConstituencyParser.load")
    # a pipeline, or a parser's directory as a pipeline of it alone (raw text needs a pipeline's tokenizer)
    return loaded(job.model or str(DEFAULT_MODEL), job.memory_mb, "lstmparse.pipeline.api:Pipeline.assemble")


def _tokenizer_of(job: ShardJob):
    """The default pipeline's tokenizer for raw text given to a constituency model (which has none)."""
    if job.input_format not in RAW_FORMATS:
        return None
    return loaded(str(default_tokenizer()), job.memory_mb, "lstmparse.tokenizer.api:Tokenizer.load")


def run_local(jobs: list[ShardJob], workers: int, report: Callable[[ShardResult], None]) -> None:
    """Parse the jobs with ``workers`` local processes; ``report`` hears of each shard as it ends.

    A worker that dies breaks the whole pool (``BrokenProcessPool``): the shards it
    had not finished go to a fresh pool, up to ``ATTEMPTS`` times each.
    """
    from lstmparse.core.processes import stop_now, submit, worker_pool

    attempts = dict.fromkeys(jobs, 0)
    pending = list(jobs)
    while pending:
        executor = worker_pool(min(workers, len(pending)))
        futures = {submit(executor, parse_shard, job): job for job in pending}
        pending = []
        try:
            for future in as_completed(futures):
                job = futures[future]
                try:
                    report(future.result())
                except BrokenProcessPool:
                    attempts[job] += 1
                    if attempts[job] < ATTEMPTS:
                        pending.append(job)
                    else:
                        report(ShardResult(job.shard, error=_died(job, attempts[job])))
        except BaseException:
            stop_now(executor)
            raise
        executor.shutdown(wait=True)


def run_dask(jobs: list[ShardJob], scheduler: str, report: Callable[[ShardResult], None]) -> None:
    """Parse the jobs on the Dask cluster at ``scheduler``; ``report`` hears of each shard as it ends.

    The scheduler moves a dead worker's jobs to other workers by itself (up to
    its ``allowed-failures``, then the job fails with ``KilledWorker``).
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ConfigurationError("--scheduler needs Dask: pip install 'lstmparse[dask]'") from None
    try:
        client = Client(scheduler, timeout=30)
    except OSError as error:
        raise ConfigurationError(f"--scheduler {scheduler}: no Dask scheduler answers there ({error})") from None
    with client:
        futures = {client.submit(parse_shard, job, pure=False): job for job in jobs}
        try:
            for future in as_completed(futures):
                job = futures[future]
                try:
                    report(future.result())
                except Exception as error:  # the job itself failed on the cluster: KilledWorker, a lost worker
                    report(ShardResult(job.shard, error=f"{job.shard}: {type(error).__name__}: {error}"))
        except BaseException:
            client.cancel(list(futures))
            raise


def _died(job: ShardJob, times: int) -> str:
    model = job.model or "the default model"
    return f"{job.shard}: the process parsing it died {times} times (killed, or out of memory with {model})"


def remove_partial_outputs(jobs: Iterable[ShardJob]) -> None:
    """Temporary files that a killed worker left beside the outputs (``.NAME.XXXX.part``)."""
    for job in jobs:
        output = Path(job.output)
        for partial in output.parent.glob(f".{glob.escape(output.name)}.*.part"):
            partial.unlink(missing_ok=True)
