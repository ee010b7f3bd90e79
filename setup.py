"""The shipped models install beside the package, under ``<prefix>/share/lstmparse/models``.

They live at the checkout's top level (``models/``), outside the package, so that
``pip install .`` copies them as data files (the English ones: other languages are
installed as archives, ``lstmparse models --install``); :mod:`lstmparse.core.model_io` finds them
there, in a checkout, or where ``LSTMPARSE_MODELS`` points.
"""

import json
from pathlib import Path

from setuptools import setup

MODELS = Path(__file__).resolve().parent / "models"


def in_the_wheel(model: Path) -> bool:
    """English models ship with the package; the other languages install separately (``lstmparse models
    --install``), so the wheel stays small: a model's card names its language (no card: English). A folder
    with a recipe and no ``config.json`` is a model still to make, with nothing to install."""
    if not (model / "config.json").is_file():
        return False
    card = model / "card.json"
    language = json.loads(card.read_text(encoding="utf-8")).get("language") if card.is_file() else None
    return language in (None, "en")


def model_files() -> list[tuple[str, list[str]]]:
    """Every shipped model directory's files, nested ones (a pipeline's parts) included, at the same relative
    places."""
    models = [m for m in MODELS.iterdir() if m.is_dir() and in_the_wheel(m)]
    directories = sorted(d for m in models for d in (m, *m.rglob("*")) if d.is_dir())
    return [
        (
            f"share/lstmparse/models/{directory.relative_to(MODELS)}",
            [str(f.relative_to(MODELS.parent)) for f in sorted(directory.iterdir()) if f.is_file()],
        )
        for directory in directories
        if any(f.is_file() for f in directory.iterdir())
    ]


setup(data_files=model_files())
