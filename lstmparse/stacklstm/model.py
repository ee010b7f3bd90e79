"""The stack-LSTM transition parser (Dyer et al. 2015, section 3).

Three stack LSTMs summarize the stack S, the buffer B and the action history A.
The parser state is p_t = ReLU(W[s_t; b_t; a_t] + d) and the next action is drawn
from a softmax over the actions that are legal in the configuration.  When an arc
is made, the head's vector becomes c = tanh(U[h; m; r] + e), a composition of
head h, dependent m and the embedding r of the reducing action, so tree fragments
on the stack are represented recursively (section 3.4).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, cast

import dynet as dy
import numpy as np

from lstmparse.core.batching import batches
from lstmparse.core.model_io import assign_values, effective_values, load_directory, model_contents, save_model
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import ModelError
from lstmparse.io.formats import Token
from lstmparse.layers.stack_lstm import StackLSTM, StackPointer
from lstmparse.stacklstm.joint_tags import UposHead
from lstmparse.stacklstm.options import StackLSTMDimensions
from lstmparse.stacklstm.oracles import Oracle
from lstmparse.stacklstm.pseudo_projective import deprojectivize
from lstmparse.stacklstm.systems import Configuration, TransitionSystem, make_system
from lstmparse.stacklstm.tokens import TokenEncoder

if TYPE_CHECKING:
    from lstmparse.stacklstm.examples import Example

ARCH = "stacklstm"
TOKENS = "tokens"  # the token vectors' parameter names start so in a model file (their tables too)
JOINT_UPOS = "joint_upos"  # the names of the UPOS output layer's parameters start so
UPOS_GROUP_WORDS = 512  # at most this many words in a graph of the tag layer (unless one sentence has more)
NAMED_PARAMETERS = (  # the parser's own parameters (those of its layers are named by the layers)
    "root_vector",
    "action_history_embeddings",
    "composition_action_embeddings",
    "composition",
    "composition_bias",
    "state",
    "state_bias",
    "output",
    "output_bias",
)
# What a saved model computes.  Revision 2 (lstmparse 0.2): an arc reseats its head on
# every stack LSTM that holds it (systems/base.py), and a FEATS vector is the sum of the
# word's own feature embeddings.  Revision 1 models whose computation this changed are
# refused by :func:`check_revision`; ``train --resume`` continues their training.
REVISION = 2


class PersistentStack(Protocol):
    """A stack LSTM's position: one sentence's :class:`StackPointer`, or a lock-step batch's pending pointer."""

    def push(self, x: Any) -> Self: ...

    def pop(self) -> Self: ...


class NeuralConfiguration(Configuration):
    """A configuration whose primitive operations also move the stack-LSTM pointers."""

    vectors: list[Any]  # each position's subtree vector: an expression (or a lock-step batch's pending vector)
    stack_top: PersistentStack
    buffer_top: PersistentStack
    history: PersistentStack

    def __init__(self, n: int, parser: StackLSTMParser, vectors: list[dy.Expression]) -> None:
        super().__init__(n)
        self.parser = parser
        self.vectors = vectors  # current vector of each position's subtree (0 = root)
        self.stack_top = parser.stack_lstm.empty()
        self.buffer_top = parser.buffer_lstm.empty()
        self.history = parser.action_lstm.empty()

    def push_stack(self, item: int) -> None:
        super().push_stack(item)
        self.stack_top = self.stack_top.push(self.vectors[item])

    def pop_stack(self) -> int:
        self.stack_top = self.stack_top.pop()
        return super().pop_stack()

    def push_buffer(self, item: int) -> None:
        super().push_buffer(item)
        self.buffer_top = self.buffer_top.push(self.vectors[item])

    def pop_buffer(self) -> int:
        self.buffer_top = self.buffer_top.pop()
        return super().pop_buffer()

    def represent_arc(self, head: int, dependent: int, action: int) -> None:
        """The head's vector becomes the composition c (the base class then reseats the head)."""
        self.vectors[head] = self.parser.compose(self.vectors[head], self.vectors[dependent], action)

    def copy(self) -> Self:
        """A copy sharing the (immutable) stack-LSTM pointers; subtree vectors are copied."""
        clone = super().copy()
        clone.vectors = self.vectors[:]
        return clone

    def record(self, action: int) -> None:
        """Push the action onto the action-history LSTM."""
        self.history = self.history.push(self.parser.action_history_embeddings[action])


