"""End to end through the installed command: train, parse, evaluate, errors."""

from __future__ import annotations

import json
import shutil
from functools import partial

import pytest
from conftest import run_cli

from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import read_sentences

lstmparse = partial(run_cli, timeout=600)  # some commands here train


@pytest.fixture(scope="module")
def trained(small_treebank, tmp_path_factory):
    model = tmp_path_factory.mktemp("model") / "m"
    result = lstmparse(
        "train",
        "--train",
        small_treebank["train"],
        "--dev",
        small_treebank["dev"],
        "--model-dir",
        model,
        "--epochs",
        "2",
        "--batch-size",
        "1",  # 400 updates: the default batches of 16 make 26 in two epochs of 200 sentences
        "--seed",
        "3",
    )
    assert result.returncode == 0, result.stderr
    return model, result


def test_help_lists_every_command():
    result = lstmparse("--help")
    assert result.returncode == 0
    for command in ("train", "parse", "evaluate"):
        assert command in result.stdout


@pytest.mark.parametrize(
    ("arch", "foreign"),
    [
        ("seq2seq", ["--system", "arc-hybrid"]),
        ("stacklstm", ["--bidirectional"]),
        ("treelstm", ["--resume"]),
        ("ldtreelstm", ["--features", "words"]),
        ("stacklstm", ["--layers", "1"]),
    ],
)
def test_an_option_of_another_family_is_refused_before_any_work(arch, foreign, small_treebank, tmp_path):
    """Training silently without an option the user gave would not be the run they asked for."""
    model_dir = tmp_path / "m"
    result = lstmparse("train", "--arch", arch, "--train", small_treebank["train"], "--model-dir", model_dir, *foreign)
    assert (
        result.returncode == 2 and f"{foreign[0]} applies to --arch" in result.stderr and f"not {arch}" in result.stderr
    )
    assert not model_dir.exists()


def test_train_help_groups_options_by_family_with_their_defaults():
    from lstmparse.stacklstm.options import BATCH_SIZE_HELP
    from lstmparse.treelstm.options import TreeLSTMOptions

    text = lstmparse("train", "--help").stdout
    sections = [line for line in text.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert "Every architecture:" in sections
    assert any(line.startswith("stack-LSTM parser and pipeline (--arch stacklstm, pipeline)") for line in sections)
    assert any(line.startswith("seq2seq constituency parser (--arch seq2seq)") for line in sections)
    flat = " ".join(text.split())
    assert f"stacklstm {BATCH_SIZE_HELP}; TreeLSTMs {TreeLSTMOptions.batch_size}" in flat
    assert text.index("--bidirectional") > text.index("seq2seq constituency parser (--arch seq2seq)")


def test_train_reports_epochs_and_keeps_the_best_model(trained):
    model, result = trained
    assert "skipped" in result.stderr and "non-projective" in result.stderr
    assert "epoch 2:" in result.stderr and "dev UAS" in result.stderr
    config = json.loads((model / "config.json").read_text())
    epochs = config["training"]["epochs"]
    best = config["training"]["best_epoch"]
    assert epochs[best - 1]["dev_las"] == max(e["dev_las"] for e in epochs)


def test_parse_then_evaluate(trained, small_treebank, tmp_path):
    model, _ = trained
    out = tmp_path / "out.conllu"
    result = lstmparse("parse", "--model", model, "--input", small_treebank["dev"], "--output", out)
    assert result.returncode == 0, result.stderr
    assert "sentences/s" in result.stderr
    gold, parsed = list(read_sentences(str(small_treebank["dev"]))), list(read_sentences(str(out)))
    assert [s.lines[: s.token_lines[0]] for s in parsed] == [s.lines[: s.token_lines[0]] for s in gold]
    assert all(t.head is not None for s in parsed for t in s.tokens)
    scores = lstmparse("evaluate", "--json", small_treebank["dev"], out)
    assert scores.returncode == 0, scores.stderr
    figures = json.loads(scores.stdout)
    assert figures["words"] == sum(len(s) for s in gold)
    assert figures["UAS"] > 20.0  # two epochs on 200 sentences already beat a random attachment


def test_parse_with_two_processes_writes_the_same_output_in_order(trained, small_treebank):
    model, _ = trained
    one = lstmparse("parse", "--model", model, "--input", small_treebank["dev"], "--quiet")
    two = lstmparse("parse", "--model", model, "--input", small_treebank["dev"], "--quiet", "--jobs", "2")
    assert one.returncode == two.returncode == 0, two.stderr
    assert two.stdout == one.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["parse", "--bogus"], "--bogus"),
        (["parse", "--beam", "zero"], "'zero' is not a valid integer"),
        (["train", "--train", "nowhere.conllu"], "'nowhere.conllu' does not exist"),
        (["nonsense"], "'nonsense'"),
    ],
)
def test_usage_errors_are_one_line_with_exit_code_2(args, fragment):
    from click.testing import CliRunner

    from lstmparse.cli import main

    result = CliRunner().invoke(main, args, standalone_mode=True)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("lstmparse: ") and fragment in lines[0] and "--help" in lines[0]


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU machine may have a CUDA DyNet")
def test_gpu_request_on_a_cpu_only_dynet_is_a_clear_error(trained):
    from lstmparse.core import backend

    model, _ = trained
    result = lstmparse("--gpu", "parse", "--model", model, stdin="Dogs bark .\n")
    assert result.returncode == 2
    if backend._cuda_build():  # make dynet-gpu's DyNet on a machine without a GPU
        assert backend.NO_GPU in result.stderr and len(result.stderr.strip().splitlines()) == 1
    else:
        assert "no GPU support" in result.stderr and "make dynet-gpu" in result.stderr


