"""What every family's training run has: the fields the shared training loop reads (free of DyNet).

Each family's options dataclass extends :class:`RunOptions` with its own fields and
its own defaults (a family may redeclare a field to change its default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


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
    batch_size: int = 1  # sentences per update
    learning_rate: float = 0.1
    dropout: float = 0.0
    clip: float = 5.0  # gradient-norm limit
    seed: int | None = 1
