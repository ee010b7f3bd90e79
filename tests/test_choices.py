"""The choices made on dev after training: tried on the pipeline as it ships, stored in one block, applied on load."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil

import pytest
from conftest import DATA, ROOT, first_sentences, run_cli

from lstmparse.io.formats import read_sentences

SHIPPED = ROOT / "models" / "ta_ttb_pipeline"  # small and fast
DEV = DATA / "ud" / "ta_ttb" / "dev.conllu"


@pytest.fixture(scope="module")
def refitted(tmp_path_factory):
    """A copy of the Tamil pipeline with every choice made again on its dev set."""
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.pipeline.choices import choose_on_dev

    model = tmp_path_factory.mktemp("choices") / "ta"
    shutil.copytree(SHIPPED, model)
    log = io.StringIO()
    chosen = choose_on_dev(Pipeline.load(model), model, str(DEV), log=log)
    return model, chosen, log.getvalue()


def test_every_choice_that_applies_is_made_and_stored_in_one_block(refitted):
    model, chosen, log = refitted
    import lstmparse
    from lstmparse.pipeline.choices import CHOICES

    pipeline = lstmparse.load(model)
    assert list(chosen) == [choice.name for choice in CHOICES if choice.applies(pipeline)]
    assert {"multiword_lookup", "known_lemma_weight", "lemma_casing_weight", "beam"} <= set(chosen)
    assert set(chosen["multiword_lookup"]["dev_Words"]) == {"0", "1"}
    manifest = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert manifest["choices"] == chosen and manifest["decoding"] == {"beam": chosen["beam"]["value"]}
    assert all(f"{name} on dev" in log for name in chosen)


def test_a_stored_choice_is_applied_on_load_and_gives_its_dev_figure(refitted):
    """The known-lemma weight's dev Lemmas, recorded while choosing, come back from the loaded pipeline."""
    import lstmparse
    from lstmparse.pipeline.choices import BY_NAME, dev_figure, first_tagger

    model, chosen, _ = refitted
    pipeline = lstmparse.load(model)
    weight = chosen["known_lemma_weight"]["value"]
    assert first_tagger(pipeline).known_lemma_weight == weight
    assert pipeline.parser.beam == chosen["beam"]["value"]
    assert pipeline.tokenizer.labeller.splitter.use_lookup == bool(chosen["multiword_lookup"]["value"])
    gold = list(read_sentences(str(DEV)))
    figure = dev_figure(BY_NAME["lemma_casing_weight"], pipeline, gold)  # both weights as chosen
    assert figure == chosen["lemma_casing_weight"]["dev_Lemmas"][f"{chosen['lemma_casing_weight']['value']:g}"]


def test_the_neutral_value_stays_unless_another_gains_the_margin(monkeypatch):
    import lstmparse.pipeline.choices as choices

    class Stub:
        """A pipeline whose dev figure is read from a table by the value set."""

        parser = tagger = None
        value = 0.0

    figures = {0.0: 90.0, 1.0: 90.05, 2.0: 89.0, 3.0: 90.08, 4.0: 80.0, 5.0: 80.0, 6.0: 80.0}
    choice = dataclasses.replace(
        choices.BY_NAME["known_lemma_weight"], set=lambda pipeline, value: setattr(pipeline, "value", value)
    )
    monkeypatch.setattr(choices, "dev_figure", lambda choice, pipeline, gold: figures[pipeline.value])
    stub = Stub()
    assert choices.choose(choice, stub, [])["value"] == 0.0  # +0.08 at best: under the 0.1 margin
    figures[2.0] = 90.2
    assert choices.choose(choice, stub, [])["value"] == 2.0 and stub.value == 2.0


def test_unknown_choices_in_a_block_are_left_alone(refitted):
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.pipeline.choices import apply_choices

    pipeline = Pipeline.load(refitted[0])
    beam = pipeline.parser.beam
    apply_choices(pipeline, {"a_choice_of_a_later_version": {"value": 3}})
    assert pipeline.parser.beam == beam


def test_refit_names_what_it_cannot_do_in_one_line(tmp_path):
    from conftest import assert_one_error_line

    assert_one_error_line(run_cli("refit", SHIPPED, "--dev", DEV, "--only", "beams"), "--only beams", "not a choice")
    assert_one_error_line(run_cli("refit", SHIPPED), "--treebank DIR or --dev FILE")


