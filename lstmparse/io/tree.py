"""Dependency trees as head lists: validity and projectivity.

A tree over n words is ``heads`` (length n, ``heads[i]`` is the head of word i+1,
0 for the root) plus ``deprels``.  Keeping trees as plain lists keeps the transition
systems and the evaluator free of any model code.
"""

from __future__ import annotations

from collections.abc import Sequence


def tree_problem(heads: Sequence[int]) -> str | None:
    """Why ``heads`` is not a single-rooted tree, or None if it is one."""
    n = len(heads)
    roots = [i + 1 for i, h in enumerate(heads) if h == 0]
    if not roots:
        return "no word attached to the root (HEAD 0)"
    if len(roots) > 1:
        return f"multiple roots: words {', '.join(map(str, roots))} have HEAD 0"
    for i, h in enumerate(heads):
        if not 0 <= h <= n:
            return f"HEAD {h} of word {i + 1} out of range 0..{n}"
        if h == i + 1:
            return f"word {h} is its own head"
    for start in range(1, n + 1):
        seen = set()
        node = start
        while node != 0:
            if node in seen:
                return f"cycle through word {node}"
            seen.add(node)
            node = heads[node - 1]
    return None


def children(heads: Sequence[int]) -> list[list[int]]:
    """Each position's dependents (0 = the root's), in sentence order."""
    dependents: list[list[int]] = [[] for _ in range(len(heads) + 1)]
    for dependent, head in enumerate(heads, start=1):
        dependents[head].append(dependent)
    return dependents


def arcs(heads: Sequence[int]) -> list[tuple[int, int]]:
    """(head, dependent) pairs, 1-based dependents, head 0 for the root."""
    return [(h, d) for d, h in enumerate(heads, start=1)]


def is_projective(heads: Sequence[int]) -> bool:
    """True when no two arcs cross (the artificial root arc included)."""
    spans = sorted((min(h, d), max(h, d)) for h, d in arcs(heads))
    for i, (left1, right1) in enumerate(spans):
        for left2, right2 in spans[i + 1 :]:
            if left2 >= right1:
                break
            if left1 < left2 < right1 < right2:
                return False
    return True


def non_projective_arcs(heads: Sequence[int]) -> set[int]:
    """Dependents whose arc crosses some other arc (for non-projective recall)."""
    spans = [(min(h, d), max(h, d), d) for h, d in arcs(heads)]
    crossing: set[int] = set()
    for left1, right1, d1 in spans:
        for left2, right2, d2 in spans:
            if left1 < left2 < right1 < right2:
                crossing.update((d1, d2))
    return crossing
