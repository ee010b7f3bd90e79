"""``models/README.md``: the catalogue of the shipped models, made from their cards, recipes and results.

One table of every model, the languages table (raw-text test LAS beside UDPipe 1 trained
on the same data and the published figures of other toolkits), then each model: what it
is, its figures, the choices made on dev, its recipe and the command that remakes it.
Nothing in it is written by hand, so it cannot drift from the models.
"""

from __future__ import annotations

import json
from pathlib import Path

from lstmparse.app.catalog import model_info
from lstmparse.app.recipes import Recipe, data_folder, read_recipe
from lstmparse.app.release.shipping import RESULTS
from lstmparse.app.release.tables import languages_block, published, side_by_side
from lstmparse.core.model_io import CONFIG

HEADER = """# Models

Every model here has its recipe (`NAME/recipe.toml`, schema in `docs/recipes.md`); the language
pipelines are remade together by `lstmparse farm models/remake.toml --work-dir runs/remake`, then
shipped with `lstmparse release ship runs/remake`, and each other model is remade and shipped by
`lstmparse release make NAME --work-dir runs/make`; both write this page
(`lstmparse release catalogue`): change a recipe or the code and remake, never this page or a card.
Use a model by name (`lstmparse parse --model hu_szeged_pipeline`, `lstmparse.load("hu")`);
`lstmparse models NAME` shows its card."""
MEASURES = ("LAS", "UAS", "UPOS", "UFeats", "Lemmas", "Words", "F1", "Perplexity")


def catalogue(models_dir: Path) -> str:
    """The page, from what ``models_dir`` holds."""
    directories = sorted(path.parent for path in models_dir.glob(f"*/{CONFIG}"))
    rows = results_rows(models_dir)
    lines = [HEADER, "", "## Every model", "", *overview(directories)]
    if rows:
        others = "; ".join(
            f"{entry['name']}: {entry['ud']}, reading {entry['reads']}" for entry in published().values()
        )
        lines += [
            "",
            "## Languages: raw text to trees, test set (CoNLL 2018 scorer)",
            "",
            "UDPipe 1 was trained here on the same files with its default options. The published figures are the",
            f"toolkits' own, on their UD releases' test sets, which differ a little from the shared data's ({others}).",
            "",
            languages_block(rows),
        ]
    for directory in directories:
        lines += ["", *model_section(directory)]
    return "\n".join(lines) + "\n"


README_START = "<!-- languages: written by lstmparse release catalogue from models/results.json -->"
README_END = "<!-- end of languages -->"
RESULTS_START = "<!-- languages, every measure: written by lstmparse release catalogue from models/results.json -->"
RESULTS_END = "<!-- end of every measure -->"


def with_languages_table(readme: str, models_dir: Path) -> str:
    """The project's README with its languages table (between :data:`README_START` and :data:`README_END`) made
    from ``models_dir``'s results, as the catalogue's; a README without the markers is returned as it is."""
    return with_block(readme, README_START, README_END, languages_block(results_rows(models_dir)))


def with_every_measure(results_page: str, models_dir: Path) -> str:
    """``bench/RESULTS.md`` with every CoNLL 2018 measure of the shipped pipelines and UDPipe 1 from raw text
    (between :data:`RESULTS_START` and :data:`RESULTS_END`), from the same results as the languages table."""
    rows = results_rows(models_dir)
    block = side_by_side(rows, "raw") if rows else "No pipeline has been remade by the farm yet."
    return with_block(results_page, RESULTS_START, RESULTS_END, block)


def with_block(text: str, start_marker: str, end_marker: str, block: str) -> str:
    """``text`` with what lies between its two markers replaced by ``block``; without the markers, ``text``."""
    start, end = text.find(start_marker), text.find(end_marker)
    if start < 0 or end < start:
        return text
    return f"{text[:start]}{start_marker}\n{block}\n{text[end:]}"


PAGES_WITH_TABLES = {"README.md": with_languages_table, "bench/RESULTS.md": with_every_measure}
"""The project's pages (from the root, the folder above ``models/``) with blocks written from the results."""


def results_rows(models_dir: Path) -> list[dict]:
    """The shipped models' farm results (``models/results.json``), none if there are none yet."""
    path = models_dir / RESULTS
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


