"""Fast decoding: many parses advanced in lock-step, greedy or with a beam.

Decoding one sentence at a time (:meth:`StackLSTMParser.parse`) gives DyNet a few
small matrix-vector products per transition, so the time goes into per-operation
overhead.  Here many parses (the sentences of a batch, or the K hypotheses of a
beam, or both) move forward together, and every stack-LSTM push, composition and
scoring that the step needs is computed for all of them at once as one DyNet
matrix-matrix operation, with DyNet's own builders and parameters.

DyNet's automatic batching cannot do this: a parser must read its scores after
every step, and each such forward pass re-batches the whole graph (quadratic in
the sentence).  Decoding needs no gradients, though, so values can leave the graph:
a pushed stack-LSTM state is kept as NumPy arrays and fed back as the batched
initial state of the next push.  Stack pointers stay persistent (a pointer is a
node with a link to the one below), so beam hypotheses share their history.

Transitions create *pending* pushes and compositions; :func:`materialize` computes
the pending nodes the next scoring needs in dependency waves, one batched DyNet
computation per stack LSTM (or the composition) and wave.  With a beam of 1 the
trees are those of :meth:`StackLSTMParser.parse`.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import dynet as dy
import numpy as np

from .formats import Token
from .parser import NeuralConfiguration, StackLSTMParser
from .stack_lstm import StackLSTM
from .systems import Configuration


@dataclass
class Candidate:
    """A complete parse and its total log-probability under the model."""

    heads: list[int]
    labels: list[str]
    score: float


class Node:
    """A value computed in a batched wave: a stack-LSTM state or a composed vector."""

    __slots__ = ("value",)

    def __init__(self, value=None) -> None:
        self.value = value

    def inputs(self) -> tuple[Node, ...]:
        return ()


class Vector(Node):
    """A token vector (known) or a composition c = tanh(U[h; m; r] + e) (pending)."""

    __slots__ = ("head", "dependent", "action")

    def __init__(self, value: np.ndarray | None = None, head=None, dependent=None, action: int = -1) -> None:
        super().__init__(value)
        self.head, self.dependent, self.action = head, dependent, action

    def inputs(self) -> tuple[Node, ...]:
        return () if self.value is not None else (self.head, self.dependent)


class Pointer(Node):
    """A persistent stack-LSTM pointer; ``value`` is the list of its LSTM state arrays."""

    __slots__ = ("lstm", "below", "input", "depth")

    def __init__(self, lstm: StackLSTM, below: Pointer | None, input: Vector | None, depth: int, value=None) -> None:
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

    def summary(self) -> np.ndarray:
        return self.value[-1]  # the top layer's h is the LSTM output


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
        dy.renew_cg()
        self.empty_stacks = tuple(self._empty(stack) for stack in (parser.stack_lstm, parser.buffer_lstm,
                                                                       parser.action_lstm))
        self.root = Vector(parser.root_vector.npvalue())
        table = parser.action_history_embeddings.as_array()
        self.action_vectors = [Vector(row) for row in table]

    @staticmethod
    def _empty(stack: StackLSTM) -> Pointer:
        state = stack.builder.initial_state().add_input(stack.guard)
        return Pointer(stack, None, None, 0, value=[e.npvalue() for e in state.s()])

    def parse(self, sentences: Sequence[Sequence[Token]], beam: int = 1, kbest: int = 1) -> list[list[Candidate]]:
        """The ``kbest`` best distinct trees of each sentence, best first, found with a beam.

        Different action sequences can build the same tree (arc-standard has
        spurious ambiguity), so only the best derivation of each tree is kept and
        fewer than ``kbest`` trees may come back.
        """
        if beam < 1 or kbest < 1:
            raise ValueError("beam and kbest must be at least 1")
        beams = [[self._initial(tokens, vectors)] for tokens, vectors in zip(sentences, self._token_vectors(sentences),
                                                                             strict=True)]
        while True:
            unfinished = [c for hyps in beams for c in hyps if not self.system.is_final(c)]
            if not unfinished:
                break
            expansions = self._expansions(unfinished)
            beams = [self._prune(hyps, expansions, beam) for hyps in beams]
        return [self._candidates(hyps, kbest) for hyps in beams]

    def _initial(self, tokens: Sequence[Token], vectors: np.ndarray) -> LockstepConfiguration:
        word_vectors = [self.root, *(Vector(v) for v in vectors)]
        return self.system.initial(len(tokens), LockstepConfiguration, decoder=self, vectors=word_vectors)

    def _token_vectors(self, sentences: Sequence[Sequence[Token]]) -> list[np.ndarray]:
        """Token vectors of every sentence, one row per word, from one graph."""
        dy.renew_cg()
        tokens = self.parser.tokens
        if tokens.context is None:  # words are encoded independently: one run for the whole batch
            flat = [t for sentence in sentences for t in sentence]
            values = _columns(tokens.encode(flat, train=False))
            bounds = np.cumsum([0, *(len(s) for s in sentences)])
            return [values[:, bounds[i] : bounds[i + 1]].T for i in range(len(sentences))]
        return [_columns(tokens.encode(sentence, train=False)).T for sentence in sentences]

    def _expansions(self, configs: list[LockstepConfiguration]) -> dict[int, list[tuple[float, int]]]:
        """Scored legal actions (total log-probability, action) of each configuration, by id."""
        expansions = {}
        to_score = []
        for config in configs:
            legal = self.system.legal(config)
            if len(legal) == 1:
                expansions[id(config)] = [(config.score, legal[0])]
            else:
                to_score.append((config, legal))
        if to_score:
            materialize([p for config, _ in to_score for p in config.tops()], self.parser)
            scores = self._scores([config for config, _ in to_score])
            for (config, legal), column in zip(to_score, scores.T, strict=True):
                log_probs = _log_softmax(column[legal])
                expansions[id(config)] = [(config.score + lp, a) for lp, a in zip(log_probs, legal, strict=True)]
        return expansions

    def _scores(self, configs: list[LockstepConfiguration]) -> np.ndarray:
        """Action scores, one column per configuration, in one batched forward pass."""
        summaries = np.stack([np.concatenate([p.summary() for p in config.tops()]) for config in configs], axis=1)
        dy.renew_cg()
        return self.parser.action_scores(_batched(summaries)).npvalue().reshape(-1, len(configs))

    def _prune(self, hypotheses: list[LockstepConfiguration], expansions: dict, beam: int) -> list:
        """The ``beam`` best successors of one sentence's hypotheses (finished ones stay)."""
        options = []
        for index, config in enumerate(hypotheses):
            if self.system.is_final(config):
                options.append((config.score, index, None))
            else:
                options.extend((score, index, action) for score, action in expansions[id(config)])
        kept = heapq.nlargest(beam, options, key=lambda option: option[0])
        uses = defaultdict(int)
        for _, index, _ in kept:
            uses[index] += 1
        successors = []
        for score, index, action in kept:
            config = hypotheses[index]
            uses[index] -= 1
            if uses[index]:  # a later successor still needs the original
                config = config.copy()
            if action is not None:
                self.parser.step(config, action)
                config.score = score
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
    """One graph: a batched push per stack LSTM and one batched composition."""
    groups: dict[object, list[Node]] = defaultdict(list)
    for node in ready:
        groups[node.lstm if isinstance(node, Pointer) else Vector].append(node)
    dy.renew_cg()
    results = []
    for key, nodes in groups.items():
        if key is Vector:
            results.append((nodes, [_compose(parser, nodes)]))
        else:
            results.append((nodes, _push(key, nodes)))
    for nodes, expressions in results:
        arrays = [e.npvalue().reshape(-1, len(nodes)) for e in expressions]
        for j, node in enumerate(nodes):
            columns = [a[:, j] for a in arrays]
            node.value = columns if isinstance(node, Pointer) else columns[0]


