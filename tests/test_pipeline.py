"""Raw text to trees through the command line: a pipeline built by `train --arch pipeline`, and its errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import FASTEST_MODEL, ROOT, assert_one_error_line, run_cli
from conftest import run_cli as lstmparse

from lstmparse.io.formats import read_sentences
from lstmparse.tokenizer.data import paragraphs

pytestmark = pytest.mark.slow  # trains a whole pipeline (tokenizer, jack-knifed tagger, parser)


@pytest.fixture(scope="module")
def pipeline(small_treebank, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A pipeline trained for one epoch per part on 200 EWT sentences, two jack-knife folds."""
    model = tmp_path_factory.mktemp("pipeline") / "m"
    result = lstmparse(
        "train",
        "--arch",
        "pipeline",
        "--recipe",
        "none",  # the pipeline step alone, in this process: the recipe's build is tested in test_recipe.py
        "--train",
        small_treebank["train"],
        "--dev",
        small_treebank["dev"],
        "--model-dir",
        model,
        "--epochs",
        "1",
        "--jackknife",
        "2",
        "--features",
        "words,pos",
        "--system",
        "arc-hybrid",
    )
    assert result.returncode == 0, result.stderr
    return model, result


@pytest.fixture(scope="module")
def raw_dev(small_treebank, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("raw") / "dev.txt"
    path.write_text("\n\n".join(p.text for p in paragraphs(read_sentences(str(small_treebank["dev"])))) + "\n")
    return path


def test_training_builds_every_part_and_a_manifest(pipeline):
    model, result = pipeline
    manifest = json.loads((model / "config.json").read_text())
    assert manifest["arch"] == "pipeline"
    for part in ("tokenizer", "tagger", "parser"):
        assert (model / manifest["parts"][part] / "config.json").is_file()
    parser_record = json.loads((model / "parser" / "config.json").read_text())["training"]
    assert parser_record["train"].endswith("train.tagged.conllu")  # trained on jack-knifed tags
    assert not list((model / "jackknife").glob("fold-*"))  # the folds' taggers are not kept
    assert "jack-knife fold 2 of 2" in result.stderr
    beam = manifest["choices"]["beam"]  # the beam chosen on dev: in the manifest's block, on stderr, in the card
    assert manifest["decoding"] == {"beam": beam["value"]} and sorted(beam["dev_LAS"]) == ["1", "2", "4"]
    assert f"beam on dev (LAS): 1 {beam['dev_LAS']['1']:.2f}" in result.stderr
    card = json.loads((model / "card.json").read_text())
    assert any(line.startswith(f"beam {beam['value']}: the parser's beam") for line in card["choices"])


def test_jackknifed_training_data_keeps_trees_and_replaces_tags(pipeline, small_treebank):
    model, _ = pipeline
    gold = list(read_sentences(str(small_treebank["train"])))
    tagged = list(read_sentences(str(model / "jackknife" / "train.tagged.conllu")))
    assert [s.forms for s in tagged] == [s.forms for s in gold]
    assert [s.heads for s in tagged] == [s.heads for s in gold]
    assert [s.deprels for s in tagged] == [s.deprels for s in gold]


def test_raw_text_is_tokenized_tagged_and_parsed(pipeline, raw_dev, small_treebank, tmp_path):
    model, _ = pipeline
    output = tmp_path / "out.conllu"
    result = lstmparse("parse", "--model", model, "--input-format", "raw", "--input", raw_dev, "--output", output)
    assert result.returncode == 0, result.stderr
    parsed = list(read_sentences(str(output)))
    assert parsed and all(s.heads.count(0) >= 1 and None not in s.heads for s in parsed)
    assert all(t.upos != "_" for s in parsed for t in s.tokens)
    scored = lstmparse("evaluate", "--json", small_treebank["dev"], output)
    assert scored.returncode == 0, scored.stderr
    assert set(json.loads(scored.stdout)["conll18"]) >= {"Tokens", "Sentences", "Words", "UPOS", "LAS"}


def test_raw_text_from_stdin_and_with_jobs_gives_the_same_output(pipeline, raw_dev):
    model, _ = pipeline
    text = raw_dev.read_text()
    one = lstmparse("parse", "--model", model, "--input-format", "raw", "--quiet", stdin=text)
    two = lstmparse("parse", "--model", model, "--input-format", "raw", "--quiet", "--jobs", "2", stdin=text)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout and one.stdout


def test_tagged_input_keeps_its_tags_unless_retagged(pipeline, small_treebank):
    model, _ = pipeline
    gold = small_treebank["dev"].read_text()
    kept = lstmparse("parse", "--model", model, "--quiet", stdin=gold)
    retagged = lstmparse("parse", "--model", model, "--quiet", "--retag", stdin=gold)
    upos = [[line.split("\t")[3] for line in block.split("\n") if line[:1].isdigit()] for block in gold.split("\n\n")]

    def tags_of(text):
        return [
            [line.split("\t")[3] for line in block.split("\n") if line[:1].isdigit()] for block in text.split("\n\n")
        ]

    assert tags_of(kept.stdout) == upos
    assert tags_of(retagged.stdout) != upos


def test_untagged_conllu_is_tagged_before_parsing(pipeline, small_treebank):
    from conftest import blank_tags

    model, _ = pipeline
    result = lstmparse("parse", "--model", model, "--quiet", stdin=blank_tags(small_treebank["dev"].read_text()))
    assert result.returncode == 0, result.stderr
    words = [line.split("\t") for line in result.stdout.split("\n") if line[:1].isdigit()]
    words = [columns for columns in words if columns[0].isdigit()]  # not multi-word token lines
    assert words and all(columns[3] != "_" for columns in words)


def test_raw_input_needs_a_pipeline(raw_dev):
    result = lstmparse("parse", "--model", FASTEST_MODEL, "--input-format", "raw", "--input", raw_dev)
    assert_one_error_line(result, "--input-format raw needs a tokenizer: a pipeline model")


def test_bad_bytes_in_raw_text_name_the_line(pipeline, tmp_path):
    model, _ = pipeline
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"A fine line.\n\nAnother \xff one.\n")
    for jobs in ("1", "2"):
        result = lstmparse("parse", "--model", model, "--input-format", "raw", "--input", bad, "--jobs", jobs)
        assert_one_error_line(result, f"{bad}:3:", "not valid UTF-8")


