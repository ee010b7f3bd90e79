"""What every family's training run has: the fields the shared training loop reads (free of DyNet).

Each family's options dataclass extends :class:`RunOptions` with its own fields and
its own defaults (a family may redeclare a field to change its default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

COMMON_FIELDS: tuple[str, ...] = ("model_dir", "epochs", "max_minutes", "keep_epochs", "average_best", "batch_size")
COMMON_FIELDS += ("learning_rate", "dropout", "seed")
RENAMED = {"train_file": "train", "dev_file": "dev"}  # ``train``'s option names that differ from the fields'


def common_values(given: dict) -> dict:
    """The options every family has, from ``train``'s options as given (by their click names), under field names."""
    return {RENAMED.get(name, name): value for name, value in given.items() if name in COMMON_FIELDS or name in RENAMED}


def given_fields(given: dict, *names: str) -> dict:
    """Those of ``names`` that the command line gave."""
    return {name: given[name] for name in names if name in given}


@dataclass
class RunOptions:
    """The data, schedule and budget of a training run; every family's options extend it."""

    DYNET_MEMORY_MB: ClassVar[int] = 512  # DyNet's memory pool for training (autobatching preallocates)
    WEIGHT_DECAY: ClassVar[float] = 0.0  # L2, as DyNet applies it (configured before DyNet loads)

    train: str
    model_dir: str
    dev: str | None = None
    epochs: int = 30
    max_minutes: float | None = None  # wall-clock budget, dev evaluation included
    keep_epochs: bool = False  # also save every epoch's model under model_dir/epochs/N (for averaging)
    average_best: int = 0  # then the model is the mean of the N kept epochs that scored best (0: the best epoch's)
    batch_size: int = 1  # sentences per update
    learning_rate: float = 0.1
    dropout: float = 0.0
    clip: float = 5.0  # gradient-norm limit
    seed: int | None = 1

    @classmethod
    def from_command_line(cls, given: dict) -> RunOptions:
        """The options of a ``train`` run from the options the user gave (click's names; the rest default).

        Each family's class reads its own options here, so the command line holds no family's knowledge.
        """
        return cls(**common_values(given))
