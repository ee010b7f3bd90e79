"""Running a plan's jobs on Dask: in dependency order, resumable, a failure kept to the jobs that need it.

A local cluster by default (one single-threaded worker process per core), or an
existing scheduler (``--scheduler``; its workers need lstmparse installed and the
work directory and treebanks at the same paths).  A job is submitted once every
job it needs has finished and a worker thread is free: evaluations first, then
treebank by treebank, the longest chains of jobs first, so both cores stay busy
to the end; a job whose worker dies is retried by Dask on another worker (it
resumes from its model's last checkpoint) up to ``RETRIES_AFTER_A_DEATH`` times
(the scheduler's ``distributed.scheduler.allowed-failures``; an existing
cluster's scheduler keeps its own setting).  A job that fails
is reported with its log's last line and every job that needs it is skipped;
the others go on.  Progress goes to stderr every few seconds.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from lstmparse.app.farm.commands import stop_running_jobs
from lstmparse.app.farm.jobs import (
    STARTED,
    JobResult,
    finished,
    forget,
    job_directory,
    last_log_line,
    run_job,
)
from lstmparse.app.farm.plan import SPLITS, Job, Plan, TreebankFiles, dependents, needed_by, plan_jobs
from lstmparse.app.farm.results import records, write_results
from lstmparse.errors import ConfigurationError

RETRIES_AFTER_A_DEATH = 2  # Dask's allowed-failures: how often a job may lose its worker before it fails
EPOCH_LINE = re.compile(r"^epoch (\d+):.*?\bdev ([^()]*)")


@dataclass
class FarmOutcome:
    """How a run of the plan ended: results by job, failures and skips with their reasons, times."""

    results: dict[str, JobResult] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)  # finished in this run (not skipped as finished before)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    wall_seconds: float = 0.0
    workers: int = 0

    @property
    def cpu_seconds(self) -> float:
        """The CPU time of the jobs that ran in this run."""
        return sum(self.results[job].cpu_seconds for job in self.ran)

    def summary(self) -> str:
        busy = self.cpu_seconds / self.workers if self.workers else 0.0
        ratio = f"{self.wall_seconds / busy:.2f}" if busy else "—"
        return (
            f"{len(self.results)} jobs finished ({len(self.ran)} in this run), {len(self.failed)} failed, "
            f"{len(self.skipped)} skipped; this run: wall {self.wall_seconds / 60:.1f} min, job CPU "
            f"{self.cpu_seconds / 60:.1f} min on {self.workers} workers (wall / (CPU / workers) = {ratio})"
        )


def prepare_treebanks(plan: Plan, work_dir: Path) -> tuple[dict[str, TreebankFiles], dict[str, str]]:
    """Each treebank's files, and why a treebank could not be prepared (its jobs fail, the others go on).

    The files are the originals, or cuts of their first sentences under
    ``WORK_DIR/data``; a treebank without a dev file has every tenth training
    sentence held out as dev, as ``train --treebank`` does.
    """
    files, problems = {}, {}
    for name, treebank in plan.treebanks.items():
        try:
            files[name] = _treebank_files(name, treebank, work_dir)
        except (ConfigurationError, OSError, UnicodeDecodeError) as error:
            problems[name] = str(error)
    return files, problems


def _treebank_files(name: str, treebank, work_dir: Path) -> TreebankFiles:
    from lstmparse.pipeline.recipe import held_out_dev

    paths: dict[str, str | None] = {}
    for split in SPLITS:
        source = treebank.file(split)
        keep = treebank.sentences.get(split)
        if source is None or not keep:
            paths[split] = None if source is None else str(source)
            continue
        cut = work_dir / "data" / name / f"{split}.conllu"
        text = first_blocks(source, keep)
        if not cut.is_file() or cut.read_text(encoding="utf-8") != text:
            cut.parent.mkdir(parents=True, exist_ok=True)
            cut.write_text(text, encoding="utf-8")
        paths[split] = str(cut)
    train = Path(paths["train"] or "")
    if paths["dev"] is None:
        held_train, held_dev = held_out_dev(train, work_dir / "data" / name / "heldout")
        paths["train"], paths["dev"] = str(held_train), str(held_dev)
    return TreebankFiles(str(paths["train"]), paths["dev"], paths["test"])


def first_blocks(path: Path, count: int) -> str:
    """The first ``count`` sentence blocks of a CoNLL-U file, cut as text: checking them is the jobs' work.

    A malformed file thus fails the jobs that read it, with their ``file:line``
    message in their logs, and no others.
    """
    lines, blocks = [], 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            lines.append(line)
            if not line.strip():
                blocks += 1
                if blocks == count:
                    break
    return "".join(lines)


def run_farm(
    plan: Plan,
    work_dir: str | Path,
    scheduler: str | None = None,
    workers: int | None = None,
    settings: dict | None = None,
    progress_seconds: float = 10.0,
    log: TextIO = sys.stderr,
) -> FarmOutcome:
    """Run every unfinished job of ``plan`` into ``work_dir``; write ``results.json`` and ``results.md``."""
    work_dir = Path(work_dir).resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    files, problems = prepare_treebanks(plan, work_dir)
    runnable = replace(plan, treebanks={name: tb for name, tb in plan.treebanks.items() if name in files})
    jobs = plan_jobs(runnable, files, work_dir)
    outcome = run_graph(jobs, work_dir, scheduler, workers, settings, progress_seconds, log)
    outcome.failed = {f"{name}/prepare": why for name, why in problems.items()} | outcome.failed
    write_results(work_dir, records(jobs, outcome.results), outcome.summary())
    for job_id, why in outcome.failed.items():
        print(f"farm: FAILED {job_id}: {why} (log: {work_dir / 'jobs' / job_id / 'log.txt'})", file=log)
    for job_id, why in outcome.skipped.items():
        print(f"farm: skipped {job_id}: {why}", file=log)
    print(f"farm: {outcome.summary()}; results in {work_dir / 'results.md'}", file=log)
    return outcome


def run_graph(  # noqa: PLR0913 (the farm's settings, passed on)
    jobs: list[Job],
    work_dir: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    settings: dict | None = None,
    progress_seconds: float = 10.0,
    log: TextIO = sys.stderr,
) -> FarmOutcome:
    """Run the unfinished ``jobs`` (those without a result in ``work_dir`` from an earlier run with the same
    commands, and those that need one of them: an evaluation of a model made again is made again) on a local
    cluster of ``workers`` processes or an existing ``scheduler``."""
    outcome = FarmOutcome()
    outcome.results = {job.id: result for job in jobs if (result := finished(work_dir, job)) is not None}
    for stale in stale_jobs(jobs, set(outcome.results)):
        forget(work_dir, stale)
        del outcome.results[stale.id]
    pending = {job.id: job for job in jobs if job.id not in outcome.results}
    print(f"farm: {len(jobs)} jobs, {len(outcome.results)} finished before, {len(pending)} to run", file=log)
    started = time.time()
    if pending:
        with _dask_client(scheduler, workers) as client:
            outcome.workers = len(client.scheduler_info()["workers"])
            _run_graph(client, jobs, pending, outcome, work_dir, settings or {}, progress_seconds, log)
    outcome.wall_seconds = time.time() - started
    return outcome


def _run_graph(client, jobs, pending, outcome, work_dir, settings, progress_seconds, log) -> None:  # noqa: PLR0913
    """Keep every worker thread busy with a ready job (its needs done): evaluations first, then treebank by
    treebank, the longest chains first.

    The farm holds the queue itself and gives the cluster only as many jobs as it has
    threads, so a job starts on whichever worker frees first (Dask's own placement of
    many long tasks of unknown length can leave a worker idle), and a worker that
    joins the cluster gets work at the next check.
    """
    from distributed import wait

    running: dict = {}
    paths = critical_paths(jobs)
    order = {treebank: k for k, treebank in enumerate(dict.fromkeys(job.treebank for job in jobs))}

    def submit_ready() -> None:
        free = sum(client.nthreads().values()) - len(running)
        ready = [job for job in pending.values() if all(need in outcome.results for need in job.needs)]
        for job in sorted(ready, key=lambda job: _priority(job, paths, order))[: max(free, 0)]:
            key = f"farm:{job.id}:{time.time_ns()}"
            running[client.submit(run_job, job, str(work_dir), settings, key=key, pure=False)] = job
            del pending[job.id]

    reporter = _Progress(jobs, running, outcome, work_dir, outcome.workers, log)
    ticker = _every(progress_seconds, reporter.report)
    try:
        submit_ready()
        while running:
            try:
                done, _ = wait(list(running), timeout=5, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            for future in done:
                _collect(future, running.pop(future), jobs, pending, outcome, work_dir)
            submit_ready()
            if done:
                reporter.report(force=True)
                write_results(work_dir, records(jobs, outcome.results))
    except BaseException:  # Ctrl-C: the running jobs stop now, not when their trainings end
        client.cancel(list(running))
        client.run(stop_running_jobs)
        raise
    finally:
        ticker.set()


def _collect(future, job: Job, jobs: list[Job], pending: dict, outcome: FarmOutcome, work_dir: Path) -> None:
    """A finished future's result, or its failure and the skipping of every job that needs it."""
    try:
        outcome.results[job.id] = future.result()
        outcome.ran.append(job.id)
    except Exception as error:  # the job's own failure, or its worker died too often (KilledWorker)
        outcome.failed[job.id] = _why(error, work_dir, job)
        for dependent in dependents(jobs, job.id):
            if pending.pop(dependent, None) is not None:
                outcome.skipped[dependent] = f"needs {job.id}, which failed"


