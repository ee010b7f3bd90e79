"""What users of Stanza, spaCy and UDPipe expect: models by name, partial pipelines, presegmented text, formats."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT, assert_one_error_line
from conftest import run_cli as cli

import lstmparse
from lstmparse.app.catalog import resolve_model
from lstmparse.errors import ModelError
from lstmparse.io.formats import read_sentences

MODELS = ROOT / "models"
TEXT = "Dogs bark. Cats sleep.\nThe U.S. Federal Reserve raised interest rates.\n"


def sentences_of(text: str) -> list:
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"habits-{os.getpid()}.conllu"
    path.write_text(text, encoding="utf-8")
    try:
        return list(read_sentences(str(path)))
    finally:
        path.unlink()


def test_a_name_finds_a_shipped_model_from_any_directory(tmp_path):
    assert resolve_model("en_ewt_upos") == MODELS / "en_ewt_upos"
    assert resolve_model(MODELS / "en_ewt") == MODELS / "en_ewt"  # a path still works
    with pytest.raises(ModelError, match="lstmparse models"):
        resolve_model("no_such_model")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lstmparse",
            "parse",
            "--model",
            "en_ewt_wp",
            "--input",
            ROOT / "data" / "sample.conllu",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stdout.count("\n\n") == 3, result.stderr


def test_lstmparse_models_directories_come_first_and_list_every_model(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "en_ewt_upos").symlink_to(MODELS / "en_ewt_wp")  # shadows the shipped one of that name
    shutil.copytree(
        MODELS / "en_ewt_pipeline" / "tagger", mine / "tagger_only", ignore=shutil.ignore_patterns("card.json")
    )
    env = {**os.environ, "LSTMPARSE_MODELS": f"{tmp_path / 'missing'}{os.pathsep}{mine}"}
    result = cli("models", "--json", env=env)
    assert result.returncode == 0, result.stderr
    listed = {record["name"]: record for record in map(json.loads, result.stdout.splitlines())}
    assert set(listed) >= {path.name for path in MODELS.iterdir() if (path / "config.json").is_file()}
    assert listed["en_ewt_upos"]["path"] == str(mine / "en_ewt_upos")
    assert listed["tagger_only"]["task"] == "tagger" and listed["tagger_only"]["language"] == "?"  # it has no card
    assert listed["en_ewt_pipeline"]["language"] == "en" and "LAS" in listed["en_ewt_pipeline"]["figures"]
    assert 15 < listed["en_ewt_pipeline"]["size_mb"] < 30  # its parser, named by the manifest, counts
    table = cli("models", env=env)
    assert table.returncode == 0 and table.stdout.splitlines()[0].split() == ["name", "lang", "MB", "use", "task"]
    assert {line.split()[0] for line in table.stdout.splitlines()[1:]} == set(listed)
    assert max(len(line) for line in table.stdout.splitlines()) <= 100  # details: models NAME or --json


def test_one_model_in_full_and_non_commercial_data_marked_wherever_listed(tmp_path):
    mine = tmp_path / "mine"
    shutil.copytree(MODELS / "en_ewt_wp", mine / "hu_parser")
    card = {"language": "hu", "task": "dependency parser", "licence": "CC BY-NC-SA 3.0 (non-commercial use only)"}
    (mine / "hu_parser" / "card.json").write_text(json.dumps(card), encoding="utf-8")
    env = {**os.environ, "LSTMPARSE_MODELS": str(mine)}
    row = next(line for line in cli("models", env=env).stdout.splitlines() if line.startswith("hu_parser"))
    assert row.split()[:2] == ["hu_parser", "hu"] and " NC " in row
    details = cli("models", "hu_parser", env=env)
    assert (
        details.returncode == 0
        and "non-commercial use only" in details.stdout
        and "non_commercial True" in details.stdout
    )
    (record,) = map(json.loads, cli("models", "hu_parser", "--json", env=env).stdout.splitlines())
    assert record["non_commercial"] is True and record["language"] == "hu"


def test_an_unknown_name_is_one_line_naming_where_it_was_looked_for():
    result = cli("parse", "--model", "en_ewt_nope", stdin="Dogs bark .\n")
    assert_one_error_line(result, "en_ewt_nope: no such model directory", str(MODELS))


def test_processors_stop_after_tokenizing_or_tagging():
    tokenized = cli("parse", "--input-format", "raw", "--processors", "tokenize", "--quiet", stdin=TEXT)
    tagged = cli("parse", "--input-format", "raw", "--processors", "tokenize,tag", "--quiet", stdin=TEXT)
    parsed = cli("parse", "--input-format", "raw", "--quiet", stdin=TEXT)
    assert tokenized.returncode == tagged.returncode == parsed.returncode == 0, tokenized.stderr + tagged.stderr
    tokens, tags, trees = (sentences_of(r.stdout) for r in (tokenized, tagged, parsed))
    assert [s.forms for s in tokens] == [s.forms for s in tags] == [s.forms for s in trees]
    assert all(t.upos == "_" and t.head is None for s in tokens for t in s.tokens)
    assert [[t.upos for t in s.tokens] for s in tags] == [[t.upos for t in s.tokens] for s in trees]
    assert all(t.head is None for s in tags for t in s.tokens) and all(
        t.head is not None for s in trees for t in s.tokens
    )
    nlp = lstmparse.load()
    assert [s.forms for s in tokens] == [s.forms for s in nlp.tokenize(TEXT)]


def test_any_tagger_feeds_any_tag_reading_parser():
    """--tagger with a UPOS-reading parser gives what tagging first and parsing the tagged text gives.

    (``--tagger PIPELINE`` takes the pipeline's tagger: the default pipeline's own tag stage takes UPOS from its
    parser, which predicts it.)"""
    text = "Dogs bark .\nThe cat sat on the mat .\n"
    paired = cli("parse", "--model", "en_ewt_upos", "--tagger", "en_ewt_pipeline", "--input-format", "text", stdin=text)
    tagged = cli(
        "parse",
        "--model",
        "en_ewt_pipeline/tagger",
        "--processors",
        "tag",
        "--input-format",
        "text",
        "--quiet",
        stdin=text,
    )
    in_two_steps = cli("parse", "--model", "en_ewt_upos", "--quiet", stdin=tagged.stdout)
    assert paired.returncode == 0 and in_two_steps.returncode == 0, paired.stderr + in_two_steps.stderr
    assert paired.stdout == in_two_steps.stdout
    alone = cli("parse", "--model", "en_ewt_upos", "--input-format", "text", stdin=text)
    assert_one_error_line(alone, "the UPOS column is empty")
    raw = cli("parse", "--model", "en_ewt_upos", "--tagger", "en_ewt_pipeline", "--input-format", "raw", stdin=text)
    assert_one_error_line(raw, "--input-format raw needs a tokenizer", "--tokenizer")
    with_tokenizer = cli(
        *("parse", "--model", "en_ewt_upos", "--tagger", "en_ewt_pipeline/tagger"),
        *("--tokenizer", "en_ewt_pipeline", "--input-format", "raw", "--quiet"),
        stdin=TEXT,
    )
    assert with_tokenizer.returncode == 0 and len(sentences_of(with_tokenizer.stdout)) == 3, with_tokenizer.stderr
    missing = cli("parse", "--model", "en_ewt_upos", "--processors", "tag", stdin=text)
    assert_one_error_line(missing, "--processors tag:", "has no tag stage")


def test_presegmented_text_is_one_sentence_per_line():
    lines = "Dogs bark. Cats sleep.\nNo full stop here\n\nIt rains! It pours.\n"
    result = cli("parse", "--input-format", "presegmented", "--quiet", stdin=lines)
    assert result.returncode == 0, result.stderr
    parsed = sentences_of(result.stdout)
    assert [s.text for s in parsed] == ["Dogs bark. Cats sleep.", "No full stop here", "It rains! It pours."]
    assert all(s.heads.count(0) >= 1 for s in parsed)
    split = sentences_of(cli("parse", "--input-format", "raw", "--quiet", stdin=lines).stdout)
    assert len(split) > len(parsed)  # the same text as paragraphs is split into more sentences


def test_constituency_output_from_raw_text_keeps_sentence_ids_and_text():
    """Issue 33, defect 7: bracketed output lost the tokenizer's sentence ids and text."""
    raw = ("parse", "--model", MODELS / "en_gum_seq2seq", "--input-format", "raw", "--beam", "2")
    result = cli(*raw, "--output-format", "conllu", stdin=TEXT)
    assert result.returncode == 0, result.stderr
    sentences = sentences_of(result.stdout)
    assert [s.sent_id for s in sentences] == ["1", "2", "3"]
    assert sentences[0].text == "Dogs bark." and all(s.metadata["constituency"].startswith("(ROOT") for s in sentences)
    brackets = cli(*raw, "--quiet", stdin=TEXT)
    assert brackets.stdout.splitlines() == [s.metadata["constituency"] for s in sentences]
    as_json = cli(*raw, "--output-format", "json", stdin=TEXT)
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [r["comments"]["constituency"] for r in records] == brackets.stdout.splitlines()
    assert [r["sent_id"] for r in records] == ["1", "2", "3"]


