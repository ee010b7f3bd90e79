"""Grouping sentences for reading, decoding and training, shared by every model family."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from lstmparse.errors import InputError

T = TypeVar("T")
SENTENCE_WINDOW = 1024  # parsing reads this many input sentences at a time (and orders them by length)
# Hypotheses (sentences x beam) a dependency parser advances in lock-step by default: on one core 128 parsed EWT
# test about 20 % faster than 32 (each step's batched operations spread DyNet's per-operation cost over more
# words) for 110 to 160 MB more memory; 256 was slower again.  The trees do not depend on it.
PARSE_BATCH_SIZE = 128


def windows(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of ``size`` items; when reading fails, the items read before come first.

    So a malformed sentence in the input costs only itself and what follows: the
    sentences before it are still parsed and written before the error is reported.
    """
    window: list[T] = []
    try:
        for item in items:
            window.append(item)
            if len(window) == size:
                yield window
                window = []
    except InputError:
        if window:
            yield window
        raise
    if window:
        yield window


def sized_length(item: Any) -> int:
    """An item's length: the words of a sentence given as a list."""
    return len(item)


def batches(
    items: Iterable[T],
    size: int | None = None,
    max_words: int | None = None,
    words_of: Callable[[T], int] = sized_length,
    strict: bool = False,
) -> Iterator[list[T]]:
    """Consecutive items in lists of at most ``size``, closed once they hold ``max_words`` words (``words_of``).

    Graphs of bounded size keep DyNet's memory pool bounded whatever the sentence
    lengths.  A batch closes when it reaches ``max_words``, or with ``strict``
    before an item would take it over (an item longer than that is a batch of its
    own).  Batched values differ in the last float digits with the batch's
    make-up, so each caller keeps the rule its shipped models were scored with.
    """
    batch: list[T] = []
    words = 0
    for item in items:
        length = words_of(item) if max_words is not None else 0
        if strict and batch and max_words is not None and words + length > max_words:
            yield batch
            batch, words = [], 0
        batch.append(item)
        words += length
        if len(batch) == size or (not strict and max_words is not None and words >= max_words):
            yield batch
            batch, words = [], 0
    if batch:
        yield batch


def length_batches(items: Iterable[T], length: Callable[[T], int], batch_size: int) -> list[list[T]]:
    """Items grouped by length, in batches of at most ``batch_size`` (input order within a length).

    Sentences of one length need no padding or masks in a batched DyNet graph.
    """
    by_length: dict[int, list[T]] = {}
    for item in items:
        by_length.setdefault(length(item), []).append(item)
    return [
        group[start : start + batch_size] for group in by_length.values() for start in range(0, len(group), batch_size)
    ]