def test_a_cuda_build_without_a_gpu_stops_before_dynet_starts(monkeypatch):
    """DyNet's CUDA build aborts the process when it finds no GPU; the driver is asked first instead."""
    from lstmparse.core import backend

    monkeypatch.setattr(backend, "_cuda_build", lambda: True)
    monkeypatch.setattr(backend, "gpu_count", lambda: 0)
    with pytest.raises(ConfigurationError, match="reports no GPU"):
        backend._require_gpu()
    monkeypatch.setattr(backend, "gpu_count", lambda: None)  # the driver answered oddly: DyNet itself decides
    with pytest.raises(ConfigurationError, match="no GPU support"):  # this process's DyNet runs on the CPU
        backend._require_gpu()


def test_parse_reads_stdin_text():
    result = lstmparse("parse", "--input-format", "text", "--quiet", stdin="The dog barks .\n")  # reads no tags
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "# text = The dog barks ."
    assert [line.split("\t")[1] for line in lines[1:5]] == ["The", "dog", "barks", "."]
    assert sum(line.split("\t")[6] == "0" for line in lines[1:5]) == 1
    assert result.stderr == ""


def test_same_seed_same_model(small_treebank, tmp_path):
    outputs = []
    for name in ("a", "b"):
        model = tmp_path / name
        train = lstmparse(
            "train", "--train", small_treebank["dev"], "--model-dir", model, "--epochs", "1", "--seed", "5"
        )
        assert train.returncode == 0, train.stderr
        parse = lstmparse("parse", "--model", model, "--input", small_treebank["dev"], "--quiet")
        outputs.append(parse.stdout)
    assert outputs[0] == outputs[1]


def test_malformed_input_is_one_line_and_exit_code_2(trained, tmp_path):
    model, _ = trained
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tx\t_\tNOUN\t_\t_\t0\troot\t_\t_\n\n1\ty\t_\t_\t_\t_\n\n", encoding="utf-8")
    result = lstmparse("parse", "--model", model, "--input", bad, "--quiet")
    assert result.returncode == 2
    assert result.stderr.strip() == f"lstmparse: {bad}:3: expected 10 tab-separated columns, found 6"
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith("1\tx\t") and result.stdout.count("\n") == 2  # the sentence before the error
    missing = lstmparse("parse", "--model", tmp_path / "nowhere", "--quiet", stdin="a\n")
    assert missing.returncode == 2 and "no such model directory" in missing.stderr


@pytest.mark.parametrize(
    ("system", "extra", "expected"),
    [
        ("arc-standard", [], "reproduced 733, non-projective 177, skipped 177"),
        ("arc-swap", [], "reproduced 910, non-projective 177, skipped 0, swaps 354"),
        ("arc-hybrid", ["--pseudo-projective"], "reproduced 910, non-projective 177, skipped 0"),
    ],
)
def test_oracle_command_reports_and_checks(ewt, system, extra, expected):
    result = lstmparse("oracle", "--system", system, "--check", *extra, ewt.parent / "hu_szeged" / "train.conllu")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"sentences 910, {expected}")


def test_oracle_prints_transitions(ewt):
    result = lstmparse("oracle", "--system", "arc-swap", "--transitions", ewt.parent / "hu_szeged" / "dev.conllu")
    first = result.stdout.splitlines()[0].split("\t")
    assert first[0] == "dev-1"
    assert first[1].split()[0] == "SHIFT" and "LEFT(nmod:att)" in first[1]
    assert result.stderr.startswith("sentences 441,")


@pytest.mark.parametrize(("features", "parser_reads_them"), [("words,pretrained,pos", True), ("words,pos", False)])
def test_a_pipelines_vectors_reach_its_parser_when_its_features_name_them(features, parser_reads_them, tmp_path):
    """--pretrained is the taggers'; the parser reads it too only with the 'pretrained' feature."""
    from lstmparse.pipeline.options import PipelineOptions

    vectors = tmp_path / "v.txt"
    given = {"train_file": "t", "model_dir": "m", "pretrained": str(vectors), "features": features}
    options = PipelineOptions.from_command_line(given)
    assert options.pretrained == str(vectors)
    assert options.parser.pretrained == (str(vectors) if parser_reads_them else None)


def test_the_tagger_s_character_vector_size_is_an_option():
    from lstmparse.tagger.options import TaggerOptions

    given = {"train_file": "t", "model_dir": "m"}
    options = TaggerOptions.from_command_line(given | {"char_size": 64, "hidden": 300})
    assert options.dims.chars == 64 and options.dims.hidden == 300
    assert TaggerOptions.from_command_line(given).dims.chars == 100
