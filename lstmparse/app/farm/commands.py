"""A farm job's commands, each in a process of its own: its CPU time, its output, its failure in one line.

The commands run with one thread each (``OMP_NUM_THREADS=1``) and die with the
worker that started them (Linux's parent-death signal), so a killed worker leaves
no training behind to race with its retry; an interrupted farm terminates them
(:func:`stop_running_jobs`).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

LOG = "log.txt"
PR_SET_PDEATHSIG = 1
_running: set[subprocess.Popen] = set()  # this worker's job processes, for stop_running_jobs


class JobFailed(Exception):
    """A job's command exited with an error: the message names the job and its log's last line."""


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
    add_spent(directory, cpu)
    if process.returncode != 0:
        log.flush()
        tail = last_line(directory / LOG)
        code = process.returncode
        why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        raise JobFailed(f"{label}: {why}: {tail}")
    text = out_path.read_text(encoding="utf-8").strip()
    try:
        return cpu, json.loads(text) if text.startswith("{") else None
    except ValueError:
        return cpu, None


SPENT = "cpu_seconds_spent"  # every attempt's CPU seconds, added up: an interrupted training's time counts too


def add_spent(directory: Path, seconds: float) -> None:
    """Add a finished (or stopped) command's CPU time to the job's running total."""
    path = directory / SPENT
    path.write_text(f"{spent_seconds(directory) + seconds:.3f}\n", encoding="utf-8")


def spent_seconds(directory: Path) -> float:
    """The CPU seconds every attempt of the job's commands took so far (0 before the first)."""
    try:
        return float((directory / SPENT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0.0


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


def last_line(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return next((line.strip() for line in reversed(lines) if line.strip()), "(empty log)")


def _die_with_parent() -> None:
    """In the child, before exec: be killed when the worker that started it dies (Linux), and keep Ctrl-C away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
