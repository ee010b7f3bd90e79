"""A DyNet ``BiRNNBuilder`` run over several sentences at once, each output exactly its sentence's alone.

Running a bi-LSTM sentence by sentence gives DyNet a few matrix-vector products per
word and direction, and a lock-step training batch of 32 sentences then spends most
of its time in those small operations.  Here the sentences of a batch are read
together, one batched LSTM step per position: each reading direction holds the
sentences padded at its end (the forward reading after a sentence's last word, the
backward reading after its first), so no padding is ever read before a real word
and every real output equals the one-sentence output.  Between layers each word's
forward and backward outputs are gathered back together with one pick per direction.
"""

from __future__ import annotations

from collections.abc import Sequence

import dynet as dy


def transduce_sentences(birnn: dy.BiRNNBuilder, words: dy.Expression, lengths: Sequence[int]) -> dy.Expression:
    """The bi-LSTM's output for every word of the sentences, one batch element per word, in ``words``' order.

    ``words`` is one batched expression holding the sentences' words one sentence
    after another (``lengths`` words each); every length is at least 1.  The
    builder's dropout setting applies (masks of its own for every batch element).
    """
    starts = [0]
    for length in lengths[:-1]:
        starts.append(starts[-1] + length)
    longest = max(lengths)
    forward_rows = [[start + min(t, n - 1) for start, n in zip(starts, lengths, strict=True)] for t in range(longest)]
    backward_rows = [
        [start + max(n - 1 - t, 0) for start, n in zip(starts, lengths, strict=True)] for t in range(longest)
    ]
    batch = len(lengths)
    forward_place = [t * batch + b for b, n in enumerate(lengths) for t in range(n)]
    backward_place = [(n - 1 - t) * batch + b for b, n in enumerate(lengths) for t in range(n)]
    for forward_builder, backward_builder in birnn.builder_layers:
        forward = _read(forward_builder, words, forward_rows)
        backward = _read(backward_builder, words, backward_rows)
        words = dy.concatenate(
            [dy.pick_batch_elems(forward, forward_place), dy.pick_batch_elems(backward, backward_place)]
        )
    return words


def _read(builder, words: dy.Expression, rows: list[list[int]]) -> dy.Expression:
    """One direction: step t reads ``words`` elements ``rows[t]``; all outputs, element t * batch + b."""
    outputs = builder.initial_state().transduce([dy.pick_batch_elems(words, step) for step in rows])
    return dy.concatenate_to_batch(outputs)
