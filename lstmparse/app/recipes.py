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
SECTIONS = ("model", "train", "tagger", "tokenizer")
PART_SECTIONS = ("tagger", "tokenizer")  # a pipeline's parts with options of their own (train --arch PART's)


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
            f"{path}: unknown section {unknown[0]!r}; a recipe has [model], [train], and a pipeline's [tagger] and "
            "[tokenizer]"
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
    return Recipe(path, options=options, parts=parts, **model)


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
