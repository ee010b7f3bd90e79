"""The forward pass of a BERT-style encoder (post-layer-norm, GELU), in NumPy, from an ``E5S1`` weight file.

Each layer is self-attention over the sentence's own pieces, then a feed-forward
block, each added to its input and layer-normalized (Devlin et al. 2019; XLM-R,
Conneau et al. 2020, has the same layers).  The weights are dequantized to float32
once; activations stay float32, so the states are those of the 4-bit weights,
without the engine's 8-bit rounding of activations.

A batch's pieces are stacked into one matrix for the dense layers, so each weight
matrix is read once per batch; attention runs sentence by sentence.  Every row of
a matrix product is its own dot products, summed in the same order whatever the
other rows are, so a sentence's states do not depend on the batch it is in (a test
checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lstmparse.layers.encoders.e5_file import E5File, dequantize

# GELU's tanh form (Hendrycks & Gimpel 2016): within 4.8e-4 of x * Phi(x), under the float16 rounding of the
# vectors the models keep, and a third of the exact form's cost in NumPy (which has no erf)
GELU_SCALE = float(np.sqrt(2.0 / np.pi))
GELU_CUBIC = 0.044715
FEED_FORWARD_ROWS = 128  # pieces whose feed-forward middle (128 x 1536 floats) is computed at once


@dataclass(frozen=True)
class Layer:
    """One encoder layer's weights, transposed for ``x @ w``; query, key and value side by side."""

    qkv: np.ndarray
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]


