"""DyNet layers shared by the model families (the modules import DyNet; this one does not)."""

from lstmparse.core.backend import configure_defaults

# Before any module of this package imports DyNet: the toolkit's settings, not DyNet's own (a 512 MB pool
# and a random seed), for a user who imports it directly (a configure() call before this one wins).
configure_defaults()

CHAR_LSTM_SIZE = 100  # the papers' character bi-LSTM output size, both directions


def char_vector_width(output_dim: int) -> int:
    """The character bi-LSTM vector's actual size: two directions of ``output_dim // 2`` each."""
    return 2 * (output_dim // 2)


def transduce(birnn, inputs: list, dropout: float) -> list:
    """A DyNet ``BiRNNBuilder``'s outputs over ``inputs``, with its dropout on (training) or off (``dropout`` 0).

    The builder keeps its dropout setting between graphs, so every run sets it.
    """
    if dropout:
        birnn.set_dropout(dropout)
    else:
        birnn.disable_dropout()
    return birnn.transduce(inputs)
