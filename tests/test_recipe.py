"""The pipeline recipe: a treebank folder's files, settings chosen from its data, the budget's cut, the card."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, ROOT, first_sentences, run_cli

from lstmparse.app.recipes import default_recipe, read_recipe
from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import read_sentences
from lstmparse.pipeline.recipe import (
    BUDGET_SHARES,
    TreebankFacts,
    choose_settings,
    held_out_dev,
    licence_name,
    part_budgets,
    treebank_facts,
    treebank_folder,
)

UD = DATA / "ud"


def facts(**changes) -> TreebankFacts:
    values = {
        "sentences": 100,
        "words": 1000,
        "upos_share": 1.0,
        "feats_share": 0.0,
        "lemma_share": 1.0,
        "multiword_tokens": 0,
        "nonprojective_trees": 0,
    }
    return TreebankFacts(**(values | changes))


def test_settings_follow_the_data_and_what_is_given_is_kept():
    plain = choose_settings(facts(), {})
    assert (plain.features, plain.system) == ("words,pos,chars", "arc-standard")
    rich = choose_settings(facts(feats_share=0.7, nonprojective_trees=3), {})
    assert (rich.features, rich.system) == ("words,pos,feats,chars", "arc-swap")
    assert "3 of 100 training trees are non-projective" in rich.reasons[1]
    joint = choose_settings(facts(feats_share=0.7), {}, joint_upos=True)
    assert joint.features == "words,chars" and "--joint-upos" in joint.reasons[0]
    untagged = choose_settings(facts(upos_share=0.0), {"system": "arc-hybrid"})
    assert (untagged.features, untagged.system) == ("words,chars", "arc-hybrid")
    assert untagged.reasons[1] == "system arc-hybrid: given"


def test_facts_are_read_off_real_treebanks():
    maltese = treebank_facts(UD / "mt_mudt" / "train.conllu")
    assert maltese.feats_share == 0.0 and maltese.lemma_share == 0.0 and maltese.sentences == 1123
    french = treebank_facts(UD / "fr_sequoia" / "train.conllu")
    assert french.multiword_tokens > 1000 and french.nonprojective_trees == 59 and french.feats_share > 0.5


def test_the_budget_is_cut_into_the_parts_and_adds_up_to_the_whole():
    budgets = part_budgets(60, folds=4)
    assert sum(BUDGET_SHARES.values()) == pytest.approx(1.0)
    whole = budgets["tokenizer"] + budgets["tagger"] + 4 * budgets["fold"] + budgets["parser"]
    assert whole == pytest.approx(60) and budgets["parser"] == pytest.approx(33)
    assert set(part_budgets(None, 4).values()) == {None}
    three = part_budgets(60, folds=4, taggers=3)  # each member takes the tagger's share; all still add up to 60
    whole = three["tokenizer"] + 3 * three["tagger"] + 4 * three["fold"] + three["parser"]
    assert whole == pytest.approx(60) and three["tagger"] == pytest.approx(three["tokenizer"] * 1.5)
    no_folds = part_budgets(60, folds=0)  # a parser reading no tags: the folds' share goes to the others
    assert no_folds["fold"] is None and no_folds["parser"] == pytest.approx(60 / 0.8 * 0.55)
    on_two = part_budgets(60, folds=0, cores=2)  # no part longer than the wall time: it runs on one core
    assert on_two["parser"] == 60 and on_two["tagger"] == pytest.approx(120 / 0.8 * 0.15)


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("hu_szeged", "CC BY-NC-SA 3.0 (non-commercial use only)"),
        ("el_gdt", "CC BY-NC-SA 3.0 (non-commercial use only)"),
        ("ta_ttb", "CC BY-NC-SA 3.0 (non-commercial use only)"),
        ("fr_sequoia", "LGPL-LR"),
        ("cy_ccg", "CC BY-SA 4.0"),
        ("en_ewt", "CC BY-SA 4.0"),
        ("cop_scriptorium", "CC BY 4.0"),
    ],
)
def test_licences_are_named_and_non_commercial_ones_say_so(folder, expected):
    assert treebank_folder(UD / folder).licence == expected


def test_an_unknown_licence_points_to_its_file():
    assert licence_name("Do what you like.") == "see the treebank's LICENSE.txt"


def test_ud_release_names_and_languages_are_found(tmp_path):
    folder = tmp_path / "UD_French-Sequoia"
    folder.mkdir()
    (folder / "fr_sequoia-ud-train.conllu").write_text("", encoding="utf-8")
    (folder / "fr_sequoia-ud-dev.conllu").write_text("", encoding="utf-8")
    found = treebank_folder(folder)
    assert found.dev.name == "fr_sequoia-ud-dev.conllu" and found.test is None and found.language == "fr"
    with pytest.raises(ConfigurationError, match="no train.conllu nor"):
        treebank_folder(tmp_path)


def test_without_a_dev_file_every_tenth_sentence_is_held_out(tmp_path):
    source = tmp_path / "train.conllu"
    source.write_text(first_sentences(UD / "ta_ttb" / "train.conllu", 45), encoding="utf-8")
    train, dev = held_out_dev(source, tmp_path / "heldout")
    kept, held = list(read_sentences(str(train))), list(read_sentences(str(dev)))
    original = list(read_sentences(str(source)))
    assert len(kept) == 41 and len(held) == 4
    assert [s.lines for s in held] == [original[i].lines for i in (9, 19, 29, 39)]


@pytest.mark.slow
def test_one_command_trains_a_language_from_its_folder_and_writes_its_card(tmp_path):
    folder = tmp_path / "ta_small"
    folder.mkdir()
    (folder / "train.conllu").write_text(first_sentences(UD / "ta_ttb" / "train.conllu", 60), encoding="utf-8")
    (folder / "LICENSE.txt").write_text((UD / "ta_ttb" / "LICENSE.txt").read_text(encoding="utf-8"))
    model = tmp_path / "model"
    result = run_cli(
        "train", "--arch", "pipeline", "--treebank", folder, "--model-dir", model, "--epochs", "1",
        "--jackknife", "2", "--budget-minutes", "2", "--language", "ta", "--half-precision",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "has no dev file: every tenth training sentence was held out" in result.stderr
    card = json.loads((model / "card.json").read_text(encoding="utf-8"))
    assert card["language"] == "ta" and card["data"] == "ta_small" and "non-commercial" in card["licence"]
    assert any(
        choice.startswith("system arc-swap") or choice.startswith("system arc-standard") for choice in card["choices"]
    )
    assert "parser: dev LAS" in card["figures"] and card["training"]["command"].startswith("lstmparse train")
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    recipe = default_recipe().options  # three taggers and two parsers, 2 minutes of wall time on two cores
    budgets = part_budgets(2, 2, int(recipe["taggers"]), 2 if recipe["joint_member"] else 1, int(recipe["cores"]))
    assert config["training"]["budget_minutes"]["parser"] == pytest.approx(budgets["parser"], abs=0.01)
    listed = run_cli("models", env={"LSTMPARSE_MODELS": str(tmp_path)})
    assert "model" in listed.stdout and " ta " in listed.stdout, listed.stdout
    for part in ("tokenizer", "tagger", "parser"):  # --half-precision: every part stored as float16
        part_config = json.loads((model / part / "config.json").read_text(encoding="utf-8"))
        with np.load(model / part / part_config["params_file"]) as params:
            assert {params[name].dtype for name in params.files} == {np.dtype(np.float16)}
    assert any("float16" in note for note in card["notes"])
    text = (folder / "train.conllu").read_text(encoding="utf-8").split("# text = ")[1].split("\n")[0]
    parsed = run_cli("parse", "--model", model, "--input-format", "raw", stdin=text)
    assert parsed.returncode == 0 and "\t" in parsed.stdout, parsed.stderr


def test_treebank_and_train_together_is_one_usage_line(tmp_path):
    result = run_cli(
        "train", "--treebank", UD / "ta_ttb", "--train", UD / "ta_ttb" / "train.conllu", "--model-dir", tmp_path / "m"
    )
    assert result.returncode == 2 and "--treebank names the training and dev files itself" in result.stderr
    result = run_cli("train", "--model-dir", tmp_path / "m")
    assert result.returncode == 2 and "give --train FILE (and --dev FILE) or --treebank DIR" in result.stderr


def test_a_model_trained_on_a_treebanks_file_names_the_treebank_and_its_licence(tmp_path):
    """--train ud/ta_ttb/train.conllu (as the farm's jobs run) gives the card --treebank would; a file elsewhere
    names itself and no licence."""
    from lstmparse.app.catalog import training_card

    card = training_card("stacklstm", str(UD / "ta_ttb" / "train.conllu"), {"epochs": []})
    assert (card["language"], card["data"]) == ("ta", "ta_ttb") and "non-commercial" in card["licence"]
    loose = tmp_path / "train.conllu"
    loose.write_text(first_sentences(UD / "ta_ttb" / "train.conllu", 2), encoding="utf-8")
    card = training_card("stacklstm", str(loose), {"epochs": []})
    assert card["data"] == str(loose) and "licence" not in card


RECIPE = '[model]\nname = "x"\narch = "pipeline"\nseed = 2\n[train]\n'


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[model]\nname = "x"\n', "[model] arch: missing"),
        ('[model]\nname = "x"\narch = "pipeline"\ncolour = "red"\n', "[model] colour: unknown key"),
        ('[model]\nname = 3\narch = "pipeline"\n', "[model] name: a str was expected"),
        ('[modle]\nname = "x"\n', "unknown section 'modle'"),
        (RECIPE + "taggers = [1, 2]\n", "[train] taggers: an option's value is"),
        (RECIPE + "[stages]\nepochs = 3\n", "stages: a list of tables"),
        (RECIPE + "[[stages]]\nepochs = 3\n", "a pipeline's training cannot be continued in stages"),
        (RECIPE + "[ensemble]\nrecipe = 'r.toml'\n", 'only a recipe of arch = "ensemble"'),
        (RECIPE + "[choices]\nbeam = [1, 3]\n", "[choices] beam: 3 is not one of its values 1, 2, 4"),
        (RECIPE + "[choices]\nbeams = 1\n", "[choices] beams: not a choice; choices: multiword_lookup"),
        (RECIPE + "[choices]\nbeam = 'one'\n", "[choices] beam: a number or a list of numbers"),
        (RECIPE + "[choices]\nbeam = []\n", "[choices] beam: a number or a list of numbers"),
        ('[model]\nname = "t"\narch = "tagger"\n[choices]\nbeam = 1\n', "[choices]: only a pipeline's recipe"),
        ('[model]\nname = "e"\narch = "ensemble"\n', "[ensemble] recipe: missing"),
        ('[model]\nname = "e"\narch = "ensemble"\n[ensemble]\nrecipe = "r.toml"\nseeds = [2]\n', "two or more"),
        ('[model]\nname = "e"\narch = "ensemble"\n[ensemble]\nrecipe = "r.toml"\nseeds = [2, 2]\n', "distinct"),
        ('[model]\nname = "e"\narch = "ensemble"\n[ensemble]\nrecipe = "r"\nseed = [2, 3]\n', "seed: unknown"),
        (
            '[model]\nname = "e"\narch = "ensemble"\n[train]\nepochs = 2\n[ensemble]\nrecipe = "r"\nseeds = [2, 3]\n',
            "[model] and [ensemble] only",
        ),
        ("name = ", "not TOML"),
    ],
)
def test_a_file_that_is_not_a_recipe_is_one_error_naming_the_file_and_key(tmp_path, text, fragment):
    from lstmparse.app.recipes import read_recipe

    path = tmp_path / "r.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=re.escape(fragment)) as error:
        read_recipe(path)
    assert str(error.value).startswith(str(path))


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ("taggerz = 3\n", "[train] taggerz: not an option of lstmparse train --arch pipeline"),
        ('taggers = "three"\n', "[train] taggers: 'three' is not a valid integer range"),
        ("lemma_feats = 2\n", "[train] lemma_feats: not an option of lstmparse train --arch pipeline"),  # tagger's
        ('model_dir = "m"\n', "[train] model_dir: not an option"),  # the command line's, not the recipe's
        ("[tagger]\nsystem = 'arc-swap'\n", "[tagger] system: not an option of lstmparse train --arch tagger"),
        ("[tokenizer]\nhidden = 'wide'\n", "[tokenizer] hidden: 'wide' is not a valid integer range"),
    ],
)
def test_a_recipe_option_train_does_not_take_is_one_line_naming_the_file_and_key(tmp_path, options, fragment):
    from conftest import assert_one_error_line

    path = tmp_path / "r.toml"
    path.write_text(RECIPE + options, encoding="utf-8")
    result = run_cli("train", "--recipe", path, "--treebank", UD / "ta_ttb", "--model-dir", tmp_path / "m")
    assert_one_error_line(result, str(path), fragment)
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("beam=3", "--choice beam: 3 is not one of its values 1, 2, 4"),
        ("beam", "--choice beam: NAME=VALUE,VALUE..."),
        ("beam=wide", "--choice beam=wide: NAME=VALUE,VALUE..."),
        ("beams=1", "--choice beams: not a choice"),
    ],
)
def test_a_choice_narrowed_on_the_command_line_is_checked_in_one_line(tmp_path, value, fragment):
    from conftest import assert_one_error_line

    arguments = ("--arch", "pipeline", "--treebank", UD / "ta_ttb", "--model-dir", tmp_path / "m", "--choice", value)
    assert_one_error_line(run_cli("train", *arguments), fragment)
    assert not (tmp_path / "m").exists()


def test_the_default_recipe_names_only_options_of_a_pipeline():
    """Every key of the default recipe is an option of train --arch pipeline, as the command line reads them."""
    from lstmparse.cli.family_options import FamilyOption
    from lstmparse.cli.train import train

    recipe = default_recipe()
    assert recipe.arch == "pipeline"
    options = {param.name: param for param in train.params if isinstance(param, FamilyOption)}
    for key, value in recipe.options.items():
        assert "pipeline" in options[key].families, key
        assert options[key].type_cast_value(None, value) == value


@pytest.mark.parametrize("path", sorted((ROOT / "models").glob("*/recipe.toml")), ids=lambda path: path.parent.name)
def test_a_shipped_models_recipe_names_it_its_treebank_and_only_options_of_its_arch(path):
    """What the remake plan reads: each recipe makes the model of its folder from a shared treebank."""
    from lstmparse.app.recipes import data_folder
    from lstmparse.cli.train import train
    from lstmparse.cli.train_setup import recipe_option

    recipe = read_recipe(path)
    assert recipe.name == path.parent.name and (DATA / data_folder(recipe)).is_dir()
    tables = [("train", recipe.arch, recipe.options), *[(p, p, t) for p, t in recipe.parts.items()]]
    tables += [("stages", recipe.arch, stage) for stage in recipe.stages]
    for section, arch, table in tables:
        for key, value in table.items():
            option = recipe_option(train.params, arch, key)
            assert option is not None, f"[{section}] {key}"
            assert option.type_cast_value(None, value) == value
    if recipe.ensemble is not None:  # its members' recipe is a shipped one, and the models it names are its
        assert recipe.ensemble.recipe.resolve().parent.parent == ROOT / "models"
        member = read_recipe(recipe.ensemble.recipe)
        assert all((path.parent / model).resolve().name == member.name for model in recipe.ensemble.models)


def test_every_shipped_pipeline_has_a_recipe_and_the_remake_plan_names_each():
    from lstmparse.app.farm.plan_file import read_plan

    pipelines = {path.parent.name for path in (ROOT / "models").glob("*/config.json") if "pipeline" in path.parent.name}
    assert pipelines and all((ROOT / "models" / name / "recipe.toml").is_file() for name in pipelines)
    plan = read_plan(ROOT / "models" / "remake.toml")
    remade = {
        read_recipe(setting.recipe.replace("{treebank}", treebank)).name
        for setting in plan.settings
        if setting.recipe
        for treebank in plan.treebanks
        if setting.trains(treebank)
    }
    to_make = {
        path.parent.name
        for path in (ROOT / "models").glob("*/recipe.toml")
        if not (path.parent / "config.json").is_file()
    }
    assert remade == pipelines | to_make  # a recipe alone in its folder: a model the plan makes and has yet to ship


def test_a_plan_naming_recipes_makes_each_treebank_the_jobs_of_its_own_recipe(tmp_path):
    """{treebank} in a setting's recipe is each treebank's; the jobs are those of the recipe's options."""
    from lstmparse.app.farm.plan import TreebankFiles, plan_jobs
    from lstmparse.app.farm.plan_file import plan_from_dict

    for name, taggers in (("ta_ttb", 2), ("wo_wtb", 1)):
        (tmp_path / f"{name}.toml").write_text(
            RECIPE + f"max_minutes = 12\ntaggers = {taggers}\njoint_member = true\n[tagger]\nhidden = 40\n"
            "factored_feats = false\n[choices]\nbeam = 1\n"
        )
    data = {
        "seeds": [1],
        "treebanks": {name: {"path": str(UD / name)} for name in ("ta_ttb", "wo_wtb")},
        "settings": [{"name": "recipe", "recipe": "{treebank}.toml"}],
    }
    plan = plan_from_dict(data, tmp_path / "plan.toml")
    files = {
        name: TreebankFiles(str(UD / name / "train.conllu"), str(UD / name / "dev.conllu"), None)
        for name in data["treebanks"]
    }
    jobs = {job.id: job for job in plan_jobs(plan, files, tmp_path / "w")}
    assert "ta_ttb/recipe/s1/tagger-2" in jobs and "wo_wtb/recipe/s1/tagger-2" not in jobs
    assert {"ta_ttb/recipe/s1/parser-joint", "wo_wtb/recipe/s1/parser-joint"} <= set(jobs)
    step = jobs["ta_ttb/recipe/s1/pipeline"].commands[0][1]
    assert step[step.index("--max-minutes") + 1] == "12" and "--joint-member" in step
    assert step[step.index("--choice") + 1] == "beam=1"  # the pipeline step makes the choices, narrowed
    parts = [job.commands[0][1] for job in jobs.values() if job.commands and job.step != "pipeline"]
    assert parts and all("--choice" not in command for command in parts)
    assert step[-2:] == ("--recipe", "none")  # the pipeline step alone, its parts reused
    assert "tagger.hidden=40" in step and "tagger.factored_feats=false" in step  # its own fold taggers, if any
    tagger = jobs["ta_ttb/recipe/s1/tagger-2"].commands[0][1]
    assert tagger[tagger.index("--hidden") + 1] == "40" and "--whole-feats" in tagger
    # an interrupted parser continues from its checkpoint; a tagger or tokenizer starts again
    assert jobs["ta_ttb/recipe/s1/parser-joint"].resumable and jobs["ta_ttb/recipe/s1/pipeline"].resumable
    assert not jobs["ta_ttb/recipe/s1/tagger-2"].resumable and not jobs["ta_ttb/recipe/s1/tokenizer"].resumable


def test_a_recipe_settings_own_budget_wins_over_its_recipes_and_the_plans_does_not(tmp_path):
    """A budget table runs one recipe at several budgets: a setting's budget_minutes is that setting's."""
    from lstmparse.app.farm.plan_file import plan_from_dict

    (tmp_path / "r.toml").write_text(RECIPE + 'max_minutes = 60\nencoder = "e5:3-6"\n')
    data = {
        "seeds": [1],
        "budget_minutes": 45,
        "treebanks": {"ta_ttb": {"path": str(UD / "ta_ttb")}},
        "settings": [
            {"name": "recipe", "recipe": "r.toml"},
            {"name": "thirty", "recipe": "r.toml", "budget_minutes": 30, "options": {"encoder": ""}},
        ],
    }
    recipe, thirty = plan_from_dict(data, tmp_path / "plan.toml").settings
    assert recipe.for_treebank("ta_ttb").budget_minutes == 60.0  # the recipe's, not the plan's default
    assert thirty.for_treebank("ta_ttb").budget_minutes == 30.0
    assert recipe.for_treebank("ta_ttb").options["encoder"] == "e5:3-6"
    assert "encoder" not in thirty.for_treebank("ta_ttb").options  # "": the recipe without it
    (tmp_path / "r.toml").write_text(RECIPE.replace("pipeline", "stacklstm") + "epochs = 2\n[[stages]]\nepochs = 3\n")
    with pytest.raises(ConfigurationError, match="stages is made by lstmparse train --recipe"):
        recipe.for_treebank("ta_ttb")


def test_the_farm_trains_the_joint_member_as_the_pipeline_step_would():
    """The joint-UPOS parser trained as a part has the options the pipeline step would train it with."""
    from lstmparse.app.farm.plan import joint_parser_arguments
    from lstmparse.pipeline.options import PipelineOptions
    from lstmparse.pipeline.recipe import choose_settings, treebank_facts
    from lstmparse.pipeline.training import joint_parser_options
    from lstmparse.stacklstm.options import StackLSTMOptions

    train = str(UD / "ta_ttb" / "train.conllu")
    farm = joint_parser_arguments({"encoder": "e5:6-9", "epochs": 3}, train)
    system = choose_settings(treebank_facts(train), {}).system
    pipeline = PipelineOptions(train=train, model_dir="m", encoder="e5:6-9", joint_member=True)
    step = joint_parser_options(StackLSTMOptions(train=train, model_dir="", system=system), pipeline)
    assert farm["features"] == ",".join(step.features) and farm["system"] == step.system
    assert (farm["context_layers"], farm["joint_upos"]) == (step.dims.context_layers, step.dims.joint_upos)
    assert farm["encoder"] == step.dims.encoder


@pytest.mark.slow
def test_the_same_recipe_seed_data_and_epochs_make_the_same_model_files_byte_for_byte(tmp_path):
    """A remake is repeatable: with the epochs each part of a model ran (``--epochs-of``, from its card), whatever
    the budget and epochs asked, the parameters and vocabularies are the same bytes (the configs differ only in
    their timings), and so are the choices made on dev."""
    from lstmparse.app.release.cards import epochs_reached

    train = tmp_path / "train.conllu"
    train.write_text(first_sentences(UD / "ta_ttb" / "train.conllu", 60), encoding="utf-8")
    dev = tmp_path / "dev.conllu"
    dev.write_text(first_sentences(UD / "ta_ttb" / "dev.conllu", 20), encoding="utf-8")
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        RECIPE + "epochs = 1\njackknife = 2\ntaggers = 2\njoint_member = true\ncores = 2\nhalf_precision = true\n",
        encoding="utf-8",
    )
    first = tmp_path / "a"
    result = run_cli("train", "--recipe", recipe, "--train", train, "--dev", dev, "--model-dir", first)
    assert result.returncode == 0, result.stderr
    card = json.loads((first / "card.json").read_text(encoding="utf-8"))
    card["epochs"] = epochs_reached(first)  # what lstmparse release ship records
    (first / "card.json").write_text(json.dumps(card), encoding="utf-8")
    assert card["epochs"]["jackknife/fold-2"] == card["epochs"]["parser"] == 1 and len(card["epochs"]) == 7
    second = tmp_path / "b"
    again = ("--epochs", "3", "--max-minutes", "5", "--epochs-of", first)  # the card's epochs win
    result = run_cli("train", "--recipe", recipe, "--train", train, "--dev", dev, "--model-dir", second, *again)
    assert result.returncode == 0, result.stderr
    made = [
        {p.relative_to(m): p.read_bytes() for p in m.rglob("*") if p.suffix in (".npz", ".json")}
        for m in (first, second)
    ]
    weights = [path for path in made[0] if path.suffix == ".npz" or path.name.startswith("vocab")]
    assert len(weights) >= 10 and all(made[0][path] == made[1][path] for path in weights)
    manifests = [json.loads(m[Path("config.json")]) for m in made]
    assert manifests[0]["choices"] == manifests[1]["choices"]


