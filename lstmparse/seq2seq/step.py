"""One decoder step of one seq2seq model for many hypothesis slots at once (the search is in
:mod:`lstmparse.seq2seq.decoding`; the products that make a step cheap are explained there).

:class:`Member` holds a model's weights and encoded memory in the current graph and
each slot's decoder state; :meth:`Member.step` gives the next token's
log-probabilities for every slot.  The model is read through :class:`DecoderModel`,
the attributes of :class:`~lstmparse.seq2seq.model.Seq2SeqParser` the decoder uses,
so that the model can depend on its search and not the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import dynet as dy
import numpy as np

PADDING_SCORE = -1e30  # an attention score whose weight is exactly 0 after the softmax
FORGET_GATE_BIAS = 1.0  # VanillaLSTMBuilder's


class DecoderModel(Protocol):
    """What the decoder reads of a seq2seq model: sizes, parameters, the target vocabulary's token ids, encoding."""

    dims: Any
    decoder: Any  # the decoder's LSTM builder
    targets: Any  # the target vocabulary (``strings``, ``len``)
    target_embeddings: Any
    output_weights: Any
    output_bias: Any
    attention_decoder: Any
    attention_vector: Any
    leaf_id: int
    end_id: int
    open_ids: np.ndarray  # the ids of the opening tokens
    close_ids: dict[str, int]

    def set_dropout(self, rate: float) -> None: ...

    def encode(self, batch: Sequence[Sequence[str]]) -> Any: ...


class Slots(Protocol):
    """What a step reads of the search's slots: each slot's previous token, leaves placed, words and score."""

    previous: np.ndarray
    leaves: np.ndarray
    words: np.ndarray
    score: np.ndarray


class _Weights:
    """The decoder's parameters in the current graph, split by what each column block reads."""

    def __init__(self, parser: DecoderModel) -> None:
        dims = parser.dims
        (x1, h1, b1), *upper = [[p.expr() for p in layer] for layer in parser.decoder.get_parameters()]
        target, memory, hidden = dims.target, dims.memory, dims.hidden
        tokens = dy.concatenate_cols([parser.target_embeddings[i] for i in range(len(parser.targets))])
        self.token_gates = dy.colwise_add(_columns(x1, 0, target) * tokens, b1)  # per previous token, with the bias
        self.context_to_gates = _columns(x1, target, target + memory)
        self.pointed_to_gates = _columns(x1, target + memory, target + 2 * memory) if dims.word_pointer else None
        self.hidden_to_gates = h1
        self.upper_layers = upper  # (input weights, hidden weights, bias) of each layer above the first
        output = parser.output_weights.expr()
        self.hidden_to_output = _columns(output, 0, hidden)
        self.context_to_output = _columns(output, hidden, hidden + memory)
        self.pointed_to_output = _columns(output, hidden + memory, hidden + 2 * memory) if dims.word_pointer else None
        self.output_bias = parser.output_bias.expr()
        self.attention_decoder = parser.attention_decoder.expr()
        self.attention_vector = parser.attention_vector.expr()


def _columns(matrix: dy.Expression, start: int, end: int) -> dy.Expression:
    return dy.select_cols(matrix, list(range(start, end)))


@dataclass
class _Memory:
    """Per sentence (batched, padded to the batch's longest): what every step reads."""

    projected: dy.Expression  # attention's W1 times each encoder output
    context_terms: dy.Expression  # (gate rows + output rows) x words: the weights times each encoder output
    pointed_terms: dy.Expression | None  # the same for each pointable column (the words and past the last)
    padding: dy.Expression | None  # attention score offsets: 0 for words, PADDING_SCORE for padding
    final: list[dy.Expression]  # the encoder's last state, the decoder's first

    def gather(self, owners: list[int]) -> _Memory:
        """The memory of each hypothesis slot (by its sentence), as one batch.

        The context terms stay per sentence: a sentence's slots share them (see ``Member.step``).
        """
        pick = dy.pick_batch_elems
        return _Memory(
            pick(self.projected, owners),
            self.context_terms,
            pick(self.pointed_terms, owners) if self.pointed_terms is not None else None,
            pick(self.padding, owners) if self.padding is not None else None,
            [],  # the first state is read once, at the start (``Member.__init__``)
        )