def stale_jobs(jobs: list[Job], finished_ids: set[str]) -> list[Job]:
    """The finished jobs that need, directly or through others, a job that is not finished: they read what that
    job will make anew."""
    unfinished = [job.id for job in jobs if job.id not in finished_ids]
    stale = set().union(*(dependents(jobs, job_id) for job_id in unfinished))
    return [job for job in jobs if job.id in stale and job.id in finished_ids]


def critical_paths(jobs: list[Job]) -> dict[str, float]:
    """Each job's minutes to the end of the plan: its budget and the longest chain of jobs that need it.

    Starting the longest chains first keeps both cores busy to the end: a pipeline's
    fold taggers and tagger start before its tokenizer, since its parser waits on them.
    """
    needing, by_id, lengths = needed_by(jobs), {job.id: job for job in jobs}, {}

    def length(job_id: str) -> float:
        if job_id not in lengths:
            own = by_id[job_id].budget_minutes or 1.0
            lengths[job_id] = own + max((length(d) for d in needing.get(job_id, [])), default=0.0)
        return lengths[job_id]

    return {job.id: length(job.id) for job in jobs}


def _priority(job: Job, paths: dict[str, float], order: dict[str, int]) -> tuple:
    """Smallest first: evaluations (short, and their results are what the user waits for), then the plan's
    treebanks in order (a long plan finishes whole treebanks as it goes), within one the longest chains."""
    return (job.trains, order[job.treebank], -paths[job.id])


