"""Recipes: one TOML file that says everything that makes a model from a treebank, run by one command.

A recipe (schema in ``docs/recipes.md``)::

    [model]
    name = "hu_szeged_pipeline"     # the model it makes
    arch = "pipeline"               # lstmparse train's --arch
    treebank = "hu_szeged"          # the UD treebank it is made from (its folder's name; --treebank gives the path)
    seed = 1

    [train]                         # lstmparse train's options for that arch, without the dashes
    max_minutes = 60                # a pipeline's: wall time on `cores` cores
    cores = 2
    taggers = 3
    joint_member = true
    half_precision = true

A model trained in stages (a lower learning rate from the best model so far) lists them
as ``[[stages]]``, each a table of options that change for it; an ensemble's recipe
(``arch = "ensemble"``) names the recipe its members are made by and their seeds in
``[ensemble]``.

``lstmparse train --recipe FILE --treebank DIR --model-dir M`` makes the model; an
option given on the command line too takes the command line's value (the card
records what was run).  A pipeline's independent parts (tokenizer, taggers, fold
taggers, the joint-UPOS parser) are trained at once on Dask, as the farm trains
them (:func:`lstmparse.app.farm.builds.build_pipeline`), then the pipeline step tags the folds, trains the
tag-reading parser and makes the choices on dev.  ``lstmparse train --arch
pipeline`` without a recipe runs :data:`DEFAULT_RECIPE`, the best the toolkit knows.
This module reads no DyNet.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from lstmparse.errors import ConfigurationError

DEFAULT_RECIPE = Path(__file__).with_name("default_recipe.toml")
MODEL_KEYS = {"name": str, "arch": str, "treebank": str, "seed": int, "description": str}
REQUIRED = ("name", "arch")
SECTIONS = ("model", "train", "tagger", "tokenizer", "choices", "stages", "ensemble")
PART_SECTIONS = ("tagger", "tokenizer")  # a pipeline's parts with options of their own (train --arch PART's)
ENSEMBLE = "ensemble"  # the arch of a recipe whose model is an ensemble of models made by another recipe
RESUMABLE = ("stacklstm", "seq2seq", "pipeline")  # the archs whose interrupted training train --resume continues
STAGED = ("stacklstm", "seq2seq")  # those whose run a later stage continues from its model (a pipeline's parts differ)
ENSEMBLE_KEYS = {"recipe": str, "seeds": list, "models": list}


@dataclass(frozen=True)
class Recipe:
    """A recipe file, checked: its model's name, arch, treebank and seed, and the training options."""

    path: Path
    name: str
    arch: str
    treebank: str | None = None
    seed: int | None = None
    description: str = ""
    options: dict[str, object] = field(default_factory=dict)
    parts: dict[str, dict[str, object]] = field(default_factory=dict)  # [tagger], [tokenizer]: a pipeline's parts'
    choices: dict[str, tuple[float, ...]] = field(default_factory=dict)  # [choices]: a pipeline's, narrowed
    stages: list[dict[str, object]] = field(default_factory=list)  # [[stages]]: options each later stage changes
    ensemble: EnsembleRecipe | None = None  # [ensemble]: an ensemble's members


@dataclass(frozen=True)
class EnsembleRecipe:
    """What an ensemble is made of: members made by one recipe, each with its own seed (trained into
    ``MODEL_DIR/seedN``), and models that recipe made before (paths relative to ``MODEL_DIR``), used as they are."""

    recipe: Path
    seeds: tuple[int, ...] = ()
    models: tuple[str, ...] = ()


