"""A character bi-LSTM word encoder (Ballesteros et al. 2015), shared by the model families."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import dynet as dy

from lstmparse.core.model_io import builder_parameters
from lstmparse.core.vocab import Vocabulary
from lstmparse.layers import char_vector_width
from lstmparse.layers.lstms import vanilla_lstm

CHARS_PER_END = 40  # the character LSTM reads at most this many characters from each end of a word


class CharacterLSTM:
    """A character bi-LSTM word encoder: the final forward and backward outputs.

    Shared by the stack-LSTM parser's token vectors and the seq2seq encoder, so
    that rare and unknown words still get a vector built from their spelling.
    """

    def __init__(
        self, model: dy.ParameterCollection, vocab: Vocabulary, char_dim: int, output_dim: int, fused: bool = False
    ) -> None:
        """``fused``: for a model loaded to parse, DyNet's fused LSTM operations (:mod:`lstmparse.layers.lstms`)."""
        # created in this order so that saved models keep their parameter names
        self.vocab = vocab
        self.embeddings = model.add_lookup_parameters((len(vocab), char_dim))
        builder = vanilla_lstm(fused)
        self.forward = builder(1, char_dim, output_dim // 2, model)
        self.backward = builder(1, char_dim, output_dim // 2, model)
        self.dim = char_vector_width(output_dim)

    def named_parameters(self, prefix: str) -> dict:
        """The character embeddings and both LSTMs' parameters, by name (model format 2)."""
        named = {f"{prefix}/embeddings": self.embeddings}
        return (
            named
            | builder_parameters(f"{prefix}/forward", self.forward)
            | builder_parameters(f"{prefix}/backward", self.backward)
        )

    def encode(self, forms: Sequence[str]) -> dy.Expression:
        """One batch element per form, in order: one batched LSTM run per distinct word length.

        A form that occurs several times is encoded once.  Only the first and last
        ``CHARS_PER_END`` characters of a longer form are read (:func:`spelling`).
        """
        forms = [spelling(form) for form in forms]
        distinct = list(dict.fromkeys(forms))
        by_length: dict[int, list[str]] = defaultdict(list)
        for form in distinct:
            by_length[len(form)].append(form)
        outputs, order = [], []
        for length, members in by_length.items():
            char_ids = [[self.vocab.get(c) for c in form] for form in members]
            columns = [dy.lookup_batch(self.embeddings, [ids[j] for ids in char_ids]) for j in range(length)]
            forward = self.forward.initial_state().transduce(columns)[-1]
            backward = self.backward.initial_state().transduce(columns[::-1])[-1]
            outputs.append(dy.concatenate([forward, backward]))
            order.extend(members)
        position = {form: k for k, form in enumerate(order)}
        return dy.pick_batch_elems(dy.concatenate_to_batch(outputs), [position[form] for form in forms])


def spelling(form: str) -> str:
    """What the character LSTM reads of a form: all of it, or its first and last ``CHARS_PER_END`` characters.

    The LSTM's graph grows with the word, so one 100,000-character token (a pasted
    blob) would take gigabytes; a word's ends carry its prefixes and suffixes.
    """
    return form if len(form) <= 2 * CHARS_PER_END else form[:CHARS_PER_END] + form[-CHARS_PER_END:]
