"""A model directory's record: its ``config.json``, read once (DyNet-free; below the registry and the loaders).

The CLI, ``lstmparse.load``, the family registry and the loaders that dispatch on a
directory's kind (ensembles, pipelines, constituency models) take the record, so a
directory's record is read once on its way in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CONFIG = "config.json"
TRAINED = "trained.json"  # the training loop's mark of a run that ended (its epochs or its budget), not interrupted


@dataclass(frozen=True)
class ModelRecord:
    """A model directory with its ``config.json`` read once: the one way in for the CLI, ``lstmparse.load``,
    the family registry and the loaders that dispatch on a directory's kind (ensembles, pipelines).

    ``problem`` says why the file could not be read (``config`` is then empty); the
    loader that needs the fields reports it.
    """

    path: Path
    config: dict
    problem: str | None = None

    @property
    def arch(self) -> str:
        """The architecture (``stacklstm`` for models that predate the field, and where the file is unreadable)."""
        return self.config.get("arch", "stacklstm")


def read_record(directory: str | Path | ModelRecord) -> ModelRecord:
    """A directory's record (a record given is handed on as it is)."""
    if isinstance(directory, ModelRecord):
        return directory
    path = Path(directory)
    try:
        config = json.loads((path / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return ModelRecord(path, {}, str(error))
    return ModelRecord(path, config if isinstance(config, dict) else {})


def directory_of(source: str | Path | ModelRecord) -> Path:
    """The directory of a path or a record."""
    return source.path if isinstance(source, ModelRecord) else Path(source)


def mark_training(directory: str | Path, train: str | None, dev: str | None, ended: bool) -> None:
    """Mark a model directory's training as running (no mark: an interruption leaves none) or as ended, with the
    files it read; a pipeline's ``--resume`` reuses only parts whose training ended."""
    mark = Path(directory) / TRAINED
    if not ended:
        mark.unlink(missing_ok=True)
    elif mark.parent.is_dir():
        mark.write_text(json.dumps({"train": train, "dev": dev}) + "\n", encoding="utf-8")


def training_ended(directory: str | Path) -> bool:
    """Whether the training loop's run into ``directory`` ended rather than was interrupted."""
    return (Path(directory) / TRAINED).is_file()
