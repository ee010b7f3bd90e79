"""What a stack-LSTM parser is built and trained with: its defaults in one place, free of DyNet.

The command line reads these defaults for ``lstmparse train --help`` before DyNet is
configured, so this module must not import DyNet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from lstmparse.core.options import RunOptions, common_values, given_fields
from lstmparse.layers import CHAR_LSTM_SIZE

FEATURES = ("words", "pretrained", "pos", "feats", "chars", "encoder")
DEFAULT_FEATURES = ("words", "pos", "chars")
BY_DATA = 0  # a batch size or learning rate left to the rules below (batch_size_for, default_learning_rate)
LARGEST_BATCH = 16  # sentences per update, parsed in lock-step, on large training sets (docs/model.md)
SENTENCES_PER_BATCH_ROW = 500  # batch_size_for: a batch of b wants at least b x this many training sentences
BATCHING = {  # --batching: how a minibatch's loss is computed (both give the same loss and gradients)
    "lockstep": "the minibatch's sentences parsed together, each step one batched operation",
    "autobatch": "one graph per sentence, summed, batched by DyNet's autobatching",
}


@dataclass
class StackLSTMDimensions:
    """Sizes of the network's layers; defaults follow section 6.1 of the papers."""

    word: int = 32  # learned word embedding
    pos: int = 12  # UPOS embedding
    feats: int = 12  # morphological feature embedding
    char_embedding: int = 32  # one character
    chars: int = CHAR_LSTM_SIZE  # character bi-LSTM output (half per direction)
    token: int = 100  # token vector x, the input of the stack and buffer LSTMs
    lstm: int = 100  # hidden size of the stack, buffer and action LSTMs
    layers: int = 2  # layers of each stack LSTM
    composition_action: int = 16  # relation/action embedding r in the composition function
    action_history: int = 20  # action embedding fed to the action-history LSTM
    state: int = 20  # parser state p_t
    context_layers: int = 0  # bi-LSTM layers over the token vectors (0 = the papers' model)
    joint_upos: bool = False  # the context layers' output also predicts UPOS (stack/joint_tags.py; not in the papers)
    encoder: str = ""  # with the encoder feature: the pretrained encoder's spec (layers/encoders), "": its default


@dataclass
class StackLSTMOptions(RunOptions):
    """How to train a stack-LSTM parser; the defaults are the papers' (section 6.1) and the CLI's."""

    DYNET_MEMORY_MB: ClassVar[int] = 512
    WEIGHT_DECAY: ClassVar[float] = 1e-6  # L2, as DyNet applies it
    ADAM_LEARNING_RATE: ClassVar[float] = 0.002  # --optimizer adam without --learning-rate

    features: Sequence[str] = DEFAULT_FEATURES
    system: str = "arc-standard"
    oracle: str = "static"  # or "dynamic" (systems that have one): training with exploration
    alpha: float = 0.75  # exploration samples from p(a)^alpha
    explore_p: float = 0.9  # probability of following a sampled action once exploring
    explore_after: int = 1  # epochs of oracle-following before exploration starts
    pseudo_projective: bool = False
    batch_size: int = BY_DATA  # sentences per update; BY_DATA: batch_size_for(the training set's size)
    batching: str = "lockstep"  # or "autobatch": one graph per sentence, summed, DyNet's autobatching
    optimizer: str = "sgd"  # or "adam"
    length_batches: bool = False  # minibatches of sentences of similar length (in a random order)
    learning_rate: float = BY_DATA  # BY_DATA: default_learning_rate(optimizer, batch_size)
    decay: float = 0.1
    dropout: float = 0.2  # not in the papers: lock-step batches overfit without it (docs/model.md)
    pretrained: str | None = None
    input_format: str = "conllu"
    dims: StackLSTMDimensions = field(default_factory=StackLSTMDimensions)
    resume: bool = False  # continue from the model directory's last checkpoint

    @classmethod
    def from_command_line(cls, given: dict) -> StackLSTMOptions:
        values = common_values(given) | given_fields(given, "oracle", "alpha", "explore_p", "explore_after")
        values |= given_fields(given, "pretrained", "pseudo_projective", "input_format", "resume", "system")
        values |= given_fields(given, "batching", "optimizer", "length_batches")
        if "features" in given:
            values["features"] = parse_features(given["features"])
        dims = {name: given[name] for name in ("context_layers", "joint_upos", "encoder") if name in given}
        if "encoder" in values.get("features", ()) or dims.get("encoder"):
            from lstmparse.layers.encoders import DEFAULT_ENCODER, canonical_spec

            dims["encoder"] = canonical_spec(dims.get("encoder") or DEFAULT_ENCODER)
        if dims:
            values["dims"] = StackLSTMDimensions(**dims)
        return cls(**values)

    def __post_init__(self) -> None:
        if self.learning_rate == BY_DATA and self.batch_size != BY_DATA:
            self.learning_rate = default_learning_rate(self.optimizer, self.batch_size)

    def for_training_set(self, sentences: int) -> StackLSTMOptions:
        """These options with the batch size (and so the learning rate) a training set of ``sentences`` calls for,
        unless they were given."""
        if self.batch_size != BY_DATA:
            return self
        return replace(self, batch_size=batch_size_for(sentences))


def batch_size_for(sentences: int) -> int:
    """The default minibatch for a training set: the largest power of two up to 16 that leaves
    :data:`SENTENCES_PER_BATCH_ROW` sentences per batch row, 1 for small sets.

    Lock-step batches of 16 train fastest on EWT's 12,544 sentences, but a small set
    makes few updates per epoch with them: on Tamil's 400 sentences one sentence at a
    time reached a better dev LAS in 3 minutes than batches of 16 in 200 epochs
    (docs/model.md has the measurements behind the rule).
    """
    size = 1
    while size < LARGEST_BATCH and sentences >= 2 * size * SENTENCES_PER_BATCH_ROW:
        size *= 2
    return size


def default_learning_rate(optimizer: str, batch_size: int) -> float:
    """The learning rate that fits the update rule and the batch (measured on EWT, docs/model.md).

    SGD: the papers' 0.1 up to batches of 8 (the loss of a batch is summed), then
    0.1 x sqrt(8 / batch size), rounded: 0.07 at 16, 0.05 at 32 (0.1 at 32 diverged).
    Adam: 0.002.
    """
    if optimizer == "adam":
        return StackLSTMOptions.ADAM_LEARNING_RATE
    return round(0.1 * min(1.0, (8 / batch_size) ** 0.5), 2)


LEARNING_RATE_HELP = "SGD 0.1 up to batch 8, then 0.1 x sqrt(8 / batch size) (0.07 at 16); Adam 0.002"
BATCH_SIZE_HELP = (
    f"by the training set: the largest power of two up to {LARGEST_BATCH} with {SENTENCES_PER_BATCH_ROW} "
    "training sentences per batch row (1 below 1,000 sentences, 16 from 8,000)"
)


def parse_features(value: str) -> list[str]:
    """The features of a ``--features`` value ('words,pos,chars'); unknown or none is a ConfigurationError."""
    from lstmparse.errors import ConfigurationError

    features = [f.strip() for f in value.split(",") if f.strip()]
    unknown = [f for f in features if f not in FEATURES]
    if unknown or not features:
        raise ConfigurationError(f"unknown features {unknown}; choose from {','.join(FEATURES)}")
    return features