def test_epochs_of_gives_each_part_its_epochs_and_no_budget_and_a_missing_part_is_one_line():
    from lstmparse.app.farm.plan import Setting, TreebankFiles, part_step, pipeline_jobs

    assert [part_step(d) for d in ("tagger", "tagger_3", "jackknife/fold-2", "parser", "parser_joint", "x")] == [
        "tagger",
        "tagger-3",
        "fold-2",
        "pipeline",
        "parser-joint",
        None,
    ]
    files = TreebankFiles(str(UD / "ta_ttb" / "train.conllu"), str(UD / "ta_ttb" / "dev.conllu"), None)
    epochs = {"tagger": 5, "tagger-2": 6, "tokenizer": 7, "fold-1": 8, "fold-2": 9, "pipeline": 10}
    options = {"taggers": 2, "jackknife": 2, "epochs": 200, "part_epochs": epochs}
    jobs = pipeline_jobs(
        "p", {"treebank": "t", "setting": "s", "seed": 1}, Setting("s", "pipeline", options, 60, ()), files, "/m"
    )
    for job in jobs:
        for _, command in job.commands:
            assert "--max-minutes" not in command
            assert command[command.index("--epochs") + 1] == str(epochs[job.step])
    with pytest.raises(ConfigurationError, match="gives no epochs for fold-2, tagger-2"):
        missing = {key: value for key, value in epochs.items() if key not in ("fold-2", "tagger-2")}
        pipeline_jobs(
            "p",
            {"treebank": "t", "setting": "s", "seed": 1},
            Setting("s", "pipeline", options | {"part_epochs": missing}, 60, ()),
            files,
            "/m",
        )


