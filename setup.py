"""The shipped models install beside the package, under ``<prefix>/share/lstmparse/models``.

They live at the checkout's top level (``models/``), outside the package, so that
``pip install .`` copies them as data files; :mod:`lstmparse.core.model_io` finds them
there, in a checkout, or where ``LSTMPARSE_MODELS`` points.
"""

from pathlib import Path

from setuptools import setup

MODELS = Path(__file__).resolve().parent / "models"


def model_files() -> list[tuple[str, list[str]]]:
    """Every model directory's files, nested ones (a pipeline's parts) included, at the same relative places."""
    directories = sorted(d for d in MODELS.rglob("*") if d.is_dir())
    return [
        (
            f"share/lstmparse/models/{directory.relative_to(MODELS)}",
            [str(f.relative_to(MODELS.parent)) for f in sorted(directory.iterdir()) if f.is_file()],
        )
        for directory in directories
        if any(f.is_file() for f in directory.iterdir())
    ]


setup(data_files=model_files())
