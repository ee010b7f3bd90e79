"""Top-down TreeLSTM and LdTreeLSTM: generative models of dependency trees.

Zhang, Lu & Lapata (2016).  P(S|T) is the product, over the words in breadth-first
generation order, of P(w | D(w)), where D(w) is w's dependency path from ROOT
(:mod:`lstmparse.treelstm.dependency_paths`).  Four LSTMs, GEN-L, GEN-R, GEN-NX-L and
GEN-NX-R, one per edge type, share one hidden state: the state that generates w is
the LSTM of w's edge type applied to the embedding of the path's previous node
(head or closer sibling) and that node's state (section 2.2).  One input embedding
matrix and one output softmax are tied across the four LSTMs; the LSTMs are deep,
with dropout between layers (section 2.3).

LdTreeLSTM (section 2.4) adds an LSTM that reads a node's left dependents from the
farthest to the closest; its last output is appended to GEN-R's input when the
node's first right dependent is generated, so right dependents are predicted
knowing the left ones.

For sampling (section 3.4) four binary classifiers, ADD-LEFT, ADD-RIGHT,
ADD-NX-LEFT and ADD-NX-RIGHT, decide from a node's hidden state and its word's
output embedding whether the tree grows in that direction.  They are trained with
the language model but read its values through ``nobackprop``, so they never
change the word probabilities.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import dynet as dy
import numpy as np

from lstmparse.core.batching import batches
from lstmparse.core.model_io import assign_values, builder_parameters, load_directory, model_contents, save_model
from lstmparse.core.records import ModelRecord, directory_of
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import ModelError
from lstmparse.treelstm.dependency_paths import (
    EDGES,
    LEFT,
    NX_LEFT,
    NX_RIGHT,
    RIGHT,
    ROOT,
    dependents,
    generation_order,
)
from lstmparse.treelstm.options import TreeLSTMDimensions

ARCHS = ("treelstm", "ldtreelstm")
OBJECTIVES = ("nll", "nce")
ROOT_WORD = "<root>"
NOISE_POWER = 0.75  # the unigram distribution raised to 0.75 (Mikolov et al.) for NCE noise
INITIAL_LOG_Z = 9.0  # NCE's learned normalizer starts at ln Z = 9, as in the paper
WORDS_PER_GRAPH = 1000  # scoring: words per autobatched graph (its memory grows with this)


@dataclass
class TreeScore:
    """log P(S|T) of one tree and the number of words it predicts."""

    log_prob: float
    words: int

    @property
    def perplexity(self) -> float:
        return float(np.exp(-self.log_prob / max(self.words, 1)))


class TreeLSTM:
    """Parameters and computations of a (Ld)TreeLSTM; one DyNet graph per batch of trees."""

    def __init__(self, arch: str, vocab: Vocabulary, dims: TreeLSTMDimensions, objective: str = "nll") -> None:
        if arch not in ARCHS:
            raise ModelError(f"unknown tree model {arch!r}; expected one of {ARCHS}")
        self.arch, self.vocab, self.dims, self.objective = arch, vocab, dims, objective
        self.root_id = vocab.get(ROOT_WORD)
        if self.root_id == 0:
            raise ModelError(f"the vocabulary lacks the {ROOT_WORD} symbol")
        self.dropout = 0.0
        self.training_record: dict = {}
        self.tuned: dict = {}
        self.model = dy.ParameterCollection()
        self._add_parameters()
        self.noise = self._noise_distribution()

    @property
    def reads_left_dependents(self) -> bool:
        return self.arch == "ldtreelstm"

    def named_parameters(self) -> dict:
        """Every parameter by its place in the model (model format 2)."""
        named = {
            "embeddings": self.embeddings,
            "output_weights": self.output_weights,
            "output_bias": self.output_bias,
            "log_z": self.log_z,
        }
        for edge, builder in self.generators.items():
            named |= builder_parameters(f"generators/{edge}", builder)
        if self.reads_left_dependents:
            named |= builder_parameters("left_reader", self.left_reader)
        for edge, layers in self.classifiers.items():
            named |= {f"classifiers/{edge}/{part}": p for part, p in zip(("w1", "b1", "w2", "b2"), layers, strict=True)}
        return named

    def _add_parameters(self) -> None:
        dims, model, size = self.dims, self.model, len(self.vocab)
        self.embeddings = model.add_lookup_parameters((size, dims.embedding), name="embeddings")
        self.output_weights = model.add_parameters((size, dims.hidden), name="output-w")
        self.output_bias = model.add_parameters(size, name="output-b", init=0)
        self.log_z = model.add_parameters(1, name="log-z", init=INITIAL_LOG_Z)
        input_dims = {edge: dims.embedding for edge in EDGES}
        if self.reads_left_dependents:
            input_dims[RIGHT] += dims.left_hidden
        self.generators = {
            edge: dy.CoupledLSTMBuilder(dims.layers, input_dims[edge], dims.hidden, model) for edge in EDGES
        }
        if self.reads_left_dependents:
            self.left_reader = dy.CoupledLSTMBuilder(1, dims.embedding, dims.left_hidden, model)
        self.classifiers = {
            edge: (
                model.add_parameters((dims.classifier_hidden, 2 * dims.hidden), name=f"grow-{i}-w1"),
                model.add_parameters(dims.classifier_hidden, name=f"grow-{i}-b1", init=0),
                model.add_parameters((2, dims.classifier_hidden), name=f"grow-{i}-w2"),
                model.add_parameters(2, name=f"grow-{i}-b2", init=0),
            )
            for i, edge in enumerate(EDGES)
        }

    def _noise_distribution(self) -> np.ndarray:
        counts = np.array([self.vocab.counts.get(word, 0) for word in self.vocab.strings], dtype=np.float64)
        counts[self.root_id] = 0.0
        counts = np.maximum(counts, 1e-12) ** NOISE_POWER
        return counts / counts.sum()

    # --- the tree's hidden states -------------------------------------------------------------

    def word_ids(self, forms: Sequence[str]) -> list[int]:
        """Vocabulary ids of ROOT and the words (unknown words map to UNK, id 0)."""
        return [self.root_id] + [self.vocab.get(form) for form in forms]

    def set_dropout(self, rate: float) -> None:
        """Dropout between LSTM layers and on the softmax input; 0 for scoring."""
        self.dropout = rate
        for builder in self._builders():
            if rate > 0:
                builder.set_dropout(rate)
            else:
                builder.disable_dropout()

    def _builders(self) -> list:
        return list(self.generators.values()) + ([self.left_reader] if self.reads_left_dependents else [])

    def hidden_states(self, ids: Sequence[int], heads: Sequence[int]) -> dict[int, dy.Expression]:
        """The top-layer output that predicts each word (by 1-based position)."""
        states: dict[int, list[dy.Expression] | None] = {ROOT: None}
        outputs: dict[int, dy.Expression] = {}
        left, _ = dependents(heads)
        for step in generation_order(heads):
            left_words = [ids[d] for d in left[step.source]]
            states[step.node], outputs[step.node] = self.step(
                step.edge, states[step.source], ids[step.source], left_words
            )
        return outputs

    def step(
        self, edge: str, source_state: list[dy.Expression] | None, source_word: int, left_words: Sequence[int]
    ) -> tuple[list[dy.Expression], dy.Expression]:
        """One edge of a dependency path: (the new node's state, its top-layer output).

        The edge's LSTM reads the source node's word (plus, for the LdTreeLSTM's
        RIGHT edges, the summary of the head's left dependents ``left_words``) on top
        of the source's state (None for ROOT: the initial state).
        """
        x = self.embeddings[source_word]
        if edge == RIGHT and self.reads_left_dependents:
            x = dy.concatenate([x, self._left_summary(left_words)])
        builder = self.generators[edge]
        state = (builder.initial_state(source_state) if source_state else builder.initial_state()).add_input(x)
        # Read the state now: a builder's next initial_state() recycles its storage.
        return list(state.s()), state.output()

    def _left_summary(self, left_ids_closest_first: Sequence[int]) -> dy.Expression:
        """The LD LSTM's last output over the left dependents, farthest first (zeros if none)."""
        if not left_ids_closest_first:
            return dy.zeros(self.dims.left_hidden)
        state = self.left_reader.initial_state()
        for word in reversed(left_ids_closest_first):
            state = state.add_input(self.embeddings[word])
        return state.output()

    # --- word probabilities -------------------------------------------------------------------

    def _softmax_input(self, outputs: dict[int, dy.Expression]) -> tuple[list[int], dy.Expression]:
        positions = sorted(outputs)
        batch = dy.concatenate_to_batch([outputs[p] for p in positions])
        if self.dropout > 0:
            batch = dy.dropout(batch, self.dropout)
        return positions, batch

    def tree_nll(self, forms: Sequence[str], heads: Sequence[int]) -> dy.Expression:
        """-log P(S|T) under the full softmax."""
        ids = self.word_ids(forms)
        return self._nll(ids, self.hidden_states(ids, heads))

    def training_loss(self, forms: Sequence[str], heads: Sequence[int], noise_samples: int = 20) -> dy.Expression:
        """The words' loss (NLL or NCE, as the model's objective) plus the growing classifiers' loss."""
        ids = self.word_ids(forms)
        outputs = self.hidden_states(ids, heads)
        words = self._nll(ids, outputs) if self.objective == "nll" else self._nce(ids, outputs, noise_samples)
        return words + self._grow_loss(ids, heads, outputs)

    def _nll(self, ids: Sequence[int], outputs: dict[int, dy.Expression]) -> dy.Expression:
        positions, hidden = self._softmax_input(outputs)
        logits = dy.affine_transform([self.output_bias.expr(True), self.output_weights.expr(True), hidden])
        return dy.sum_batches(dy.pickneglogsoftmax_batch(logits, [ids[p] for p in positions]))

    def _nce(self, ids: Sequence[int], outputs: dict[int, dy.Expression], noise_samples: int) -> dy.Expression:
        """Noise-contrastive estimation: each word against k words drawn from the noise distribution.

        The model's unnormalized log-probability is s(w) - ln Z with a learned ln Z;
        the loss is the logistic loss of telling the data word from the noise words
        given the log-odds s(w) - ln Z - log(k q(w)).
        """
        noise = np.random.choice(len(self.noise), size=(len(outputs), noise_samples), p=self.noise)
        weights, bias, log_z = self.output_weights.expr(True), self.output_bias.expr(True), self.log_z.expr(True)
        signs = dy.inputVector([1.0] + [-1.0] * noise_samples)
        losses = []
        for row, position in enumerate(sorted(outputs)):
            hidden = dy.dropout(outputs[position], self.dropout) if self.dropout > 0 else outputs[position]
            candidates = [ids[position]] + [int(w) for w in noise[row]]
            scores = dy.select_rows(weights, candidates) * hidden + dy.select_rows(bias, candidates)
            log_kq = dy.inputVector(np.log(noise_samples * self.noise[candidates] + 1e-30))
            log_odds = scores - dy.concatenate([log_z] * len(candidates)) - log_kq
            losses.append(-dy.sum_elems(dy.log_sigmoid(dy.cmult(signs, log_odds))))
        return dy.esum(losses)

    def word_log_probs(self, hidden: dy.Expression) -> np.ndarray:
        """log P(w | D) over the whole vocabulary for one hidden state."""
        logits = dy.affine_transform([self.output_bias.expr(True), self.output_weights.expr(True), hidden])
        return dy.log_softmax(logits).npvalue()

    def score_trees(
        self, trees: Sequence[tuple[Sequence[str], Sequence[int]]], progress: Callable[[int], None] | None = None
    ) -> list[TreeScore]:
        """log P(S|T) of each (forms, heads) tree, normalized by the full softmax.

        Trees are scored in graphs of about :data:`WORDS_PER_GRAPH` words, so that
        DyNet's autobatching runs their LSTM steps together within a memory pool
        of fixed size; NCE-trained models are normalized exactly too.
        """
        self.set_dropout(0.0)
        scores: list[TreeScore] = []
        for batch in batches(trees, max_words=WORDS_PER_GRAPH, words_of=lambda tree: len(tree[0]), strict=True):
            try:
                values = self._negative_log_probs(batch, autobatching=True)
            except ValueError:  # DyNet's pools are too small to autobatch (they cannot grow then)
                values = self._negative_log_probs(batch, autobatching=False)
            scores.extend(TreeScore(-float(v), len(forms)) for v, (forms, _) in zip(values, batch, strict=True))
            if progress is not None:
                progress(len(batch))
        return scores

    def _negative_log_probs(self, batch: Sequence[tuple[Sequence[str], Sequence[int]]], autobatching: bool):
        dy.renew_cg(autobatching=autobatching)
        losses = [self.tree_nll(forms, heads) for forms, heads in batch]
        return dy.concatenate(losses).npvalue() if len(losses) > 1 else [losses[0].value()]

    # --- growing trees (section 3.4) ----------------------------------------------------------

    def grow_logits(self, edge: str, hidden: dy.Expression, word: int) -> dy.Expression:
        """Two-way logits of the classifier that decides whether to add a dependent along ``edge``."""
        w1, b1, w2, b2 = (p.expr(True) for p in self.classifiers[edge])
        embedding = dy.reshape(dy.select_rows(self.output_weights.expr(True), [word]), (self.dims.hidden,))
        features = dy.nobackprop(dy.concatenate([hidden, embedding]))
        return dy.affine_transform([b2, w2, dy.rectify(dy.affine_transform([b1, w1, features]))])

    def _grow_loss(self, ids: Sequence[int], heads: Sequence[int], outputs: dict[int, dy.Expression]) -> dy.Expression:
        """Summed logistic losses of the four classifiers over every decision in the tree."""
        losses = [
            dy.pickneglogsoftmax(self.grow_logits(edge, outputs[node], ids[node]), int(grows))
            for node, edge, grows in grow_decisions(heads)
        ]
        return dy.esum(losses)

    def sample_tree(self, max_words: int = 60) -> tuple[list[str], list[int]]:
        """Generate a tree top-down: the classifiers decide its shape, the LSTMs its words.

        Returns (forms, heads) in surface order.  Words are drawn from the model's
        distribution without UNK and ROOT; a tree stops growing at ``max_words``.
        """
        dy.renew_cg()
        self.set_dropout(0.0)
        grower = _TreeGrower(self, max_words)
        return grower.grow()

    def sample_word(self, output: dy.Expression) -> int:
        """A word drawn from P(w | D) at a node's output, never UNK or ROOT."""
        probs = np.exp(self.word_log_probs(output))
        probs[[0, self.root_id]] = 0.0
        return int(np.random.choice(len(probs), p=probs / probs.sum()))

    def grows(self, edge: str, output: dy.Expression, word: int) -> bool:
        probs = dy.softmax(self.grow_logits(edge, output, word)).npvalue()
        return bool(np.random.random() < probs[1])

    # --- saving -----------------------------------------------------------------------------------

    def save(self, directory: str, training: dict | None = None) -> None:
        record = training if training is not None else self.training_record
        vocab = {"words": self.vocab.to_json()}
        named = self.named_parameters()
        save_model(
            directory,
            self.arch,
            self.dims,
            record,
            vocab,
            self.model,
            named,
            objective=self.objective,
            rerank=self.tuned,
        )

    @classmethod
    def load(cls, directory: str | Path | ModelRecord) -> TreeLSTM:
        directory = str(directory_of(directory))
        config, vocab, params = load_directory(directory)
        if config.get("arch") not in ARCHS:
            raise ModelError(f"{directory}: a {config.get('arch')!r} model, not a TreeLSTM ({' or '.join(ARCHS)})")
        with model_contents(directory):
            model = cls(
                config["arch"],
                Vocabulary.from_json(vocab["words"]),
                TreeLSTMDimensions(**config["dims"]),
                config.get("objective", "nll"),
            )
        assign_values(model.model, model.named_parameters(), params, config["format_version"])
        model.training_record = config.get("training", {})
        model.tuned = config.get("rerank", {})
        return model


class _TreeGrower:
    """The bookkeeping of one sampled tree: nodes in generation order, then surface order."""

    def __init__(self, model: TreeLSTM, max_words: int) -> None:
        self.model, self.max_words = model, max_words
        self.words = [model.root_id]  # node 0 is ROOT
        self.states: list[list[dy.Expression] | None] = [None]
        self.outputs: list[dy.Expression | None] = [None]
        self.left: list[list[int]] = [[]]  # closest first
        self.right: list[list[int]] = [[]]
        self.head_of: list[int] = [ROOT]

    def grow(self) -> tuple[list[str], list[int]]:
        queue = [self._add(RIGHT, ROOT, ROOT)]
        self.right[ROOT].append(queue[0])
        while queue:
            node = queue.pop(0)
            self._grow_side(node, LEFT, NX_LEFT, self.left[node])
            self._grow_side(node, RIGHT, NX_RIGHT, self.right[node])
            queue.extend(self.left[node] + self.right[node])
        return self._surface()

    def _grow_side(self, node: int, first: str, following: str, chain: list[int]) -> None:
        model = self.model
        if not self._room() or not model.grows(first, self.outputs[node], self.words[node]):
            return
        chain.append(self._add(first, node, node))
        while self._room() and model.grows(following, self.outputs[chain[-1]], self.words[chain[-1]]):
            chain.append(self._add(following, chain[-1], node))

    def _room(self) -> bool:
        return len(self.words) <= self.max_words

    def _add(self, edge: str, source: int, head: int) -> int:
        left_words = [self.words[d] for d in self.left[head]]
        state, output = self.model.step(edge, self.states[source], self.words[source], left_words)
        self.words.append(self.model.sample_word(output))
        self.states.append(state)
        self.outputs.append(output)
        self.left.append([])
        self.right.append([])
        self.head_of.append(head)
        return len(self.words) - 1

    def _surface(self) -> tuple[list[str], list[int]]:
        order: list[int] = []

        def visit(node: int) -> None:
            for dependent in reversed(self.left[node]):
                visit(dependent)
            order.append(node)
            for dependent in self.right[node]:
                visit(dependent)

        visit(self.right[ROOT][0])
        position = {node: i for i, node in enumerate(order, start=1)} | {ROOT: 0}
        forms = [self.model.vocab.strings[self.words[node]] for node in order]
        heads = [position[self.head_of[node]] for node in order]
        return forms, heads


def grow_decisions(heads: Sequence[int]) -> list[tuple[int, str, bool]]:
    """(node, edge, whether a dependent is added) for every decision that generates the tree.

    At each word: ADD-LEFT and ADD-RIGHT (does it have left/right dependents?).  At
    each dependent: ADD-NX-LEFT or ADD-NX-RIGHT (does its head have one more, farther
    out on the same side?).  ROOT's single dependent is not a decision.
    """
    left, right = dependents(heads)
    decisions = []
    for node in range(1, len(heads) + 1):
        decisions.append((node, LEFT, bool(left[node])))
        decisions.append((node, RIGHT, bool(right[node])))
        for chain, edge in ((left[node], NX_LEFT), (right[node], NX_RIGHT)):
            for k, dependent in enumerate(chain):
                decisions.append((dependent, edge, k + 1 < len(chain)))
    return decisions