def test_training_into_a_pipeline_directory_needs_resume_and_then_reuses_parts(pipeline, small_treebank):
    model, _ = pipeline
    common = ["train", "--arch", "pipeline", "--recipe", "none", "--train", small_treebank["train"]]
    common += ["--dev", small_treebank["dev"]]
    common += ["--model-dir", model, "--epochs", "1", "--jackknife", "2", "--features", "words,pos"]
    refused = lstmparse(*common)
    assert_one_error_line(refused, "already holds a model")
    resumed = lstmparse(*common, "--system", "arc-hybrid", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    for part in ("tokenizer", "tagger", "parser"):
        assert f"{part}: reusing the model" in resumed.stderr


def test_a_part_interrupted_half_way_continues_on_resume_instead_of_being_reused(small_treebank, tmp_path):
    """The parser's directory holds its best epoch so far while it trains: without the mark of a finished part
    (the state an interrupted run leaves), --resume continues its training from the checkpoint."""
    from lstmparse.core.records import TRAINED

    model = tmp_path / "m"
    common = ["train", "--arch", "pipeline", "--recipe", "none", "--train", small_treebank["train"]]
    common += ["--dev", small_treebank["dev"]]
    common += ["--model-dir", model, "--jackknife", "2", "--features", "words,pos", "--system", "arc-hybrid"]
    assert lstmparse(*common, "--epochs", "1").returncode == 0
    (model / "parser" / TRAINED).unlink()  # as if interrupted after its first epoch
    resumed = lstmparse(*common, "--epochs", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "parser: continuing the interrupted training" in resumed.stderr
    assert "tagger: reusing the model" in resumed.stderr and "tokenizer: reusing the model" in resumed.stderr
    checkpoint = json.loads((model / "parser" / "checkpoint" / "config.json").read_text(encoding="utf-8"))
    assert len(checkpoint["training"]["epochs"]) == 2 and (model / "parser" / TRAINED).is_file()
    again = lstmparse(*common, "--epochs", "2", "--resume")
    assert "parser: reusing the model" in again.stderr, again.stderr


def test_parse_corpus_tokenizes_raw_shards_as_parse_does(pipeline, raw_dev, tmp_path):
    model, _ = pipeline
    shard = tmp_path / "shard.txt"
    shard.write_text(raw_dev.read_text())
    single = lstmparse("parse", "--model", model, "--input-format", "raw", "--input", shard, "--quiet")
    corpus = lstmparse(
        "parse-corpus", shard, "--output-dir", tmp_path / "out", "--model", model, "--input-format", "raw", "--quiet"
    )
    assert corpus.returncode == 0, corpus.stderr
    assert (tmp_path / "out" / "shard.txt.conllu").read_text() == single.stdout


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({"arch": "pipeline", "parts": {"tagger": "tagger"}}, "not a pipeline manifest"),
        ({"arch": "pipeline", "parts": {"parser": "parser", "lemmatizer": "x"}}, "unknown parts ['lemmatizer']"),
        ({"arch": "pipeline", "parts": {"parser": "missing"}}, "missing"),
    ],
    ids=["no-parser", "unknown-part", "missing-part"],
)
def test_a_broken_manifest_is_one_error(pipeline, tmp_path, manifest, message):
    model, _ = pipeline
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "parser").symlink_to(model / "parser")
    (broken / "config.json").write_text(json.dumps(manifest))
    result = lstmparse("parse", "--model", broken, "--input-format", "raw", stdin="Dogs bark.\n")
    assert_one_error_line(result, message)


