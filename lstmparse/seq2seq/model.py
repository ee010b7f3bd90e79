"""Sequence-to-sequence constituency parsing with attention (Vinyals et al. 2015).

"Grammar as a Foreign Language": an encoder LSTM reads the sentence reversed, a
decoder LSTM writes the linearized tree (:mod:`lstmparse.seq2seq.linearization`), and at
every step attention over the encoder's outputs (section 2.1)

    u_i = v^T tanh(W1 h_i + W2 d_t),  a = softmax(u),  d'_t = sum_i a_i h_i

gives a context d'_t that is concatenated with d_t to predict the next token and is
fed, with that token's embedding, to the next step.  Both LSTMs are deep (3 layers
of 256 in the paper) with dropout between layers (LSTM+A+D, section 2.3); the
decoder starts from the encoder's final state.  Words are learned embeddings
(training words seen once are replaced by UNK half the time) optionally
concatenated with fixed pretrained vectors.

Extensions beyond the paper are options (``Seq2SeqDimensions``, ``train
--bidirectional --word-pointer --chars``).  A bidirectional encoder adds a forward LSTM, so
each word's memory sees both sides.  The word pointer feeds the decoder, at every
step, the memory of the next word to place: the linearization emits one XX per
word, left to right, so the number of XX already emitted says exactly which word
comes next.  Attention has to learn that alignment from data; given it, the model
learns much faster on a small treebank (GUM: dev F1 67 after one epoch against 17).
A third option, ``chars`` (``train --chars``), adds a character bi-LSTM's vector to
each word's, so that rare and unseen words are known by their spelling.

Training is teacher-forced on minibatches of sentences of equal length, so that
each step is one dense batched operation (padding only on the target side, where a
mask zeroes the loss).  Decoding is beam search (section 2.1: "beam search ...
size 10") over many sentences of any length at once (:mod:`lstmparse.seq2seq.decoding`);
an output that is not a well-formed tree with one leaf per word is repaired (section
3.2) and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import dynet as dy
import numpy as np

from lstmparse.core.model_io import assign_values, builder_parameters, load_model, model_contents, save_model
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import ModelError
from lstmparse.layers.chars import CharacterLSTM
from lstmparse.layers.embeddings import pretrained_ids, word_ids
from lstmparse.layers.lstms import parses_fused, vanilla_lstm
from lstmparse.seq2seq.decoding import Seq2SeqDecoding
from lstmparse.seq2seq.linearization import LEAF
from lstmparse.seq2seq.options import Seq2SeqDimensions

ARCH = "seq2seq"
END = "</s>"  # ends every target sequence and starts the decoder


@dataclass
class Memory:
    """The encoded sentence (batched): what every decoder step reads."""

    outputs: dy.Expression  # (memory x words): each word's encoder output, in sentence order
    projected: dy.Expression  # W1 times ``outputs``, computed once for attention
    pointable: dy.Expression | None  # ``outputs`` and a learned column past the last word (word pointer)
    final: list[dy.Expression]  # the encoder's last state, the decoder's first


class Seq2SeqParser(Seq2SeqDecoding):
    """The encoder, the attention decoder and their output layer."""

    def __init__(
        self,
        words: Vocabulary,
        targets: Vocabulary,
        dims: Seq2SeqDimensions,
        pretrained: Vocabulary | None = None,
        chars: Vocabulary | None = None,
        fused: bool = False,
    ) -> None:
        """``fused``: for a model loaded to parse, the encoders run DyNet's fused LSTM operations
        (:mod:`lstmparse.layers.lstms`; the decoder's steps are the search's own, :mod:`lstmparse.seq2seq.step`)."""
        if bool(dims.chars) != (chars is not None):
            raise ModelError("a character bi-LSTM needs a character vocabulary, and only it")
        self.words, self.targets, self.dims = words, targets, dims
        self.pretrained = pretrained if dims.pretrained else None
        self.end_id = targets.get(END)
        if self.end_id == 0:
            raise ModelError(f"the target vocabulary has no {END}")
        self.leaf_id = targets.get(LEAF)
        self.open_ids = np.array([i for i, token in enumerate(targets.strings) if token.startswith("(")], dtype=int)
        self.close_ids = {token[1:]: i for i, token in enumerate(targets.strings) if token.startswith(")")}
        self.model = dy.ParameterCollection()
        model = self.model
        self.word_embeddings = model.add_lookup_parameters((len(words), dims.word), name="words")
        if self.pretrained is not None:
            self.pretrained_embeddings = model.add_lookup_parameters(
                (len(self.pretrained), dims.pretrained), name="pretrained"
            )
        self.target_embeddings = model.add_lookup_parameters((len(targets), dims.target), name="targets")
        pointed = dims.memory if dims.word_pointer else 0
        encoder = vanilla_lstm(fused)
        self.encoder = encoder(dims.layers, dims.word_input, dims.hidden, model)
        self.decoder = dy.VanillaLSTMBuilder(dims.layers, dims.target + dims.memory + pointed, dims.hidden, model)
        self.attention_encoder = model.add_parameters((dims.attention, dims.memory), name="W1")
        self.attention_decoder = model.add_parameters((dims.attention, dims.hidden), name="W2")
        self.attention_vector = model.add_parameters((1, dims.attention), name="v")
        self.output_weights = model.add_parameters((len(targets), dims.hidden + dims.memory + pointed), name="outputW")
        self.output_bias = model.add_parameters((len(targets),), init=0.0, name="outputb")
        # created last, so that models without them keep their parameter names
        if dims.bidirectional:
            self.forward_encoder = encoder(dims.layers, dims.word_input, dims.hidden, model)
        if dims.word_pointer:
            self.past_last_word = model.add_parameters((dims.memory,), name="pastLastWord")
        self.char_lstm = (
            CharacterLSTM(model, chars, dims.char_embedding, dims.chars, fused) if chars is not None else None
        )
        self.dropout = 0.0
        self.training_record: dict = {}

    def named_parameters(self) -> dict:
        """Every parameter by its place in the model (model format 2)."""
        named = {"words": self.word_embeddings, "targets": self.target_embeddings}
        if self.pretrained is not None:
            named["pretrained"] = self.pretrained_embeddings
        named |= builder_parameters("encoder", self.encoder) | builder_parameters("decoder", self.decoder)
        for name in ("attention_encoder", "attention_decoder", "attention_vector", "output_weights", "output_bias"):
            named[name] = getattr(self, name)
        if self.dims.bidirectional:
            named |= builder_parameters("forward_encoder", self.forward_encoder)
        if self.dims.word_pointer:
            named["past_last_word"] = self.past_last_word
        if self.char_lstm is not None:
            named |= self.char_lstm.named_parameters("chars")
        return named

    # -- the network -------------------------------------------------------------

    def set_dropout(self, rate: float) -> None:
        """Dropout between LSTM layers and before the output layer; 0 for decoding."""
        self.dropout = rate
        for builder in (self.encoder, self.decoder):
            if rate > 0:
                builder.set_dropouts(rate, 0.0)
            else:
                builder.disable_dropout()

    def word_ids(self, words: Sequence[str], train: bool = False) -> list[int]:
        """Learned-embedding ids; with ``train``, singletons become UNK half the time."""
        return word_ids(self.words, words, train)

    def encode(self, batch: Sequence[Sequence[str]], train: bool = False) -> Memory:
        """What the decoder reads: each word's encoder output, in sentence order, and the final state.

        The paper's encoder reads the input reversed, so its final state, which
        starts the decoder, has just read the first word; a bidirectional encoder
        adds a forward LSTM's outputs.  Sentences of different lengths are read in
        one batched run, which turns the LSTMs' matrix-vector products into matrix
        products: each sentence is padded at the end of each reading, so every
        output of a word is the one the sentence would get alone (its first word
        is read last by the backward LSTM, which is where its final state is
        taken).  Memory columns past a sentence's last word hold padding, which
        attention must give no weight (the decoder's padding offsets).
        """
        lengths = [len(words) for words in batch]
        inputs = self._input_vectors(batch, train)
        starts = [builder.initial_state() for builder in self._encoders()]  # before the masks, or DyNet crashes
        if self.dropout:
            for builder in self._encoders():
                builder.set_dropout_masks(len(batch))
        backward = starts[0].add_inputs(_reversed_per_sentence(inputs, lengths))
        outputs = _reversed_per_sentence([s.output() for s in backward], lengths)
        if self.dims.bidirectional:
            forward = starts[1].transduce(inputs)
            outputs = [dy.concatenate([f, b]) for f, b in zip(forward, outputs, strict=True)]
        matrix = dy.concatenate_cols(outputs)
        pointable = self._pointable(outputs, lengths) if self.dims.word_pointer else None
        final = [_at_steps([s.s()[k] for s in backward], [n - 1 for n in lengths]) for k in range(2 * self.dims.layers)]
        return Memory(matrix, self.attention_encoder * matrix, pointable, final)

    def _pointable(self, outputs: list[dy.Expression], lengths: list[int]) -> dy.Expression:
        """The word pointer's columns: each word's output, then the learned column past the sentence's last word."""
        longest = len(outputs)
        if all(n == longest for n in lengths):
            return dy.concatenate_cols(outputs + [self.past_last_word])
        columns = []
        for position, output in enumerate(outputs):
            if position in lengths:  # the sentences of ``position`` words point past their last word here
                choices = dy.concatenate_to_batch([output, self.past_last_word.expr()])
                rows = [len(lengths) if n == position else s for s, n in enumerate(lengths)]
                output = dy.pick_batch_elems(choices, rows)
            columns.append(output)
        return dy.concatenate_cols(columns + [self.past_last_word])

    def _encoders(self) -> list:
        return [self.encoder, self.forward_encoder] if self.dims.bidirectional else [self.encoder]

    def _input_vectors(self, batch: Sequence[Sequence[str]], train: bool) -> list[dy.Expression]:
        """Each position's batched word vector: learned, with the fixed pretrained one and the
        character bi-LSTM's if the model has them.  Positions past a sentence's end get the
        UNK vectors as padding."""
        longest = max(len(words) for words in batch)
        ids = [_padded(self.word_ids(words, train), longest) for words in batch]
        pretrained = (
            [_padded(pretrained_ids(self.pretrained, words), longest) for words in batch]
            if self.pretrained is not None
            else None
        )
        spelled, spelled_index = None, {}
        if self.char_lstm is not None:  # all words of the batch in one run, position-major
            placed = [(p, s) for p in range(longest) for s, words in enumerate(batch) if p < len(words)]
            spelled = self.char_lstm.encode([batch[s][p] for p, s in placed])
            spelled_index = {place: k for k, place in enumerate(placed)}
        inputs = []
        for position in range(longest):
            parts = [dy.lookup_batch(self.word_embeddings, [sentence[position] for sentence in ids])]
            if pretrained is not None:
                parts.append(
                    dy.lookup_batch(
                        self.pretrained_embeddings, [sentence[position] for sentence in pretrained], update=False
                    )
                )
            if spelled is not None:
                rows = [spelled_index.get((position, s), 0) for s in range(len(batch))]
                parts.append(dy.pick_batch_elems(spelled, rows))
            inputs.append(dy.concatenate(parts) if len(parts) > 1 else parts[0])
        return inputs

    def _attend(self, memory: Memory, decoder_output):
        """The context d'_t: encoder outputs weighted by softmax(v^T tanh(W1 h_i + W2 d_t))."""
        scores = self.attention_vector * dy.tanh(
            dy.colwise_add(memory.projected, self.attention_decoder * decoder_output)
        )
        return memory.outputs * dy.softmax(dy.transpose(scores))

    def _step(self, memory: Memory, decoder_state, previous_ids, context, placed: Sequence[int]):
        """One decoder step: (new state, its context, the output scores).

        ``placed`` counts the words each sequence has placed (XX emitted); with the
        word pointer, the memory of the next word is an input and an output feature.
        """
        inputs = [dy.lookup_batch(self.target_embeddings, previous_ids), context]
        if self.dims.word_pointer:
            pointed = dy.pick_batch(memory.pointable, list(placed), dim=1)
            inputs.append(pointed)
        state = decoder_state.add_input(dy.concatenate(inputs))
        output = state.output()
        context = self._attend(memory, output)
        features = [output, context, pointed] if self.dims.word_pointer else [output, context]
        features = dy.concatenate(features)
        if self.dropout:
            features = dy.dropout(features, self.dropout)
        return state, context, dy.affine_transform([self.output_bias, self.output_weights, features])

    @staticmethod
    def _pointer(placed: np.ndarray, words: Sequence[str]) -> list[int]:
        """The memory column of the next word to place: past the last word once all are placed."""
        return np.minimum(placed, len(words)).tolist()

    def _start(self, batch_size: int, final_state):
        """The decoder's first state (the encoder's last) and an all-zero first context."""
        state = self.decoder.initial_state(final_state)
        if self.dropout:
            self.decoder.set_dropout_masks(batch_size)
        context = dy.zeros((self.dims.memory,), batch_size=batch_size)
        return state, context

    # -- training ----------------------------------------------------------------

    def batch_loss(self, batch: Sequence[tuple[Sequence[str], Sequence[str]]], train: bool = True) -> dy.Expression:
        """Summed negative log-likelihood of the target sequences of (words, tokens) pairs.

        All sentences of ``batch`` have the same number of words; targets are padded
        with END and masked.  ``train`` replaces singletons by UNK at random.
        """
        return dy.sum_batches(dy.esum(self._step_losses(batch, train)))

    def _step_losses(self, batch: Sequence[tuple[Sequence[str], Sequence[str]]], train: bool) -> list[dy.Expression]:
        """Each step's batched negative log-probability of the next target token (0 past a sequence's END)."""
        sources = [words for words, _ in batch]
        memory = self.encode(sources, train=train)
        targets = [[self.targets.get(t) for t in tokens] + [self.end_id] for _, tokens in batch]
        longest = max(len(t) for t in targets)
        state, context = self._start(len(batch), memory.final)
        previous = [self.end_id] * len(batch)
        placed = np.zeros(len(batch), dtype=int)
        losses = []
        for step in range(longest):
            gold = [t[step] if step < len(t) else self.end_id for t in targets]
            state, context, scores = self._step(memory, state, previous, context, self._pointer(placed, sources[0]))
            loss = dy.pickneglogsoftmax_batch(scores, gold)
            if any(step >= len(t) for t in targets):
                mask = [1.0 if step < len(t) else 0.0 for t in targets]
                loss = loss * dy.inputTensor(mask, batched=True)
            losses.append(loss)
            previous = gold
            placed += np.array(gold) == self.leaf_id
        return losses

    def token_log_probs(self, words: Sequence[str], tokens: Sequence[str]) -> np.ndarray:
        """log P(token | words, the tokens before it) of each of ``tokens`` and of the END after them."""
        dy.renew_cg()
        self.set_dropout(0.0)
        return -np.array([loss.value() for loss in self._step_losses([(words, tokens)], train=False)])

    def log_prob(self, words: Sequence[str], tokens: Sequence[str]) -> float:
        """log P(tokens, END | words): what beam search scores a finished sequence with."""
        return float(self.token_log_probs(words, tokens).sum())

    # -- decoding (:class:`~lstmparse.seq2seq.decoding.Seq2SeqDecoding`) ---------

    @property
    def members(self) -> Sequence[Seq2SeqParser]:
        """The models whose distributions the search follows: this one."""
        return [self]

    # -- saving ------------------------------------------------------------------

    def save(self, directory: str, training: dict | None = None) -> None:
        vocab = {"words": self.words.to_json(), "targets": self.targets.to_json()}
        if self.pretrained is not None:
            vocab["pretrained"] = self.pretrained.to_json()
        if self.char_lstm is not None:
            vocab["chars"] = self.char_lstm.vocab.to_json()
        record = training if training is not None else self.training_record
        save_model(directory, ARCH, self.dims, record, vocab, self.model, self.named_parameters())

    @classmethod
    def load(cls, directory: str, fused: bool = True) -> Seq2SeqParser:
        """A saved model, to parse (``fused``, :mod:`lstmparse.layers.lstms`) or to train further (not ``fused``)."""
        config, vocab, params = load_model(directory, ARCH, f"{ARCH} constituency parser")
        fused = fused and parses_fused(config["format_version"])
        with model_contents(directory):
            pretrained = Vocabulary.from_json(vocab["pretrained"]) if "pretrained" in vocab else None
            chars = Vocabulary.from_json(vocab["chars"]) if "chars" in vocab else None
            parser = cls(
                Vocabulary.from_json(vocab["words"]),
                Vocabulary.from_json(vocab["targets"]),
                Seq2SeqDimensions(**config["dims"]),
                pretrained,
                chars,
                fused,
            )
        assign_values(parser.model, parser.named_parameters(), params, config["format_version"])
        parser.training_record = config.get("training", {})
        return parser


def _padded(ids: list[int], length: int) -> list[int]:
    return ids + [0] * (length - len(ids))


def _reversed_per_sentence(vectors: list[dy.Expression], lengths: Sequence[int]) -> list[dy.Expression]:
    """Per-position batched vectors with each sentence's own words in reverse order.

    Position ``t`` holds, for a sentence of ``n`` words, its vector at ``n - 1 - t``
    (padding, past ``n``, stays where it was).  Its own inverse: it turns the
    backward LSTM's reading into sentence order and back.
    """
    longest = len(vectors)
    if all(n == longest for n in lengths):
        return vectors[::-1]
    stacked = dy.concatenate_to_batch(vectors)
    return [_picked_steps(stacked, [n - 1 - t if t < n else t for n in lengths]) for t in range(longest)]


def _at_steps(vectors: list[dy.Expression], steps: Sequence[int]) -> dy.Expression:
    """The batch whose element ``s`` is element ``s`` of ``vectors[steps[s]]``."""
    if len(set(steps)) == 1:
        return vectors[steps[0]]
    return _picked_steps(dy.concatenate_to_batch(vectors), steps)


def _picked_steps(stacked: dy.Expression, steps: Sequence[int]) -> dy.Expression:
    """From per-step batches stacked into one (element ``t * batch + s``), element ``s`` of step ``steps[s]``."""
    return dy.pick_batch_elems(stacked, [step * len(steps) + s for s, step in enumerate(steps)])
