"""The shipped models install beside the package, under ``<prefix>/share/lstmparse/models``.

They live at the checkout's top level (``models/``), outside the package, so that
``pip install .`` copies them as data files; :mod:`lstmparse.model_io` finds them
there, in a checkout, or where ``LSTMPARSE_MODELS`` points.
"""

from pathlib import Path

from setuptools import setup

MODELS = Path(__file__).resolve().parent / "models"


def model_files() -> list[tuple[str, list[str]]]:
    return [
        (f"share/lstmparse/models/{model.name}", [f"models/{model.name}/{f.name}" for f in sorted(model.iterdir())])
        for model in sorted(MODELS.iterdir())
        if model.is_dir()
    ]


setup(data_files=model_files())