@pytest.mark.parametrize(
    ("input_format", "first", "second"),
    [("text", "Hello there .\n", "Bye now .\n"), ("raw", "Hello there.\n\n", "Bye now.\n")],
)
def test_batch_size_one_streams_through_every_stage_of_the_default_pipeline(input_format, first, second):
    """The first tree comes out while the second sentence has not been written yet.

    The tagger used to wait for 1,024 sentences and the tokenizer for 256 paragraphs.
    """
    import select
    import sys
    import time

    command = [sys.executable, "-m", "lstmparse", "parse", "--input-format", input_format, "--batch-size", "1"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        process.stdin.write(first.encode())
        process.stdin.flush()
        received, deadline = b"", time.time() + 120
        while b"\n\n" not in received and time.time() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1.0)
            if ready:
                received += process.stdout.read1(65536)
        assert b"\n\n" in received, "no tree before the input ended"
        assert b"\tHello\t" in received and b"Bye" not in received
        process.stdin.write(second.encode())
        process.stdin.close()
        rest = process.stdout.read()
        assert b"\tBye\t" in rest and process.wait(timeout=120) == 0
    finally:
        process.kill()


def test_a_pipeline_from_parts_trained_before_parses_as_the_parts_do(tmp_path):
    """train --arch pipeline --parser P --tagger T --tokenizer K: no training, the same trees as the parts together."""
    models = ROOT / "models"
    parts = [
        "--parser",
        models / "en_ewt_upos",
        "--tagger",
        models / "en_ewt_pipeline",
        "--tokenizer",
        models / "en_ewt_pipeline",
    ]
    result = run_cli("train", "--arch", "pipeline", "--recipe", "none", *parts, "--model-dir", tmp_path / "p")
    assert result.returncode == 0, result.stderr
    assert (
        "parser: " in result.stderr and "(given, not trained)" in result.stderr and "training into" not in result.stderr
    )
    text = "Dogs bark. The committee approved the new budget on Tuesday."
    ours = run_cli("parse", "--model", tmp_path / "p", "--input-format", "raw", "--quiet", stdin=text)
    theirs = run_cli(
        "parse", "--model", models / "en_ewt_upos", "--tagger", models / "en_ewt_pipeline",
        "--tokenizer", models / "en_ewt_pipeline", "--input-format", "raw", "--quiet", stdin=text,
    )  # fmt: skip
    assert ours.returncode == 0 and ours.stdout == theirs.stdout and ours.stdout.count("\troot\t") == 2
    wrong_parts = [*parts[2:], "--parser", models / "en_ewt_pipeline" / "tagger"]
    wrong = run_cli("train", "--arch", "pipeline", "--recipe", "none", *wrong_parts, "--model-dir", tmp_path / "q")
    assert_one_error_line(wrong, "--parser", "a tagger model, not a parser")


