"""What a TreeLSTM is built and trained with: its defaults in one place, free of DyNet."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from lstmparse.core.options import RunOptions, common_values, given_fields


@dataclass
class TreeLSTMDimensions:
    embedding: int = 200
    hidden: int = 200
    layers: int = 2
    left_hidden: int = 100  # the LdTreeLSTM's left-dependent reader
    classifier_hidden: int = 100  # the sampling classifiers


@dataclass
class TreeLSTMOptions(RunOptions):
    """How to train a TreeLSTM (Zhang, Lu & Lapata 2016, section 4); the CLI's defaults too."""

    DYNET_MEMORY_MB: ClassVar[int] = 1536  # autobatching needs its memory preallocated

    arch: str = "treelstm"
    objective: str = "nll"  # or "nce" for large vocabularies
    min_count: int = 1  # words seen at most this often become UNK
    batch_size: int = 32
    learning_rate: float = 1.0
    dropout: float = 0.2
    noise_samples: int = 20
    input_format: str = "conllu"
    dims: TreeLSTMDimensions = field(default_factory=TreeLSTMDimensions)

    @classmethod
    def from_command_line(cls, given: dict) -> TreeLSTMOptions:
        values = common_values(given) | given_fields(given, "arch", "objective", "min_count", "input_format")
        default = TreeLSTMDimensions()
        hidden = given.get("hidden", default.hidden)
        layers = given.get("layers", default.layers)
        return cls(**values, dims=replace(default, embedding=hidden, hidden=hidden, layers=layers))
