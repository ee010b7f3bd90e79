"""Faults and misuse: one clean error (exit 2, ``file:line`` where there is one), nothing lost, nothing garbled."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, assert_one_error_line, blank_tags, first_sentences
from conftest import run_cli as lstmparse_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lstmparse
from lstmparse.core import model_io
from lstmparse.errors import ConfigurationError, InputError
from lstmparse.io.formats import read_treebank
from lstmparse.layers.chars import CHARS_PER_END, spelling
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.systems import make_system
from lstmparse.stacklstm.training import build_vocabularies

UPOS_MODEL = ROOT / "models" / "en_ewt_wp"  # reads UPOS
GOOD = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n"


# --- a model never parses columns it reads but the input leaves blank ---------------------------------------


def test_a_upos_model_refuses_untagged_input_naming_column_file_and_line(tmp_path, ewt):
    path = tmp_path / "untagged.conllu"
    path.write_text(blank_tags(first_sentences(ewt / "test.conllu", 3)), encoding="utf-8")
    result = lstmparse_cli("parse", "--model", UPOS_MODEL, "--input", path, "--quiet")
    first_word_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line[:1].isdigit())
    assert_one_error_line(result, f"{path}:{first_word_line}:", "UPOS", "en_ewt")
    assert result.stdout == ""
    assert_one_error_line(lstmparse_cli("parse", "--model", UPOS_MODEL, "--input", path, "--jobs", 2), "UPOS")


def test_the_api_refuses_word_lists_for_a_model_that_reads_tags():
    parser = lstmparse.load(UPOS_MODEL)
    with pytest.raises(InputError, match="UPOS column is empty"):
        list(parser.parse([["Dogs", "bark", "."]]))


@pytest.fixture(scope="module")
def feats_model(tmp_path_factory, small_treebank) -> Path:
    sentences = read_treebank(str(small_treebank["train"]))
    system = make_system("arc-standard", {d for s in sentences for d in s.deprels})
    directory = tmp_path_factory.mktemp("feats") / "m"
    StackLSTMParser(system, ["words", "feats"], build_vocabularies(sentences)).save(str(directory))
    return directory


def test_a_feats_model_refuses_input_without_any_feature_but_reads_sparse_ones(feats_model, small_treebank):
    parser = lstmparse.load(feats_model)
    tagged = read_treebank(str(small_treebank["dev"]))[:20]
    assert len(list(parser.parse(tagged))) == 20  # many words of tagged text have no feature: that is fine
    with pytest.raises(InputError, match="FEATS column is empty"):
        list(parser.parse([["Dogs", "bark", "."]]))


def test_a_pipeline_whose_tagger_gives_no_feature_to_any_word_still_parses(tmp_path):
    """Coptic's parser reads FEATS; its tagger rightly gives none to these two words. Its own tagger's '_' is an
    answer, not a missing column (the parse used to stop with 'the FEATS column is empty'), also with --jobs."""
    text = tmp_path / "short.txt"
    text.write_text("ϭⲟⲗ ·\n", encoding="utf-8")
    pipeline = lstmparse.load("cop_scriptorium_pipeline")
    assert "feats" in pipeline.parser.model.features
    (sentence,) = pipeline.parse_text("ϭⲟⲗ ·")
    assert [t.feats for t in sentence.tokens] == ["_", "_"] and all(t.head is not None for t in sentence.tokens)
    for jobs in ("1", "2"):
        result = lstmparse_cli(
            "parse",
            "--model",
            "cop_scriptorium_pipeline",
            "--input-format",
            "raw",
            "--input",
            text,
            "--jobs",
            jobs,
            "--quiet",
        )
        assert result.returncode == 0 and result.stdout.count("\tpunct\t") == 1, result.stderr
    given = dataclasses.replace(sentence, feats_tagged=False)  # the same columns given by a user, not the tagger
    with pytest.raises(InputError, match="FEATS column is empty"):  # are still refused: too little evidence
        list(pipeline.parser.parse([given]))


def test_training_refuses_a_feature_whose_column_is_empty(tmp_path, small_treebank):
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text(blank_tags(small_treebank["train"].read_text(encoding="utf-8")), encoding="utf-8")
    result = lstmparse_cli("train", "--train", untagged, "--model-dir", tmp_path / "m", "--features", "words,pos")
    assert_one_error_line(result, str(untagged), "UPOS column is empty")
    assert not (tmp_path / "m").exists()


# --- output files: written whole or not at all, never over the input -------------------------------------------


def test_a_missing_input_leaves_an_existing_output_untouched(tmp_path):
    output = tmp_path / "results.conllu"
    output.write_text("precious\n")
    result = lstmparse_cli("parse", "--input", tmp_path / "typo.conllu", "--output", output)
    assert_one_error_line(result, "typo.conllu")
    assert output.read_text() == "precious\n"


def test_malformed_input_leaves_an_existing_output_untouched_and_no_temporary_file(tmp_path):
    source, output = tmp_path / "in.conllu", tmp_path / "results.conllu"
    source.write_text(GOOD + GOOD.replace("\t2\tnsubj", "\t9\tnsubj"))
    output.write_text("precious\n")
    assert_one_error_line(lstmparse_cli("parse", "--input", source, "--output", output), f"{source}:4:")
    assert output.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.conllu", "results.conllu"]


def test_output_over_the_input_is_refused(tmp_path):
    source = tmp_path / "in.conllu"
    source.write_text(GOOD)
    assert_one_error_line(lstmparse_cli("parse", "--input", source, "--output", source), "replace the input")
    assert source.read_text() == GOOD


def test_a_written_output_file_gets_ordinary_permissions(tmp_path):
    source, output = tmp_path / "in.conllu", tmp_path / "out.conllu"
    source.write_text(GOOD)
    assert lstmparse_cli("parse", "--input", source, "--output", output, "--quiet").returncode == 0
    assert (output.stat().st_mode & 0o777) == 0o666 & ~_umask()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--input", "{tmp}"], "Is a directory"),
        (["--output", "{tmp}"], "is a directory"),
        (["--output", "/dev/full"], "/dev/full: No space left on device"),
        (["--output", "{tmp}/no/such/dir/out.conllu"], "no such directory"),
    ],
    ids=["input-is-a-directory", "output-is-a-directory", "disk-full", "output-directory-missing"],
)
def test_file_system_errors_are_one_line(tmp_path, args, fragment):
    source = tmp_path / "in.conllu"
    source.write_text(GOOD)
    args = [arg.format(tmp=tmp_path) for arg in args]
    result = lstmparse_cli("parse", "--quiet", *(["--input", source] if "--input" not in args else []), *args)
    assert_one_error_line(result, fragment)


def test_a_broken_pipe_ends_quietly_with_141(ewt):
    command = f"{sys.executable} -m lstmparse parse --quiet --input {ewt / 'dev.conllu'} | head -n 1"
    result = subprocess.run(
        ["bash", "-c", f"{command}; exit ${{PIPESTATUS[0]}}"], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 141 and result.stderr == ""


def test_memory_of_zero_is_a_usage_error_not_an_abort(tmp_path):
    result = lstmparse_cli("parse", "--memory-mb", "0")
    assert result.returncode == 2 and "--memory-mb" in result.stderr and "Traceback" not in result.stderr


# --- training never replaces a model unasked ---------------------------------------------------------------------


def test_training_into_a_model_directory_needs_resume_or_overwrite(tmp_path, small_treebank):
    shutil.copytree(UPOS_MODEL, tmp_path / "m")
    before = sorted(p.name for p in (tmp_path / "m").iterdir())
    result = lstmparse_cli("train", "--train", small_treebank["train"], "--model-dir", tmp_path / "m")
    assert_one_error_line(result, "already holds a model", "--resume", "--overwrite")
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == before
    with pytest.raises(ConfigurationError, match="pick one"):
        model_io.check_training_directory(tmp_path / "m", resume=True, overwrite=True)
    model_io.check_training_directory(tmp_path / "m", resume=False, overwrite=True)  # allowed
    model_io.check_training_directory(tmp_path / "empty", resume=False, overwrite=False)  # a new directory


# --- damaged models name the damaged file ----------------------------------------------------------------------------


def _damage_params(directory: Path, how: str) -> Path:
    params = directory / json.loads((directory / "config.json").read_text())["params_file"]
    data = bytearray(params.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "bit-flipped":
        data[len(data) // 2] ^= 0xFF
    else:
        data = bytearray()
    params.write_bytes(bytes(data))
    return params


@pytest.mark.parametrize("how", ["truncated", "bit-flipped", "empty"])
def test_a_damaged_parameter_file_is_named(tmp_path, how):
    shutil.copytree(UPOS_MODEL, tmp_path / "m")
    params = _damage_params(tmp_path / "m", how)
    result = lstmparse_cli("parse", "--model", tmp_path / "m", stdin=GOOD)
    assert_one_error_line(result, str(params), "damaged")


@pytest.mark.parametrize("damaged", ["config", "vocab"])
def test_model_json_of_the_wrong_shape_is_a_clean_error(tmp_path, damaged):
    shutil.copytree(UPOS_MODEL, tmp_path / "m")
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    if damaged == "config":
        (tmp_path / "m" / "config.json").write_text("[1, 2]")
    else:
        (tmp_path / "m" / config["vocab_file"]).write_text('{"words": 3}')
    assert_one_error_line(lstmparse_cli("parse", "--model", tmp_path / "m", stdin=GOOD), str(tmp_path / "m"))


def test_model_files_get_ordinary_permissions_and_stale_temporaries_go(tmp_path, feats_model):
    model = StackLSTMParser.load(str(feats_model))
    directory = tmp_path / "m"
    directory.mkdir()
    stale = directory / ".params-1.npz.abc123"  # what a save killed half-way leaves
    stale.write_bytes(b"half")
    model.save(str(directory))
    assert not stale.exists()
    for path in directory.iterdir():
        assert (path.stat().st_mode & 0o777) == 0o666 & ~_umask(), path.name


def test_a_ragged_pretrained_file_is_an_error_on_its_line(tmp_path, small_treebank):
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("the 0.1 0.2 0.3\na 0.1 0.2\n")
    result = lstmparse_cli(
        "train",
        "--train",
        small_treebank["train"],
        "--model-dir",
        tmp_path / "m",
        "--features",
        "words,pretrained",
        "--pretrained",
        vectors,
    )
    assert_one_error_line(result, f"{vectors}:2:", "2 numbers after vectors of 3")


# --- the Python API says what it expected -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentences", "error", "message"),
    [
        ("Dogs bark .", TypeError, "iterable of sentences"),
        (["a string"], TypeError, "list of word forms"),
        ([[]], ValueError, "no words"),
        ([["Dogs", ""]], ValueError, "word 2"),
        ([["Do\tgs"]], ValueError, "tab"),
        ([["Dogs", "bark\n"]], ValueError, "newline"),
        ([["Dogs", 7]], TypeError, "int"),
    ],
    ids=["one-string", "string-sentence", "empty-sentence", "empty-word", "tab", "newline", "not-a-string"],
)
def test_api_misuse_raises_what_was_given_and_what_is_expected(sentences, error, message):
    parser = lstmparse.Parser.load()
    with pytest.raises(error, match=message):
        list(parser.parse(sentences))


@pytest.mark.parametrize(("options", "message"), [({"beam": 0}, "beam"), ({"beam": 2, "kbest": 3}, "kbest 3")])
def test_bad_search_settings_are_value_errors(options, message):
    with pytest.raises(ValueError, match=message):
        lstmparse.Parser.load().parse_kbest([["Dogs", "bark"]], **options)


# --- resource limits ----------------------------------------------------------------------------------------------


def test_the_character_lstm_reads_the_ends_of_a_long_word_only(tmp_path):
    word = "a" * 50 + "b" * 100_000 + "c" * 50
    assert spelling(word) == "a" * CHARS_PER_END + "c" * CHARS_PER_END
    assert spelling("short") == "short"
    source = tmp_path / "long.conllu"
    source.write_text(f"1\t{word}\t_\t_\t_\t_\t_\t_\t_\t_\n2\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    result = lstmparse_cli("parse", "--input", source, "--quiet")  # the default model reads characters
    assert result.returncode == 0 and result.stdout.count("\n") == 3


# --- scoring --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("heads", "problem"), [(("2", "1"), "no word attached"), (("0", "0"), "multiple roots")])
@pytest.mark.parametrize("broken_side", ["system", "gold"])
def test_evaluate_rejects_trees_that_are_not_trees_on_either_side(tmp_path, heads, problem, broken_side):
    files = {"gold": tmp_path / "gold.conllu", "system": tmp_path / "system.conllu"}
    lines = GOOD.splitlines()
    broken = "\n".join(
        "\t".join(columns[:6] + [head] + columns[7:])
        for columns, head in zip((line.split("\t") for line in lines[:2]), heads, strict=True)
    )
    for side, path in files.items():
        path.write_text(GOOD + (broken + "\n\n" if side == broken_side else GOOD))
    whose = "system's" if broken_side == "system" else "gold file's"
    result = lstmparse_cli("evaluate", files["gold"], files["system"])
    assert_one_error_line(result, f"{files[broken_side]}:4:", whose, problem)


def test_a_cr_only_file_is_named_as_such(tmp_path):
    source = tmp_path / "mac.conllu"
    source.write_bytes(GOOD.replace("\n", "\r").encode())
    assert_one_error_line(lstmparse_cli("parse", "--input", source), f"{source}:1:", "carriage return")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --- fuzzing the whole command line, with one and two processes --------------------------------------------------

CONLLU_ISH = st.lists(
    st.one_of(
        st.just(GOOD),
        st.just("1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n\n"),
        st.just(
            "# comment\n1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "2\tn't\t_\t_\t_\t_\t_\t_\t_\t_\n2.1\tgap\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
        ),
        st.text(max_size=40).map(lambda s: s + "\n"),
        st.binary(max_size=30).map(lambda b: b.decode("utf-8", "surrogateescape")),  # any bytes
    ),
    max_size=6,
).map("".join)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_the_command_line_on_random_input_exits_0_or_2_with_valid_output(tmp_path_factory, jobs):
    @settings(max_examples=12 if jobs == 1 else 5, deadline=None, suppress_health_check=list(HealthCheck))
    @given(CONLLU_ISH)
    def run(text):
        source = tmp_path_factory.mktemp("fuzz") / "in.conllu"
        source.write_bytes(text.encode("utf-8", "surrogateescape"))
        result = lstmparse_cli("parse", "--quiet", "--jobs", jobs, "--input", source, timeout=120)
        assert result.returncode in (0, 2), result.stderr
        assert "Traceback" not in result.stderr
        if result.returncode == 2:
            assert_one_error_line(result, str(source))
        parsed = tmp_path_factory.mktemp("fuzz_out") / "out.conllu"
        parsed.write_text(result.stdout, encoding="utf-8")
        for sentence in lstmparse.read_sentences(str(parsed)):  # what was written reads back as trees
            assert all(token.head is not None for token in sentence.tokens)

    run()
