"""What ``lstmparse train`` sets up around a training: the recipe's options read as the command line's, its stages,
a pipeline or an ensemble built by its recipe, the treebank's files, the parameters halved after, the card.

Every value of a recipe (``[train]``, a pipeline's ``[tagger]`` and ``[tokenizer]``) and of
``--part-option`` is checked and converted by the ``train`` option of that name for that
architecture, so a recipe says nothing the command line could not, and a mistake is one
line naming the file and the key.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from lstmparse.cli.common import comma_separated
from lstmparse.cli.family_options import FAMILIES, PIPELINE, SEQ2SEQ, STACK, FamilyOption


def recipe_of(given: dict, arch_given: bool):  # noqa: ANN202 - a Recipe or None
    """The recipe to make the model by: the one named, the default one for a pipeline, None with ``--recipe none``
    (or for other archs without one)."""
    from lstmparse.app.farm.plan import NO_RECIPE
    from lstmparse.app.recipes import ENSEMBLE, default_recipe, read_recipe

    name = given["recipe"]
    if name == NO_RECIPE:
        return None
    if name is None:  # a pipeline assembled from parts trained before is not made by a recipe
        parts_given = any(given.get(f"{part}_model") for part in ("parser", "tagger", "tokenizer"))
        return default_recipe() if given["arch"] in PIPELINE and not parts_given else None
    recipe = read_recipe(name)
    if arch_given and given["arch"] != recipe.arch:
        raise click.UsageError(f"--arch {given['arch']}, but the recipe {name} makes a {recipe.arch}")
    if recipe.arch not in (*FAMILIES, ENSEMBLE):
        raise click.UsageError(f"{name}: [model] arch: {recipe.arch!r} is not one of {', '.join(FAMILIES)}, {ENSEMBLE}")
    return recipe


HALVED_PIPELINE = (
    "parameters stored as float16 before the beam was chosen on dev (the parts' own dev figures are of float32)"
)
AVERAGED = "the model is the mean of epochs {} (--average-best); the dev figures are the best epoch's"
PART_FAMILIES = ("tagger", "tokenizer")  # the pipeline's parts that take options of their own (--part-option)
NOT_IN_RECIPES = {"arch", "recipe", "train_file", "dev_file", "treebank", "model_dir", "overwrite", "resume"}
NOT_IN_RECIPES |= {"epochs_of"}


def recipe_options(recipe, ctx: click.Context) -> dict:  # noqa: ANN001 - a Recipe
    """The recipe's training options (and seed) as the command line's values; a key that is not an option of
    ``train`` for its arch is an error naming the file and the key."""
    values = {"seed": recipe.seed} if recipe.seed is not None else {}
    for key, value in recipe.options.items():
        values.update([option_value(ctx, recipe.arch, key, value, f"{recipe.path}: [train] {key}")])
    return values


def given_part_options(values: tuple[str, ...], ctx: click.Context) -> dict[str, dict]:
    """``--part-option tagger.hidden=200 ...`` as {"tagger": {"hidden": 200}}, each value of the part's option type."""
    parts: dict[str, dict] = {}
    for value in values:
        name, equals, text = value.partition("=")
        part, dot, key = name.partition(".")
        if not (equals and dot and part in PART_FAMILIES):
            raise click.UsageError(f"--part-option {value}: PART.OPTION=VALUE, PART one of {', '.join(PART_FAMILIES)}")
        parts.setdefault(part, {}).update([option_value(ctx, part, key, text, f"--part-option {value}")])
    return parts


def parts_and_choices(explicit: dict, recipe, ctx: click.Context) -> dict:  # noqa: ANN001 - a Recipe or None
    """A pipeline's tables, taken out of ``explicit``: its parts' own options (``--part-option``, a recipe's
    [tagger] and [tokenizer]) as ``part_options``, its narrowed choices (``--choice``, [choices]) as
    ``choice_grids``; the command line's win over the recipe's, and an empty table is left out."""
    parts = given_part_options(explicit.pop("part_option", ()), ctx)
    grids = given_choice_grids(explicit.pop("choice", ()))
    if recipe is not None:
        from_recipe = {part: part_values(recipe, part, table, ctx) for part, table in recipe.parts.items()}
        parts = {part: from_recipe.get(part, {}) | parts.get(part, {}) for part in {**from_recipe, **parts}}
        grids = dict(recipe.choices) | grids
    tables = {"part_options": parts, "choice_grids": grids}
    return {name: table for name, table in tables.items() if table}