def test_a_choice_narrowed_by_the_recipe_tries_only_those_values_and_refit_narrows_it_again(tmp_path):
    """The training record keeps the recipe's [choices] (here beam = [1]): refit reads them from the manifest."""
    from lstmparse.errors import ConfigurationError
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.pipeline.choices import choose_on_dev

    model = tmp_path / "ta"
    shutil.copytree(SHIPPED, model)
    manifest = json.loads((model / "config.json").read_text(encoding="utf-8"))
    manifest["training"]["choice_grids"] = {"beam": [1.0]}
    (model / "config.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = run_cli("refit", model, "--dev", DEV, "--only", "beam")
    assert result.returncode == 0, result.stderr
    chosen = json.loads((model / "config.json").read_text(encoding="utf-8"))["choices"]["beam"]
    assert chosen["value"] == 1 and list(chosen["dev_LAS"]) == ["1"]
    wider = choose_on_dev(
        Pipeline.load(model), model, str(DEV), ["known_lemma_weight"], grids={"known_lemma_weight": [2, 0]}
    )
    assert list(wider["known_lemma_weight"]["dev_Lemmas"]) == ["0", "2"]  # in the choice's own order
    with pytest.raises(ConfigurationError, match="beam: 8 is not one of its values 1, 2, 4"):
        choose_on_dev(Pipeline.load(model), model, str(DEV), ["beam"], grids={"beam": [8]})


@pytest.mark.slow
def test_an_ensembles_members_are_chosen_on_dev_and_applied_on_load(tmp_path):
    """Two taggers and a joint-UPOS parser trained by a recipe: the choice keeps as many as dev says."""
    import lstmparse
    from lstmparse.pipeline.choices import loaded_members

    for split, count in (("train", 60), ("dev", 20)):
        (tmp_path / f"{split}.conllu").write_text(first_sentences(DATA / "ud" / "ta_ttb" / f"{split}.conllu", count))
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(
        '[model]\nname = "t"\narch = "pipeline"\n[train]\nepochs = 1\njackknife = 2\ntaggers = 2\n'
        "joint_member = true\ncores = 2\n"
    )
    model = tmp_path / "m"
    result = run_cli(
        "train", "--recipe", recipe, "--train", tmp_path / "train.conllu", "--dev", tmp_path / "dev.conllu",
        "--model-dir", model,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    chosen = json.loads((model / "config.json").read_text(encoding="utf-8"))["choices"]
    assert set(chosen["taggers"]["dev_AllTags"]) == {"1", "2"} and set(chosen["parsers"]["dev_LAS"]) == {"1", "2"}
    pipeline = lstmparse.load(model)
    taggers = getattr(pipeline.tagger.model, "members", [pipeline.tagger.model])
    parsers = getattr(pipeline.parser.model, "members", [pipeline.parser.model])
    assert (len(taggers), len(parsers)) == (chosen["taggers"]["value"], chosen["parsers"]["value"])
    assert len(loaded_members(pipeline, "tagger")) == 2 and len(loaded_members(pipeline, "parser")) == 2


def test_a_pipeline_keeps_only_the_members_its_choices_use_and_parses_as_before(tmp_path):
    """Hungarian's three taggers and two parsers, its block set to two taggers and one parser: the members left out
    go (the parser part names its one member), and the pipeline parses as it did with every member stored."""
    import lstmparse
    from lstmparse.app.accuracy import run_model
    from lstmparse.pipeline.choices import keep_chosen_members, loaded_members

    model = tmp_path / "hu"
    shutil.copytree(ROOT / "models" / "hu_szeged_pipeline", model)
    manifest = json.loads((model / "config.json").read_text(encoding="utf-8"))
    manifest["choices"]["taggers"]["value"], manifest["choices"]["parsers"]["value"] = 2, 1
    (model / "config.json").write_text(json.dumps(manifest), encoding="utf-8")
    gold = list(read_sentences(str(DATA / "ud" / "hu_szeged" / "dev.conllu")))[:12]
    before = [s.to_conllu() for s in run_model(lstmparse.load(model), gold, "raw").sentences]

    removed = keep_chosen_members(model)

    assert removed == ["parser_ensemble", "parser_joint", "tagger_3"]
    assert not any((model / name).exists() for name in removed)
    assert json.loads((model / "config.json").read_text(encoding="utf-8"))["parts"]["parser"] == "parser"
    pipeline = lstmparse.load(model)
    assert len(loaded_members(pipeline, "tagger")) == 2 and len(loaded_members(pipeline, "parser")) == 1
    assert [s.to_conllu() for s in run_model(pipeline, gold, "raw").sentences] == before
    assert keep_chosen_members(model) == []  # what it keeps is what the block chose: nothing more to leave out
