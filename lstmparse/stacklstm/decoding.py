"""Fast decoding: many parses advanced in lock-step, greedy or with a beam.

Decoding one sentence at a time (:meth:`StackLSTMParser.parse`) gives DyNet a few
small matrix-vector products per transition, so the time goes into per-operation
overhead.  Here many parses (the sentences of a batch, or the K hypotheses of a
beam, or both) move forward together, and every stack-LSTM push, composition and
scoring that the step needs is computed for all of them at once as one DyNet
matrix-matrix operation, with DyNet's own builders and parameters.

DyNet's automatic batching cannot do this: a parser must read its scores after
every step, and each such forward pass re-batches the whole graph (quadratic in
the sentence).  So the batching is explicit, in one graph per batch of sentences
with autobatching off, where forward passes are incremental.  A value (a pushed
stack-LSTM state, a token vector, a composition) is a :class:`Slot`: one element
of a batched expression.  A batched operation gathers its inputs from wherever
they were computed with ``pick_batch_elems`` (one node per source expression, not
per parse) and ``concatenate_to_batch``; values never leave the graph, since
copying them through NumPy costs about 65 ns per number each way, more than the
arithmetic.  Stack pointers stay persistent (a pointer is a node with a link to
the one below), so beam hypotheses share their history.

Transitions create *pending* pushes and compositions; :func:`materialize` builds
the pending nodes the next scoring needs in dependency waves, one batched
operation per stack LSTM (or the composition) and wave.  Greedy decoding has its
own loop without the beam's bookkeeping, and gives the trees of
:meth:`StackLSTMParser.parse`.  Beam search ranks the successors of all sentences
of a batch with one partial sort per step.  bench/RESULTS.md has the speed of each.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import dynet as dy
import numpy as np

from lstmparse.formats import Token
from lstmparse.layers.stack_lstm import StackLSTM
from lstmparse.stacklstm.model import NeuralConfiguration, StackLSTMParser
from lstmparse.stacklstm.systems import Configuration


@dataclass
class DecodedTree:
    """A complete parse and its total log-probability under the model."""

    heads: list[int]
    labels: list[str]
    score: float


class Slot:
    """Element ``index`` of batched expressions of batch size ``size``: where a value lives.

    A token vector or composition is one expression; a stack-LSTM state is the
    builder's list (c_1 ... c_L, h_1 ... h_L), all made by one batched operation.
    ``source`` numbers that operation in the order operations were made, so that
    gathers can be ordered by source the same way in every run (by ``id`` they
    were not, and the batch order moves scores in their last bits).
    """

    __slots__ = ("expressions", "index", "size", "source")

    def __init__(self, expressions: list[dy.Expression], index: int, size: int, source: int) -> None:
        self.expressions, self.index, self.size, self.source = expressions, index, size, source


_sources = itertools.count()


def _slots(expressions: list[dy.Expression], size: int) -> list[Slot]:
    """The ``size`` elements of the batched ``expressions`` of one new operation."""
    source = next(_sources)
    return [Slot(expressions, index, size, source) for index in range(size)]


class Node:
    """A value built in a batched wave: a stack-LSTM state or a composed vector.

    ``value`` is its :class:`Slot` once computed (None while pending); ``wave`` is
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
        return () if self.value is not None else (self.below, self.input)

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

    def __init__(self, n: int, decoder: BatchDecoder, vectors: list[Vector]) -> None:
        Configuration.__init__(self, n)
        self.vectors = vectors
        self.action_vectors = decoder.action_vectors
        self.stack_top, self.buffer_top, self.history = decoder.empty_stacks
        self.score = 0.0

    def represent_arc(self, head: int, dependent: int, action: int) -> None:
        self.vectors[head] = Vector(head=self.vectors[head], dependent=self.vectors[dependent], action=action)

    def record(self, action: int) -> None:
        self.history = self.history.push(self.action_vectors[action])

    def tops(self) -> tuple[Pointer, Pointer, Pointer]:
        return self.stack_top, self.buffer_top, self.history


