"""Word embeddings shared by the model families: unknown-word training and pretrained vectors."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import InputError
from lstmparse.io.glove import is_packaged_vectors, packaged_vectors

WORD_DROPOUT = 0.5  # probability of replacing a training singleton by the unknown word


def word_ids(vocab: Vocabulary, forms: Sequence[str], train: bool, rng: random.Random | None = None) -> list[int]:
    """Learned-embedding ids; in training each singleton becomes the unknown word (id 0) with p = 0.5.

    So the unknown word's vector is trained on words like those it will stand for
    at test time (Dyer et al. 2015, section 4).  Only singletons draw a random
    number, from ``rng`` (a sentence's own stream, so that its words do not depend
    on the other sentences of a batch) or else Python's global generator, so a
    run's random sequence depends on its data alone.
    """
    draw = (rng or random).random
    ids = []
    for form in forms:
        if train and vocab.counts.get(form) == 1 and draw() < WORD_DROPOUT:
            ids.append(0)
        else:
            ids.append(vocab.get(form))
    return ids


def pretrained_ids(vocab: Vocabulary, forms: Sequence[str]) -> list[int]:
    """Rows of a pretrained table: the form, else its lower case (tables are often lower-cased), else 0."""
    return [vocab.get(form) or vocab.get(form.lower()) for form in forms]


def read_word2vec(path: str) -> tuple[list[str], np.ndarray]:
    """Words and vectors from a word2vec text file (the optional header is skipped), or a packaged table.

    ``glove:N`` is the N most frequent words of the GloVe wheel (:mod:`lstmparse.io.glove`),
    so that a recipe names its vectors without a file of one machine.

    A line that is not a word and numbers, or whose vector length differs from the
    first vector's, is an :class:`InputError` naming its line.
    """
    if is_packaged_vectors(path):
        return packaged_vectors(path)
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