def _why(error: Exception, work_dir: Path, job: Job) -> str:
    if type(error).__name__ == "KilledWorker":
        died = f"its worker died {RETRIES_AFTER_A_DEATH + 1} times (killed, or out of memory)"
        return f"{died}; {last_log_line(work_dir, job)}"
    return str(error) or type(error).__name__


class _dask_client:
    """A client of the given scheduler, or of a new local cluster of single-threaded workers (closed after)."""

    def __init__(self, scheduler: str | None, workers: int | None) -> None:
        self.scheduler, self.workers = scheduler, workers
        self.cluster = self.client = None

    def __enter__(self):
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigurationError("the farm needs Dask: pip install 'lstmparse[dask]'") from None
        dask.config.set({"distributed.scheduler.allowed-failures": RETRIES_AFTER_A_DEATH})
        if self.scheduler is not None:
            try:
                self.client = Client(self.scheduler, timeout=30)
            except OSError as error:
                raise ConfigurationError(f"--scheduler {self.scheduler}: no Dask scheduler answers ({error})") from None
            return self.client
        import os

        count = self.workers or len(os.sched_getaffinity(0))
        self.cluster = LocalCluster(
            n_workers=count,
            threads_per_worker=1,
            processes=True,
            memory_limit=0,  # the jobs' own processes hold the memory; the OS judges them, not the nanny
            dashboard_address="127.0.0.1:0",  # any free port: two farms on one machine do not collide
            host="127.0.0.1",
            silence_logs=50,
            preload=["lstmparse.app.farm.worker"],  # Ctrl-C is the farm's to answer, not each worker's
        )
        self.client = Client(self.cluster)
        return self.client

    def __exit__(self, *exc) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _every(seconds: float, action: Callable[[], None]) -> threading.Event:
    """Call ``action`` every ``seconds`` in a daemon thread until the returned event is set."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(seconds):
            action()

    threading.Thread(target=loop, daemon=True).start()
    return stop


class _Progress:
    """One stderr line: jobs done / running / failed / waiting, the running jobs' epochs, the time left."""

    def __init__(self, jobs: list[Job], running: dict, outcome: FarmOutcome, work_dir: Path, workers: int, log):
        self.jobs, self.running, self.outcome, self.work_dir = jobs, running, outcome, work_dir
        self.workers, self.log, self.started = max(1, workers), log, time.time()
        self.last = ""
        self.lock = threading.Lock()

    def report(self, force: bool = False) -> None:
        with self.lock:
            line = self.line()
            if force and line == self.last:
                return
            self.last = line
            print(line, file=self.log, flush=True)

    def line(self) -> str:
        """Jobs handed to a worker count as running (the farm hands out no more than there are threads), the
        ones that have started show their epoch: a job handed out a moment ago has not written its marker yet,
        and counting only those showed one job running where two were."""
        handed_out = list(self.running.values())
        active = [job for job in handed_out if self._started(job) is not None]
        waiting = len(self.jobs) - len(self.outcome.results) - len(self.outcome.failed) - len(self.outcome.skipped)
        waiting -= len(handed_out)
        details = "; ".join(f"{job.id} {self._epoch(job)}" for job in active)
        return (
            f"farm: {len(self.outcome.results)} done, {len(handed_out)} running, {len(self.outcome.failed)} failed, "
            f"{waiting} waiting{', ' + self._time_left(active) if active or waiting else ''}"
            f"{' | ' + details if details else ''}"
        )

    def _started(self, job: Job) -> float | None:
        try:
            stamp = (job_directory(self.work_dir, job) / STARTED).stat().st_mtime
        except OSError:
            return None
        return stamp if stamp >= self.started - 1 else None

    def _epoch(self, job: Job) -> str:
        """``epoch 3, dev UAS 61.20 LAS 55.10`` from the job's log, or how long it has run."""
        try:
            text = (job_directory(self.work_dir, job) / "log.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        matches = [m for m in map(EPOCH_LINE.match, text.splitlines()) if m]
        if matches:
            return f"epoch {matches[-1].group(1)}, dev {matches[-1].group(2).strip()}"
        started = self._started(job)
        return f"{(time.time() - started) / 60:.1f} min" if started else ""

    def _time_left(self, active: list[Job]) -> str:
        """What the budgets of the unfinished jobs leave, spread over the workers (an upper bound per job)."""
        done = set(self.outcome.results) | set(self.outcome.failed) | set(self.outcome.skipped)
        minutes = 0.0
        for job in self.jobs:
            if job.id in done:
                continue
            budget = job.budget_minutes if job.budget_minutes is not None else 1.0
            started = self._started(job) if job in active else None
            minutes += max(0.0, budget - (time.time() - started) / 60) if started else budget
        return f"about {minutes / self.workers:.0f} min left by the budgets"