def _push(lstm: StackLSTM, nodes: list[Pointer]) -> list[dy.Expression]:
    """The LSTM states after pushing each node's input onto the state below it."""
    below = [node.below.value for node in nodes]
    state = [_batched(np.stack([b[k] for b in below], axis=1)) for k in range(len(below[0]))]
    inputs = _batched(np.stack([node.input.value for node in nodes], axis=1))
    return lstm.builder.initial_state(state).add_input(inputs).s()


def _compose(parser: StackLSTMParser, nodes: list[Vector]) -> dy.Expression:
    heads = _batched(np.stack([node.head.value for node in nodes], axis=1))
    dependents = _batched(np.stack([node.dependent.value for node in nodes], axis=1))
    relations = dy.lookup_batch(parser.composition_action_embeddings, [node.action for node in nodes])
    inputs = dy.concatenate([heads, dependents, relations])
    return dy.tanh(dy.affine_transform([parser.composition_bias, parser.composition, inputs]))


def _batched(matrix: np.ndarray) -> dy.Expression:
    """A (dim, batch) array as a batched DyNet expression."""
    if matrix.shape[1] == 1:  # DyNet's batched input rejects a batch of one
        return dy.inputVector(matrix[:, 0])
    return dy.inputTensor(matrix, batched=True)


def _columns(vectors: list[dy.Expression]) -> np.ndarray:
    """The values of equally sized vectors as the columns of a matrix (one forward pass)."""
    return dy.concatenate_cols(vectors).npvalue().reshape(-1, len(vectors))


def _log_softmax(scores: np.ndarray) -> np.ndarray:
    shifted = scores - np.max(scores)
    return shifted - np.log(np.sum(np.exp(shifted)))
