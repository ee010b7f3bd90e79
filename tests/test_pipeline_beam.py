"""A pipeline's own beam (its manifest's ``decoding``, chosen on dev): every way of parsing uses it unless told."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA, ROOT, assert_one_error_line, run_cli

from lstmparse.io.formats import read_sentences
from lstmparse.tokenizer.data import paragraphs

SHIPPED = ROOT / "models" / "ta_ttb_pipeline"  # small and fast; beam 4 changes some of its dev trees
DEV = DATA / "ud" / "ta_ttb" / "dev.conllu"


def trees(conllu: str) -> list[tuple[str, str, str]]:
    """Each word line's ID, HEAD and DEPREL: the parse, whatever comments a search adds."""
    rows = (line.split("\t") for line in conllu.splitlines() if line and not line.startswith("#"))
    return [(row[0], row[6], row[7]) for row in rows]


def with_decoding(target: Path, decoding) -> Path:
    """A copy of the shipped Tamil pipeline whose manifest's ``decoding`` is ``decoding``."""
    shutil.copytree(SHIPPED, target)
    manifest = json.loads((target / "config.json").read_text(encoding="utf-8"))
    manifest["decoding"] = decoding
    if "beam" in manifest.get("choices", {}) and isinstance(decoding, dict):  # the choices' block says it too
        manifest["choices"]["beam"]["value"] = decoding["beam"]
    (target / "config.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def raw_dev(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("raw") / "dev.txt"
    path.write_text("\n\n".join(p.text for p in paragraphs(read_sentences(str(DEV)))) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def parses(raw_dev, tmp_path_factory) -> dict[str, str]:
    """The shipped pipeline's greedy and beam-4 parses of the Tamil dev text, and a copy's that chose beam 4."""
    chosen = with_decoding(tmp_path_factory.mktemp("beam") / "ta", {"beam": 4})

    def parse(model: Path, *options) -> str:
        result = run_cli("parse", "--model", model, "--input-format", "raw", "--input", raw_dev, "--quiet", *options)
        assert result.returncode == 0, result.stderr
        return result.stdout

    found = {"greedy": parse(SHIPPED, "--beam", "1"), "beam 4": parse(SHIPPED, "--beam", "4"), "chosen": parse(chosen)}
    found |= {"chosen, --jobs 2": parse(chosen, "--jobs", "2"), "chosen, --beam 1": parse(chosen, "--beam", "1")}
    found["model"] = str(chosen)
    return found


def test_the_beam_changes_some_trees_so_the_tests_below_can_tell(parses):
    assert trees(parses["greedy"]) != trees(parses["beam 4"])
    manifest = json.loads((SHIPPED / "config.json").read_text(encoding="utf-8"))
    assert manifest["decoding"]["beam"] in (1, 2, 4)  # chosen on dev; the copies below set their own


def test_parse_decodes_with_the_pipeline_s_beam_in_one_process_or_several(parses):
    assert parses["chosen"] == parses["beam 4"]
    assert parses["chosen, --jobs 2"] == parses["beam 4"]


def test_an_explicit_beam_overrides_the_pipeline_s(parses):
    assert parses["chosen, --beam 1"] == parses["greedy"]


def test_parse_corpus_decodes_with_the_pipeline_s_beam(parses, raw_dev, tmp_path):
    result = run_cli(
        "parse-corpus",
        raw_dev,
        "--output-dir",
        tmp_path,
        "--model",
        parses["model"],
        "--input-format",
        "raw",
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    assert trees((tmp_path / "dev.txt.conllu").read_text(encoding="utf-8")) == trees(parses["beam 4"])


def test_evaluate_scores_the_pipeline_s_beam(parses):
    def las(model, *options) -> float:
        result = run_cli("evaluate", DEV, "--model", model, "--from", "raw", "--json", *options)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)["conll18"]["LAS"]

    assert las(parses["model"]) == las(SHIPPED, "--beam", "4") != las(SHIPPED, "--beam", "1")


def test_the_python_api_and_the_server_decode_with_the_pipeline_s_beam(parses, raw_dev):
    import lstmparse
    from lstmparse.app.serve import Job, ServedModel, run_job

    text = raw_dev.read_text(encoding="utf-8")
    pipeline = lstmparse.load(parses["model"])
    assert pipeline.parser.beam == 4
    api = "".join(sentence.to_conllu() for sentence in pipeline.parse_text(text))
    assert trees(api) == trees(parses["beam 4"])
    served = ServedModel("ta", parses["model"], ("tokenizer", "tagger", "parser"))
    answer, _ = run_job(Job(served, ("tokenizer", "tagger", "parser"), "raw", "conllu", text, 10**6))
    assert trees(answer) == trees(parses["beam 4"])


@pytest.mark.parametrize("decoding", [{"beam": 0}, {"beam": "4"}, "wide"])
def test_a_manifest_s_bad_beam_is_one_error_naming_the_file(tmp_path, decoding):
    model = with_decoding(tmp_path / "ta", decoding)
    result = run_cli("parse", "--model", model, "--input-format", "raw", stdin="ஒரு வாக்கியம் .")
    assert_one_error_line(result, str(model / "config.json"), "decoding beam")


def test_the_choice_of_beam_is_the_narrowest_within_the_margin_of_the_best(tmp_path):
    import io

    from lstmparse.pipeline.choices import BY_NAME, choose_on_dev, read_choices

    model = tmp_path / "ta"
    shutil.copytree(SHIPPED, model)
    log = io.StringIO()
    from lstmparse.pipeline.api import Pipeline

    chosen = choose_on_dev(Pipeline.load(model), model, str(DEV), ["beam"], log)["beam"]
    beam = BY_NAME["beam"]
    las = {int(value): figure for value, figure in chosen["dev_LAS"].items()}
    assert sorted(las) == list(beam.candidates)
    best = max(las.values())
    assert las[chosen["value"]] >= best - beam.margin
    assert all(las[value] < best - beam.margin for value in beam.candidates if value < chosen["value"])
    assert log.getvalue().startswith("beam on dev (LAS): ") and read_choices(model)["beam"] == chosen
    manifest = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert manifest["decoding"] == {"beam": chosen["value"]}
