"""From character labels to tokens and sentences, and the labeller run over many paragraphs at once.

The network's best label is taken at each character, with three rules that make
any labelling a segmentation: white space never belongs to a token (so a token
ends before it, with the best of the token-ending labels), and a paragraph's
last token ends a sentence.  A model's join rule (:mod:`lstmparse.tokenizer.joins`)
then keeps joined the contexts its training text never splits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import dynet as dy
import numpy as np

from lstmparse.tokenizer.data import INSIDE, LABELS, MULTIWORD, MULTIWORD_SENTENCE, TOKEN, TOKEN_SENTENCE
from lstmparse.tokenizer.joins import JoinRule
from lstmparse.tokenizer.model import CharacterLabeller

WINDOWS_PER_GRAPH = 16  # character windows per batched graph: more take far more memory (32: 0.5 GB) for no speed
LENGTH_STEP = 25  # a paragraph's last window is as long as its remaining text, rounded up to a multiple of this


@dataclass(frozen=True)
class Span:
    """A token's characters ``[start, end)`` in its paragraph, and whether it is a multi-word token."""

    start: int
    end: int
    multiword: bool = False


def label_paragraphs(labeller: CharacterLabeller, texts: Sequence[str]) -> list[np.ndarray]:
    """Each paragraph's (characters x labels) log-probabilities; windows of equal length share graphs.

    A paragraph is read in windows of ``window`` characters; its last window only
    as far as its text goes (rounded up to ``LENGTH_STEP``), so that a short
    paragraph costs its own length, not a whole window of padding.  The windows
    of a paragraph depend on its text alone.
    """
    window = labeller.dims.window
    by_length: dict[int, list[tuple[int, int]]] = {}
    for p, text in enumerate(texts):
        for start in range(0, len(text), window):
            length = min(window, -(-(len(text) - start) // LENGTH_STEP) * LENGTH_STEP)
            by_length.setdefault(length, []).append((p, start))
    results = [np.zeros((len(text), len(LABELS)), dtype=np.float32) for text in texts]
    codes = [labeller.encode(text) for text in texts]
    for length, pieces in by_length.items():
        for first in range(0, len(pieces), WINDOWS_PER_GRAPH):
            batch = pieces[first : first + WINDOWS_PER_GRAPH]
            dy.renew_cg()
            inputs = [labeller.window(codes[p], start, length) for p, start in batch]
            for (p, start), value in zip(batch, labeller.log_probabilities(inputs), strict=True):
                end = min(start + length, len(texts[p]))
                results[p][start:end] = value[: end - start]
    return results


def segment(
    text: str, log_probs: np.ndarray, spaces_in_tokens: bool = False, joins: JoinRule | None = None
) -> list[list[Span]]:
    """The paragraph's sentences, each a list of token spans (no token ending where ``joins`` keeps joined)."""
    labels = best_labels(text, log_probs, spaces_in_tokens)
    if joins is not None:
        labels = joins.keep_joined(text, labels)
    return sentences_of(text, labels)


def best_labels(text: str, log_probs: np.ndarray, spaces_in_tokens: bool = False) -> list[int]:
    """The best label of each character, under the rules that make it a segmentation.

    ``spaces_in_tokens`` (a model trained where tokens hold spaces): a single space
    whose previous character the network does not end a token with stays inside
    the token; a line break or a run of spaces still ends it.
    """
    labels = [int(k) for k in log_probs.argmax(axis=1)]
    last = None  # the last character that is not white space
    for i, char in enumerate(text):
        if char.isspace():
            labels[i] = INSIDE
            joins = spaces_in_tokens and char == " " and i + 1 < len(text) and not text[i + 1].isspace()
            if joins and last == i - 1:
                continue
            if last is not None and labels[last] == INSIDE:
                labels[last] = 1 + int(log_probs[last, 1:].argmax())
            continue
        last = i
    if last is not None:
        if labels[last] == INSIDE:
            labels[last] = 1 + int(log_probs[last, 1:].argmax())
        labels[last] = {TOKEN: TOKEN_SENTENCE, MULTIWORD: MULTIWORD_SENTENCE}.get(labels[last], labels[last])
    return labels


def sentences_of(text: str, labels: Sequence[int]) -> list[list[Span]]:
    """Token spans grouped into sentences, read off a labelling (white space is never in a token)."""
    sentences: list[list[Span]] = []
    current: list[Span] = []
    start = None
    for i, (char, label) in enumerate(zip(text, labels, strict=True)):
        if char.isspace():
            continue
        if start is None:
            start = i
        if label != INSIDE:
            current.append(Span(start, i + 1, label in (MULTIWORD, MULTIWORD_SENTENCE)))
            start = None
            if label in (TOKEN_SENTENCE, MULTIWORD_SENTENCE):
                sentences.append(current)
                current = []
    if start is not None:  # labels that leave a token open at the end (gold data never does)
        current.append(Span(start, len(text.rstrip())))
    if current:
        sentences.append(current)
    return sentences
