"""Parsing with ``--jobs N``: what one process writes, the same clean errors, and a quiet Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import (
    FASTEST_MODEL,
    assert_interrupted,
    first_sentences,
    is_worker,
    kill_group,
    processes_in_group,
    start_in_own_group,
)

MODEL = FASTEST_MODEL
BAD = "1\tbark\t_\tVERB\t_\t_\t99\troot\t_\t_\n\n"


def parse(*args) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "lstmparse", "parse", "--model", str(MODEL), "--quiet", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)  # a hang fails the test


def test_malformed_input_with_jobs_writes_what_one_process_writes_then_one_error_line(tmp_path, ewt):
    good = first_sentences(ewt / "dev.conllu", 600)
    path = tmp_path / "in.conllu"
    path.write_text(good + BAD + first_sentences(ewt / "dev.conllu", 3), encoding="utf-8")
    bad_line = good.count("\n") + 1
    one, two = parse("--input", path, "--jobs", 1), parse("--input", path, "--jobs", 2)
    for result in (one, two):
        assert result.returncode == 2
        assert result.stderr.strip() == f"lstmparse: {path}:{bad_line}: HEAD 99 out of range 0..1"
    assert two.stdout.count("\n\n") == 600 and two.stdout == one.stdout


def test_a_malformed_second_sentence_with_jobs_neither_hangs_nor_loses_the_first(tmp_path):
    path = tmp_path / "in.conllu"
    path.write_text("1\tDogs\t_\tNOUN\t_\t_\t_\t_\t_\t_\n\n" + BAD, encoding="utf-8")
    result = parse("--input", path, "--jobs", 2)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stdout.startswith("1\tDogs\t") and result.stdout.count("\n\n") == 1


@pytest.mark.parametrize("moment", ["while the workers start", "while they parse"])
def test_ctrl_c_with_jobs_exits_130_with_one_line_and_leaves_no_process_or_file(tmp_path, ewt, moment):
    """A terminal's Ctrl-C reaches the whole process group, the workers too, at any moment."""
    output = tmp_path / "out.conllu"
    process = _start_in_own_group("--jobs", 2, "--input", ewt / "train.conllu", "--output", output)
    try:
        if moment == "while the workers start":
            time.sleep(1.0)  # the spawned interpreters are still importing DyNet
        else:
            assert process.stderr.readline().startswith("parsed 1000 sentences")
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)  # a hang fails here
    finally:
        kill_group(process)
    assert_interrupted(process, stderr)
    assert not output.exists() and list(tmp_path.iterdir()) == []


def test_a_killed_worker_is_one_error_line_not_a_hang(ewt):
    process = _start_in_own_group("--jobs", 2, "--input", ewt / "train.conllu")
    try:
        assert process.stderr.readline().startswith("parsed 1000 sentences")
        worker = next(pid for pid in processes_in_group(process.pid) if is_worker(pid))
        os.kill(worker, signal.SIGKILL)
        _, stderr = process.communicate(timeout=60)
    finally:
        kill_group(process)
    assert process.returncode == 2
    assert stderr.strip().splitlines()[-1].endswith("a parsing process was killed or ran out of memory")


def _start_in_own_group(*args) -> subprocess.Popen:
    return start_in_own_group([sys.executable, "-m", "lstmparse", "parse", "--model", str(MODEL), *map(str, args)])