def overview(directories: list[Path]) -> list[str]:
    """A row per model: language, task, size, figures, licence."""
    lines = ["| model | language | task | MB | figures | licence |", "|---|---|---|--:|---|---|"]
    for directory in directories:
        info = model_info(directory)
        lines.append(
            f"| `{info.name}` | {info.language} | {info.task} | {info.size_mb:.0f} | {info.figures or '—'} | "
            f"{info.licence or '—'} |"
        )
    return lines


def model_section(directory: Path) -> list[str]:
    """One model in a few lines: what it is, where it comes from, its test figures, what dev chose, its recipe
    (``lstmparse models NAME`` shows the whole card)."""
    info = model_info(directory)
    card = info.card
    made = (
        f"lstmparse {card['lstmparse_version']}, seed {card['seed']}, from its recipe"
        if "lstmparse_version" in card
        else "commands of an earlier version, before its recipe (the recipe remakes it)"
    )
    facts = [
        " ".join(str(card[key]) for key in ("treebank", "treebank_version") if card.get(key)),
        info.licence,
        made,
        f"{card['cpu_minutes']:.0f} CPU-minutes" if card.get("cpu_minutes") else "",
        "epochs " + ", ".join(f"{part} {n}" for part, n in card["epochs"].items()) if card.get("epochs") else "",
    ]
    lines = [f"### `{info.name}`", "", card.get("description") or info.task, "", "; ".join(f for f in facts if f) + "."]
    figures = test_figures(card)
    if figures:
        lines += ["", figures]
    if card.get("choices"):
        chosen = "; ".join(str(choice).split(" (")[0].split(": ")[0] for choice in card["choices"])
        lines += ["", f"Chosen on dev: {chosen}."]
    recipe_file = directory / "recipe.toml"
    if recipe_file.is_file():
        recipe = read_recipe(recipe_file)
        lines += ["", f"Recipe (`{info.name}/recipe.toml`): {recipe_summary(recipe)}."]
        if recipe.treebank:
            lines[-1] += (
                f" Remake: `lstmparse train --recipe models/{info.name}/recipe.toml "
                f"--treebank ../shared/data/{data_folder(recipe)} --model-dir M`"
            )
            lines[-1] += "." if recipe.arch == "pipeline" else f" (and ship: `lstmparse release make {info.name}`)."
    return lines


def recipe_summary(recipe: Recipe) -> str:
    """A recipe's options in a line: ``[train]``'s, its parts' and its narrowed choices, then each later stage's, or
    an ensemble's members."""
    if recipe.ensemble is not None:
        members = [f"`{model}`" for model in recipe.ensemble.models]
        members += [f"seed {seed}" for seed in recipe.ensemble.seeds]
        return f"the ensemble of {', '.join(members)}, made by `{recipe.ensemble.recipe.parent.name}/recipe.toml`"
    text = ", ".join(f"{key} {toml_value(value)}" for key, value in recipe.options.items())
    for part, options in recipe.parts.items():
        text += f"; {part}: " + ", ".join(f"{key} {toml_value(value)}" for key, value in options.items())
    for name, values in recipe.choices.items():
        text += f"; {name} narrowed to " + ", ".join(f"{value:g}" for value in values)
    for stage in recipe.stages:
        text += "; then " + ", ".join(f"{key} {toml_value(value)}" for key, value in stage.items())
    return text


def toml_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_figures(card: dict) -> str:
    """The card's test figures in one line: from raw text, from gold tokens, UDPipe 1's from raw text."""
    parts = []
    for who, figures, source in (
        ("raw text", card, "raw"),
        ("gold tokens", card, "tokens"),
        ("gold trees" if "Perplexity" in card.get("test", {}).get("trees", {}) else "brackets", card, "trees"),
        ("UDPipe 1 raw text", card.get("udpipe1") or {}, "raw"),
    ):
        scores = figures.get("test", {}).get(source, {})
        if scores:
            parts.append(f"{who}: " + ", ".join(f"{m} {scores[m]:.2f}" for m in MEASURES if m in scores))
    return "Test, " + "; ".join(parts) + "." if parts else ""