class StackLSTMParser:
    """Parameters and computations of the parser; one DyNet graph per sentence."""

    def __init__(
        self,
        system: TransitionSystem,
        features: Sequence[str],
        vocabs: dict[str, Vocabulary],
        dims: StackLSTMDimensions | None = None,
        pretrained_dim: int = 0,
        pseudo_projective: bool = False,
        frozen: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """``frozen``: a model file's arrays, for a parser loaded to parse (:class:`TokenEncoder`)."""
        self.system = system
        self.pseudo_projective = pseudo_projective  # labels carry lifts; parse() undoes them
        self.dropout = 0.0  # training-time dropout on token vectors and inside the stack LSTMs
        self.training_record: dict = {}  # how a loaded model was trained (its config.json's "training")
        self.features = list(features)
        self.vocabs = vocabs
        self.pretrained_dim = pretrained_dim
        self.dims = dims = dims or StackLSTMDimensions()
        self.model = model = dy.ParameterCollection()
        self.tokens = TokenEncoder(model, features, dims, vocabs, pretrained_dim, frozen, prefix=TOKENS)
        self.stack_lstm = StackLSTM(model, dims.layers, dims.token, dims.lstm)
        self.buffer_lstm = StackLSTM(model, dims.layers, dims.token, dims.lstm)
        self.action_lstm = StackLSTM(model, dims.layers, dims.action_history, dims.lstm)
        n_actions = len(system.actions)
        self.root_vector = model.add_parameters(dims.token)
        self.action_history_embeddings = model.add_lookup_parameters((n_actions, dims.action_history))
        self.composition_action_embeddings = model.add_lookup_parameters((n_actions, dims.composition_action))
        self.composition = model.add_parameters((dims.token, 2 * dims.token + dims.composition_action))
        self.composition_bias = model.add_parameters(dims.token)
        self.state = model.add_parameters((dims.state, 3 * dims.lstm))
        self.state_bias = model.add_parameters(dims.state)
        self.output = model.add_parameters((n_actions, dims.state))
        self.output_bias = model.add_parameters(n_actions)
        self.upos_head = UposHead(model, vocabs["pos"], dims.token) if dims.joint_upos else None

    def set_dropout(self, rate: float) -> None:
        """The dropout rate of training graphs, on token vectors and inside the stack LSTMs (decoding applies none).

        Every family's models take their rate this way (``set_dropout``).
        """
        self.dropout = rate

    def named_parameters(self) -> dict:
        """Every parameter by its place in the model (model format 2)."""
        named = self.tokens.named_parameters(TOKENS)
        for name in ("stack_lstm", "buffer_lstm", "action_lstm"):
            named |= getattr(self, name).named_parameters(name)
        if self.upos_head is not None:
            named |= self.upos_head.named_parameters(JOINT_UPOS)
        return named | {name: getattr(self, name) for name in NAMED_PARAMETERS}

    def compose(self, head: dy.Expression, dependent: dy.Expression, action: int) -> dy.Expression:
        relation = self.composition_action_embeddings[action]
        inputs = dy.concatenate([head, dependent, relation])
        return dy.tanh(dy.affine_transform([self.composition_bias, self.composition, inputs]))

    def start(self, tokens: Sequence[Token], train: bool, rng: random.Random | None = None) -> NeuralConfiguration:
        """The initial configuration of a sentence in the current graph (dropout only in training).

        ``rng``: the sentence's own random stream for unknown-word replacement in training.
        """
        return self._start(tokens, train, rng)[0]

    def _start(
        self, tokens: Sequence[Token], train: bool, rng: random.Random | None
    ) -> tuple[NeuralConfiguration, dy.Expression]:
        """The initial configuration and the token vectors (one batched expression, a batch element per word)."""
        for stack in (self.stack_lstm, self.buffer_lstm, self.action_lstm):
            if train and self.dropout:
                stack.builder.set_dropout(self.dropout)
            else:
                stack.builder.disable_dropout()
        table = self.tokens.encode_many([tokens], train, self.dropout, [rng])
        vectors = [self.root_vector, *(dy.pick_batch_elem(table, i) for i in range(len(tokens)))]
        return self.system.initial_as(NeuralConfiguration, len(tokens), parser=self, vectors=vectors), table

    def predict_upos(self, sentences: Sequence[Sequence[Token]], group: int = 32) -> list[list[str]]:
        """Each sentence's UPOS from the joint tag layer, ``group`` sentences to a graph (``joint_upos`` only)."""
        return self._upos_groups(sentences, group, "predict")

    def upos_log_probs(self, sentences: Sequence[Sequence[Token]], group: int = 32) -> list[np.ndarray]:
        """Each sentence's (words x tags) UPOS log-probabilities, tags as ``upos_head.tags.strings`` orders them."""
        return self._upos_groups(sentences, group, "log_probs")

    def _upos_groups(self, sentences: Sequence[Sequence[Token]], group: int, output: str) -> list:
        """The tag layer's ``output`` for each sentence, in order, computed in graphs of sentences of similar length.

        The context bi-LSTM reads a graph's sentences padded to its longest, and a graph
        keeps every value until it is renewed: sentences taken shortest first, ``group``
        to a graph and no more than ``UPOS_GROUP_WORDS`` words (a longer sentence
        alone), leave little padding and bound the graph's memory.
        """
        if self.upos_head is None:
            raise ModelError("this parser was not trained with --joint-upos: it predicts no UPOS")
        results: list = [None] * len(sentences)
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        for batch in batches(order, group, UPOS_GROUP_WORDS, lambda i: len(sentences[i]), strict=True):
            dy.renew_cg(autobatching=False)
            chunk = [sentences[i] for i in batch]
            vectors = self.tokens.encode_many(chunk, train=False)
            outputs = getattr(self.upos_head, output)(vectors, [len(tokens) for tokens in chunk])
            for index, value in zip(batch, outputs, strict=True):
                results[index] = value
        return results

    def tagging_loss(self, vectors: dy.Expression, sentences: Sequence[Sequence[Token]]) -> dy.Expression | None:
        """With ``joint_upos``, the UPOS loss of the sentences' words (their token vectors, batched); else None."""
        return self.upos_head.loss(vectors, sentences) if self.upos_head is not None else None

    def scores(self, config: NeuralConfiguration) -> dy.Expression:
        """Unnormalized scores of all actions in ``config``."""
        tops = cast(list[StackPointer], [config.stack_top, config.buffer_top, config.history])  # one sentence's
        summary = dy.concatenate([top.summary() for top in tops])
        return self.action_scores(summary)

    def action_scores(self, summary: dy.Expression) -> dy.Expression:
        """Action scores from [s_t; b_t; a_t] through the parser state p_t (batched or not)."""
        state = dy.rectify(dy.affine_transform([self.state_bias, self.state, summary]))
        return dy.affine_transform([self.output_bias, self.output, state])

    def step(self, config: NeuralConfiguration, action: int) -> None:
        self.system.apply(config, action)
        config.record(action)

    def oracle_loss(self, example: Example, oracle: Oracle, rng: random.Random) -> dy.Expression | None:
        """The loss of one sentence in the current graph along the path ``oracle`` follows (None: nothing to learn).

        At each configuration with a choice, the loss is -log of the total
        probability of the oracle's correct actions (Dyer et al. 2015 with the static
        oracle; Ballesteros et al. 2016, eq. 3, with the dynamic one), counted when
        some legal action is not correct.  ``rng`` is the sentence's own random
        stream (unknown words, exploration).  With ``joint_upos`` the words' UPOS loss
        is added (:mod:`~lstmparse.stacklstm.joint_tags`).  Lock-step training
        (:mod:`~lstmparse.stacklstm.batch_loss`) computes the same sum for many
        sentences at once; this is its reference.
        """
        config, vectors = self._start(example.sentence.tokens, train=True, rng=rng)
        tagging = self.tagging_loss(vectors, [example.sentence.tokens])
        losses = [] if tagging is None else [tagging]
        step = 0
        while not self.system.is_final(config):
            legal = self.system.legal(config)
            if len(legal) == 1:
                self.step(config, legal[0])
                step += 1
                continue
            correct = oracle.correct(config, example, step, legal)
            log_probs = legal_log_probs(self.scores(config), legal)
            if len(correct) < len(legal):
                picked = [dy.pick(log_probs, legal.index(action)) for action in correct]
                losses.append(-(picked[0] if len(picked) == 1 else dy.logsumexp(picked)))
            exploring = oracle.explores(correct, rng)
            values = None
            if oracle.needs_scores(correct, exploring):
                values = np.full(len(self.system.actions), -np.inf, dtype=np.float32)
                values[legal] = log_probs.npvalue()
            self.step(config, oracle.follow(correct, legal, values, exploring, rng))
            step += 1
        return dy.esum(losses) if losses else None

    def parse(self, tokens: Sequence[Token]) -> tuple[list[int], list[str]]:
        """Greedy decoding of one sentence in a fresh graph: (heads, deprels)."""
        dy.renew_cg(autobatching=False)  # one step at a time: batching has nothing to group
        config = self.start(tokens, train=False)
        while not self.system.is_final(config):
            legal = self.system.legal(config)
            if len(legal) == 1:
                action = legal[0]
            else:
                scores = self.scores(config).npvalue()
                action = legal[int(np.argmax(scores[legal]))]
            self.step(config, action)
        return self.finished_tree(config)

    def finished_tree(self, config: Configuration) -> tuple[list[int], list[str]]:
        """The tree of a final configuration, with pseudo-projective lifts undone."""
        heads, labels = config.tree()
        return deprojectivize(heads, labels) if self.pseudo_projective else (heads, labels)

    def save(self, directory: str, training: dict | None = None) -> None:
        """Write the model directory atomically (see :mod:`lstmparse.core.model_io`)."""
        vocab = {name: v.to_json() for name, v in self.vocabs.items()}
        save_model(
            directory,
            ARCH,
            self.dims,
            training or {},
            vocab,
            self.model,
            self.named_parameters(),
            system=self.system.name,
            pseudo_projective=self.pseudo_projective,
            root_label=self.system.root_label,
            labels=self.system.labels,
            features=self.features,
            pretrained_dim=self.pretrained_dim,
            revision=REVISION,
        )

    @classmethod
    def load(cls, directory: str) -> StackLSTMParser:
        config, vocab, params = load_directory(directory)
        if config.get("arch") != ARCH:
            raise ModelError(f"{directory}: a {config.get('arch')!r} model, not a stack-LSTM parser")
        with model_contents(directory):
            system = make_system(config["system"], config["labels"], config["root_label"])
            check_revision(directory, config, system)
            vocabs = {name: Vocabulary.from_json(data) for name, data in vocab.items()}
            parser = cls(
                system,
                config["features"],
                vocabs,
                StackLSTMDimensions(**config["dims"]),
                config["pretrained_dim"],
                config.get("pseudo_projective", False),
                params if config["format_version"] >= 2 else None,  # format 1 names tables otherwise
            )
        parser.set_parameter_values(params, config["format_version"])
        parser.training_record = config.get("training", {})
        return parser

    def parameter_values(self) -> dict[str, np.ndarray]:
        return effective_values(self.model, self.named_parameters())

    def set_parameter_values(self, values: dict[str, np.ndarray], version: int) -> None:
        assign_values(self.model, self.named_parameters(), values, version)


def legal_log_probs(scores: dy.Expression, legal: Sequence[int]) -> dy.Expression:
    """log p(a | legal) of the ``legal`` actions, in that order: the softmax over their rows alone.

    DyNet's restricted ``log_softmax`` writes minus infinity for the other actions into its
    memory pool.  DyNet's CPU matrix product scales its output memory by zero before adding
    the product, and zero times a leftover minus infinity is NaN: a later graph in the same
    process (a seq2seq parser's training) read NaN there (tests/stacklstm/test_finite_memory.py).
    """
    return dy.log_softmax(dy.select_rows(scores, list(legal)))


def revision_1_changes(config: dict, system: TransitionSystem) -> list[str]:
    """What revision 2 computes differently for a model saved as revision 1 (empty: nothing)."""
    if config.get("revision", 1) >= REVISION:
        return []
    changes = []
    if system.heads_stay_in_place:
        changes.append(f"{system.name} arcs now show the composed head to the stack LSTM")
    if "feats" in config.get("features", ()):
        changes.append("FEATS vectors no longer depend on the other words of a batch")
    return changes


def check_revision(directory: str, config: dict, system: TransitionSystem) -> None:
    """Refuse a model that would parse with other semantics than it was trained with."""
    changes = revision_1_changes(config, system)
    if changes:
        raise ModelError(
            f"{directory}: trained before lstmparse 0.2 corrected its model ({'; '.join(changes)}), so it would "
            "parse differently from how it was trained; continue its training with `lstmparse train --resume` "
            "(same options) or retrain it (see docs/model.md, 'Model revisions')"
        )