def given_choice_grids(values: tuple[str, ...]) -> dict[str, tuple[float, ...]]:
    """``--choice beam=1 --choice known_lemma_weight=0,1,2`` as {"beam": (1.0,), ...}: the values a choice made on
    dev is narrowed to, checked against the choices' own."""
    from lstmparse.errors import ConfigurationError
    from lstmparse.pipeline.choices import checked_grids

    grids: dict[str, list[float]] = {}
    for value in values:
        name, equals, text = value.partition("=")
        try:
            grids[name.strip()] = [float(item) for item in comma_separated(text)]
        except ValueError:
            equals = ""
        if not (equals and name.strip()):
            raise click.UsageError(f"--choice {value}: NAME=VALUE,VALUE... (beam=1, known_lemma_weight=0,1,2)")
    try:
        return checked_grids(grids)
    except ConfigurationError as error:
        raise click.UsageError(f"--choice {error}") from None


def part_values(recipe, part: str, table: dict, ctx: click.Context) -> dict:  # noqa: ANN001 - a Recipe
    """A recipe's [tagger] or [tokenizer] table as the part's option values."""
    return dict(option_value(ctx, part, key, value, f"{recipe.path}: [{part}] {key}") for key, value in table.items())


def option_value(ctx: click.Context, arch: str, key: str, value: object, where: str) -> tuple[str, object]:
    """The option ``key`` names, and ``value`` as ``train --arch ARCH`` reads it; not an option: an error."""
    param = recipe_option(ctx.command.params, arch, key)
    if param is None:
        raise click.UsageError(f"{where}: not an option of lstmparse train --arch {arch}")
    if param.is_flag and isinstance(value, str):
        value = {"true": True, "false": False}.get(value.lower(), value)
    try:
        return param.name, param.type_cast_value(ctx, value)
    except click.BadParameter as error:
        raise click.UsageError(f"{where}: {error.message}") from None


def recipe_option(params: list, arch: str, key: str) -> FamilyOption | None:
    """The option of ``train --arch ARCH`` a recipe's key names: its flag without the dashes (``char_lstm`` or
    ``chars`` for seq2seq's ``--chars``), or its parameter's name; None if none."""
    if key in NOT_IN_RECIPES:
        return None
    options = [param for param in params if isinstance(param, FamilyOption) and arch in param.families]
    flag = "--" + key.replace("_", "-")
    return next((param for param in options if flag in param.opts), None) or next(
        (param for param in options if param.name == key), None
    )


def recipe_entry(recipe, explicit: dict) -> dict:  # noqa: ANN001 - a Recipe
    """The card's record of the recipe a model was made by: its name and file, the options and seed it ran with
    (and the options each later stage changed)."""
    options = {key: value for key, value in explicit.items() if key not in NOT_IN_RECIPES and key != "language"}
    entry = {"name": recipe.name, "file": recipe.path.name, "options": options}
    return entry | ({"stages": [dict(stage) for stage in recipe.stages]} if recipe.stages else {})


def staged(recipe, explicit: dict, from_command_line: dict, ctx: click.Context) -> list[dict]:  # noqa: ANN001
    """The options of each stage of a training: the first is ``explicit`` (the recipe's ``[train]`` and the command
    line); each of the recipe's ``[[stages]]`` changes the stage before's options (the command line's still win) and
    continues its run, from its best model or last checkpoint, as ``--resume`` does."""
    stages = [explicit]
    if recipe is None or not recipe.stages:
        return stages
    given = {key: value for key, value in from_command_line.items() if key not in NOT_IN_RECIPES}  # options only
    for number, table in enumerate(recipe.stages, 2):
        where = f"{recipe.path}: [[stages]] (stage {number}) "
        values = dict(option_value(ctx, recipe.arch, key, value, where + key) for key, value in table.items())
        stages.append(stages[-1] | values | given | {"resume": True})
    return stages


