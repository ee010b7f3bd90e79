"""Many parses advanced in lock-step in one DyNet graph: the machinery decoding and training share.

One sentence per graph (:meth:`StackLSTMParser.parse`, :meth:`StackLSTMParser.oracle_loss`)
gives DyNet a few small matrix-vector products per transition, so the time goes into
per-operation overhead.  Here many parses (the sentences of a batch, the hypotheses of a
beam, or both) share one graph, and every stack-LSTM push, composition and scoring that
they need is computed for all of them at once as one DyNet matrix-matrix operation, with
DyNet's own builders and parameters.  :mod:`~lstmparse.stacklstm.decoding` searches with
it; :mod:`~lstmparse.stacklstm.batch_loss` trains with it.

DyNet's automatic batching cannot do this: a parser must read its scores after
every step, and each such forward pass re-batches the whole graph (quadratic in
the sentence).  So the batching is explicit, in one graph per batch of sentences
with autobatching off, where forward passes are incremental.  A value (a pushed
stack-LSTM state, a token vector, a composition) is a *slot*: one element of a
batched expression (:class:`Source`).  A batched operation gathers its inputs from wherever
they were computed with ``pick_batch_elems`` (one node per source expression, not
per parse) and ``concatenate_to_batch``; values never leave the graph, since
copying them through NumPy costs about 65 ns per number each way, more than the
arithmetic.  Stack pointers stay persistent (a pointer is a node with a link to
the one below), so beam hypotheses share their history.

Transitions create *pending* pushes and compositions; :func:`materialize` builds
the pending nodes that scoring needs in dependency waves, one batched operation per
stack LSTM (or the composition) and wave.  Decoding materializes before every step;
training with a static oracle knows every action in advance and materializes the
whole batch once, so each wave spans every step of every sentence.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Self, cast

import dynet as dy
import numpy as np

from lstmparse.io.formats import Token
from lstmparse.layers.stack_lstm import StackLSTM
from lstmparse.stacklstm.model import NeuralConfiguration, StackLSTMParser
from lstmparse.stacklstm.systems import Configuration


class Source:
    """The batched expressions of one operation (``size`` elements): where computed values live.

    A token vector or composition is one expression; a stack-LSTM state is the
    builder's list (c_1 ... c_L, h_1 ... h_L), all made by one batched operation.
    ``number`` orders operations as they were made, so that gathers can be ordered
    by source the same way in every run (by ``id`` they were not, and the batch
    order moves scores in their last bits).  A value is a *slot*, the pair
    (source, element index): a plain tuple, since a batch makes some 10^5 of them.
    """

    __slots__ = ("expressions", "size", "number")

    def __init__(self, expressions: list[dy.Expression], size: int) -> None:
        self.expressions, self.size, self.number = expressions, size, next(_numbers)


Slot = tuple[Source, int]
_numbers = itertools.count()


def _slots(expressions: list[dy.Expression], size: int) -> list[Slot]:
    """The ``size`` elements of the batched ``expressions`` of one new operation."""
    source = Source(expressions, size)
    return [(source, index) for index in range(size)]


def vector_value(vector: Vector) -> dy.Expression:
    """A computed vector (a token vector or a composition) as an expression of its own."""
    source, index = cast(Slot, vector.value)
    return dy.pick_batch_elem(source.expressions[0], index)


class Node:
    """A value built in a batched wave: a stack-LSTM state or a composed vector.

    ``value`` is its slot (:class:`Source`, index) once computed (None while pending); ``wave`` is
    set by :func:`materialize` while it is pending.  The subclasses set both in
    their own ``__init__``, without a call up: a batch makes some 10^5 nodes.
    """

    __slots__ = ("value", "wave")
    value: Slot | None
    wave: int | None

    def inputs(self) -> tuple[Node, ...]:
        return ()


class Vector(Node):
    """A token vector (known) or a composition c = tanh(U[h; m; r] + e) (pending)."""

    __slots__ = ("head", "dependent", "action")

    def __init__(self, value: Slot | None = None, head=None, dependent=None, action: int = -1) -> None:
        self.value, self.wave = value, None
        self.head, self.dependent, self.action = head, dependent, action

    def inputs(self) -> tuple[Node, ...]:
        return () if self.value is not None else (self.head, self.dependent)


class Pointer(Node):
    """A persistent stack-LSTM pointer; its value's expressions are the LSTM state (c..., h...)."""

    __slots__ = ("lstm", "below", "input", "depth")

    def __init__(
        self, lstm: StackLSTM, below: Pointer | None, input: Vector | None, depth: int, value: Slot | None = None
    ) -> None:
        self.value, self.wave = value, None
        self.lstm, self.below, self.input, self.depth = lstm, below, input, depth

    def inputs(self) -> tuple[Node, ...]:
        """A pending pointer's state below and vector pushed (only the empty stack has neither, and it is computed)."""
        return () if self.value is not None else cast(tuple[Node, Node], (self.below, self.input))

    def push(self, vector: Vector) -> Pointer:
        return Pointer(self.lstm, self, vector, self.depth + 1)

    def pop(self) -> Pointer:
        if self.below is None or self.depth == 0:
            raise IndexError("pop from an empty stack LSTM")
        return self.below


