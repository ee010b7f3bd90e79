"""A shipped model's card: one schema for every model, what ``lstmparse models NAME`` shows.

A card says what a user needs to choose and trust a model: its language and the
treebank (and the treebank's upstream version and licence) it was made from, the
recipe that makes it again, the lstmparse version and seed, what training cost
(CPU-minutes) and how far each part got (epochs: a time budget stops at a
machine-dependent epoch, so a remake can ask for exactly those), the choices made on
dev, and the figures from raw text and from gold tokens, UDPipe 1 beside where
measured.  It names no path of the machine that made it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from lstmparse.core.model_io import CONFIG

REQUIRED = ("name", "language", "task", "treebank", "licence", "recipe", "lstmparse_version", "seed", "figures")
OPTIONAL = (
    "treebank_version",
    "cpu_minutes",
    "wall_minutes",
    "epochs",
    "choices",
    "dev",
    "test",
    "udpipe1",
    "speed",
    "notes",
    "description",
)
KEYS = REQUIRED + OPTIONAL
FIGURE_MEASURES = ("Words", "Sentences", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "MLAS", "BLEX")
ABSOLUTE_PATH = re.compile(r"(^|[\s'\"(=])/(?:[\w.+-]+/)+[\w.+-]*")


def treebank_version(folder: Path) -> str | None:
    """The upstream repository, commit and date a shared treebank's ``VERSION`` file records (``UD_Tamil-TTB
    afe55e0c8e 2025-11-11``): its first word is the commit, then a git-style timestamp and the repository's name."""
    from datetime import datetime

    path = folder / "VERSION"
    if not path.is_file():
        return None
    words = path.read_text(encoding="utf-8").split()
    if not words:
        return None
    try:
        day = datetime.strptime(" ".join(words[1:7]), "%a %b %d %H:%M:%S %Y %z").date().isoformat()
    except ValueError:
        return " ".join([words[0][:10], *words[1:]])
    return " ".join([*words[7:], words[0][:10], day])  # the repository, where the file names it


def epochs_reached(model_dir: Path) -> dict[str, int]:
    """How many epochs each trained part of a model ran (a pipeline's parts, an ensemble's members, the fold
    taggers whose tags its parser was trained on), by directory: what ``train --epochs-of`` remakes it with."""
    from lstmparse.pipeline.folds import JACKKNIFE_DIRECTORY, fold_epochs
    from lstmparse.pipeline.manifest import component_directories

    reached = {f"{JACKKNIFE_DIRECTORY}/{fold}": count for fold, count in fold_epochs(model_dir).items()}
    for directory in component_directories(model_dir):
        config = json.loads((directory / CONFIG).read_text(encoding="utf-8"))
        epochs = config.get("training", {}).get("epochs", [])
        if epochs:
            inside = os.path.relpath(directory.resolve(), Path(model_dir).resolve())  # ../NAME: a model beside it
            reached[Path(inside).as_posix()] = len(epochs)
    return dict(sorted(reached.items()))


def figures_line(test: dict, udpipe1: dict | None) -> str:
    """The card's one line of figures (``lstmparse models``): test LAS, UPOS, Lemmas from raw text."""
    raw = test.get("raw", {})
    parts = [f"{name} {raw[name]:.2f}" for name in ("LAS", "UPOS", "Lemmas") if name in raw]
    line = "test from raw text: " + ", ".join(parts) if parts else ""
    reference = (udpipe1 or {}).get("test", {}).get("raw", {})
    if "LAS" in reference and "LAS" in raw:
        line += f" (UDPipe 1, same data: LAS {reference['LAS']:.2f})"
    return line


def only_measures(figures: dict) -> dict:
    """A split's figures (``{"raw": {...}, "tokens": {...}}``) cut to the measures a card shows."""
    return {
        source: {name: value for name, value in scores.items() if name in FIGURE_MEASURES}
        for source, scores in figures.items()
    }


def problems(card: dict) -> list[str]:
    """What keeps a card from the schema: a missing or unknown key, a path of the machine that made it."""
    found = [f"missing {key}" for key in REQUIRED if key not in card]
    found += [f"unknown key {key}" for key in card if key not in KEYS]
    text = json.dumps(card, ensure_ascii=False)
    found += [f"an absolute path: {match.group(0).strip()}" for match in ABSOLUTE_PATH.finditer(text)]
    return found
