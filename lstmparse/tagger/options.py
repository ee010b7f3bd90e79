"""What the tagger is built and trained with: its defaults in one place, free of DyNet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from lstmparse.core.options import RunOptions, common_values, given_fields
from lstmparse.layers import CHAR_LSTM_SIZE

COLUMNS = ("upos", "xpos", "feats")  # the tag columns the tagger predicts, in CoNLL-U order
LEMMA = "lemma"  # predicted too when the training data has lemmas (as edit scripts: tagger/lemmas.py)


@dataclass
class TaggerDimensions:
    word: int = 100  # learned word embedding
    char_embedding: int = 32
    chars: int = CHAR_LSTM_SIZE  # character bi-LSTM output (half per direction)
    hidden: int = 200  # sentence bi-LSTM output (half per direction)
    layers: int = 2
    pretrained: int = 0  # width of the fixed pretrained vectors (0: none)
    lemmas: bool = False  # a lemma output (set when the training data has lemmas)
    factored_feats: bool = False  # one output per feature besides the whole string's (tagger/features.py)
    lemma_feats: int = 0  # width of the predicted FEATS string's embedding the lemma layer reads (0: none)
    encoder: str = ""  # the pretrained encoder whose word vectors in context it reads (layers/encoders), "": none


@dataclass
class TaggerOptions(RunOptions):
    """How to train the tagger: Adam on sentences batched by length, dropout on the bi-LSTM's inputs."""

    DYNET_MEMORY_MB: ClassVar[int] = 512

    batch_size: int = 32
    learning_rate: float = 0.002  # Adam's alpha
    dropout: float = 0.33
    epochs: int = 40  # EWT dev UPOS 94.47 after 14 epochs, 94.99 at 32 of 40 (docs/experiments/tagger-ensembles.md)
    pretrained: str | None = None
    factored_feats: bool = True  # one output per feature where the training data has features (tagger/features.py)
    dims: TaggerDimensions = field(default_factory=TaggerDimensions)

    @classmethod
    def from_command_line(cls, given: dict) -> TaggerOptions:
        dims = TaggerDimensions(**given_fields(given, "layers", "hidden", "lemma_feats"))
        if given.get("encoder"):
            from lstmparse.layers.encoders import canonical_spec

            dims.encoder = canonical_spec(given["encoder"])
        if "char_size" in given:
            dims.chars = given["char_size"]
        return cls(**(common_values(given) | given_fields(given, "pretrained", "factored_feats")), dims=dims)
