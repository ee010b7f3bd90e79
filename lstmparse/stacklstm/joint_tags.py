"""Joint tagging: the parser's context bi-LSTM also predicts each word's UPOS (``--joint-upos``).

Zhang & Weiss (2016, "stack-propagation") train a tagger's hidden layer as the
parser's lower layers: the tags' loss shapes the representation that the parser
reads, so the tree no longer waits on a separate tagger's (possibly wrong) tags.
Here one affine layer and a softmax over the training data's UPOS read the context
bi-LSTM's output of every word; in training its negative log-likelihood of the
gold UPOS is added, word by word, to the parser's loss.  A word's tag depends on
its sentence alone (the context layers read each sentence separately), so one
sentence at a time and lock-step batches give the same loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

import dynet as dy
import numpy as np

from lstmparse.core.vocab import Vocabulary
from lstmparse.io.formats import Token


class UposHead:
    """The UPOS output layer over the token vectors (after the context layers)."""

    def __init__(self, model: dy.ParameterCollection, tags: Vocabulary, token_dim: int) -> None:
        self.tags = tags
        self.weights = model.add_parameters((len(tags), token_dim))
        self.bias = model.add_parameters(len(tags))

    def named_parameters(self, prefix: str) -> dict:
        return {f"{prefix}/weights": self.weights, f"{prefix}/bias": self.bias}

    def scores(self, vectors: dy.Expression) -> dy.Expression:
        """(tags x 1) scores, one batch element per word of ``vectors`` (a batched expression)."""
        return dy.affine_transform([self.bias, self.weights, vectors])

    def loss(self, vectors: dy.Expression, sentences: Sequence[Sequence[Token]]) -> dy.Expression:
        """The summed negative log-likelihood of the words' gold UPOS (an unseen tag counts as the unknown one)."""
        gold = [self.tags.get(token.upos) for sentence in sentences for token in sentence]
        return dy.sum_batches(dy.pickneglogsoftmax_batch(self.scores(vectors), gold))

    def log_probs(self, vectors: dy.Expression, lengths: Sequence[int]) -> list[np.ndarray]:
        """Each sentence's (words x tags) log-probabilities, tags in ``self.tags.strings`` order (the unknown tag's
        -inf), for words laid out sentence after sentence."""
        values = self.scores(vectors).npvalue().reshape(len(self.tags), -1)
        values[0] = -np.inf
        top = values.max(axis=0)
        log_probs = (values - top - np.log(np.exp(values - top).sum(axis=0))).T
        return np.split(log_probs, list(accumulate(lengths))[:-1])

    def predict(self, vectors: dy.Expression, lengths: Sequence[int]) -> list[list[str]]:
        """Each sentence's best UPOS (never the unknown tag), for words laid out sentence after sentence."""
        values = self.scores(vectors).npvalue().reshape(len(self.tags), -1)
        values[0] = -float("inf")
        best = [self.tags.strings[i] for i in values.argmax(axis=0)]
        ends = list(accumulate(lengths))
        return [best[end - length : end] for end, length in zip(ends, lengths, strict=True)]