class Transformer:
    """The encoder's embeddings and its first ``depth`` layers (all of them by default)."""

    def __init__(self, weights: E5File, depth: int | None = None) -> None:
        sizes = weights.sizes
        self.sizes = sizes
        self.depth = sizes.layers if depth is None else depth
        if not 0 <= self.depth <= sizes.layers:
            raise ValueError(f"the encoder has {sizes.layers} layers, not {self.depth}")
        self.hidden = sizes.hidden
        self.heads = sizes.heads
        self.word_blocks = weights.blocks("emb.word").reshape(-1, sizes.hidden // 32)
        self.positions = weights.floats("emb.pos").reshape(-1, sizes.hidden)
        self.token_type = weights.floats("emb.type")[: sizes.hidden]
        self.embedding_norm = (weights.floats("emb.ln.w"), weights.floats("emb.ln.b"))
        self.layers = [read_layer(weights, k) for k in range(self.depth)]

    @property
    def max_pieces(self) -> int:
        """The longest sequence the position table covers, ``<s>`` and ``</s>`` included."""
        return len(self.positions)

    def states(self, sequences: Sequence[Sequence[int]], keep: Sequence[int]) -> list[np.ndarray]:
        """Each sequence's hidden states at the layers in ``keep`` (0: the embeddings; ``k``: layer ``k``'s output):
        an array (len(keep), pieces, hidden) per sequence."""
        lengths = [len(ids) for ids in sequences]
        if max(lengths, default=0) > self.max_pieces:
            raise ValueError(f"a sequence of {max(lengths)} pieces; the encoder takes {self.max_pieces}")
        if any(not 0 <= k <= self.depth for k in keep):
            raise ValueError(f"layers {list(keep)} asked of an encoder run to depth {self.depth}")
        ids = np.fromiter((i for seq in sequences for i in seq), dtype=np.int64, count=sum(lengths))
        positions = np.concatenate([np.arange(n) for n in lengths]) if lengths else np.zeros(0, np.int64)
        x = dequantize(self.word_blocks[ids]) + self.positions[positions] + self.token_type
        x = layer_norm(x, *self.embedding_norm, self.sizes.epsilon)
        kept = {0: x} if 0 in keep else {}
        bounds = np.cumsum([0, *lengths])
        for k, layer in enumerate(self.layers[: max(keep, default=0)], start=1):
            x = self.layer(layer, x, bounds)
            if k in keep:
                kept[k] = x
        stacked = np.stack([kept[k] for k in keep]) if keep else np.zeros((0, len(ids), self.hidden), np.float32)
        return [stacked[:, start:end] for start, end in zip(bounds[:-1], bounds[1:], strict=True)]

    def layer(self, layer: Layer, x: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        """One layer over the stacked pieces of a batch (sequence ``i`` is rows ``bounds[i]:bounds[i+1]``)."""
        qkv = x @ layer.qkv + layer.qkv_bias
        context = np.empty_like(x)
        for start, end in zip(bounds[:-1], bounds[1:], strict=True):
            context[start:end] = self.attention(qkv[start:end])
        x = layer_norm(x + (context @ layer.out + layer.out_bias), *layer.attention_norm, self.sizes.epsilon)
        return layer_norm(x + feed_forward(layer, x), *layer.output_norm, self.sizes.epsilon)

    def attention(self, qkv: np.ndarray) -> np.ndarray:
        """Scaled dot-product attention of one sequence's pieces over each other, head by head."""
        length = len(qkv)
        size = self.hidden // self.heads
        q, k, v = (qkv[:, i * self.hidden : (i + 1) * self.hidden].reshape(length, self.heads, size) for i in range(3))
        q, k, v = q.transpose(1, 0, 2), k.transpose(1, 2, 0), v.transpose(1, 0, 2)
        scores = (q @ k) * np.float32(1.0 / np.sqrt(size))
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        return (scores @ v).transpose(1, 0, 2).reshape(length, self.hidden)


def read_layer(weights: E5File, k: int) -> Layer:
    """Layer ``k``'s weights, dequantized and transposed."""
    hidden, wide = weights.sizes.hidden, weights.sizes.feed_forward

    def matrix(name: str, columns: int) -> np.ndarray:
        return np.ascontiguousarray(weights.matrix(f"l{k}.{name}.w", columns).T)

    def vector(name: str) -> np.ndarray:
        return np.array(weights.floats(f"l{k}.{name}"))

    return Layer(
        qkv=np.ascontiguousarray(np.concatenate([matrix(n, hidden) for n in ("q", "k", "v")], axis=1)),
        qkv_bias=np.concatenate([vector(f"{n}.b") for n in ("q", "k", "v")]),
        out=matrix("ao", hidden),
        out_bias=vector("ao.b"),
        attention_norm=(vector("aln.w"), vector("aln.b")),
        up=matrix("fi", hidden),
        up_bias=vector("fi.b"),
        down=matrix("fo", wide),
        down_bias=vector("fo.b"),
        output_norm=(vector("oln.w"), vector("oln.b")),
    )


def feed_forward(layer: Layer, x: np.ndarray) -> np.ndarray:
    """The feed-forward block, :data:`FEED_FORWARD_ROWS` rows at a time so that the wide middle stays in cache."""
    out = np.empty_like(x)
    for start in range(0, len(x), FEED_FORWARD_ROWS):
        middle = gelu(x[start : start + FEED_FORWARD_ROWS] @ layer.up + layer.up_bias)
        out[start : start + FEED_FORWARD_ROWS] = middle @ layer.down + layer.down_bias
    return out


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, epsilon: float) -> np.ndarray:
    """Each row scaled to mean 0 and variance 1, then by ``weight`` and ``bias`` (a new array; ``x`` is kept)."""
    centred = x - x.mean(axis=-1, keepdims=True)
    centred /= np.sqrt(np.mean(np.square(centred), axis=-1, keepdims=True) + np.float32(epsilon))
    centred *= weight
    centred += bias
    return centred


def gelu(x: np.ndarray) -> np.ndarray:
    """``x * Φ(x)`` in its tanh form, ``x/2 (1 + tanh(√(2/π) (x + 0.044715 x³)))``, in place."""
    inner = x * x
    inner *= np.float32(GELU_CUBIC)
    inner += np.float32(1.0)
    inner *= x
    inner *= np.float32(GELU_SCALE)
    np.tanh(inner, out=inner)
    inner += np.float32(1.0)
    x *= np.float32(0.5)
    x *= inner
    return x