def test_an_encoder_is_not_read_where_most_of_the_training_words_pieces_are_unknown_to_it():
    """Coptic's script is not in the e5 vocabulary (70 % of its pieces unknown): its pipeline reads no encoder, in
    the farm's part jobs as in the pipeline step; Tamil's is, and reads it."""
    from lstmparse.app.farm.plan import Setting, TreebankFiles, pipeline_jobs
    from lstmparse.pipeline.recipe import encoder_for

    coptic, tamil = (UD / name / "train.conllu" for name in ("cop_scriptorium", "ta_ttb"))
    spec, why = encoder_for("e5:3-6", coptic)
    assert spec is None and "70% of the training words' pieces are unknown to it" in str(why)
    assert encoder_for("e5:3-6", tamil) == ("e5:3-6", None) and encoder_for(None, tamil) == (None, None)
    options = {"encoder": "e5:3-6", "joint_member": True, "jackknife": 2}
    for train, reads in ((coptic, False), (tamil, True)):
        jobs = pipeline_jobs(
            "p", {"treebank": "t", "setting": "s", "seed": 1}, Setting("s", "pipeline", options, 10, ()),
            TreebankFiles(str(train), None, None), "/m",
        )  # fmt: skip
        commands = [command for job in jobs for _, command in job.commands if job.step != "tokenizer"]
        assert len(commands) == 5 and all(("--encoder" in command) == reads for command in commands)
