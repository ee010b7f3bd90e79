"""What the seq2seq constituency parser is built and trained with: its defaults in one place, free of DyNet."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from lstmparse.core.options import RunOptions, common_values, given_fields
from lstmparse.layers import CHAR_LSTM_SIZE, char_vector_width


@dataclass
class Seq2SeqDimensions:
    word: int = 256
    hidden: int = 256
    layers: int = 3
    attention: int = 256
    target: int = 64  # embeddings of the output tokens fed back to the decoder
    pretrained: int = 0
    # Extensions beyond the paper, off by default (its model):
    bidirectional: bool = False  # a forward LSTM too; each word's memory is both LSTMs' outputs
    word_pointer: bool = False  # feed the memory of the next word to place (after the XX emitted so far)
    chars: int = 0  # a character bi-LSTM of this output size in each word's vector (0: none)
    char_embedding: int = 32

    @property
    def word_input(self) -> int:
        """Size of a word's vector, the encoder's input."""
        return self.word + self.pretrained + char_vector_width(self.chars)

    @property
    def memory(self) -> int:
        """Size of the encoder's output per word, which attention and the word pointer read."""
        return self.hidden * (2 if self.bidirectional else 1)


@dataclass
class Seq2SeqOptions(RunOptions):
    """How to train the seq2seq parser (Vinyals et al. 2015, section 3); the CLI's defaults too."""

    DYNET_MEMORY_MB: ClassVar[int] = 2048

    batch_size: int = 16
    learning_rate: float = 0.002
    dropout: float = 0.2
    pretrained: str | None = None
    dims: Seq2SeqDimensions = field(default_factory=Seq2SeqDimensions)
    resume: bool = False  # continue from the model in model_dir (Adam's moments start afresh)

    @classmethod
    def from_command_line(cls, given: dict) -> Seq2SeqOptions:
        """``--hidden`` sizes the word vectors, LSTMs and attention alike."""
        default = Seq2SeqDimensions()
        hidden = given.get("hidden", default.hidden)
        dims = replace(
            default,
            word=hidden,
            hidden=hidden,
            attention=hidden,
            layers=given.get("layers", default.layers),
            bidirectional=given.get("bidirectional", False),
            word_pointer=given.get("word_pointer", False),
            chars=CHAR_LSTM_SIZE if given.get("char_lstm") else 0,
        )
        return cls(**(common_values(given) | given_fields(given, "pretrained", "resume")), dims=dims)