def with_epochs_of(explicit: dict, arch: str) -> dict:
    """``--epochs-of MODEL``: the options with the epochs each part of MODEL ran (its card's ``epochs``) in place of
    the time budget, so that the same recipe, seed and data make the same files on any machine."""
    import json

    from lstmparse.app.farm.plan import part_step
    from lstmparse.core.model_io import CARD
    from lstmparse.errors import ConfigurationError

    model = Path(explicit.pop("epochs_of"))
    try:
        epochs = json.loads((model / CARD).read_text(encoding="utf-8"))["epochs"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ConfigurationError(
            f"--epochs-of {model}: its card.json records no epochs (the cards lstmparse release ship writes do)"
        ) from None
    explicit.pop("max_minutes", None)
    if arch not in PIPELINE:
        if "." not in epochs:
            raise ConfigurationError(f"--epochs-of {model}: its card records the epochs of parts, not of one model")
        return explicit | {"epochs": int(epochs["."])}
    steps = {part_step(directory): int(count) for directory, count in epochs.items()}
    return explicit | {"part_epochs": {step: count for step, count in steps.items() if step is not None}}


def build_recipe_pipeline(recipe, explicit: dict, treebank, data_notes: list[str], started: float) -> None:  # noqa: ANN001
    """A pipeline made by its recipe: the parts at once on the machine's cores, then the pipeline step; its card."""
    from lstmparse.app.catalog import training_card, write_card
    from lstmparse.app.farm.builds import build_pipeline

    options = {
        key: value for key, value in explicit.items() if key not in NOT_IN_RECIPES and key not in ("seed", "language")
    }
    if explicit.get("dev_file") is None:
        raise click.UsageError("a pipeline is made with a dev set: give --dev FILE, or --treebank DIR")
    seed = int(explicit.get("seed") or 1)
    files = (str(explicit["train_file"]), str(explicit["dev_file"]))
    cores = int(str(options.get("cores", 1)))
    record = build_pipeline(options, files, explicit["model_dir"], seed, workers=cores)
    card = training_card("pipeline", files[0], record, treebank, explicit.get("language"), data_notes)
    card["recipe"] = recipe_entry(recipe, explicit)
    command = "lstmparse " + " ".join(sys.argv[1:])
    card["training"] = {
        "command": command,
        "minutes": (time.time() - started) / 60,
        "cpu_minutes": record["cpu_minutes"],
    }
    write_card(explicit["model_dir"], card)
    click.echo(
        f"{summary(record)}; {record['total_seconds']:.0f} s in the pipeline step; model in {explicit['model_dir']}",
        err=True,
    )


def summary(record: dict) -> str:
    """The chosen epoch's figure in its family's measure (the tokenizer chooses by tokens and sentences), or loss."""
    from lstmparse.app.catalog import DEV_FIGURES

    for key, measure in (*DEV_FIGURES, ("best_training_loss_per_word", "training loss per word (no --dev)")):
        if record.get(key) is not None:
            return f"{measure} {record[key]:.2f} at the best epoch ({record.get('best_epoch')})"
    return "model saved"


def store_parts_for_shipping(model_dir: str, half_precision: bool, pretrained_by_name: bool) -> None:
    """Every parameter file the model reads (a pipeline's parts, an ensemble's members) rewritten as asked: its
    packaged table named (``--pretrained-by-name``), its parameters as float16 (``--half-precision``)."""
    from lstmparse.core.model_io import store_for_shipping
    from lstmparse.pipeline.manifest import component_directories

    for directory in component_directories(model_dir):
        store_for_shipping(directory, half_precision, pretrained_by_name)


def check_pretrained_by_name(explicit: dict) -> None:
    """``--pretrained-by-name`` names a packaged table: without ``--pretrained glove:N`` it is a usage error."""
    from lstmparse.io.glove import is_packaged_vectors

    if explicit.get("pretrained_by_name") and not is_packaged_vectors(str(explicit.get("pretrained") or "")):
        raise click.UsageError("--pretrained-by-name names a packaged table: it needs --pretrained glove:N")


def training_files(explicit: dict, model_dir: str, arch: str):
    """``--train``/``--dev`` from ``--treebank`` (a held-out dev if it has none); the folder, notes for the card.

    The constituency parser's treebank holds bracketed trees (``train.ptb``, ``dev.ptb``); one
    without a dev file trains without one (the family keeps the epoch of the lowest loss).
    """
    from lstmparse.pipeline.recipe import held_out_dev, treebank_folder

    if explicit.get("treebank") is None:
        every_part = all(explicit.get(f"{part}_model") for part in ("parser", "tagger", "tokenizer"))
        if explicit.get("train_file") is None and not every_part:
            raise click.UsageError("give --train FILE (and --dev FILE) or --treebank DIR")
        return None, []
    if explicit.get("train_file") is not None or explicit.get("dev_file") is not None:
        raise click.UsageError("--treebank names the training and dev files itself: give it or --train/--dev")
    folder = treebank_folder(explicit.pop("treebank"), "ptb" if arch in SEQ2SEQ else "conllu")
    explicit["train_file"], notes = str(folder.train), []
    if folder.dev is not None:
        explicit["dev_file"] = str(folder.dev)
    elif arch not in SEQ2SEQ:
        train, dev = held_out_dev(folder.train, Path(model_dir) / "heldout")
        explicit["train_file"], explicit["dev_file"] = str(train), str(dev)
        notes.append(f"{folder.path.name} has no dev file: every tenth training sentence was held out as dev")
        click.echo(f"lstmparse: {notes[-1]} ({dev})", err=True)
    return folder, notes


ENSEMBLE_DATA = {"treebank": "--treebank", "train_file": "--train", "dev_file": "--dev", "language": "--language"}


def make_recipe_ensemble(recipe, given: dict, given_names: list[str]) -> None:  # noqa: ANN001 - a Recipe
    """An ensemble made by its recipe (:mod:`lstmparse.app.recipe_ensembles`), its members trained on the data
    given; members made before are kept, so running it again continues an interrupted build."""
    from lstmparse.app.catalog import write_card
    from lstmparse.app.recipe_ensembles import build_recipe_ensemble

    foreign = [name for name in given_names if name not in (*ENSEMBLE_DATA, "recipe", "model_dir", "resume")]
    if foreign:
        raise click.UsageError(
            f"--{foreign[0].replace('_', '-')}: an ensemble's recipe takes the data (--treebank, or --train and "
            "--dev; --language) and --model-dir; its members' options are in their own recipe, and the members "
            "made before are kept (remove MODEL_DIR to make them again)"
        )
    arguments = [part for name, flag in ENSEMBLE_DATA.items() if given.get(name) for part in (flag, str(given[name]))]
    card = build_recipe_ensemble(recipe, arguments, given["model_dir"])
    write_card(given["model_dir"], card)
    click.echo(f"wrote the ensemble of {len(card['seeds'])} models to {given['model_dir']}", err=True)


def train_stages(arch: str, stages: list[dict]):  # noqa: ANN201 - the last stage's options and the record
    """Train each stage in turn (DyNet configured); Ctrl-C says how to continue."""
    from lstmparse.core.families import family

    options_class = family(arch).options_class()
    try:
        for number, values in enumerate(stages, 1):
            if len(stages) > 1:
                click.echo(f"stage {number} of {len(stages)}", err=True)
            options = options_class.from_command_line(values)
            record = family(arch).trainer_function()(options)  # imported now that DyNet is configured
    except KeyboardInterrupt:
        click.echo(f"lstmparse: interrupted; {how_to_continue(arch)}", err=True)
        sys.exit(130)
    return options, record


def how_to_continue(arch: str) -> str:
    """What continues an interrupted training: --resume where the family can, else a new run."""
    if arch in STACK + SEQ2SEQ + PIPELINE:  # the families --resume applies to
        return "the same command with --resume continues from the last finished epoch (or part)"
    return "the model of the best epoch so far is in MODEL_DIR; the same command with --overwrite starts again"


def write_training_card(
    arch: str, options, record: dict, recipe, explicit: dict, treebank, notes: list[str], started: float
) -> None:  # noqa: ANN001, E501
    """After training: the parameters halved where asked, and the card (what the model is, the recipe and the
    command that made it, notes on what the figures are of)."""
    from lstmparse.app.catalog import training_card, write_card

    if arch not in PIPELINE:  # a pipeline does it itself, before its choices
        half, by_name = bool(explicit.get("half_precision")), bool(explicit.get("pretrained_by_name"))
        store_parts_for_shipping(options.model_dir, half, by_name)
        if half:
            notes.append("parameters stored as float16 after training (the dev figures are of float32)")
    if record.get("averaged_epochs"):
        notes.append(AVERAGED.format(", ".join(map(str, record["averaged_epochs"]))))
    card = training_card(arch, options.train, record, treebank, explicit.get("language"), notes)
    if recipe is not None:
        card["recipe"] = recipe_entry(recipe, explicit)
    card["training"] = {"command": "lstmparse " + " ".join(sys.argv[1:]), "minutes": (time.time() - started) / 60}
    write_card(options.model_dir, card)
    click.echo(f"{summary(record)}; {record['total_seconds']:.0f} s in all; model in {options.model_dir}", err=True)
