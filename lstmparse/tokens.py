"""Token vectors (Dyer et al. 2015, section 3.3; Ballesteros et al. 2015, section 4.2).

Each word becomes x = ReLU(V[w; w_LM; t; f; c] + d) from the parts the model was
built with (``--features``):

- ``words``: a learned embedding; during training each singleton is replaced by
  the unknown word with probability 0.5 so that the unknown vector is trained;
- ``pretrained``: a fixed embedding read from a word2vec text file (not updated);
- ``pos``: a learned UPOS embedding;
- ``feats``: the sum of learned embeddings of the word's Feature=Value pairs;
- ``chars``: a character bi-LSTM, the final forward and backward outputs.

The whole sentence goes through one batched affine layer, and words of equal
length share one batched character-LSTM run, to keep the graph small.

Optionally (``Dimensions.context_layers`` > 0, not in the papers) the token vectors
then pass through a bi-LSTM over the sentence, so that every vector the stack and
buffer LSTMs see already knows its sentence context (as in Kiperwasser & Goldberg
2016); models/README.md gives its measured effect.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import dynet as dy
import numpy as np

from .errors import InputError
from .formats import Token
from .vocab import Vocabulary

FEATURES = ("words", "pretrained", "pos", "feats", "chars")
NO_FEATURE = "<none>"
WORD_DROPOUT = 0.5  # probability of replacing a training singleton by the unknown word
CHARS_PER_END = 40  # the character LSTM reads at most this many characters from each end of a word


@dataclass
class Dimensions:
    """Sizes of the network's layers; defaults follow section 6.1 of the papers."""

    word: int = 32  # learned word embedding
    pos: int = 12  # UPOS embedding
    feats: int = 12  # morphological feature embedding
    char_embedding: int = 32  # one character
    chars: int = 100  # character bi-LSTM output (half per direction)
    token: int = 100  # token vector x, the input of the stack and buffer LSTMs
    lstm: int = 100  # hidden size of the stack, buffer and action LSTMs
    layers: int = 2  # layers of each stack LSTM
    composition_action: int = 16  # relation/action embedding r in the composition function
    action_history: int = 20  # action embedding fed to the action-history LSTM
    state: int = 20  # parser state p_t
    context_layers: int = 0  # bi-LSTM layers over the token vectors (0 = the papers' model)

    def to_json(self) -> dict:
        return asdict(self)


def read_word2vec(path: str) -> tuple[list[str], np.ndarray]:
    """Words and vectors from a word2vec text file (the optional header is skipped).

    A line that is not a word and numbers, or whose vector length differs from the
    first vector's, is an :class:`InputError` naming its line.
    """
    words, vectors, width = [], [], None
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip().split(" ")
            if (number == 1 and len(parts) == 2) or len(parts) < 2:
                continue
            try:
                vector = [float(v) for v in parts[1:]]
            except ValueError:
                raise InputError(path, number, "a word and its numbers were expected") from None
            if width is None:
                width = len(vector)
            elif len(vector) != width:
                raise InputError(path, number, f"a vector of {len(vector)} numbers after vectors of {width}")
            words.append(parts[0])
            vectors.append(vector)
    if not vectors:
        raise InputError(path, None, "no vectors found")
    return words, np.array(vectors, dtype=np.float32)