class LockstepConfiguration(NeuralConfiguration):
    """A configuration whose pushes and compositions are pending nodes, computed in waves.

    The stack and buffer primitives are :class:`NeuralConfiguration`'s: only the
    pointers (:class:`Pointer`) and vectors (:class:`Vector`) differ.
    """

    vectors: list[Vector]
    stack_top: Pointer
    buffer_top: Pointer
    history: Pointer

    def __init__(self, n: int, graph: LockstepGraph, vectors: list[Vector]) -> None:
        Configuration.__init__(self, n)
        self.vectors = vectors
        self.action_vectors = graph.action_vectors
        self.stack_top, self.buffer_top, self.history = graph.empty_stacks
        self.score = 0.0
        self.arc_log_probs = [0.0] * (n + 1)  # per word: log-probability of the action that attached it
        self.arcs_made, self.last_dependent = 0, 0  # how many arcs, and the word the latest one attached

    def represent_arc(self, head: int, dependent: int, action: int) -> None:
        self.vectors[head] = Vector(head=self.vectors[head], dependent=self.vectors[dependent], action=action)
        self.arcs_made, self.last_dependent = self.arcs_made + 1, dependent

    def copy(self) -> Self:
        clone = super().copy()
        clone.arc_log_probs = self.arc_log_probs[:]
        return clone

    def take(self, step, action: int, log_prob: float) -> None:
        """Apply ``action`` (chosen with ``log_prob``): the score grows, an arc it makes keeps its log-probability."""
        arcs_before = self.arcs_made
        step(self, action)
        self.score += log_prob
        if self.arcs_made > arcs_before:
            self.arc_log_probs[self.last_dependent] = log_prob

    def record(self, action: int) -> None:
        self.history = self.history.push(self.action_vectors[action])

    def tops(self) -> tuple[Pointer, Pointer, Pointer]:
        return self.stack_top, self.buffer_top, self.history