class BatchDecoder:
    """Greedy and beam decoding of batches of sentences with a trained parser."""

    def __init__(self, parser: StackLSTMParser) -> None:
        self.parser = parser
        self.system = parser.system
        self.finished = len(parser.system.actions)  # the id of FINISHED, a finished hypothesis's one option
        for stack in (parser.stack_lstm, parser.buffer_lstm, parser.action_lstm):
            stack.builder.disable_dropout()

    def parse(self, sentences: Sequence[Sequence[Token]], beam: int = 1, kbest: int = 1) -> list[list[DecodedTree]]:
        """The ``kbest`` best distinct trees of each sentence, best first, found with a beam.

        Different action sequences can build the same tree (arc-standard has
        spurious ambiguity), so only the best derivation of each tree is kept and
        fewer than ``kbest`` trees may come back.
        """
        if beam < 1 or kbest < 1:
            raise ValueError("beam and kbest must be at least 1")
        if not sentences:
            return []
        dy.renew_cg(autobatching=False)  # one graph for the batch; batching is explicit
        self._start_graph()
        beams = [
            [self._initial(tokens, vectors)]
            for tokens, vectors in zip(sentences, self._token_vectors(sentences), strict=True)
        ]
        if beam == 1:
            self._decode_greedily([hypotheses[0] for hypotheses in beams])
        else:
            self._search(beams, beam)
        return [self._candidates(hypotheses, kbest) for hypotheses in beams]

    def _start_graph(self) -> None:
        """The values every parse starts from, in the new graph: empty stacks, root, action vectors."""
        parser = self.parser
        self.empty_stacks = tuple(
            _empty(stack) for stack in (parser.stack_lstm, parser.buffer_lstm, parser.action_lstm)
        )
        (self.root,) = map(Vector, _slots([parser.root_vector.expr()], 1))
        actions = len(self.system.actions)
        table = dy.lookup_batch(parser.action_history_embeddings, list(range(actions)))
        self.action_vectors = list(map(Vector, _slots([table], actions)))

    def _initial(self, tokens: Sequence[Token], vectors: list[Vector]) -> LockstepConfiguration:
        return self.system.initial(len(tokens), LockstepConfiguration, decoder=self, vectors=[self.root, *vectors])

    def _token_vectors(self, sentences: Sequence[Sequence[Token]]) -> list[list[Vector]]:
        """Each sentence's token vectors, all elements of one batched expression."""
        tokens = self.parser.tokens
        if tokens.context is None:  # words are encoded independently: one run for the whole batch
            expressions = tokens.encode([t for sentence in sentences for t in sentence], train=False)
        else:
            expressions = [e for sentence in sentences for e in tokens.encode(sentence, train=False)]
        table = dy.concatenate_to_batch(expressions)
        vectors = list(map(Vector, _slots([table], len(expressions))))
        bounds = np.cumsum([0, *(len(s) for s in sentences)]).tolist()
        return [vectors[bounds[i] : bounds[i + 1]] for i in range(len(sentences))]

    def _decode_greedily(self, configs: list[LockstepConfiguration]) -> None:
        """Beam 1 without the beam's bookkeeping: each step, every parse takes its best legal action."""
        system, step = self.system, self.parser.step
        unfinished = [config for config in configs if not system.is_final(config)]
        while unfinished:
            legal = [system.legal(config) for config in unfinished]
            actions = [options[0] for options in legal]
            gains = [0.0] * len(unfinished)
            to_score = [i for i, options in enumerate(legal) if len(options) > 1]
            if to_score:
                log_probs = self._log_probs([unfinished[i] for i in to_score], [legal[i] for i in to_score])
                best = np.argmax(log_probs, axis=0)
                best_log_probs = log_probs[best, np.arange(len(to_score))]
                for i, action, gain in zip(to_score, best.tolist(), best_log_probs.tolist(), strict=True):
                    actions[i], gains[i] = action, gain
            for config, action, gain in zip(unfinished, actions, gains, strict=True):
                step(config, action)
                config.score += gain
            unfinished = [config for config in unfinished if not system.is_final(config)]

    def _search(self, beams: list[list[LockstepConfiguration]], beam: int) -> None:
        """Beam search, in place: each step, every sentence keeps its ``beam`` best successors.

        A step's options are laid out as one array, sentences x hypotheses x
        (actions + FINISHED), so that the best successors of all sentences are
        found with one sort.  A finished hypothesis competes through its FINISHED
        option at its own score.
        """
        finished = self.finished
        active = [i for i, hypotheses in enumerate(beams) if not self._all_final(hypotheses)]
        while active:
            totals = self._option_totals([beams[i] for i in active], beam)
            flat = totals.reshape(len(active), -1)
            best = _best_columns(flat, beam)
            for row, i in enumerate(active):
                values = flat[row, best[row]]
                options = best[row][values > -np.inf]  # fewer than ``beam`` when fewer moves exist
                beams[i] = self._successors(
                    beams[i],
                    [divmod(option, finished + 1) for option in options.tolist()],
                    values[values > -np.inf].tolist(),
                )
            active = [i for i in active if not self._all_final(beams[i])]

    def _all_final(self, hypotheses: list[LockstepConfiguration]) -> bool:
        return all(self.system.is_final(config) for config in hypotheses)

    def _option_totals(self, beams: list[list[LockstepConfiguration]], beam: int) -> np.ndarray:
        """Total log-probability of every successor: [sentence, hypothesis, action or FINISHED] (-inf: none)."""
        system, finished = self.system, self.finished
        totals = np.full((len(beams), beam, finished + 1), -np.inf)
        to_score, legal, rows, columns = [], [], [], []
        for row, hypotheses in enumerate(beams):
            for column, config in enumerate(hypotheses):
                if system.is_final(config):
                    totals[row, column, finished] = config.score
                    continue
                actions = system.legal(config)
                if len(actions) == 1:  # a forced move: nothing to score
                    totals[row, column, actions[0]] = config.score
                    continue
                to_score.append(config)
                legal.append(actions)
                rows.append(row)
                columns.append(column)
        if to_score:
            scores = np.array([config.score for config in to_score])
            totals[rows, columns, :finished] = (self._log_probs(to_score, legal) + scores).T
        return totals

    def _log_probs(self, configs: list[LockstepConfiguration], legal: list[list[int]]) -> np.ndarray:
        """Log-probabilities of the actions, one column per configuration (-inf where not legal).

        The pending pushes and compositions the configurations' stack tops need are
        built first, in batched waves.
        """
        materialize([pointer for config in configs for pointer in config.tops()], self.parser)
        return _legal_log_softmax(self._scores(configs), legal)

    def _scores(self, configs: list[LockstepConfiguration]) -> np.ndarray:
        """Action scores, one column per configuration, in one batched forward pass."""
        tops = [config.tops() for config in configs]
        summaries = [_gather([pointers[i].value for pointers in tops], [-1])[0] for i in range(3)]  # top layer's h
        scores = self.parser.action_scores(dy.concatenate(summaries))
        return scores.npvalue().reshape(-1, len(configs))

    def _successors(
        self, hypotheses: list[LockstepConfiguration], moves: list[tuple[int, int]], totals: list[float]
    ) -> list[LockstepConfiguration]:
        """The hypotheses that ``moves`` (parent, action) lead to, with their total scores."""
        uses = Counter(parent for parent, _ in moves)
        successors = []
        for (parent, action), total in zip(moves, totals, strict=True):
            config = hypotheses[parent]
            uses[parent] -= 1
            if uses[parent]:  # a later successor still needs the original
                config = config.copy()
            if action != self.finished:
                self.parser.step(config, action)
                config.score = total
            successors.append(config)
        return successors

    def _candidates(self, hypotheses: list[LockstepConfiguration], kbest: int) -> list[DecodedTree]:
        best: dict[tuple, DecodedTree] = {}
        for config in sorted(hypotheses, key=lambda c: -c.score):
            heads, labels = self.parser.finished_tree(config)
            best.setdefault((tuple(heads), tuple(labels)), DecodedTree(heads, labels, config.score))
        return list(best.values())[:kbest]


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
    groups: dict[object, list[Node]] = defaultdict(list)
    for node in ready:
        groups[node.lstm if isinstance(node, Pointer) else Vector].append(node)
    for key, nodes in groups.items():
        if key is Vector:
            _compose(parser, nodes)
        else:
            _push(key, nodes)


