"""The tokenizer's network: a character bi-LSTM that labels every character of a paragraph.

Each character is read as its own embedding and that of its class (space, digit,
upper- or lower-case letter, punctuation, symbol, other), so an unseen character
is still known by its class.  With ``shapes`` (every model trained since they
exist), a character also reads whether it is part of a URL, of an e-mail address or
of neither, found by a pattern over the whole paragraph (why:
:mod:`lstmparse.tokenizer.shapes`): that span's embedding is added to its class's.
With ``lexicon`` (a treebank whose tokens hold spaces), a character also reads
whether a known word of several syllables covers it (:mod:`lstmparse.tokenizer.lexicon`),
an embedding added the same way.  A model also keeps the character contexts its
training text never splits (:mod:`lstmparse.tokenizer.joins`), which segmentation
keeps joined; a model saved before it learned them has none.

A paragraph is cut into windows of ``window`` characters, each read with ``context``
characters of the text on either side (padding beyond the paragraph), so that every
window has one length and any number of them, from any paragraphs, make one dense
batch; a character's label depends on its own window only, never on what else is in
the batch.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence

import dynet as dy
import numpy as np

from lstmparse.core.model_io import assign_values, birnn_parameters, load_model, model_contents, save_model
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import ModelError
from lstmparse.layers import transduce
from lstmparse.layers.embeddings import WORD_DROPOUT
from lstmparse.layers.lstms import parses_fused, vanilla_lstm
from lstmparse.tokenizer.data import LABELS, Paragraph
from lstmparse.tokenizer.joins import JoinRule
from lstmparse.tokenizer.lexicon import MARKS, Lexicon
from lstmparse.tokenizer.options import TokenizerDimensions
from lstmparse.tokenizer.shapes import SPANS, mark_spans
from lstmparse.tokenizer.words import MultiwordSplitter

ARCH = "tokenizer"
PAD = "<pad>"
CLASSES = ("pad", "space", "digit", "upper", "lower", "letter", "punct", "symbol", "other")
CLASS_DIM = 8  # a class's embedding, and a span's


def char_class(char: str) -> int:
    """The class of a character, an index into :data:`CLASSES`."""
    if char.isspace():
        return 1
    if char.isdigit():
        return 2
    if char.isalpha():
        return 3 if char.isupper() else 4 if char.islower() else 5
    category = unicodedata.category(char)
    return 6 if category[0] == "P" else 7 if category[0] == "S" else 8


class CharacterLabeller:
    """Character and class embeddings, a bi-LSTM over each window, and a softmax over the labels."""

    def __init__(
        self,
        chars: Vocabulary,
        splitter: MultiwordSplitter,
        dims: TokenizerDimensions,
        lexicon: Lexicon | None = None,
        joins: JoinRule | None = None,
        fused: bool = False,
    ) -> None:
        """``fused``: for a tokenizer loaded to tokenize, DyNet's fused LSTM operations (``layers.lstms``)."""
        if dims.lexicon and lexicon is None:
            raise ModelError("the tokenizer reads a lexicon of words but has none")
        self.chars, self.splitter, self.dims, self.lexicon = chars, splitter, dims, lexicon
        self.joins = joins if joins is not None else JoinRule([])
        self.pad_id = chars.get(PAD)
        if self.pad_id == 0:
            raise ModelError(f"the character vocabulary has no {PAD}")
        self.model = dy.ParameterCollection()
        model = self.model
        self.char_embeddings = model.add_lookup_parameters((len(chars), dims.char_embedding))
        self.class_embeddings = model.add_lookup_parameters((len(CLASSES), CLASS_DIM))
        input_dim = dims.char_embedding + CLASS_DIM
        self.birnn = dy.BiRNNBuilder(dims.layers, input_dim, dims.hidden, model, vanilla_lstm(fused))
        self.output_weights = model.add_parameters((len(LABELS), dims.hidden))
        self.output_bias = model.add_parameters(len(LABELS))
        if dims.shapes:
            self.span_embeddings = model.add_lookup_parameters((len(SPANS), CLASS_DIM), name="spans")
        if dims.lexicon:
            self.lexicon_embeddings = model.add_lookup_parameters((len(MARKS), CLASS_DIM), name="lexicon")
        self.singletons = np.array([chars.counts.get(c) == 1 for c in chars.strings])  # replaced in training
        self._codes: dict[str, tuple[int, int]] = {}  # each character's id and class, once computed
        self.dropout = 0.0
        self.training_record: dict = {}

    @classmethod
    def from_paragraphs(
        cls,
        paragraphs: Sequence[Paragraph],
        splitter: MultiwordSplitter,
        dims: TokenizerDimensions,
        lexicon: Lexicon | None = None,
    ) -> CharacterLabeller:
        chars = Vocabulary.from_counts(Counter(_normal(c) for p in paragraphs for c in p.text))
        chars.add(PAD)
        return cls(chars, splitter, dims, lexicon, JoinRule.learn(paragraphs))

    def set_dropout(self, rate: float) -> None:
        """The dropout rate inside the character bi-LSTM and on its outputs; 0 for tokenizing.

        Every family's models take their rate this way (``set_dropout``).
        """
        self.dropout = rate

    def named_parameters(self) -> dict:
        named = {"chars": self.char_embeddings, "classes": self.class_embeddings}
        if self.dims.shapes:
            named["spans"] = self.span_embeddings
        if self.dims.lexicon:
            named["lexicon"] = self.lexicon_embeddings
        named |= birnn_parameters("birnn", self.birnn)
        return named | {"output/weights": self.output_weights, "output/bias": self.output_bias}

    def encode(self, text: str, marks: np.ndarray | None = None) -> np.ndarray:
        """A text's codes, computed once per text: character ids, character classes, with ``shapes`` spans and
        with ``lexicon`` the lexicon's marks (rows, one column per character); ``marks``: other marks than the
        lexicon's (training text's held-out marks)."""
        codes = np.empty((2 + self.dims.shapes + self.dims.lexicon, len(text)), dtype=np.int64)
        for position, char in enumerate(text):
            code = self._codes.get(char)
            if code is None:
                normal = _normal(char)
                code = self._codes[char] = (self.chars.get(normal), char_class(normal))
            codes[:2, position] = code
        if self.dims.shapes:
            codes[2] = mark_spans(text)
        if self.lexicon is not None:
            codes[-1] = self.lexicon.mark(text) if marks is None else marks
        return codes

    def window(self, codes: np.ndarray, start: int, length: int | None = None) -> np.ndarray:
        """The codes a window of ``length`` (default: ``window``) at ``start`` reads, with its context, padded."""
        context = self.dims.context
        length = self.dims.window if length is None else length
        window = np.zeros((codes.shape[0], length + 2 * context), dtype=np.int64)
        window[0] = self.pad_id  # padding: the pad character, class "pad", no span, no lexicon mark
        first, last = max(start - context, 0), min(start + length + context, codes.shape[1])
        if first < last:
            window[:, first - (start - context) : last - (start - context)] = codes[:, first:last]
        return window

    def scores(self, windows: Sequence[np.ndarray], train: bool = False) -> dy.Expression:
        """Label scores of the windows' labelled characters: (labels x 1), batch ``t * len(windows) + b``.

        The windows have one length, their context included.  In training each
        character seen once becomes the unknown character with p = 0.5.
        """
        stacked = np.stack(windows)
        chars, classes = stacked[:, 0], stacked[:, 1]
        extras = [(self.span_embeddings, stacked[:, 2])] if self.dims.shapes else []
        if self.dims.lexicon:
            extras.append((self.lexicon_embeddings, stacked[:, -1]))
        if train:
            chars = np.where(self.singletons[chars] & (np.random.random(chars.shape) < WORD_DROPOUT), 0, chars)
        steps = stacked.shape[2]
        inputs = []
        for t in range(steps):
            vector = dy.concatenate(
                [
                    dy.lookup_batch(self.char_embeddings, chars[:, t].tolist()),
                    self._class_vector(classes[:, t], [(table, codes[:, t]) for table, codes in extras]),
                ]
            )
            inputs.append(dy.dropout(vector, self.dropout) if train and self.dropout else vector)
        outputs = transduce(self.birnn, inputs, self.dropout if train else 0.0)
        labelled = dy.concatenate_to_batch(outputs[self.dims.context : steps - self.dims.context])
        return dy.affine_transform([self.output_bias, self.output_weights, labelled])

    def _class_vector(self, classes: np.ndarray, extras: list[tuple[dy.LookupParameters, np.ndarray]]) -> dy.Expression:
        """The characters' class embeddings (batched), each plus its span's with ``shapes`` and its lexicon
        mark's with ``lexicon``."""
        vector = dy.lookup_batch(self.class_embeddings, classes.tolist())
        for table, codes in extras:
            vector = vector + dy.lookup_batch(table, codes.tolist())
        return vector

    def loss(self, windows: Sequence[np.ndarray], labels: Sequence[Sequence[int]]) -> dy.Expression:
        """Summed negative log-likelihood of the gold labels (``-1``: a position past the paragraph, skipped)."""
        scores = self.scores(windows, train=True)
        flat = [labels[b][t] for t in range(self.dims.window) for b in range(len(windows))]
        kept = [k for k, label in enumerate(flat) if label >= 0]
        losses = dy.pickneglogsoftmax_batch(scores, [max(label, 0) for label in flat])
        return dy.sum_batches(dy.pick_batch_elems(losses, kept))

    def log_probabilities(self, windows: Sequence[np.ndarray]) -> np.ndarray:
        """(windows x labelled characters x labels) log-probabilities, for windows of one length."""
        length = windows[0].shape[1] - 2 * self.dims.context
        values = dy.log_softmax(self.scores(windows)).npvalue()
        return values.reshape(len(LABELS), length, len(windows)).transpose(2, 1, 0)

    def save(self, directory: str, training: dict | None = None) -> None:
        vocab: dict[str, object] = {"chars": self.chars.to_json(), "multiword": self.splitter.to_json()}
        if self.lexicon is not None:
            vocab["lexicon"] = self.lexicon.to_json()
        if self.joins:
            vocab["joins"] = self.joins.to_json()
        record = training if training is not None else self.training_record
        save_model(directory, ARCH, self.dims, record, vocab, self.model, self.named_parameters())

    @classmethod
    def load(cls, directory: str) -> CharacterLabeller:
        config, vocab, params = load_model(directory, ARCH, "tokenizer")
        with model_contents(directory):
            labeller = cls(
                Vocabulary.from_json(vocab["chars"]),
                MultiwordSplitter.from_json(vocab["multiword"]),
                TokenizerDimensions(**config["dims"]),
                Lexicon.from_json(vocab["lexicon"]) if "lexicon" in vocab else None,
                JoinRule.from_json(vocab.get("joins", [])),
                fused=parses_fused(config["format_version"]),
            )
        assign_values(labeller.model, labeller.named_parameters(), params, config["format_version"])
        labeller.training_record = config.get("training", {})
        return labeller


def _normal(char: str) -> str:
    """What the network reads for a character: every kind of white space is one space."""
    return " " if char.isspace() else char