class LockstepGraph:
    """A fresh DyNet graph in which parses of a trained (or training) parser advance together.

    With ``train``, token vectors are built as in training (unknown-word
    replacement from each sentence's own ``rngs``, the parser's dropout) and the
    stack LSTMs apply the parser's dropout; otherwise dropout is off.
    """

    def __init__(self, parser: StackLSTMParser, train: bool = False, fresh: bool = True) -> None:
        """``fresh``: start a new DyNet graph (an ensemble's members share one: only the first starts it)."""
        self.parser, self.train = parser, train
        self.token_table: dy.Expression | None = None  # the started sentences' token vectors, a word per element
        dropout = parser.dropout if train else 0.0
        for stack in (parser.stack_lstm, parser.buffer_lstm, parser.action_lstm):
            if dropout:
                stack.builder.set_dropout(dropout)
            else:
                stack.builder.disable_dropout()
        if fresh:
            dy.renew_cg(autobatching=False)  # one graph for the batch; batching is explicit
        self.empty_stacks = tuple(
            _empty(stack) for stack in (parser.stack_lstm, parser.buffer_lstm, parser.action_lstm)
        )
        (self.root,) = map(Vector, _slots([parser.root_vector.expr(update=True)], 1))
        actions = len(parser.system.actions)
        table = dy.lookup_batch(parser.action_history_embeddings, list(range(actions)))
        self.action_vectors = list(map(Vector, _slots([table], actions)))

    def start(
        self, sentences: Sequence[Sequence[Token]], rngs: Sequence[random.Random] | None = None
    ) -> list[LockstepConfiguration]:
        """The initial configuration of each sentence (``rngs``: each sentence's own random stream)."""
        system = self.parser.system
        return [
            system.initial_as(LockstepConfiguration, len(tokens), graph=self, vectors=[self.root, *vectors])
            for tokens, vectors in zip(sentences, self._token_vectors(sentences, rngs), strict=True)
        ]

    def _token_vectors(
        self, sentences: Sequence[Sequence[Token]], rngs: Sequence[random.Random] | None
    ) -> list[list[Vector]]:
        """Each sentence's token vectors, all elements of one batched expression."""
        dropout = self.parser.dropout if self.train else 0.0
        table = self.token_table = self.parser.tokens.encode_many(sentences, self.train, dropout, rngs)
        vectors = list(map(Vector, _slots([table], sum(len(s) for s in sentences))))
        bounds = np.cumsum([0, *(len(s) for s in sentences)]).tolist()
        return [vectors[bounds[i] : bounds[i + 1]] for i in range(len(sentences))]

    def scores(self, tops: Sequence[tuple[Pointer, Pointer, Pointer]]) -> dy.Expression:
        """Action scores of the configurations whose stack tops are ``tops``: one batch element each.

        Pending pushes and compositions the tops need are built first, in batched waves.
        """
        materialize([pointer for three in tops for pointer in three], self.parser)
        tops_slots = cast(list[tuple[Slot, Slot, Slot]], [tuple(pointer.value for pointer in three) for three in tops])
        summaries = [_gather([three[i] for three in tops_slots], [-1])[0] for i in range(3)]  # top layer's h
        return self.parser.action_scores(dy.concatenate(summaries))


def materialize(needed: Sequence[Node], parser: StackLSTMParser) -> None:
    """Compute every pending node ``needed`` depends on, in batched dependency waves.

    A node's wave is one more than the latest wave among its pending inputs, so a
    wave only reads values computed in earlier ones.  The walk is iterative: a
    500-word sentence's initial buffer is a chain of 500 pending pushes.
    """
    waves: dict[int, list[Node]] = defaultdict(list)
    todo = [node for node in needed if node.value is None]
    while todo:
        node = todo[-1]
        if node.wave is not None:  # reached twice
            todo.pop()
            continue
        wave, placed = 0, True
        for source in node.inputs():
            if source.value is not None:
                continue
            if source.wave is None:  # place the input first, then come back
                todo.append(source)
                placed = False
            elif source.wave >= wave:
                wave = source.wave + 1
        if placed:
            todo.pop()
            node.wave = wave
            waves[wave].append(node)
    for wave in sorted(waves):
        _compute_wave(waves[wave], parser)


def _compute_wave(ready: list[Node], parser: StackLSTMParser) -> None:
    """A batched push per stack LSTM and one batched composition, added to the graph."""
    groups: dict[StackLSTM | None, list[Node]] = defaultdict(list)  # None: the compositions
    for node in ready:
        groups[node.lstm if isinstance(node, Pointer) else None].append(node)
    for lstm, nodes in groups.items():  # in the order they first appear: operations are numbered as made
        if lstm is None:
            _compose(parser, cast(list[Vector], nodes))
        else:
            _push(lstm, cast(list[Pointer], nodes))


