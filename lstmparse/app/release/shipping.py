"""The pipelines a farm run of ``models/remake.toml`` evaluated, shipped into ``models/`` with their cards.

Each evaluated cell of a setting that names a recipe goes into ``models/NAME`` (the
recipe's name): the files a loaded model reads (manifests, cards, vocabularies,
parameters of its parts and of the ensemble members its choices on dev kept), not the
run's checkpoints, fold taggers, jack-knifed data or members left out. Paths of the
machine that made it are rewritten in its JSON files (a treebank's file as
``hu_szeged/train.conllu``, a file of the run as its path inside the model), so that the
directory reads the same anywhere. The model is written beside the old one and renamed
over it, keeping the recipe; its figures go into ``models/results.json`` (the cell's
row, and UDPipe 1's of the same treebank).

A remade pipeline replaces the shipped one only where dev says it is as good: its dev LAS
from raw text at least the shipped one's less :data:`DEV_TOLERANCE` (a second seed moves
a pipeline's dev LAS by about that much). The shipped one's figure is its card's, or
measured where an older card holds none.
"""

from __future__ import annotations

import filecmp
import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lstmparse import __version__
from lstmparse.app.farm.plan import Plan, Setting
from lstmparse.app.farm.plan_file import read_plan
from lstmparse.app.recipes import Recipe, read_recipe
from lstmparse.app.release import DEV_TOLERANCE
from lstmparse.app.release.cards import (
    ABSOLUTE_PATH,
    epochs_reached,
    figures_line,
    only_measures,
    treebank_version,
)
from lstmparse.core.model_io import CARD, CONFIG, atomic_write
from lstmparse.errors import ConfigurationError

if TYPE_CHECKING:
    from lstmparse.pipeline.recipe import TreebankFolder

RESULTS = "results.json"  # in models/: the shipped models' rows and UDPipe 1's beside them
MODEL_FILE_KEYS = ("vocab_file", "params_file")


def ship(
    work_dir: Path, plan_path: Path, models_dir: Path, log: TextIO, dev_tolerance: float = DEV_TOLERANCE
) -> list[str]:
    """Ship every pipeline the run evaluated that the plan still names (a cell taken out of the plan, as a fast
    pipeline not fast enough to ship, stays in the run) and that is no worse on dev than the one it would replace
    (by more than ``dev_tolerance`` LAS from raw text); the names of the models written."""
    plan = read_plan(plan_path)
    rows = json.loads((work_dir / RESULTS).read_text(encoding="utf-8"))
    cells = recipe_cells(rows, plan)
    rows += earlier_references(rows, models_dir / RESULTS, plan)
    # Every shipped model is judged before any is replaced: an older pipeline may read a sibling's parts.
    verdicts = [worse_on_dev(row, setting, plan, models_dir, dev_tolerance) for row, setting in cells]
    shipped, kept_rows = [], []
    for (row, setting), worse in zip(cells, verdicts, strict=True):
        if worse:
            print(f"lstmparse: models/{cell_recipe(setting, row['treebank']).name} kept: {worse}", file=log)
            continue
        name = ship_cell(row, setting, plan, rows, work_dir, models_dir)
        kept_rows += [{**row, "model": name}, *reference_rows(rows, row["treebank"], plan)]
        shipped.append(name)
        print(f"lstmparse: models/{name}: {figures_line(row['test'], None)}", file=log)
    write_results(models_dir / RESULTS, kept_rows)
    return shipped


def recipe_cells(rows: list[dict], plan: Plan) -> list[tuple[dict, Setting]]:
    """The evaluated rows of the run whose setting the plan still makes from a recipe, each with that setting."""
    settings = {setting.name: setting for setting in plan.settings}
    cells = [(row, settings.get(row["setting"])) for row in rows if "test" in row]
    return [
        (row, setting)
        for row, setting in cells
        if setting is not None and setting.recipe is not None and setting.trains(row["treebank"])
    ]