def test_several_taggers_train_on_their_own_seeds_and_tag_as_their_ensemble(small_treebank, tmp_path):
    """--taggers 2: tagger (seed 3) and tagger_2 (seed 4) trained, the manifest's tagger is their ensemble."""
    from lstmparse.tagger.api import POSTagger

    model = tmp_path / "m"
    common = ["train", "--arch", "pipeline", "--recipe", "none", "--train", small_treebank["train"]]
    common += ["--dev", small_treebank["dev"]]
    common += ["--model-dir", model, "--epochs", "1", "--jackknife", "2", "--features", "words,pos"]
    result = lstmparse(*common, "--system", "arc-hybrid", "--taggers", "2", "--seed", "3")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((model / "config.json").read_text())
    assert manifest["parts"]["tagger"] == "tagger_ensemble"
    members = json.loads((model / "tagger_ensemble" / "config.json").read_text())["members"]
    assert sorted(members) == ["../tagger", "../tagger_2"]
    seeds = [json.loads((model / n / "config.json").read_text())["training"]["seed"] for n in ("tagger", "tagger_2")]
    assert seeds == [3, 4]
    dev = list(read_sentences(str(small_treebank["dev"])))
    ensemble = [[t.upos for t in s.tokens] for s in POSTagger.load(model / "tagger_ensemble").tag(dev, retag=True)]
    alone = [[t.upos for t in s.tokens] for s in POSTagger.load(model / "tagger").tag(dev, retag=True)]
    assert ensemble != alone  # one epoch each: the members differ, and the ensemble is neither
    tagged = list(read_sentences(str(model / "jackknife" / "dev.tagged.conllu")))
    assert [[t.upos for t in s.tokens] for s in tagged] == ensemble  # the parser chose its epoch on these tags
    parsed = lstmparse("parse", "--model", model, "--retag", "--input", small_treebank["dev"], "--quiet")
    (tmp_path / "parsed.conllu").write_text(parsed.stdout, encoding="utf-8")
    assert [[t.upos for t in s.tokens] for s in read_sentences(str(tmp_path / "parsed.conllu"))] == ensemble
    given = lstmparse(*common, "--tagger", model / "tagger", "--taggers", "2", "--overwrite")
    assert_one_error_line(given, "--taggers", "--tagger")
    one = lstmparse(*common, "--system", "arc-hybrid", "--seed", "3", "--tagger", model / "tagger", "--resume")
    assert one.returncode == 0, one.stderr
    assert json.loads((model / "config.json").read_text())["parts"]["tagger"] == "tagger"  # not the old ensemble


@pytest.mark.parametrize(
    "parser_options",
    [["--features", "words,chars"], ["--context-layers", "1", "--joint-upos"]],  # the recipe: words,chars
    ids=["words-chars", "joint-upos"],
)
def test_a_parser_that_reads_no_tags_trains_on_the_gold_treebank_without_folds(
    small_treebank, tmp_path, parser_options
):
    model = tmp_path / "m"
    result = lstmparse(
        "train", "--arch", "pipeline", "--recipe", "none", "--train", small_treebank["train"],
        "--dev", small_treebank["dev"], "--model-dir", model, "--epochs", "1", "--system", "arc-hybrid",
        *parser_options,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "no jack-knife folds" in result.stderr and "jack-knife fold 1" not in result.stderr
    parser_record = json.loads((model / "parser" / "config.json").read_text())["training"]
    assert parser_record["train"] == str(small_treebank["train"]) and not (model / "jackknife").exists()
    parser_config = json.loads((model / "parser" / "config.json").read_text())
    assert parser_config["features"] == ["words", "chars"]
    assert parser_config["dims"]["joint_upos"] == ("--joint-upos" in parser_options)


def test_ensembles_given_as_parts_are_copied_with_their_members(tmp_path):
    """A pipeline from another pipeline's tagger and parser ensembles parses as that pipeline does (same beam)."""
    models = ROOT / "models"
    source = models / "en_ewt_pipeline_ensemble"
    parts = ["--parser", source, "--tagger", source, "--tokenizer", source]
    result = run_cli("train", "--arch", "pipeline", *parts, "--model-dir", tmp_path / "p")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "p" / "tagger" / "config.json").read_text())
    members = json.loads((source / "tagger_ensemble" / "config.json").read_text())["members"]
    assert len(members) > 1 and manifest["members"] == [f"../tagger_{i}" for i in range(1, len(members) + 1)]
    text = "Dogs chase cats. The committee approved the new budget on Tuesday."
    ours = run_cli("parse", "--model", tmp_path / "p", "--input-format", "raw", "--beam", "2", "--quiet", stdin=text)
    theirs = run_cli("parse", "--model", source, "--input-format", "raw", "--beam", "2", "--quiet", stdin=text)
    assert ours.returncode == 0 and ours.stdout == theirs.stdout and ours.stdout.count("\troot\t") == 2
