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
operation per stack LSTM (or the composition) and wave.  With a beam of 1 the
trees are those of :meth:`StackLSTMParser.parse`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import dynet as dy
import numpy as np

from .formats import Token
from .parser import NeuralConfiguration, StackLSTMParser
from .stack_lstm import StackLSTM
from .systems import Configuration

FINISHED = -1  # the "action" that keeps a finished hypothesis in the beam


@dataclass
class Candidate:
    """A complete parse and its total log-probability under the model."""

    heads: list[int]
    labels: list[str]
    score: float


class Slot:
    """Element ``index`` of batched expressions of batch size ``size``: where a value lives."""

    __slots__ = ("expressions", "index", "size")

    def __init__(self, expressions: list[dy.Expression], index: int, size: int) -> None:
        self.expressions, self.index, self.size = expressions, index, size


class Node:
    """A value built in a batched wave: a stack-LSTM state or a composed vector."""

    __slots__ = ("value",)

    def __init__(self, value: Slot | None = None) -> None:
        self.value = value

    def inputs(self) -> tuple[Node, ...]:
        return ()


class Vector(Node):
    """A token vector (known) or a composition c = tanh(U[h; m; r] + e) (pending)."""

    __slots__ = ("head", "dependent", "action")

    def __init__(self, value: Slot | None = None, head=None, dependent=None, action: int = -1) -> None:
        super().__init__(value)
        self.head, self.dependent, self.action = head, dependent, action

    def inputs(self) -> tuple[Node, ...]:
        return () if self.value is not None else (self.head, self.dependent)