def test_loaded_models_say_what_they_are_and_point_to_the_right_call():
    """Issue 45: repr named no kind, a Parser called on text said only 'not callable', a string reached parse()
    and raised only when iterated."""
    import lstmparse

    pipeline = lstmparse.load("en_ewt_pipeline")
    assert repr(pipeline) == "<lstmparse pipeline 'en_ewt_pipeline' (en): tokenize, tag, parse>"
    assert repr(pipeline.tagger).startswith("<lstmparse tagger 'tagger' (en): UPOS, XPOS, FEATS")
    parser = lstmparse.load("en_ewt_upos")
    assert repr(parser) == "<lstmparse parser 'en_ewt_upos' (en): arc-hybrid, features words,pos,chars>"
    with pytest.raises(TypeError, match=r"a Parser reads tokenized sentences: parser.parse\("):
        parser("Le chat dort.")
    for call in (pipeline.parse, pipeline.tag, parser.parse, pipeline.tagger.tag):
        with pytest.raises(TypeError, match="got one str"):
            call("Dogs bark .")  # at the call, not when the result is iterated
    assert [s.forms for s in pipeline.parse_text("Dogs bark. Cats sleep.")] == [
        ["Dogs", "bark", "."],
        ["Cats", "sleep", "."],
    ]


def test_hints_name_models_of_the_models_own_language_never_the_english_default(tmp_path):
    """Issue 45: a French parser's errors suggested en_ewt_pipeline, and following the hint parsed French into
    garbage.  Breton here: a language no shipped pipeline has (French now has fr_sequoia_pipeline)."""
    mine = tmp_path / "mine"
    shutil.copytree(MODELS / "en_ewt_upos", mine / "br_parser")
    (mine / "br_parser" / "card.json").write_text(json.dumps({"language": "br"}), encoding="utf-8")
    env = {**os.environ, "LSTMPARSE_MODELS": str(mine)}
    untagged = cli("parse", "--model", "br_parser", "--input-format", "text", stdin="Ar c'hazh a gousk .\n", env=env)
    assert untagged.returncode == 2 and "en_ewt" not in untagged.stderr, untagged.stderr
    assert "lstmparse train --arch pipeline --treebank DIR" in untagged.stderr
    raw = cli("parse", "--model", "br_parser", "--input-format", "raw", stdin="Ar c'hazh a gousk.\n", env=env)
    assert raw.returncode == 2 and "en_ewt" not in raw.stderr and "none for language 'br'" in raw.stderr
    shutil.copytree(MODELS / "en_ewt_pipeline", mine / "br_pipeline", symlinks=True)
    (mine / "br_pipeline" / "card.json").write_text(json.dumps({"language": "br"}), encoding="utf-8")
    hinted = cli("parse", "--model", "br_parser", "--input-format", "text", stdin="Ar c'hazh a gousk .\n", env=env)
    assert "a pipeline of its language that tags first (br_pipeline)" in hinted.stderr, hinted.stderr
    shutil.copytree(mine / "br_parser", mine / "fr_parser")
    (mine / "fr_parser" / "card.json").write_text(json.dumps({"language": "fr"}), encoding="utf-8")
    french = cli("parse", "--model", "fr_parser", "--input-format", "text", stdin="Le chat dort .\n", env=env)
    assert "a pipeline of its language that tags first (fr_sequoia_pipeline)" in french.stderr, french.stderr


