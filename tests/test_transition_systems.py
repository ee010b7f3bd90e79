"""SWAP and arc-hybrid: static oracles on real treebanks, the dynamic oracle exhaustively."""

from __future__ import annotations

import copy
import random
from functools import cache

import pytest

from lstmparse.formats import read_treebank
from lstmparse.systems import make_system
from lstmparse.systems.base import NOWHERE, ON_BUFFER, ON_STACK, SWAP
from lstmparse.tree import is_projective


@pytest.fixture(scope="module")
def treebanks(ewt):
    return {name: read_treebank(str(ewt.parent / name / "train.conllu")) for name in ("en_ewt", "hu_szeged")}


@pytest.mark.parametrize("treebank", ["en_ewt", "hu_szeged"])
def test_swap_oracle_reproduces_every_tree(treebanks, treebank):
    sentences = treebanks[treebank]
    system = make_system("arc-swap", {d for s in sentences for d in s.deprels})
    swaps = 0
    for sentence in sentences:
        sequence = system.oracle_sequence(sentence.heads, sentence.deprels)
        assert sequence is not None, f"{sentence.path}:{sentence.first_line}"
        n_swaps = sum(system.actions[a].kind == SWAP for a in sequence)
        assert len(sequence) == 2 * len(sentence) + 2 * n_swaps
        assert (n_swaps == 0) == is_projective(sentence.heads)
        swaps += n_swaps
    print(f"{treebank}: {swaps / len(sentences):.3f} swaps per sentence")


@pytest.mark.parametrize("treebank", ["en_ewt", "hu_szeged"])
def test_arc_hybrid_static_oracle_reproduces_the_projective_trees(treebanks, treebank):
    sentences = treebanks[treebank]
    system = make_system("arc-hybrid", {d for s in sentences for d in s.deprels})
    for sentence in sentences:
        sequence = system.oracle_sequence(sentence.heads, sentence.deprels)
        assert (sequence is not None) == is_projective(sentence.heads)


LABELS = ["a", "b"]


def random_projective_tree(rng: random.Random, n: int) -> tuple[list[int], list[str]]:
    """A random projective tree with one root word: each span gets a random head inside it."""
    heads = [0] * n

    def attach(head: int, lo: int, hi: int) -> None:
        if lo > hi:
            return
        child = rng.randint(lo, hi)
        heads[child - 1] = head
        attach(child, lo, child - 1)
        attach(child, child + 1, hi)

    attach(0, 1, n)
    labels = [rng.choice(LABELS) if h else "root" for h in heads]
    return heads, labels


def best_future_loss(system, config, gold_heads, gold_labels) -> int:
    """The smallest number of wrong words reachable from ``config`` (brute force)."""

    @cache
    def search(stack: tuple, buffer: tuple) -> int:
        state = copy.copy(config)
        state.stack, state.buffer = list(stack), list(buffer)
        state.place = [NOWHERE] * (config.n + 1)  # kept by the primitives, which this shortcut bypasses
        for item in stack:
            state.place[item] = ON_STACK
        for item in buffer:
            state.place[item] = ON_BUFFER
        if system.is_final(state):
            return 0
        best = None
        for action in system.legal(state):
            loss, following = step(state, action)
            total = loss + search(tuple(following.stack), tuple(following.buffer))
            best = total if best is None else min(best, total)
        return best

    def step(state, action):
        following = copy.deepcopy(state)
        before = list(following.heads)
        system.apply(following, action)
        loss = 0
        for word, (old, new) in enumerate(zip(before, following.heads, strict=True)):
            if old is None and new is not None:
                loss += new != gold_heads[word] or following.labels[word] != gold_labels[word]
        return loss, following

    return search(tuple(config.stack), tuple(config.buffer)), step


def test_dynamic_oracle_zero_cost_actions_are_exactly_the_optimal_ones():
    rng = random.Random(7)
    system = make_system("arc-hybrid", LABELS)
    checked = 0
    for _ in range(150):
        n = rng.randint(1, 7)
        heads, labels = random_projective_tree(rng, n)
        gold = system.gold_tree(heads, labels)
        gold_heads, gold_labels = [None, *heads], [None, *labels]
        config = system.initial(n)
        while not system.is_final(config):
            best, step = best_future_loss(system, config, gold_heads, gold_labels)
            optimal = set()
            for action in system.legal(config):
                loss, following = step(config, action)
                if loss + best_future_loss(system, following, gold_heads, gold_labels)[0] == best:
                    optimal.add(action)
            assert set(system.zero_cost(config, gold)) == optimal, (heads, labels, config.stack, config.buffer)
            checked += 1
            system.apply(config, rng.choice(system.legal(config)))
    assert checked > 500
