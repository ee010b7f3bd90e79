"""Pseudo-projective parsing (Nivre & Nilsson 2005), with the *head+path* encoding.

Training trees are made projective by lifting non-projective arcs: the shortest
non-projective arc d <- h is replaced by d <- head(h), again and again, until no
arc is non-projective.  The lift is recorded in the labels:

- the lifted dependent's label becomes ``label||head_label``, where ``head_label``
  is the label of its original (syntactic) head;
- every word on the path the lift went down, from just below the new head to the
  original head, gets the path mark ``^`` after its label.

A projective parser trained on such trees learns the encoded labels; its output is
deprojectivized top-down: a word labelled ``l||h`` is re-attached to the first
node labelled ``h^`` reached breadth-first (left to right) from its current head
through path-marked words only, outside its own subtree; failing that, to the first
node labelled ``h`` anywhere below the head (the plain *head* scheme); failing
that, it stays.  All marks are then removed.  The path marks are what tell apart
siblings with the same label (Hungarian names, ``flat:name`` chains), which the
head scheme alone confuses on one non-projective tree in four.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from lstmparse.io.tree import children as dependents_of

SEPARATOR = "||"
PATH_MARK = "^"


def _dominates(heads: Sequence[int], ancestor: int, word: int) -> bool:
    while word != 0:
        if word == ancestor:
            return True
        word = heads[word - 1]
    return ancestor == 0


def non_projective_dependents(heads: Sequence[int]) -> list[int]:
    """Dependents whose arc spans a word its head does not dominate."""
    found = []
    for dependent, head in enumerate(heads, start=1):
        lo, hi = sorted((head, dependent))
        if any(not _dominates(heads, head, k) for k in range(lo + 1, hi)):
            found.append(dependent)
    return found


def projectivize(heads: Sequence[int], labels: Sequence[str]) -> tuple[list[int], list[str]]:
    """A projective tree whose lifted arcs carry ``label||original_head_label``."""
    heads, labels = list(heads), list(labels)
    original = list(labels)
    lifted = [False] * len(heads)
    while True:
        candidates = [d for d in non_projective_dependents(heads) if heads[d - 1] != 0]
        if not candidates:
            return heads, labels
        dependent = min(candidates, key=lambda d: (abs(heads[d - 1] - d), d))
        head = heads[dependent - 1]
        if not lifted[dependent - 1]:
            labels[dependent - 1] = f"{original[dependent - 1]}{SEPARATOR}{original[head - 1]}"
            lifted[dependent - 1] = True
        if not labels[head - 1].endswith(PATH_MARK):
            labels[head - 1] += PATH_MARK
        heads[dependent - 1] = heads[head - 1]


def original_label(label: str) -> str:
    """The label without any lifting or path mark."""
    return label.split(SEPARATOR, 1)[0].removesuffix(PATH_MARK)


def deprojectivize(heads: Sequence[int], labels: Sequence[str]) -> tuple[list[int], list[str]]:
    """Undo :func:`projectivize` on a (parsed) tree."""
    heads, labels = list(heads), list(labels)
    children = dependents_of(heads)
    queue = deque(children[0])
    while queue:
        word = queue.popleft()
        queue.extend(children[word])
        if SEPARATOR not in labels[word - 1]:
            continue
        head_label = labels[word - 1].split(SEPARATOR, 1)[1].removesuffix(PATH_MARK)
        head = heads[word - 1]
        new_head = _find_head(children, labels, head, word, head_label, marked_only=True)
        if new_head is None:
            new_head = _find_head(children, labels, head, word, head_label, marked_only=False)
        if new_head is not None:
            children[head].remove(word)
            children[new_head].append(word)
            children[new_head].sort()
            heads[word - 1] = new_head
    return heads, [original_label(label) for label in labels]


def _find_head(
    children: list[list[int]], labels: Sequence[str], start: int, word: int, label: str, marked_only: bool
) -> int | None:
    """Breadth-first, left to right, below ``start`` and outside ``word``'s subtree.

    With ``marked_only`` the search walks only through path-marked words and wants
    a path-marked word with the label.
    """

    def eligible(node: int) -> bool:
        return node != word and (not marked_only or labels[node - 1].endswith(PATH_MARK))

    queue = deque(c for c in children[start] if eligible(c))
    while queue:
        node = queue.popleft()
        if original_label(labels[node - 1]) == label:
            return node
        queue.extend(c for c in children[node] if eligible(c))
    return None
