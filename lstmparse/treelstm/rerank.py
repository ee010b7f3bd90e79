"""Reranking k-best dependency trees with a TreeLSTM (Zhang, Lu & Lapata 2016, section 4.2).

A k-best file is CoNLL-U in which each candidate tree is a full sentence block with
``# sent_id`` (shared by the candidates of one sentence, which are consecutive),
``# kbest_rank = r`` and ``# parser_score = s`` (the base parser's log-probability),
as ``lstmparse parse --kbest K`` writes it.  Among the first K candidates the
reranker picks the one with the highest

    W * log P_treelstm(S|T) + (1 - W) * parser_score.

W and K are tuned on dev by UAS; the grid for W is dense near 0 because a tree's
log-probability is a sum over its words and so is far larger in magnitude than the
parser's score.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence, read_sentences
from lstmparse.io.tree import tree_problem
from lstmparse.treelstm.model import TreeLSTM

T = TypeVar("T")

WEIGHT_GRID = tuple(np.round(np.concatenate([np.arange(0, 0.1, 0.005), np.arange(0.1, 1.0001, 0.05)]), 3))


@dataclass
class KBestCandidate:
    sentence: Sentence
    rank: int
    parser_score: float
    tree_score: float = 0.0  # log P_treelstm(S|T), filled in by :func:`score_candidates`


def comment_value(sentence: Sentence, key: str) -> str | None:
    """The value of a ``# key = value`` comment line, or None."""
    for line in sentence.lines:
        if not line.startswith("#"):
            break
        name, _, value = line[1:].partition("=")
        if name.strip() == key:
            return value.strip()
    return None


def read_kbest(path: str) -> list[list[KBestCandidate]]:
    """The candidates of each sentence, in file order; malformed input names file and line."""
    groups: list[list[KBestCandidate]] = []
    previous_id = None
    for sentence in read_sentences(path):
        candidate = _candidate(sentence)
        sent_id = comment_value(sentence, "sent_id")
        if groups and sent_id == previous_id:
            if groups[-1][0].sentence.forms != sentence.forms:
                raise InputError(sentence.path, sentence.first_line, f"candidate of {sent_id} has different words")
            groups[-1].append(candidate)
        else:
            groups.append([candidate])
        previous_id = sent_id
    return groups


def _candidate(sentence: Sentence) -> KBestCandidate:
    where = (sentence.path, sentence.first_line)
    comment_value_of(sentence, "sent_id", str)
    rank = comment_value_of(sentence, "kbest_rank", int)
    score = comment_value_of(sentence, "parser_score", float)
    if any(head is None for head in sentence.heads):
        raise InputError(*where, "k-best candidate without HEAD values")
    problem = tree_problem(sentence.gold_heads)
    if problem:
        raise InputError(*where, f"candidate is not a tree: {problem}")
    return KBestCandidate(sentence, rank, score)


def comment_value_of(sentence: Sentence, key: str, convert: Callable[[str], T]) -> T:
    """A candidate's ``# key = value`` comment as ``convert`` reads it; missing or malformed is an InputError."""
    raw = comment_value(sentence, key)
    if raw is None:
        raise InputError(sentence.path, sentence.first_line, f"k-best candidate without '# {key} = ...'")
    try:
        return convert(raw)
    except ValueError:
        name = getattr(convert, "__name__", "value")
        raise InputError(sentence.path, sentence.first_line, f"'# {key} = {raw}' is not a valid {name}") from None


def score_candidates(
    model: TreeLSTM, groups: Sequence[list[KBestCandidate]], progress=None, k: int | None = None
) -> None:
    """Fill in the TreeLSTM log-probability of each candidate among the first ``k`` of its sentence (all: None)."""
    flat = [c for group in groups for c in candidates_within(group, k)]
    scores = model.score_trees([(c.sentence.forms, c.sentence.gold_heads) for c in flat], progress)
    for candidate, score in zip(flat, scores, strict=True):
        candidate.tree_score = score.log_prob


def candidates_within(group: Sequence[KBestCandidate], k: int | None) -> list[KBestCandidate]:
    """The first ``k`` candidates of a sentence by the parser's rank (all of them for None)."""
    return sorted(group, key=lambda c: c.rank)[:k]


def best_candidate(group: Sequence[KBestCandidate], weight: float, k: int) -> KBestCandidate:
    """The highest combined score among the first ``k`` candidates (ties go to the parser's order)."""
    return max(candidates_within(group, k), key=lambda c: weight * c.tree_score + (1 - weight) * c.parser_score)


def rerank(groups: Iterable[Sequence[KBestCandidate]], weight: float, k: int) -> Iterator[Sentence]:
    """The chosen candidate of each sentence, with a ``# rerank_score`` comment added."""
    for group in groups:
        chosen = best_candidate(group, weight, k)
        score = weight * chosen.tree_score + (1 - weight) * chosen.parser_score
        yield chosen.sentence.with_comments([f"# rerank_score = {score:.4f}"])


@dataclass
class Tuning:
    weight: float
    k: int
    uas: float
    one_best_uas: float
    oracle_uas: float


def tune(groups: Sequence[Sequence[KBestCandidate]], gold: Sequence[Sentence], max_k: int | None = None) -> Tuning:
    """W and K with the best UAS against ``gold`` (all words counted, as the CoNLL scorer's UAS).

    The candidates are laid out as (sentence x rank) matrices, so that each (W, K)
    on the grid costs one vectorized argmax.
    """
    if len(groups) != len(gold):
        where = gold[0].path if gold else "<gold>"
        raise InputError(where, None, f"{len(gold)} gold sentences for {len(groups)} k-best sentences")
    width = max(len(group) for group in groups)
    tree = np.zeros((len(groups), width))
    parser = np.zeros((len(groups), width))
    missing = np.ones((len(groups), width), dtype=bool)  # shorter lists are padded
    correct = np.zeros((len(groups), width))
    for i, (group, reference) in enumerate(zip(groups, gold, strict=True)):
        for j, candidate in enumerate(sorted(group, key=lambda c: c.rank)):
            tree[i, j], parser[i, j], missing[i, j] = candidate.tree_score, candidate.parser_score, False
            correct[i, j] = _correct_heads(candidate.sentence, reference)
    rows = np.arange(len(groups))
    best = (-1.0, 0.0, 1)
    for weight in WEIGHT_GRID:
        combined = np.where(missing, -np.inf, weight * tree + (1 - weight) * parser)
        for k in range(1, min(max_k or width, width) + 1):
            hits = correct[rows, np.argmax(combined[:, :k], axis=1)].sum()
            if hits > best[0]:
                best = (hits, float(weight), k)
    hits, weight, k = best
    percent = 100 / sum(len(reference) for reference in gold)
    return Tuning(weight, k, hits * percent, correct[:, 0].sum() * percent, correct.max(axis=1).sum() * percent)


def _correct_heads(candidate: Sentence, gold: Sentence) -> int:
    if candidate.forms != gold.forms:
        where = f"{gold.path}:{gold.first_line}"
        raise InputError(candidate.path, candidate.first_line, f"words differ from the gold sentence at {where}")
    return sum(h == g for h, g in zip(candidate.heads, gold.heads, strict=True))
