"""Parsing with ``--jobs N``: what one process writes, the same clean errors, and a quiet Ctrl-C."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, first_sentences

MODEL = ROOT / "models" / "en_ewt_wp"  # reads no characters: the fastest shipped parser
BAD = "1\tbark\t_\tVERB\t_\t_\t99\troot\t_\t_\n\n"


def parse(*args) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "cli", "parse", "--model", str(MODEL), "--quiet", *map(str, args)]
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