def worse_on_dev(row: dict, setting: Setting, plan: Plan, models_dir: Path, tolerance: float) -> str:
    """Why the remade pipeline of ``row`` must not replace the one shipped under its name (its dev LAS from raw
    text more than ``tolerance`` below the shipped one's); empty where it may (nothing shipped there yet, or no dev
    figure to compare)."""
    from lstmparse.pipeline.recipe import treebank_folder

    remade = row.get("dev", {}).get("raw", {}).get("LAS")
    target = models_dir / cell_recipe(setting, row["treebank"]).name
    if remade is None or not (target / CONFIG).is_file():
        return ""
    shipped = shipped_dev_las(target, treebank_folder(plan.treebanks[row["treebank"]].path).dev)
    if shipped is None or remade >= shipped - tolerance:
        return ""
    return (
        f"the remade pipeline's dev LAS from raw text, {remade:.2f}, is more than {tolerance:g} below the shipped "
        f"one's, {shipped:.2f}"
    )


def shipped_dev_las(target: Path, dev: Path | None) -> float | None:
    """The dev LAS from raw text of the model shipped in ``target``: its card's, or measured on ``dev`` as the
    model loads (a card of an earlier version holds no dev figures); None without either."""
    card = json.loads((target / CARD).read_text(encoding="utf-8")) if (target / CARD).is_file() else {}
    las = card.get("dev", {}).get("raw", {}).get("LAS")
    if las is not None:
        return float(las)
    if dev is None:
        return None
    from lstmparse.app.accuracy import evaluate_model

    return evaluate_model(target, str(dev), "raw").f1()["LAS"]


def cell_directory(work_dir: Path, row: dict) -> Path:
    """Where the farm run keeps the model of a results row."""
    return work_dir / "models" / row["treebank"] / row["setting"] / f"s{row['seed']}"


def cell_recipe(setting: Setting, treebank: str) -> Recipe:
    """The recipe a setting made ``treebank``'s model by (it names the shipped model)."""
    assert setting.recipe is not None
    return read_recipe(setting.recipe.replace("{treebank}", treebank))


def same_model_files(made: Path, shipped: Path) -> bool:
    """Whether ``shipped`` holds the parameters and vocabulary of ``made`` (the files a load reads)."""
    try:
        config = json.loads((made / CONFIG).read_text(encoding="utf-8"))
        names = [config[key] for key in MODEL_FILE_KEYS if config.get(key)]
        return bool(names) and all(filecmp.cmp(made / name, shipped / name, shallow=False) for name in names)
    except (OSError, ValueError):
        return False


def ship_cell(row: dict, setting: Setting, plan: Plan, rows: list[dict], work_dir: Path, models_dir: Path) -> str:
    """One evaluated cell into ``models/NAME``, with its card; the model's name."""
    from lstmparse.pipeline.choices import keep_chosen_members
    from lstmparse.pipeline.recipe import treebank_folder

    treebank = row["treebank"]
    recipe = cell_recipe(setting, treebank)
    source = cell_directory(work_dir, row)
    folder = treebank_folder(plan.treebanks[treebank].path)
    roots = {source: "", folder.path: f"{treebank}/", work_dir / "data" / treebank: f"{treebank}/"}
    target = models_dir / recipe.name
    staging = copy_model(source, target, roots)
    keep_chosen_members(staging)
    shutil.copy2(recipe.path, staging / "recipe.toml")
    reference = next((r for r in reference_rows(rows, treebank, plan) if "test" in r), None)
    built = json.loads((source / CARD).read_text(encoding="utf-8")) if (source / CARD).is_file() else {}
    card = recipe_card(recipe, folder, built, row["seed"], row.get("cpu_minutes"), source) | {
        "task": built.get("task", "raw text to dependency trees"),
        "treebank": treebank,
        "dev": only_measures(row["dev"]),
        "test": only_measures(row["test"]),
        "udpipe1": None if reference is None else {split: only_measures(reference[split]) for split in ("dev", "test")},
        "speed": shipped_speed(staging, target, folder.test),
        "figures": figures_line(row["test"], reference),
    }
    put_in_place(staging, target, card)
    return recipe.name


