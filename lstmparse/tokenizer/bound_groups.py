"""Cutting an unseen bound group into its words: a structured perceptron over the ways to cut it.

Coptic writes a preposition, an article, a conjugation base and a noun or verb as
one token (``ⲛⲧϣⲉⲉⲣⲉ`` = ``ⲛ`` ``ⲧ`` ``ϣⲉⲉⲣⲉ``).  More than half of Coptic Scriptorium's
dev multi-word tokens are not in training, and the most probable cut into known words
(a unigram model of the words of training's groups) gets 64.5 % of them right: it
prefers few long words (``ⲛⲧ`` ``ϣⲉⲉⲣⲉ``) and shreds a new stem into short known
ones (``ⲡⲉⲥ ⲧ ⲣⲁⲧ ⲏ ⲗⲁ ⲧ ⲏ ⲥ`` for ``ⲡⲉ ⲥⲧⲣⲁⲧⲏⲗⲁⲧⲏⲥ``).  This model scores a cut
by its words (known or not, how frequent, where in the group), the pairs of
neighbouring words and the spelling of a word never seen, with weights learned by an
averaged structured perceptron (Collins 2002) on training's groups.  Its vocabulary
is jack-knifed while it learns: a group's words count as known only where other
groups of training have them, so it learns what an unseen stem looks like (dev's
unseen groups: 72.5 % cut right without that, 83.7 % with it).  Learning takes half a
minute on Coptic's 10,502 groups; the weights are kept in the tokenizer's ``vocab``
file, rounded.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

EPOCHS = 5  # passes over training's groups (dev's unseen groups, a first version: 80.3, 82.3, 83.2, 83.3, 83.4 %)
FOLDS = 5  # vocabulary folds while learning
NEW_WORD = 20  # characters: the longest word not seen in training that a cut may hold (12: 82.8 %, 20: 83.7 %)
LONGEST_WORD = 30  # characters: the longest known word a cut may hold
DIGITS = 3  # decimals kept of each weight
# characters: a longer token is left whole (Coptic's longest group has 20; a cut costs about 3 ms a character,
# so a run of thousands of characters marked as one token would stall the tokenizer)
LONGEST_GROUP = 64


class BoundGroupSegmenter:
    """Weights of cut features, and the vocabulary of training's groups with their counts."""

    def __init__(self, weights: dict[str, float], counts: dict[str, int]) -> None:
        self.weights = weights
        self.counts = counts

    @classmethod
    def learn(cls, groups: Iterable[tuple[str, Sequence[str]]], seed: int = 1) -> BoundGroupSegmenter:
        """From (lower-cased token, its lower-cased words) pairs whose words spell the token."""
        groups = [(token, tuple(words)) for token, words in groups]
        counts = Counter(word for _, words in groups for word in words)
        rng = random.Random(seed)
        kinds = sorted(set(groups))
        rng.shuffle(kinds)
        fold = {token: k % FOLDS for k, (token, _) in enumerate(kinds)}
        held_out = [Counter(w for token, words in groups if fold[token] != k for w in words) for k in range(FOLDS)]
        examples = [(token, words, held_out[fold[token]]) for token, words in groups]
        perceptron = _AveragedPerceptron()
        for _ in range(EPOCHS):
            rng.shuffle(examples)
            for token, words, known in examples:
                perceptron.update(token, list(words), _best_cut(token, perceptron.weights, known), known)
        return cls(perceptron.averaged(), dict(counts))

    def segment(self, lowered: str) -> list[str]:
        """The best cut of a lower-cased token into words (the token itself where one word scores best or where
        it is longer than any group could be)."""
        if len(lowered) > LONGEST_GROUP:
            return [lowered]
        return _best_cut(lowered, self.weights, self.counts)

    def to_json(self) -> dict:
        return {"weights": self.weights, "counts": self.counts}

    @classmethod
    def from_json(cls, data: dict) -> BoundGroupSegmenter:
        return cls({str(k): float(v) for k, v in data["weights"].items()}, dict(data["counts"]))


class _AveragedPerceptron:
    """Weights, and their sums over updates for the average (the usual lazy bookkeeping)."""

    def __init__(self) -> None:
        self.weights: dict[str, float] = defaultdict(float)
        self.stamped: dict[str, float] = defaultdict(float)  # sum of (update number x change)
        self.step = 1

    def update(self, token: str, gold: list[str], guess: list[str], known: dict[str, int]) -> None:
        if guess != gold:
            for name, value in _cut_features(token, gold, known).items():
                self.weights[name] += value
                self.stamped[name] += self.step * value
            for name, value in _cut_features(token, guess, known).items():
                self.weights[name] -= value
                self.stamped[name] -= self.step * value
        self.step += 1

    def averaged(self) -> dict[str, float]:
        """The averaged weights, rounded, without those that round to zero."""
        averaged = {name: round(w - self.stamped[name] / self.step, DIGITS) for name, w in self.weights.items()}
        return {name: w for name, w in averaged.items() if w}


def _word_features(token: str, start: int, end: int, previous: str | None, known: dict[str, int]) -> list[str]:
    """What a cut says by holding ``token[start:end]`` as a word after the word ``previous``."""
    word, last = token[start:end], end == len(token)
    seen = word in known
    names = [
        f"w={word}",
        f"pair={previous}|{word}",
        f"known={seen}|last={last}",
        f"known={seen}|first={start == 0}",
        f"w={word}|last={last}",
        f"after={'-' if previous is None else previous in known}",
    ]
    if seen:
        names.append(f"count={min(int(math.log2(known[word])), 12)}|last={last}")
    else:
        size = min(len(word), 10)
        names += [f"new={size}", f"new={size}|last={last}", f"head={word[:2]}", f"head={word[:3]}"]
        names += [f"tail={word[-1:]}", f"tail={word[-2:]}", f"tail={word[-3:]}"]
    return names


def _cut_features(token: str, words: list[str], known: dict[str, int]) -> Counter:
    features: Counter = Counter()
    start, previous = 0, None
    for word in words:
        features.update(_word_features(token, start, start + len(word), previous, known))
        previous, start = word, start + len(word)
    return features


def _best_cut(token: str, weights: dict[str, float], known: dict[str, int]) -> list[str]:
    """The highest-scoring cut (Viterbi over (end, start of the last word) states: words and word pairs)."""
    n = len(token)
    # best[end][start] = (score, start of the word before) of the best cut of token[:end] ending in token[start:end]
    best: list[dict[int, tuple[float, int]]] = [{} for _ in range(n + 1)]
    best[0][-1] = (0.0, -1)
    for end in range(1, n + 1):
        for start in range(max(0, end - LONGEST_WORD), end):
            if end - start > NEW_WORD and token[start:end] not in known:
                continue
            for before, (score, _) in best[start].items():
                previous = None if before < 0 else token[before:start]
                value = score + sum(weights.get(f, 0.0) for f in _word_features(token, start, end, previous, known))
                if start not in best[end] or value > best[end][start][0]:
                    best[end][start] = (value, before)
    start = max(best[n], key=lambda s: best[n][s][0])
    words, end = [], n
    while end > 0:
        words.append(token[start:end])
        start, end = best[end][start][1], start
    return words[::-1]
