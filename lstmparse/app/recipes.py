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
them (:func:`build_pipeline`), then the pipeline step tags the folds, trains the
tag-reading parser and makes the choices on dev.  ``lstmparse train --arch
pipeline`` without a recipe runs :data:`DEFAULT_RECIPE`, the best the toolkit knows.
This module reads no DyNet.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from lstmparse.errors import ConfigurationError

DEFAULT_RECIPE = Path(__file__).with_name("default_recipe.toml")
MODEL_KEYS = {"name": str, "arch": str, "treebank": str, "seed": int, "description": str}
REQUIRED = ("name", "arch")
SECTIONS = ("model", "train")
BUILD_DIRECTORY = "build"  # inside the model directory while a pipeline is built: the parts' jobs and logs


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


def read_recipe(path: str | Path) -> Recipe:
    """The recipe in ``path``; a file that is not one is a ConfigurationError naming the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigurationError(f"{path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{path}: not TOML: {error}") from None
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigurationError(f"{path}: unknown section {unknown[0]!r}; a recipe has [model] and [train]")
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
    options = data.get("train", {})
    if not isinstance(options, dict):
        raise ConfigurationError(f"{path}: train: a table ([train]) was expected")
    for key, value in options.items():
        if isinstance(value, dict | list):
            raise ConfigurationError(f"{path}: [train] {key}: an option's value is a string, number or true/false")
    return Recipe(path, options=dict(options), **model)


def default_recipe() -> Recipe:
    """The recipe ``train --arch pipeline`` runs when given none."""
    return read_recipe(DEFAULT_RECIPE)


def build_pipeline(
    options: dict[str, object],
    files: tuple[str, str | None],
    model_dir: str | Path,
    seed: int,
    workers: int | None = None,
    scheduler: str | None = None,
    log: TextIO = sys.stderr,
) -> dict:
    """Train a pipeline into ``model_dir`` as the farm does: its independent parts at once on Dask (``workers``
    processes, or an existing ``scheduler``), then the pipeline step; the pipeline step's training record.

    ``options``: ``train --arch pipeline``'s (without ``train``, ``dev``, ``model_dir``,
    ``seed``). The parts' jobs and logs are kept in ``model_dir/build`` until the
    pipeline is made, so an interrupted build continues where it stopped (finished
    parts are not trained again) when run again.
    """
    from lstmparse.app.farm.engine import run_graph
    from lstmparse.app.farm.plan import Setting, TreebankFiles, pipeline_jobs
    from lstmparse.core.records import read_record

    model_dir = Path(model_dir).resolve()
    work_dir = model_dir / BUILD_DIRECTORY
    options = dict(options)
    budget = options.pop("max_minutes", None)
    setting = Setting("recipe", "pipeline", options, None if budget is None else float(str(budget)), ())
    base = {"treebank": model_dir.name, "setting": "recipe", "seed": seed}
    train, dev = (None if file is None else str(Path(file).resolve()) for file in files)  # jobs run in their folders
    assert train is not None
    jobs = pipeline_jobs(model_dir.name, base, setting, TreebankFiles(train, dev, None), str(model_dir))
    outcome = run_graph(jobs, work_dir, scheduler, workers, log=log)
    if outcome.failed:
        job, why = next(iter(outcome.failed.items()))
        raise ConfigurationError(f"{job}: {why} (its log: {work_dir / 'jobs' / job / 'log.txt'})")
    step_log = work_dir / "jobs" / jobs[-1].id / "log.txt"  # the pipeline step: what it reused, chose and why
    for line in step_log.read_text(encoding="utf-8").splitlines():
        if not line.startswith(("epoch ", "== ", "$ ")):
            print(line, file=log)
    record = read_record(model_dir).config.get("training", {})
    record["cpu_minutes"] = round(outcome.cpu_seconds / 60, 1)
    record["wall_minutes"] = round(outcome.wall_seconds / 60, 1)
    shutil.rmtree(work_dir, ignore_errors=True)
    return record