class Member:
    """One model's share of a batch's search: its weights and memory in the graph, and each slot's decoder state."""

    def __init__(self, parser: DecoderModel, batch: Sequence[Sequence[str]], owners: list[int]) -> None:
        parser.set_dropout(0.0)
        self.parser = parser
        self.weights = _Weights(parser)
        self.memory = _encode(parser, self.weights, batch)
        self.read = self.memory.gather(owners)
        # every layer's cell, then every layer's hidden state (VanillaLSTMBuilder's order), per slot
        self.state = [dy.pick_batch_elems(start, owners) for start in self.memory.final]
        self.context_gates: dy.Expression | None = None
        self.sentence_terms = self.memory.context_terms

    def take(self, parents: np.ndarray) -> None:
        """Each slot's state becomes its parent slot's."""
        self.state, self.context_gates = _picked([*self.state, self.context_gates], parents)

    def compact(self, kept: np.ndarray, owners: np.ndarray, beam: int) -> None:
        """Only the slots ``kept`` stay (of sentences ``owners``, ``beam`` slots each)."""
        self.read = self.memory.gather(owners.tolist())
        self.sentence_terms = dy.pick_batch_elems(self.memory.context_terms, owners[::beam].tolist())
        self.take(kept)

    def step(self, slots: Slots, longest: int, beam: int) -> np.ndarray:
        """One decoder step for every slot: the (tokens x slots) log-probabilities of the next token.

        ``read`` holds each slot's memory, ``sentence_terms`` each live sentence's
        context terms: a sentence's ``beam`` slots share that matrix, so their
        attention weights are multiplied with it in one matrix product.
        """
        weights, parser, read = self.weights, self.parser, self.read
        gate_rows, targets = 4 * parser.dims.hidden, len(parser.targets)
        layers = len(self.state) // 2
        cells, hidden = list(self.state[:layers]), list(self.state[layers:])
        token_gates = dy.pick_batch(weights.token_gates, slots.previous.tolist(), dim=1)
        terms = [dy.affine_transform([token_gates, weights.hidden_to_gates, hidden[0]])]
        if self.context_gates is not None:
            terms.append(self.context_gates)
        pointed = None
        if read.pointed_terms is not None:
            pointed = dy.pick_batch(read.pointed_terms, np.minimum(slots.leaves, slots.words).tolist(), dim=1)
            terms.append(dy.pick_range(pointed, 0, gate_rows))
        cells[0], hidden[0] = _cell(dy.esum(terms) if len(terms) > 1 else terms[0], cells[0], parser.dims.hidden)
        for layer, (inputs, recurrent, bias) in enumerate(weights.upper_layers, start=1):
            gates = dy.vanilla_lstm_gates(hidden[layer - 1], hidden[layer], inputs, recurrent, bias)
            cells[layer] = dy.vanilla_lstm_c(cells[layer], gates)
            hidden[layer] = dy.vanilla_lstm_h(cells[layer], gates)
        output = hidden[-1]
        scores = weights.attention_vector * dy.tanh(dy.colwise_add(read.projected, weights.attention_decoder * output))
        scores = dy.transpose(scores)
        if read.padding is not None:
            scores = scores + read.padding
        weights_by_sentence = dy.reshape(dy.softmax(scores), (longest, beam), batch_size=len(slots.score) // beam)
        both = self.sentence_terms * weights_by_sentence
        both = dy.reshape(both, (gate_rows + targets,), batch_size=len(slots.score))
        outputs = [
            dy.affine_transform([weights.output_bias, weights.hidden_to_output, output]),
            dy.pick_range(both, gate_rows, gate_rows + targets),
        ]
        if pointed is not None:
            outputs.append(dy.pick_range(pointed, gate_rows, gate_rows + targets))
        self.state, self.context_gates = cells + hidden, dy.pick_range(both, 0, gate_rows)
        return dy.log_softmax(dy.esum(outputs)).npvalue().reshape(targets, -1)


def _picked(expressions: list[dy.Expression], slots: np.ndarray) -> tuple[list[dy.Expression], dy.Expression]:
    """The per-slot state expressions (cells and hidden states, then the context term) for ``slots``."""
    picked = [dy.pick_batch_elems(expression, slots.tolist()) for expression in expressions]
    return picked[:-1], picked[-1]


def _cell(gates: dy.Expression, cell: dy.Expression, hidden: int) -> tuple[dy.Expression, dy.Expression]:
    """VanillaLSTMBuilder's cell update from the gates' pre-activations (input, forget, output, candidate)."""
    input_gate = dy.logistic(dy.pick_range(gates, 0, hidden))
    forget_gate = dy.logistic(dy.pick_range(gates, hidden, 2 * hidden) + FORGET_GATE_BIAS)
    output_gate = dy.logistic(dy.pick_range(gates, 2 * hidden, 3 * hidden))
    candidate = dy.tanh(dy.pick_range(gates, 3 * hidden, 4 * hidden))
    cell = dy.cmult(forget_gate, cell) + dy.cmult(input_gate, candidate)
    return cell, dy.cmult(output_gate, dy.tanh(cell))


def _encode(parser: DecoderModel, weights: _Weights, batch: Sequence[Sequence[str]]) -> _Memory:
    """The batch's memory: all sentences encoded in one run (padded), then the products computed once."""
    encoded = parser.encode(batch)
    outputs = encoded.outputs
    context_terms = dy.concatenate([weights.context_to_gates * outputs, weights.context_to_output * outputs])
    pointed_terms = None
    if parser.dims.word_pointer:
        pointable = encoded.pointable
        pointed_terms = dy.concatenate([weights.pointed_to_gates * pointable, weights.pointed_to_output * pointable])
    lengths = [len(words) for words in batch]
    padding = _padding_offsets(lengths) if len(set(lengths)) > 1 else None
    return _Memory(encoded.projected, context_terms, pointed_terms, padding, encoded.final)


def _padding_offsets(lengths: Sequence[int]) -> dy.Expression:
    """Attention score offsets, one column per sentence: 0 at its words, ``PADDING_SCORE`` past them."""
    offsets = np.zeros((max(lengths), len(lengths)))
    for sentence, length in enumerate(lengths):
        offsets[length:, sentence] = PADDING_SCORE
    return dy.inputTensor(offsets, batched=True)