class Pointer(Node):
    """A persistent stack-LSTM pointer; its value's expressions are the LSTM state (c..., h...)."""

    __slots__ = ("lstm", "below", "input", "depth")

    def __init__(
        self, lstm: StackLSTM, below: Pointer | None, input: Vector | None, depth: int, value: Slot | None = None
    ) -> None:
        super().__init__(value)
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

    def add_arc(self, head: int, dependent: int, label: str, action: int) -> None:
        Configuration.add_arc(self, head, dependent, label, action)
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
        for stack in (parser.stack_lstm, parser.buffer_lstm, parser.action_lstm):
            stack.builder.disable_dropout()

    def parse(self, sentences: Sequence[Sequence[Token]], beam: int = 1, kbest: int = 1) -> list[list[Candidate]]:
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
        beams = [[self._initial(tokens, vectors)] for tokens, vectors in zip(sentences, self._token_vectors(sentences),
                                                                             strict=True)]
        active = list(range(len(beams)))  # sentences with unfinished hypotheses
        while active:
            unfinished = [c for i in active for c in beams[i] if not self.system.is_final(c)]
            expansions = self._expansions(unfinished)
            for i in active:
                beams[i] = self._prune(beams[i], expansions, beam)
            active = [i for i in active if not all(self.system.is_final(c) for c in beams[i])]
        return [self._candidates(hyps, kbest) for hyps in beams]

    def _start_graph(self) -> None:
        """The values every parse starts from, in the new graph: empty stacks, root, action vectors."""
        parser = self.parser
        self.empty_stacks = tuple(
            _empty(stack) for stack in (parser.stack_lstm, parser.buffer_lstm, parser.action_lstm)
        )
        self.root = Vector(Slot([parser.root_vector.expr()], 0, 1))
        actions = len(self.system.actions)
        table = dy.lookup_batch(parser.action_history_embeddings, list(range(actions)))
        self.action_vectors = [Vector(Slot([table], a, actions)) for a in range(actions)]

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
        vectors = [Vector(Slot([table], i, len(expressions))) for i in range(len(expressions))]
        bounds = np.cumsum([0, *(len(s) for s in sentences)]).tolist()
        return [vectors[bounds[i] : bounds[i + 1]] for i in range(len(sentences))]

    def _expansions(self, configs: list[LockstepConfiguration]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Each configuration's legal actions and their total log-probabilities, by id."""
        expansions = {}
        to_score = []
        for config in configs:
            legal = self.system.legal(config)
            if len(legal) == 1:
                expansions[id(config)] = (np.array([config.score]), np.array(legal))
            else:
                to_score.append((config, legal))
        if to_score:
            materialize([p for config, _ in to_score for p in config.tops()], self.parser)
            log_probs = _legal_log_softmax(self._scores([config for config, _ in to_score]),
                                           [legal for _, legal in to_score])
            for column, (config, legal) in enumerate(to_score):
                actions = np.array(legal)
                expansions[id(config)] = (config.score + log_probs[actions, column], actions)
        return expansions

    def _scores(self, configs: list[LockstepConfiguration]) -> np.ndarray:
        """Action scores, one column per configuration, in one batched forward pass."""
        tops = [config.tops() for config in configs]
        summaries = [_gather([pointers[i].value for pointers in tops], -1) for i in range(3)]
        scores = self.parser.action_scores(dy.concatenate(summaries))
        return scores.npvalue().reshape(-1, len(configs))

    def _prune(self, hypotheses: list[LockstepConfiguration], expansions: dict, beam: int) -> list:
        """The ``beam`` best successors of one sentence's hypotheses (finished ones stay).

        Ties go to the earlier hypothesis and action, as ``argmax`` in greedy decoding.
        """
        if len(hypotheses) == 1 and beam == 1:  # greedy
            config = hypotheses[0]
            scores, legal = expansions[id(config)]
            best = int(np.argmax(scores))
            self.parser.step(config, int(legal[best]))
            config.score = float(scores[best])
            return hypotheses
        totals, parents, actions = [], [], []
        for index, config in enumerate(hypotheses):
            if self.system.is_final(config):
                scores, legal = np.array([config.score]), np.array([FINISHED])
            else:
                scores, legal = expansions[id(config)]
            totals.append(scores)
            parents.append(np.full(len(scores), index))
            actions.append(legal)
        totals_all = np.concatenate(totals)
        kept = np.argsort(-totals_all, kind="stable")[:beam] if beam > 1 else [int(np.argmax(totals_all))]
        parent_of, action_of = np.concatenate(parents), np.concatenate(actions)
        uses = Counter(parent_of[kept].tolist())
        successors = []
        for option in kept:
            index, action = int(parent_of[option]), int(action_of[option])
            config = hypotheses[index]
            uses[index] -= 1
            if uses[index]:  # a later successor still needs the original
                config = config.copy()
            if action != FINISHED:
                self.parser.step(config, action)
                config.score = float(totals_all[option])
            successors.append(config)
        return successors

    def _candidates(self, hypotheses: list[LockstepConfiguration], kbest: int) -> list[Candidate]:
        best: dict[tuple, Candidate] = {}
        for config in sorted(hypotheses, key=lambda c: -c.score):
            heads, labels = self.parser.finished_tree(config)
            best.setdefault((tuple(heads), tuple(labels)), Candidate(heads, labels, config.score))
        return list(best.values())[:kbest]


def materialize(needed: Sequence[Node], parser: StackLSTMParser) -> None:
    """Compute every pending node ``needed`` depends on, in batched dependency waves."""
    waves: dict[int, list[Node]] = defaultdict(list)
    for level, node in _levels(needed).values():
        waves[level].append(node)
    for level in sorted(waves):
        _compute_wave(waves[level], parser)


def _levels(needed: Sequence[Node]) -> dict[int, tuple[int, Node]]:
    """Each pending node reachable from ``needed``, by id: (its wave, the node).

    A node's wave is one more than the latest wave among its pending inputs, so a
    wave only reads values computed in earlier ones.  Iterative: a 500-word
    sentence's initial buffer is a chain of 500 pending pushes.
    """
    levels: dict[int, tuple[int, Node]] = {}
    todo = [(node, False) for node in needed if node.value is None]
    while todo:
        node, inputs_done = todo.pop()
        if id(node) in levels:
            continue
        pending_inputs = [i for i in node.inputs() if i.value is None]
        if inputs_done or not pending_inputs:
            levels[id(node)] = (1 + max((levels[id(i)][0] for i in pending_inputs), default=-1), node)
        else:
            todo.append((node, True))
            todo.extend((i, False) for i in pending_inputs if id(i) not in levels)
    return levels


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
    nodes.sort(key=lambda node: (id(node.below.value.expressions[0]), node.below.value.index))  # fewer gathers
    below = [node.below.value for node in nodes]
    state = [_gather(below, k) for k in range(len(below[0].expressions))]
    inputs = _gather([node.input.value for node in nodes], 0)
    states = lstm.builder.initial_state(state).add_input(inputs).s()
    for index, node in enumerate(nodes):
        node.value = Slot(states, index, len(nodes))


def _compose(parser: StackLSTMParser, nodes: list[Vector]) -> None:
    heads = _gather([node.head.value for node in nodes], 0)
    dependents = _gather([node.dependent.value for node in nodes], 0)
    relations = dy.lookup_batch(parser.composition_action_embeddings, [node.action for node in nodes])
    inputs = dy.concatenate([heads, dependents, relations])
    composed = dy.tanh(dy.affine_transform([parser.composition_bias, parser.composition, inputs]))
    for index, node in enumerate(nodes):
        node.value = Slot([composed], index, len(nodes))


def _empty(stack: StackLSTM) -> Pointer:
    """The empty stack of the current graph: the guard pushed."""
    state = stack.builder.initial_state().add_input(stack.guard)
    return Pointer(stack, None, None, 0, value=Slot(state.s(), 0, 1))


def _gather(slots: Sequence[Slot], k: int) -> dy.Expression:
    """The ``k``-th expressions of ``slots`` as one batch, in order.

    Consecutive slots from one source expression are picked with one node, and a
    whole source taken in order is used as it is.
    """
    parts = []
    start = 0
    for end in range(1, len(slots) + 1):
        if end == len(slots) or slots[end].expressions[k] is not slots[start].expressions[k]:
            parts.append(_picked(slots[start:end], k))
            start = end
    return parts[0] if len(parts) == 1 else dy.concatenate_to_batch(parts)


def _picked(run: Sequence[Slot], k: int) -> dy.Expression:
    source = run[0].expressions[k]
    indices = [slot.index for slot in run]
    if len(indices) == run[0].size and indices == list(range(len(indices))):
        return source
    return dy.pick_batch_elems(source, indices)


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