def _push(lstm: StackLSTM, nodes: list[Pointer]) -> None:
    """Each node's LSTM state: its input pushed onto the state below it (inputs come from earlier waves)."""
    nodes.sort(key=_below_order)  # fewer gathers
    below = _gather(cast(list[Slot], [cast(Pointer, node.below).value for node in nodes]), range(2 * lstm.layers))
    (inputs,) = _gather(cast(list[Slot], [cast(Vector, node.input).value for node in nodes]), [0])
    states = list(lstm.builder.initial_state(below).add_input(inputs).s())
    for node, slot in zip(nodes, _slots(states, len(nodes)), strict=True):
        node.value = slot


def _below_order(node: Pointer) -> tuple[int, int]:
    """Pushes sorted by the slot they extend: (operation number, element)."""
    source, index = cast(Slot, cast(Pointer, node.below).value)
    return source.number, index


def _compose(parser: StackLSTMParser, nodes: list[Vector]) -> None:
    (heads,) = _gather([node.head.value for node in nodes], [0])
    (dependents,) = _gather([node.dependent.value for node in nodes], [0])
    relations = dy.lookup_batch(parser.composition_action_embeddings, [node.action for node in nodes])
    inputs = dy.concatenate([heads, dependents, relations])
    composed = dy.tanh(dy.affine_transform([parser.composition_bias, parser.composition, inputs]))
    for node, slot in zip(nodes, _slots([composed], len(nodes)), strict=True):
        node.value = slot


def _empty(stack: StackLSTM) -> Pointer:
    """The empty stack of the current graph: the guard pushed."""
    state = stack.builder.initial_state().add_input(stack.guard)
    return Pointer(stack, None, None, 0, value=_slots(list(state.s()), 1)[0])


def _gather(slots: Sequence[Slot], ks: Iterable[int]) -> list[dy.Expression]:
    """For each ``k`` in ``ks``, the ``k``-th expressions of ``slots`` as one batch, in order.

    Consecutive slots from one source are picked with one node, and a whole source
    taken in order is used as it is.  The runs of sources are found once for all
    ``k`` (a state's c and h come from one operation, so they share their runs).
    """
    runs = _runs(slots)
    gathered = []
    for k in ks:
        parts = [source[k] if indices is None else dy.pick_batch_elems(source[k], indices) for source, indices in runs]
        gathered.append(parts[0] if len(parts) == 1 else dy.concatenate_to_batch(parts))
    return gathered


def _runs(slots: Sequence[Slot]) -> list[tuple[list[dy.Expression], list[int] | None]]:
    """Maximal runs of consecutive slots with one source: (its expressions, the indices, or None for all in order)."""
    runs: list[tuple[Source, list[int]]] = []
    current: Source | None = None
    indices: list[int] = []
    for source, index in slots:
        if source is not current:
            current = source
            indices = []
            runs.append((source, indices))
        indices.append(index)
    return [(source.expressions, None if _whole(indices, source.size) else indices) for source, indices in runs]


def _whole(indices: list[int], size: int) -> bool:
    """True when ``indices`` are 0 .. size-1 in order: the whole source."""
    return len(indices) == size and indices == list(range(size))


def legal_log_softmax(scores: np.ndarray, legal: Sequence[Sequence[int]]) -> np.ndarray:
    """Log-softmax of each column of ``scores`` over that column's legal actions (others: -inf)."""
    masked = np.full(scores.shape, -np.inf)
    columns_by_legal: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for column, actions in enumerate(legal):
        columns_by_legal[tuple(actions)].append(column)
    for actions, columns in columns_by_legal.items():  # a few kinds of configuration, not one per column
        rows = np.ix_(actions, columns)
        masked[rows] = scores[rows]
    shifted = masked - masked.max(axis=0)
    return shifted - np.log(np.exp(shifted).sum(axis=0))