def recipe_card(
    recipe: Recipe,
    folder: TreebankFolder,
    built: dict,
    seed: int | list[int],
    cpu_minutes: float | None,
    source: Path,
) -> dict:
    """What every shipped card says of a model made by ``recipe`` from ``folder`` (``built``: the card training
    wrote in ``source``): the model, its data, what makes it again, what it cost, the choices made on dev."""
    return {
        "name": recipe.name,
        "description": recipe.description,
        "language": folder.language or built.get("language") or "?",
        "task": built.get("task", recipe.arch),
        "treebank": folder.path.name,
        "treebank_version": treebank_version(folder.path),
        "licence": folder.licence or "see the treebank's LICENSE.txt",
        "recipe": "recipe.toml",
        "lstmparse_version": __version__,
        "seed": seed,
        "cpu_minutes": cpu_minutes,
        "epochs": epochs_reached(source),
        "choices": without_paths(built.get("choices", [])),
    }


def without_paths(lines: list[str]) -> list[str]:
    """The lines that name no path of the machine that made the model."""
    return [line for line in lines if not ABSOLUTE_PATH.search(line)]


def put_in_place(staging: Path, target: Path, card: dict) -> None:
    """The staged model, with its card (empty entries left out), renamed over ``target``."""
    text = json.dumps({key: value for key, value in card.items() if value not in (None, "", [], {})}, indent=2)
    (staging / CARD).write_text(text + "\n", encoding="utf-8")
    replace_directory(staging, target)