def test_text_in_another_language_is_flagged_in_one_line_and_parsed_the_same(tmp_path):
    """Issue 45: French through the English pipeline exited 0 with garbage and no warning."""
    import warnings

    import lstmparse
    from lstmparse.errors import UnfamiliarTextWarning

    def texts(treebank: str, count: int) -> str:
        lines = (DATA / "ud" / treebank / "dev.conllu").read_text(encoding="utf-8").splitlines()
        return "\n".join(line[len("# text = ") :] for line in lines if line.startswith("# text = "))[: count * 80]

    french, english = texts("fr_sequoia", 30), texts("en_ewt", 30)
    nlp = lstmparse.load("en_ewt_pipeline")
    with pytest.warns(UnfamiliarTextWarning, match=r"unlike what en_ewt_pipeline was trained on: \d+% of its words"):
        flagged = nlp(french)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnfamiliarTextWarning)
        nlp(english)  # English web text is not flagged
        nlp("Bonjour.")  # nor a few words, which are no evidence
    result = cli("parse", "--input-format", "raw", "--quiet", stdin=french)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert (
        result.returncode == 0 and len(lines) == 1 and lines[0].startswith("lstmparse: warning: the text looks unlike")
    )
    assert "en_ewt" not in lines[0].split("trained on")[1]  # no English model suggested for French text
    assert result.stdout == flagged.to_conllu()
