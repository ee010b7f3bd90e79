"""Models written by earlier versions load and compute exactly what they computed then."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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


def assert_output_as_expected(arguments: list[str], models: Path, expected: str) -> None:
    """The command, run in ``models`` (a copy of tests/data/format1), writes exactly ``expected/<expected>``."""
    result = subprocess.run(
        [sys.executable, "-m", "lstmparse", *arguments],
        cwd=models,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (FORMAT_1 / "expected" / expected).read_text(encoding="utf-8")


@pytest.mark.parametrize(("expected", "arguments"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_format_1_models_compute_what_they_computed_when_saved(expected, arguments):
    assert_output_as_expected(arguments, FORMAT_1, expected)


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    """The format-1 models rewritten as format 2 (parameters named by their place in the model)."""
    from lstmparse.core.model_io import load_directory, upgrade_directory
    from lstmparse.seq2seq.model import Seq2SeqParser
    from lstmparse.stacklstm.model import StackLSTMParser
    from lstmparse.treelstm.model import TreeLSTM

    folder = tmp_path_factory.mktemp("format2")
    shutil.copytree(FORMAT_1, folder, dirs_exist_ok=True)
    for name, family in (("stacklstm", StackLSTMParser), ("ldtreelstm", TreeLSTM), ("seq2seq", Seq2SeqParser)):
        upgrade_directory(folder / name, family.load(str(folder / name)).named_parameters())
        config, _, params = load_directory(folder / name)
        assert config["format_version"] == 2 and not any(key.startswith("/") for key in params)
    return folder


@pytest.mark.parametrize(("expected", "arguments"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_format_1_models_upgraded_to_format_2_compute_the_same(upgraded, expected, arguments):
    assert_output_as_expected(arguments, upgraded, expected)


def test_format_2_names_say_where_a_parameter_sits(upgraded):
    """Equal-shaped parameters (the stack and buffer LSTMs) have names of their own, not creation numbers."""
    from lstmparse.core.model_io import load_directory

    _, _, params = load_directory(upgraded / "stacklstm")
    assert params["stack_lstm/lstm/layer0/0"].shape == params["buffer_lstm/lstm/layer0/0"].shape
    assert {"tokens/words", "tokens/pos", "tokens/feats", "tokens/pretrained", "root_vector"} <= set(params)