def _push(lstm: StackLSTM, nodes: list[Pointer]) -> None:
    """Each node's LSTM state: its input pushed onto the state below it."""
    nodes.sort(key=lambda node: (node.below.value.source, node.below.value.index))  # fewer gathers
    below = _gather([node.below.value for node in nodes], range(2 * lstm.layers))
    (inputs,) = _gather([node.input.value for node in nodes], [0])
    states = list(lstm.builder.initial_state(below).add_input(inputs).s())
    for node, slot in zip(nodes, _slots(states, len(nodes)), strict=True):
        node.value = slot


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
    runs: list[tuple[Slot, list[int]]] = []
    source = None
    for slot in slots:
        if slot.expressions is not source:
            source = slot.expressions
            runs.append((slot, []))
        runs[-1][1].append(slot.index)
    return [(first.expressions, None if _whole(indices, first.size) else indices) for first, indices in runs]


def _whole(indices: list[int], size: int) -> bool:
    """True when ``indices`` are 0 .. size-1 in order: the whole source."""
    return len(indices) == size and indices == list(range(size))


def _best_columns(values: np.ndarray, k: int) -> np.ndarray:
    """The columns of the ``k`` largest values of each row, largest first.

    A partial selection, then a sort of only the ``k`` chosen (ties among them go
    to the lower column): most of a row is the -inf of illegal actions.
    """
    if values.shape[1] > k:
        chosen = np.argpartition(-values, k - 1, axis=1)[:, :k]
    else:
        chosen = np.broadcast_to(np.arange(values.shape[1]), values.shape)
    order = np.lexsort((chosen, -np.take_along_axis(values, chosen, axis=1)), axis=1)
    return np.take_along_axis(chosen, order, axis=1)


def _legal_log_softmax(scores: np.ndarray, legal: Sequence[Sequence[int]]) -> np.ndarray:
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