def one_thread():  # noqa: ANN201 - a context manager
    """NumPy's BLAS on one thread while a model is timed (without ``threadpoolctl``, as its environment says)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        from contextlib import nullcontext

        return nullcontext()
    return threadpool_limits(1)


def shipped_speed(staging: Path, target: Path, test: Path | None) -> dict | None:
    """The model's speed: measured, unless ``target`` already ships the same files (then its card's stays, so
    that shipping a run again does not change a card by the noise of a second measurement)."""
    if test is None:
        return None
    if same_files(staging, target, ignored=(CARD, "recipe.toml")):
        previous = json.loads((target / CARD).read_text(encoding="utf-8")).get("speed")
        if previous:
            return previous
    return parsing_speed(staging, test)


def same_files(left: Path, right: Path, ignored: tuple[str, ...]) -> bool:
    """Whether two directories hold the same files, byte for byte (the top level's ``ignored`` names aside)."""

    def files(root: Path) -> set[Path]:
        found = {path.relative_to(root) for path in root.rglob("*") if path.is_file()}
        return {path for path in found if path.as_posix() not in ignored}

    if not right.is_dir():
        return False
    names = files(left)
    return names == files(right) and all(filecmp.cmp(left / name, right / name, shallow=False) for name in names)


def parsing_speed(directory: Path, test: Path) -> dict:
    """Sentences and words a second from raw text (the test set's, rebuilt), one thread: what the language rule
    (:func:`lstmparse.core.languages.by_language_rule`) and ``lstmparse models`` read."""
    import time

    from lstmparse.app.accuracy import model_output
    from lstmparse.core.backend import configure_defaults
    from lstmparse.io.formats import read_sentences

    configure_defaults()
    from lstmparse.pipeline.api import Pipeline

    gold = list(read_sentences(str(test)))
    with one_thread():
        pipeline = Pipeline.assemble(directory)
        model_output(pipeline, gold[:1], "raw")  # what a first sentence loads (the encoder's weights) is not parsing
        started = time.process_time()
        output, _ = model_output(pipeline, gold, "raw")
        seconds = time.process_time() - started
    words = sum(len(sentence) for sentence in output)
    return {
        "sentences_per_second": round(len(output) / seconds, 1),
        "words_per_second": round(words / seconds),
        "measured_on": f"{test.parent.name} test, raw text, one thread",
    }


def earlier_references(rows: list[dict], committed: Path, plan: Plan) -> list[dict]:
    """The reference rows (UDPipe 1) of ``models/results.json`` for treebanks the run trained no reference for: a
    run of some settings only (``farm --settings``) has its cards name UDPipe 1 as measured before on the same
    data."""
    if not committed.is_file():
        return []
    references = reference_settings(plan)
    trained = {row["treebank"] for row in rows if row["setting"] in references}
    earlier = json.loads(committed.read_text(encoding="utf-8"))
    return [row for row in earlier if row["setting"] in references and row["treebank"] not in trained]


def reference_rows(rows: list[dict], treebank: str, plan: Plan) -> list[dict]:
    """The rows of the plan's reference settings (UDPipe 1) for ``treebank``."""
    references = reference_settings(plan)
    return [row for row in rows if row["treebank"] == treebank and row["setting"] in references]


def reference_settings(plan: Plan) -> set[str]:
    """The names of the plan's reference settings: UDPipe 1, trained beside our models."""
    return {setting.name for setting in plan.settings if setting.arch == "udpipe"}


def copy_model(source: Path, target: Path, roots: dict[Path, str], siblings: bool = False) -> Path:
    """The files ``source`` (a model directory) loads, in a staging directory beside ``target``; its path.

    ``siblings``: an ensemble's members beside ``source`` (``../NAME``) are not copied: they are read from the
    model shipped beside it, which the caller checks is the same.
    """
    from lstmparse.pipeline.manifest import component_directories, part_directories

    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    directories = {source, *component_directories(source)}
    if (source / CONFIG).is_file() and json.loads((source / CONFIG).read_text(encoding="utf-8")).get("parts"):
        directories |= set(part_directories(source).values())
    for directory in sorted(directories):
        if not directory.resolve().is_relative_to(source.resolve()):
            if siblings and directory.resolve().parent == source.resolve().parent:
                continue
            raise ConfigurationError(f"{directory}: a part outside the model {source} cannot be shipped with it")
        inside = directory.resolve().relative_to(source.resolve())
        (staging / inside).mkdir(parents=True, exist_ok=True)
        config = json.loads((directory / CONFIG).read_text(encoding="utf-8"))
        for name in [config.get(key) for key in MODEL_FILE_KEYS]:
            if name:
                shutil.copy2(directory / name, staging / inside / name)
        for name in (CONFIG, CARD):
            if (directory / name).is_file():
                text = portable((directory / name).read_text(encoding="utf-8"), roots, directory)
                (staging / inside / name).write_text(text, encoding="utf-8")
    return staging


def portable(text: str, roots: dict[Path, str], directory: Path) -> str:
    """``text`` with each absolute path written as it reads from the model (a file of the model relative to
    ``directory``, a treebank's file as ``TREEBANK/FILE``, anything else by its name alone)."""

    def rewritten(match: re.Match) -> str:
        lead = match.group(1)
        path = Path(match.group(0)[len(lead) :])
        for root, prefix in roots.items():
            if path.is_relative_to(root):
                inside = path.relative_to(root)
                if prefix == "" and path.is_relative_to(directory):
                    inside = path.relative_to(directory)
                return lead + (prefix + inside.as_posix() if inside.parts else prefix.rstrip("/") or ".")
        return lead + path.name

    return ABSOLUTE_PATH.sub(rewritten, text)


def replace_directory(staging: Path, target: Path) -> None:
    """``staging`` renamed to ``target``, the old one removed only once the new one is complete."""
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def write_results(path: Path, rows: list[dict]) -> None:
    """``models/results.json``: the shipped rows in place of those of the same model (others kept, in order)."""

    def key(row: dict) -> tuple:
        return row["treebank"], row["setting"], row["seed"]

    committed = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    new = {key(row): row for row in rows}
    merged = [new.pop(key(row), row) for row in committed] + list(new.values())
    text = json.dumps(merged, indent=1, ensure_ascii=False) + "\n"
    atomic_write(path, lambda handle: handle.write(text.encode("utf-8")))
