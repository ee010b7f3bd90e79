"""One farm job, run on a worker: its commands in processes of their own, its log, its result file.

A job's directory (``WORK_DIR/jobs/TREEBANK/SETTING/sSEED/STEP``) holds ``log.txt``
(every attempt's output, appended), each command's standard output
(``LABEL.out``: ``lstmparse evaluate --json`` prints its scores there) and, once
the job has finished, ``result.json``: its CPU and wall time and outputs, and a
fingerprint of its commands.  A rerun of the plan skips a job whose result has the
same fingerprint; an unfinished job's training command continues its model
(``--resume``) or, for families that cannot resume, starts it again
(``--overwrite``).  How each command runs: :mod:`lstmparse.app.farm.commands`.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lstmparse.app.farm.commands import LOG, SPENT, last_line, run_command, spent_seconds
from lstmparse.app.farm.plan import Job
from lstmparse.core.families import resolve
from lstmparse.core.model_io import atomic_write

RESULT = "result.json"
STARTED = "started.json"


@dataclass
class JobResult:
    """What a finished job leaves: its times, its outputs (scores), and the fingerprint of what it ran."""

    id: str
    cpu_seconds: float
    wall_seconds: float
    fingerprint: str
    outputs: dict = field(default_factory=dict)


def job_directory(work_dir: str | Path, job: Job) -> Path:
    return Path(work_dir) / "jobs" / job.id


def fingerprint(job: Job) -> str:
    """A digest of what the job runs: a changed plan redoes the jobs it changed, and only those."""
    what = {"commands": job.commands, "call": job.call, "inputs": job.inputs, "needs": job.needs}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]


def finished(work_dir: str | Path, job: Job) -> JobResult | None:
    """The job's result from an earlier run, if it finished with the same commands."""
    try:
        data = json.loads((job_directory(work_dir, job) / RESULT).read_text(encoding="utf-8"))
        result = JobResult(**data)
    except (OSError, ValueError, TypeError):
        return None
    return result if result.fingerprint == fingerprint(job) else None


def forget(work_dir: str | Path, job: Job) -> None:
    """Drop the job's result from an earlier run, so that it runs again (a job it needs runs again first)."""
    (job_directory(work_dir, job) / RESULT).unlink(missing_ok=True)


def last_log_line(work_dir: str | Path, job: Job) -> str:
    """The last non-blank line of the job's log (what a failed job said last)."""
    try:
        return last_line(job_directory(work_dir, job) / LOG)
    except OSError:
        return "(no log)"


def run_job(job: Job, work_dir: str, settings: dict | None = None) -> JobResult:
    """Run ``job`` here (a Dask worker): its call, then its commands; write and return its result.

    ``settings``: ``udpipe_python``, the interpreter that has ``ufal.udpipe`` (reference jobs).
    """
    earlier = finished(work_dir, job)
    if earlier is not None:  # Dask ran it again (its result was lost with a worker): nothing to redo
        return earlier
    directory = job_directory(work_dir, job)
    directory.mkdir(parents=True, exist_ok=True)
    started = {"time": time.time(), "host": socket.gethostname(), "pid": os.getpid()}
    (directory / STARTED).write_text(json.dumps(started), encoding="utf-8")
    wall_start = time.time()
    if not _continues(job):  # a fresh start: the CPU time of earlier attempts trained nothing that is kept
        (directory / SPENT).unlink(missing_ok=True)
    cpu, outputs = 0.0, dict[str, object]()
    with open(directory / LOG, "a", encoding="utf-8") as log:
        print(f"== {job.id}: attempt at {time.strftime('%Y-%m-%d %H:%M:%S')} on {started['host']}", file=log)
        log.flush()
        if job.step == "udpipe":
            from lstmparse.app.farm.reference import run_udpipe_job  # DyNet-free, but only reference jobs need it

            cpu, outputs = run_udpipe_job(job, directory, (settings or {}).get("udpipe_python"), log)
        if job.call is not None:
            function, arguments = job.call
            resolve(function)(*arguments)
        for label, command in job.commands:
            seconds, output = run_command(_with_restart_flag(job, list(command)), directory, label, log)
            cpu += seconds
            if output is not None:
                outputs[label] = output
    cpu = max(cpu, spent_seconds(directory))  # every attempt's commands: a resumed training's earlier epochs too
    result = JobResult(job.id, round(cpu, 2), round(time.time() - wall_start, 2), fingerprint(job), outputs)
    atomic_write(directory / RESULT, lambda handle: handle.write(json.dumps(asdict(result), indent=1).encode()))
    return result


def _model_started(job: Job) -> bool:
    """Whether the job's model directory already holds something (an earlier attempt's model)."""
    directory = Path(job.model_dir) if job.model_dir else None
    return directory is not None and directory.is_dir() and any(directory.iterdir())


def _continues(job: Job) -> bool:
    """Whether this attempt continues an earlier one's model (a resumable training with a model started)."""
    return job.resumable and _model_started(job)


def _with_restart_flag(job: Job, command: list[str]) -> list[str]:
    """A training command whose model directory holds an interrupted run: continued, or started again."""
    if "train" not in command[:2] or "--resume" in command or not _model_started(job):
        return command
    return [*command, "--resume" if job.resumable else "--overwrite"]
