"""What the tokenizer is built and trained with: its defaults in one place, free of DyNet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from lstmparse.core.options import RunOptions, common_values, given_fields


@dataclass
class TokenizerDimensions:
    char_embedding: int = 32
    hidden: int = 128  # the character bi-LSTM's output (half per direction)
    layers: int = 2
    window: int = 250  # characters labelled per window
    context: int = 25  # characters read on each side of a window, not labelled
    spaces_in_tokens: bool = False  # the treebank has tokens with spaces (Vietnamese): a space may be inside one
    shapes: bool = False  # each character reads whether it is in a URL, an e-mail address or neither (model.py);
    # models trained before that existed do not, so the field's default is theirs and training turns it on
    lexicon: bool = False  # with spaces_in_tokens, each character reads whether the training words of several
    # syllables cover it (lexicon.py); off by default for the same reason as shapes


@dataclass
class TokenizerOptions(RunOptions):
    """How to train the tokenizer: Adam on batches of character windows."""

    DYNET_MEMORY_MB: ClassVar[int] = 512

    batch_size: int = 32  # windows per update
    learning_rate: float = 0.002
    dropout: float = 0.1
    epochs: int = 20
    dims: TokenizerDimensions = field(default_factory=lambda: TokenizerDimensions(shapes=True, lexicon=True))

    @classmethod
    def from_command_line(cls, given: dict) -> TokenizerOptions:
        dims = TokenizerDimensions(shapes=True, lexicon=True, **given_fields(given, "layers", "hidden"))
        return cls(**common_values(given), dims=dims)
