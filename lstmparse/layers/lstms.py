"""Which DyNet builder runs a model's vanilla LSTM layers: the one it trains with, or the fused one it parses with.

DyNet's ``VanillaLSTMBuilder`` makes a step of each layer out of about fifteen
operations (an affine transform, four slices, three sigmoids, the forget gate's +1,
two tanh, three products and a sum), and a graph keeps each one's values until it
is renewed: 18 numbers per hidden unit, for every step of every layer.  Its twin
``CompactVanillaLSTMBuilder`` computes the same LSTM (same parameters in the same
order, forget-gate bias 1, the same dropout masks) in three fused operations,
keeping 6.  Graphs that read characters (the tokenizer, the character bi-LSTMs)
or whole windows of words are most of a parsing process's memory, so a model
loaded to parse runs the fused builder.

The fused gates add the forget gate's 1 to the bias before the products rather
than after, so values differ in the last float digits (a test bounds them at 1e-5
relative).  Training keeps the builder every shipped model was trained with, so a
run with the same seed trains the same model as before.  Every shipped model's
tokens, tags, lemmas and trees on its test set are the same either way
(``bench/memory.py --outputs``; bench/RESULTS.md); a beam's printed scores
(``# parser_score``, four decimals) can move in their last digit, as they already
do with the batch size.
"""

from __future__ import annotations

import dynet as dy


def vanilla_lstm(fused: bool) -> type:
    """DyNet's ``VanillaLSTMBuilder`` (training), or with ``fused`` its ``CompactVanillaLSTMBuilder`` (parsing)."""
    return dy.CompactVanillaLSTMBuilder if fused else dy.VanillaLSTMBuilder


def parses_fused(format_version: int) -> bool:
    """Whether a model read from a file of this format parses with the fused builder: a format 1 file names its
    parameters as DyNet's training builder does, so it is read with that one."""
    return format_version >= 2
