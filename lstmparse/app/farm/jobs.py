"""One farm job, run on a worker: its commands in processes of their own, its log, its result file.

A job's directory (``WORK_DIR/jobs/TREEBANK/SETTING/sSEED/STEP``) holds ``log.txt``
(every attempt's output, appended), each command's standard output
(``LABEL.out``: ``lstmparse evaluate --json`` prints its scores there) and, once
the job has finished, ``result.json``: its CPU and wall time and outputs, and a
fingerprint of its commands.  A rerun of the plan skips a job whose result has the
same fingerprint; an unfinished job's training command continues its model
(``--resume``) or, for families that cannot resume, starts it again
(``--overwrite``).  The commands run with one thread each (``OMP_NUM_THREADS=1``)
and die with the worker that started them (Linux's parent-death signal), so a
killed worker leaves no training behind to race with its retry.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lstmparse.app.farm.plan import Job
from lstmparse.core.families import resolve
from lstmparse.core.model_io import atomic_write

RESULT = "result.json"
LOG = "log.txt"
STARTED = "started.json"
PR_SET_PDEATHSIG = 1
_running: set[subprocess.Popen] = set()  # this worker's job processes, for stop_running_jobs


class JobFailed(Exception):
    """A job's command exited with an error: the message names the job and its log's last line."""


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


def last_log_line(work_dir: str | Path, job: Job) -> str:
    """The last non-blank line of the job's log (what a failed job said last)."""
    try:
        lines = (job_directory(work_dir, job) / LOG).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return next((line.strip() for line in reversed(lines) if line.strip()), "(empty log)")


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
    cpu, outputs = 0.0, {}
    with open(directory / LOG, "a", encoding="utf-8") as log:
        print(f"== {job.id}: attempt at {time.strftime('%Y-%m-%d %H:%M:%S')} on {started['host']}", file=log)
        log.flush()
        if job.step == "udpipe":
            from lstmparse.app.farm.reference import run_udpipe_job

            cpu, outputs = run_udpipe_job(job, work_dir, (settings or {}).get("udpipe_python"), log)
        if job.call is not None:
            function, arguments = job.call
            resolve(function)(*arguments)
        for label, command in job.commands:
            seconds, output = run_command(_with_restart_flag(job, list(command)), directory, label, log)
            cpu += seconds
            if output is not None:
                outputs[label] = output
    result = JobResult(job.id, round(cpu, 2), round(time.time() - wall_start, 2), fingerprint(job), outputs)
    atomic_write(directory / RESULT, lambda handle: handle.write(json.dumps(asdict(result), indent=1).encode()))
    return result


def _with_restart_flag(job: Job, command: list[str]) -> list[str]:
    """A training command whose model directory holds an interrupted run: continued, or started again."""
    if job.model_dir is None or "train" not in command[:2] or "--resume" in command:
        return command
    directory = Path(job.model_dir)
    if directory.is_dir() and any(directory.iterdir()):
        return [*command, "--resume" if job.resumable else "--overwrite"]
    return command


def run_command(command: list[str], directory: Path, label: str, log) -> tuple[float, object | None]:
    """Run one command (stderr to the log, stdout to ``LABEL.out``); its CPU seconds and its JSON output, if any.

    Raises :class:`JobFailed` with the log's last line if it fails.
    """
    argv = [sys.executable, "-m", "lstmparse", *command[1:]] if command[0] == "lstmparse" else command
    print(f"$ {' '.join(command)}", file=log, flush=True)
    out_path = directory / f"{label}.out"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    with open(out_path, "w", encoding="utf-8") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=log, cwd=directory, env=env, preexec_fn=_die_with_parent)
        _running.add(process)
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            _running.discard(process)
        process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    if process.returncode != 0:
        log.flush()
        tail = _last_line(directory / LOG)
        code = process.returncode
        why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        raise JobFailed(f"{label}: {why}: {tail}")
    text = out_path.read_text(encoding="utf-8").strip()
    try:
        return cpu, json.loads(text) if text.startswith("{") else None
    except ValueError:
        return cpu, None


def stop_running_jobs() -> int:
    """Terminate the job processes this worker runs (the farm was interrupted); how many there were.

    Their jobs then fail and leave no result, so the next run continues them.
    """
    stopped = 0
    for process in list(_running):
        if process.poll() is None:
            process.terminate()
            stopped += 1
    return stopped


def _last_line(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return next((line.strip() for line in reversed(lines) if line.strip()), "(empty log)")


def _die_with_parent() -> None:
    """In the child, before exec: be killed when the worker that started it dies (Linux), and keep Ctrl-C away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
