"""Recipes of trainings in stages, with checkpoint averaging, and of ensembles (the constituency models' recipes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MEMBER = """[model]
name = "tiny_s2s"
arch = "seq2seq"
seed = 3

[train]
language = "en"
epochs = 2
layers = 1
hidden = 24
half_precision = true

[[stages]]
epochs = 4
learning_rate = 0.0005
average_best = 2
"""

ENSEMBLE = """[model]
name = "tiny_s2s_ensemble"
arch = "ensemble"

[ensemble]
recipe = "member.toml"
models = ["../member"]
seeds = [4]
"""


def lstmparse(*args: object, stdin: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "cli.py"), *map(str, args)]
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=ROOT, env=environment)


@pytest.fixture(scope="module")
def recipes(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("recipes")
    (folder / "member.toml").write_text(MEMBER, encoding="utf-8")
    (folder / "ensemble.toml").write_text(ENSEMBLE, encoding="utf-8")
    return folder


@pytest.mark.slow
def test_a_recipe_in_stages_continues_from_the_best_epoch_and_averages_the_best_ones(small_gum, recipes, tmp_path):
    treebank = small_gum[0].parent  # train.ptb and dev.ptb: a constituency treebank's folder
    model = tmp_path / "member"
    result = lstmparse("train", "--recipe", recipes / "member.toml", "--treebank", treebank, "--model-dir", model)
    assert result.returncode == 0, result.stderr
    assert "stage 2 of 2" in result.stderr and "learning rate 0.0005 (was 0.002)" in result.stderr
    record = json.loads((model / "config.json").read_text())["training"]
    first_stage_best = record["learning_rate_changes"][0]["after_epoch"]
    assert first_stage_best <= 2 and record["learning_rate"] == 0.0005  # stage 2 went on from stage 1's best epoch
    assert [entry["epoch"] for entry in record["epochs"]] == list(range(1, 5))
    kept = {entry["epoch"]: entry["score"] for entry in record["epochs"] if entry["epoch"] > first_stage_best}
    best_two = sorted(sorted(kept, key=lambda epoch: (-kept[epoch], epoch))[:2])
    assert record["averaged_epochs"] == best_two
    card = json.loads((model / "card.json").read_text())
    assert card["language"] == "en" and card["recipe"]["stages"] == [
        {"epochs": 4, "learning_rate": 0.0005, "average_best": 2}
    ]
    assert any("mean of epochs" in note for note in card["notes"])

    ensemble = tmp_path / "ensemble"
    result = lstmparse("train", "--recipe", recipes / "ensemble.toml", "--treebank", treebank, "--model-dir", ensemble)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((ensemble / "config.json").read_text())
    assert manifest == {"arch": "seq2seq_ensemble", "members": ["../member", "seed4"]}
    card = json.loads((ensemble / "card.json").read_text())
    assert card["seeds"] == [3, 4] and card["recipe"]["members"] == "tiny_s2s" and card["language"] == "en"
    parsed = lstmparse("parse", "--model", ensemble, "--input-format", "text", stdin="A dog barks .\n")
    assert parsed.returncode == 0 and parsed.stdout.startswith("(ROOT"), parsed.stderr
    member_files = sorted(path.stat().st_mtime_ns for path in (ensemble / "seed4").iterdir() if path.is_file())
    again = lstmparse("train", "--recipe", recipes / "ensemble.toml", "--treebank", treebank, "--model-dir", ensemble)
    assert again.returncode == 0, again.stderr  # an ensemble made again keeps the members it has
    assert sorted(path.stat().st_mtime_ns for path in (ensemble / "seed4").iterdir() if path.is_file()) == member_files


def test_an_ensemble_of_a_model_its_recipe_did_not_make_is_one_line_saying_how_to_make_it(recipes, tmp_path):
    from conftest import assert_one_error_line

    (tmp_path / "member").mkdir()
    (tmp_path / "member" / "card.json").write_text('{"recipe": {"name": "another"}}')
    args = ("--recipe", recipes / "ensemble.toml", "--train", ROOT / "data" / "sample.trees.ptb", "--model-dir")
    result = lstmparse("train", *args, tmp_path / "ensemble")
    assert_one_error_line(result, "not a model made by the recipe", "lstmparse train --recipe")
    foreign = lstmparse("train", *args, tmp_path / "ensemble", "--epochs", "3")
    assert_one_error_line(foreign, "--epochs: an ensemble's recipe takes the data")