class TokenEncoder:
    """Builds the token vectors of a sentence in the current computation graph."""

    def __init__(
        self,
        model: dy.ParameterCollection,
        features: Sequence[str],
        dims: Dimensions,
        vocabs: dict[str, Vocabulary],
        pretrained_dim: int = 0,
    ) -> None:
        unknown = set(features) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}; choose from {', '.join(FEATURES)}")
        self.features = list(features)
        self.dims = dims
        self.vocabs = vocabs
        input_dim = 0
        if "words" in features:
            self.word_embeddings = model.add_lookup_parameters((len(vocabs["words"]), dims.word))
            input_dim += dims.word
        if "pretrained" in features:
            self.pretrained_embeddings = model.add_lookup_parameters((len(vocabs["pretrained"]), pretrained_dim))
            input_dim += pretrained_dim
        if "pos" in features:
            self.pos_embeddings = model.add_lookup_parameters((len(vocabs["pos"]), dims.pos))
            input_dim += dims.pos
        if "feats" in features:
            self.feat_embeddings = model.add_lookup_parameters((len(vocabs["feats"]), dims.feats))
            input_dim += dims.feats
        if "chars" in features:
            self.char_lstm = CharacterLSTM(model, vocabs["chars"], dims.char_embedding, dims.chars)
            input_dim += self.char_lstm.dim
        if input_dim == 0:
            raise ValueError("no token features selected")
        self.projection = model.add_parameters((dims.token, input_dim))
        self.projection_bias = model.add_parameters(dims.token)
        self.context = None
        if dims.context_layers:
            self.context = dy.BiRNNBuilder(dims.context_layers, dims.token, dims.token, model, dy.CoupledLSTMBuilder)

    def set_pretrained(self, vectors: np.ndarray) -> None:
        """Copy the pretrained vectors into the (fixed) lookup table, row 0 = unknown."""
        unknown = np.zeros((1, vectors.shape[1]), dtype=np.float32)
        self.pretrained_embeddings.init_from_array(np.concatenate([unknown, vectors]))

    def encode(self, tokens: Sequence[Token], train: bool, dropout: float = 0.0) -> list[dy.Expression]:
        """One token vector per word, in sentence order (``dropout`` applies in training only)."""
        parts = []
        if "words" in self.features:
            parts.append(dy.lookup_batch(self.word_embeddings, self._word_ids(tokens, train)))
        if "pretrained" in self.features:
            vocab = self.vocabs["pretrained"]
            ids = [vocab.get(t.form) or vocab.get(t.form.lower()) for t in tokens]
            parts.append(dy.lookup_batch(self.pretrained_embeddings, ids, update=False))
        if "pos" in self.features:
            parts.append(dy.lookup_batch(self.pos_embeddings, [self.vocabs["pos"].get(t.upos) for t in tokens]))
        if "feats" in self.features:
            parts.append(self._feats(tokens))
        if "chars" in self.features:
            parts.append(self.char_lstm.encode([t.form for t in tokens]))
        x = dy.rectify(dy.affine_transform([self.projection_bias, self.projection, dy.concatenate(parts)]))
        if train and dropout:
            x = dy.dropout(x, dropout)
        vectors = [dy.pick_batch_elem(x, i) for i in range(len(tokens))]
        if self.context is not None:
            vectors = self._in_context(vectors, dropout if train else 0.0)
        return vectors

    def _in_context(self, vectors: list[dy.Expression], dropout: float) -> list[dy.Expression]:
        """The bi-LSTM outputs over the sentence's token vectors."""
        if dropout:
            self.context.set_dropout(dropout)
        else:
            self.context.disable_dropout()
        return self.context.transduce(vectors)

    def _word_ids(self, tokens: Sequence[Token], train: bool) -> list[int]:
        vocab = self.vocabs["words"]
        ids = []
        for token in tokens:
            if train and vocab.counts.get(token.form) == 1 and random.random() < WORD_DROPOUT:
                ids.append(0)
            else:
                ids.append(vocab.get(token.form))
        return ids

    def _feats(self, tokens: Sequence[Token]) -> dy.Expression:
        """Each word's sum of its own Feature=Value embeddings; 'no feature' once for a word without any.

        The words of a call are one batch, summed column by column (the k-th
        feature of every word).  A word with fewer than k features adds an exact
        zero there, never an embedding, so its vector depends on the word alone,
        not on the feature counts of the other words in the batch.
        """
        vocab = self.vocabs["feats"]
        per_word = [[vocab.get(f) for f in split_feats(t.feats)] or [vocab.get(NO_FEATURE)] for t in tokens]
        columns = []
        for k in range(max(len(ids) for ids in per_word)):
            column = dy.lookup_batch(self.feat_embeddings, [ids[k] if k < len(ids) else 0 for ids in per_word])
            present = np.array([k < len(ids) for ids in per_word], dtype=np.float32)
            if not present.all():
                column = dy.cmult(column, dy.inputTensor(np.tile(present, (self.dims.feats, 1)), batched=True))
            columns.append(column)
        return dy.esum(columns)


class CharacterLSTM:
    """A character bi-LSTM word encoder: the final forward and backward outputs.

    Shared by the stack-LSTM parser's token vectors and the seq2seq encoder, so
    that rare and unknown words still get a vector built from their spelling.
    """

    def __init__(self, model: dy.ParameterCollection, vocab: Vocabulary, char_dim: int, output_dim: int) -> None:
        # created in this order so that saved models keep their parameter names
        self.vocab = vocab
        self.embeddings = model.add_lookup_parameters((len(vocab), char_dim))
        self.forward = dy.VanillaLSTMBuilder(1, char_dim, output_dim // 2, model)
        self.backward = dy.VanillaLSTMBuilder(1, char_dim, output_dim // 2, model)
        self.dim = self.width(output_dim)

    @staticmethod
    def width(output_dim: int) -> int:
        """The vector's actual size: two halves of ``output_dim // 2``."""
        return 2 * (output_dim // 2)

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


def split_feats(feats: str) -> list[str]:
    """Feature=Value pairs of a FEATS column (empty for ``_``)."""
    return [] if feats in ("", "_") else feats.split("|")
