"""A bi-LSTM read over several sentences at once gives each word the output it gets in its sentence alone."""

from __future__ import annotations

import dynet as dy
import numpy as np
import pytest

from lstmparse.layers.birnn import transduce_sentences


@pytest.mark.parametrize("layers", [1, 2])
def test_batched_reading_equals_dynets_own_transduce_per_sentence(layers):
    model = dy.ParameterCollection()
    birnn = dy.BiRNNBuilder(layers, 6, 8, model, dy.CoupledLSTMBuilder)
    lengths = [5, 1, 9, 3, 9]
    rng = np.random.default_rng(0)
    words = [rng.normal(size=6) for _ in range(sum(lengths))]
    dy.renew_cg()
    batched = transduce_sentences(birnn, dy.inputTensor(np.stack(words, axis=1), batched=True), lengths).npvalue()
    start = 0
    for length in lengths:
        dy.renew_cg()
        alone = birnn.transduce([dy.inputVector(w) for w in words[start : start + length]])
        for position, output in enumerate(alone):
            column = batched[:, start + position] if batched.ndim == 2 else batched
            np.testing.assert_allclose(column, output.npvalue(), rtol=0, atol=1e-6)
        start += length