def read_toml(path: Path) -> dict:
    """A TOML file's tables (recipes, farm plans); a file that cannot be read or is not TOML is one
    ConfigurationError naming it."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigurationError(f"{path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{path}: not TOML: {error}") from None


def read_recipe(path: str | Path) -> Recipe:
    """The recipe in ``path``; a file that is not one is a ConfigurationError naming the file and the key."""
    path = Path(path)
    data = read_toml(path)
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigurationError(
            f"{path}: unknown section {unknown[0]!r}; a recipe has [model], [train], and a pipeline's [tagger], "
            "[tokenizer] and [choices]"
        )
    model = data.get("model", {})
    if not isinstance(model, dict):
        raise ConfigurationError(f"{path}: model: a table ([model]) was expected")
    for key, value in model.items():
        if key not in MODEL_KEYS:
            raise ConfigurationError(f"{path}: [model] {key}: unknown key; known: {', '.join(MODEL_KEYS)}")
        if not isinstance(value, MODEL_KEYS[key]) or isinstance(value, bool):
            raise ConfigurationError(f"{path}: [model] {key}: a {MODEL_KEYS[key].__name__} was expected")
    for key in REQUIRED:
        if key not in model:
            raise ConfigurationError(f"{path}: [model] {key}: missing")
    options = scalar_table(data, "train", path)
    parts = {part: scalar_table(data, part, path) for part in PART_SECTIONS if part in data}
    if parts and model["arch"] != "pipeline":
        raise ConfigurationError(f"{path}: [{next(iter(parts))}]: only a pipeline's recipe has parts")
    choices = read_choices_table(data, path)
    if choices and model["arch"] != "pipeline":
        raise ConfigurationError(f"{path}: [choices]: only a pipeline's recipe makes choices on dev")
    stages = read_stages(data, path)
    if stages and model["arch"] not in STAGED:
        raise ConfigurationError(f"{path}: [[stages]]: a {model['arch']}'s training cannot be continued in stages")
    ensemble = read_ensemble(data, path) if model["arch"] == ENSEMBLE else None
    if model["arch"] == ENSEMBLE and (ensemble is None or options or stages):
        raise ConfigurationError(f"{path}: an ensemble's recipe has [model] and [ensemble] only")
    if "ensemble" in data and model["arch"] != ENSEMBLE:
        raise ConfigurationError(f'{path}: [ensemble]: only a recipe of arch = "ensemble" has one')
    return Recipe(path, options=options, parts=parts, choices=choices, stages=stages, ensemble=ensemble, **model)


def read_choices_table(data: dict, path: Path) -> dict[str, tuple[float, ...]]:
    """``[choices]``: choices made on dev narrowed to some of their values (``beam = [1]``: decode greedily, what
    a wider beam would gain on dev being worth less than its time to this model), checked against the choices'."""
    from lstmparse.pipeline.choices import checked_grids

    table = data.get("choices", {})
    if not isinstance(table, dict):
        raise ConfigurationError(f"{path}: choices: a table ([choices]) was expected")
    grids = {}
    for name, value in table.items():
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(item, int | float) and not isinstance(item, bool) for item in values):
            raise ConfigurationError(f"{path}: [choices] {name}: a number or a list of numbers was expected")
        grids[name] = values
    try:
        return checked_grids(grids)
    except ConfigurationError as error:
        raise ConfigurationError(f"{path}: [choices] {error}") from None


def read_stages(data: dict, path: Path) -> list[dict[str, object]]:
    """``[[stages]]``: each stage's options (those that change from ``[train]`` and the stages before).

    Why stages: a model trained at one learning rate until dev stops improving, then
    continued from its best epoch at a lower one, is two runs of ``train``, the second
    with ``--resume``; the recipe says both.
    """
    stages = data.get("stages", [])
    if not isinstance(stages, list) or not all(isinstance(stage, dict) for stage in stages):
        raise ConfigurationError(f"{path}: stages: a list of tables ([[stages]]) was expected")
    return [scalar_table({"stages": stage}, "stages", path) for stage in stages]


def read_ensemble(data: dict, path: Path) -> EnsembleRecipe:
    """``[ensemble]``: the members' recipe (relative to this file), their seeds, and models it made before."""
    table = data.get("ensemble")
    if not isinstance(table, dict) or "recipe" not in table:
        raise ConfigurationError(f"{path}: [ensemble] recipe: missing (the recipe that makes each member)")
    for key, value in table.items():
        if key not in ENSEMBLE_KEYS:
            raise ConfigurationError(f"{path}: [ensemble] {key}: unknown key; known: {', '.join(ENSEMBLE_KEYS)}")
        if not isinstance(value, ENSEMBLE_KEYS[key]):
            raise ConfigurationError(f"{path}: [ensemble] {key}: a {ENSEMBLE_KEYS[key].__name__} was expected")
    seeds, models = table.get("seeds", []), table.get("models", [])
    if not all(isinstance(seed, int) and not isinstance(seed, bool) for seed in seeds) or len(set(seeds)) < len(seeds):
        raise ConfigurationError(f"{path}: [ensemble] seeds: distinct whole numbers were expected")
    if not all(isinstance(model, str) and model for model in models):
        raise ConfigurationError(f"{path}: [ensemble] models: model directories (text) were expected")
    if len(seeds) + len(models) < 2:
        raise ConfigurationError(f"{path}: [ensemble]: an ensemble has two or more members (seeds and models)")
    return EnsembleRecipe(path.parent / table["recipe"], tuple(seeds), tuple(models))


def scalar_table(data: dict, section: str, path: Path) -> dict[str, object]:
    """A section of options: a table of strings, numbers and true/false."""
    table = data.get(section, {})
    if not isinstance(table, dict):
        raise ConfigurationError(f"{path}: {section}: a table ([{section}]) was expected")
    for key, value in table.items():
        if isinstance(value, dict | list):
            raise ConfigurationError(f"{path}: [{section}] {key}: an option's value is a string, number or true/false")
    return dict(table)


def default_recipe() -> Recipe:
    """The recipe ``train --arch pipeline`` runs when given none."""
    return read_recipe(DEFAULT_RECIPE)


BRACKETED = ("seq2seq",)  # the archs trained on bracketed (PTB) trees rather than CoNLL-U


def data_folder(recipe: Recipe) -> str:
    """Where the shared data keeps the recipe's treebank: ``ud/NAME``, or ``const/NAME`` for bracketed trees (an
    ensemble's: its members')."""
    arch = read_recipe(recipe.ensemble.recipe).arch if recipe.ensemble is not None else recipe.arch
    return f"{'const' if arch in BRACKETED else 'ud'}/{recipe.treebank}"
