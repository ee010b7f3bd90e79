"""lstmparse release make: a model that is not a language pipeline remade from its recipe, scored and shipped."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, assert_one_error_line, first_sentences

from lstmparse.app.release.cards import ABSOLUTE_PATH, problems

PARSER = """[model]
name = "tiny_parser"
arch = "stacklstm"
treebank = "en_tiny"
seed = 1
description = "a parser of words and UPOS"

[train]
features = "words,pos"
epochs = 2
"""

ENSEMBLE = """[model]
name = "tiny_parser_ensemble"
arch = "ensemble"
treebank = "en_tiny"

[ensemble]
recipe = "../tiny_parser/recipe.toml"
models = ["../tiny_parser"]
seeds = [2]
"""

LANGUAGE_MODEL = """[model]
name = "tiny_lm"
arch = "ldtreelstm"
treebank = "en_tiny"
seed = 1

[train]
epochs = 1
"""


def release(*args: object) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "cli.py"), "release", *map(str, args)]
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environment)


@pytest.fixture(scope="module")
def made(tmp_path_factory, ewt) -> dict:
    """The three tiny models made and shipped into a models folder by one command (the ensemble's reused member
    first)."""
    root = tmp_path_factory.mktemp("make")
    treebank = root / "data" / "ud" / "en_tiny"
    treebank.mkdir(parents=True)
    for split, count in (("train", 80), ("dev", 20), ("test", 20)):
        (treebank / f"{split}.conllu").write_text(first_sentences(ewt / f"{split}.conllu", count), encoding="utf-8")
    for name in ("LICENSE.txt", "VERSION"):
        shutil.copy(ewt / name, treebank / name)
    models = root / "models"
    for name, recipe in (("tiny_parser", PARSER), ("tiny_parser_ensemble", ENSEMBLE), ("tiny_lm", LANGUAGE_MODEL)):
        (models / name).mkdir(parents=True)
        (models / name / "recipe.toml").write_text(recipe, encoding="utf-8")
        (models / name / "old.txt").write_text("the model before")
    arguments = ["--work-dir", root / "work", "--models-dir", models, "--data", root / "data"]
    result = release("make", "tiny_parser_ensemble", "tiny_lm", *arguments)
    assert result.returncode == 0, result.stderr
    return {"models": models, "test": treebank / "test.conllu", "stderr": result.stderr, "arguments": arguments}


@pytest.mark.slow
def test_each_model_is_shipped_with_a_card_of_the_schema_and_its_recipe_and_no_path_of_the_machine(made):
    models = made["models"]
    assert "lstmparse: shipped tiny_parser, tiny_parser_ensemble, tiny_lm;" in made["stderr"]
    for name in ("tiny_parser", "tiny_parser_ensemble", "tiny_lm"):
        target = models / name
        card = json.loads((target / "card.json").read_text(encoding="utf-8"))
        assert problems(card) == [], name
        assert card["name"] == name and card["treebank"] == "en_tiny" and card["language"] == "en"
        assert card["recipe"] == "recipe.toml" and (target / "recipe.toml").is_file()
        assert card["cpu_minutes"] > 0 and not (target / "old.txt").exists()
        assert card["speed"]["sentences_per_second"] > 0
        for path in target.rglob("*.json"):
            assert not ABSOLUTE_PATH.search(path.read_text(encoding="utf-8")), path
    assert "Remake:" in (models / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_parser_is_scored_from_gold_tokens_on_the_measures_it_predicts(made):
    card = json.loads((made["models"] / "tiny_parser" / "card.json").read_text(encoding="utf-8"))
    assert set(card["test"]["tokens"]) == {"UAS", "LAS"} and set(card["dev"]["tokens"]) == {"UAS", "LAS"}
    las = card["test"]["tokens"]["LAS"]
    uas = card["test"]["tokens"]["UAS"]
    assert card["figures"] == f"en_tiny test LAS {las:.2f}, UAS {uas:.2f} from gold tokens with gold tags"


@pytest.mark.slow
def test_the_ensemble_reads_the_member_shipped_beside_it_and_parses_from_there(made):
    import lstmparse
    from lstmparse.io.formats import read_sentences

    models = made["models"]
    config = json.loads((models / "tiny_parser_ensemble" / "config.json").read_text(encoding="utf-8"))
    assert config["members"][0] == "../tiny_parser" and (models / "tiny_parser_ensemble" / "seed2").is_dir()
    card = json.loads((models / "tiny_parser_ensemble" / "card.json").read_text(encoding="utf-8"))
    assert card["seed"] == [1, 2] and set(card["epochs"]) == {"../tiny_parser", "seed2"}
    parser = lstmparse.load(models / "tiny_parser_ensemble")
    gold = list(read_sentences(str(made["test"])))
    assert len(list(parser.parse(gold))) == len(gold)


@pytest.mark.slow
def test_a_tree_language_model_is_scored_by_the_perplexity_of_the_gold_trees(made):
    card = json.loads((made["models"] / "tiny_lm" / "card.json").read_text(encoding="utf-8"))
    perplexity = card["test"]["trees"]["Perplexity"]
    assert perplexity > 1 and card["figures"] == f"en_tiny test perplexity {perplexity:.2f} of the gold trees"


@pytest.mark.slow
def test_making_again_trains_nothing_and_ships_the_same_files(made):
    models = made["models"]
    before = (models / "tiny_parser" / "config.json").read_bytes()
    params = json.loads(before)["params_file"]
    weights = (models / "tiny_parser" / params).read_bytes()
    result = release("make", "tiny_parser", *made["arguments"])
    assert result.returncode == 0, result.stderr
    assert "making tiny_parser" not in result.stderr
    assert (models / "tiny_parser" / params).read_bytes() == weights


def test_a_pipeline_or_an_unknown_name_is_one_line_saying_what_makes_it(tmp_path):
    models = tmp_path / "models"
    (models / "xx_pipeline").mkdir(parents=True)
    (models / "xx_pipeline" / "recipe.toml").write_text('[model]\nname = "xx_pipeline"\narch = "pipeline"\n')
    arguments = ["--work-dir", tmp_path / "work", "--models-dir", models, "--data", tmp_path]
    assert_one_error_line(release("make", "xx_pipeline", *arguments), "lstmparse farm", "release ship")
    assert_one_error_line(release("make", "nothing", *arguments), "nothing", "xx_pipeline")


def test_a_recipe_whose_treebank_is_not_in_the_data_is_one_line_naming_both(tmp_path):
    models = tmp_path / "models"
    (models / "tiny_parser").mkdir(parents=True)
    (models / "tiny_parser" / "recipe.toml").write_text(PARSER)
    arguments = ["--work-dir", tmp_path / "work", "--models-dir", models, "--data", tmp_path]
    assert_one_error_line(release("make", "tiny_parser", *arguments), "en_tiny", str(tmp_path))


def test_every_shipped_model_but_the_pipelines_can_be_made_from_the_shared_data():
    from lstmparse.app.recipes import data_folder, read_recipe
    from lstmparse.app.release.making import model_recipe, reused_models

    models = ROOT / "models"
    names = sorted(path.parent.name for path in models.glob("*/recipe.toml"))
    made = [name for name in names if read_recipe(models / name / "recipe.toml").arch != "pipeline"]  # farm-made
    assert made == [
        "en_ewt", "en_ewt_ldtreelstm", "en_ewt_upos", "en_ewt_wp", "en_gum_seq2seq", "en_gum_seq2seq_ensemble"
    ]  # fmt: skip
    for name in made:
        recipe = model_recipe(models, name)
        assert (ROOT.parent / "shared" / "data" / data_folder(recipe)).is_dir(), name
    assert reused_models(model_recipe(models, "en_gum_seq2seq_ensemble")) == ["en_gum_seq2seq"]


def test_an_ensemble_that_reuses_itself_is_one_line(tmp_path):
    models = tmp_path / "models"
    (models / "loop").mkdir(parents=True)
    (models / "loop" / "recipe.toml").write_text(
        '[model]\nname = "loop"\narch = "ensemble"\ntreebank = "en_tiny"\n[ensemble]\nrecipe = "recipe.toml"\n'
        'models = ["../loop"]\nseeds = [2]\n'
    )
    arguments = ["--work-dir", tmp_path / "work", "--models-dir", models, "--data", tmp_path]
    assert_one_error_line(release("make", "loop", *arguments), "reuses itself")
