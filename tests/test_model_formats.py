"""Models written by earlier versions load and compute exactly what they computed then."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT

FORMAT_1 = ROOT / "tests" / "data" / "format1"
SAMPLES = ROOT / "data"

# (expected output, command arguments), as tests/data/format1/README.md made them
COMMANDS = [
    (
        "stacklstm.conllu",
        ["parse", "--model", "stacklstm", "--quiet", "--beam", "2", "--kbest", "2", "--input", "input.conllu"],
    ),
    ("stacklstm.greedy.conllu", ["parse", "--model", "stacklstm", "--quiet", "--input", "input.conllu"]),
    ("ldtreelstm.score.txt", ["score", "--model", "ldtreelstm", "input.conllu"]),
    ("ldtreelstm.sample.conllu", ["sample", "--model", "ldtreelstm", "-n", "3", "--max-words", "10"]),
    (
        "seq2seq.ptb",
        [
            "parse",
            "--model",
            "seq2seq",
            "--quiet",
            "--input-format",
            "ptb",
            "--beam",
            "3",
            "--input",
            f"{SAMPLES}/sample.trees.ptb",
        ],
    ),
    (
        "seq2seq.greedy.ptb",
        [
            "parse",
            "--model",
            "seq2seq",
            "--quiet",
            "--input-format",
            "text",
            "--beam",
            "1",
            "--input",
            f"{SAMPLES}/sample.txt",
        ],
    ),
]


@pytest.mark.parametrize(("expected", "arguments"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_format_1_models_compute_what_they_computed_when_saved(expected, arguments):
    result = subprocess.run(
        [sys.executable, "-m", "cli", *arguments],
        cwd=FORMAT_1,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (FORMAT_1 / "expected" / expected).read_text(encoding="utf-8")
