"""Training examples: each treebank tree as the static oracle's action sequence.

Kept free of DyNet, as is the ``lstmparse oracle`` report built on it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence
from lstmparse.io.tree import tree_problem
from lstmparse.stacklstm.pseudo_projective import projectivize
from lstmparse.stacklstm.systems import GoldTree, TransitionSystem


def root_label_of(sentences: Sequence[Sentence]) -> str:
    """The relation most often given to words attached to the root."""
    counts = Counter(t.deprel or "root" for s in sentences for t in s.tokens if t.head == 0)
    return counts.most_common(1)[0][0] if counts else "root"


@dataclass
class Example:
    """A training sentence with its (possibly projectivized) gold tree and static oracle actions.

    ``index`` numbers the examples of a training set; with the seed and the epoch it
    seeds the sentence's own random stream (:func:`sentence_rng`).
    """

    sentence: Sentence
    gold: GoldTree
    actions: list[int]
    index: int = 0


def sentence_rng(seed: int | None, epoch: int, example: Example) -> random.Random:
    """The example's own random stream in an epoch: what it draws never depends on its batch.

    Without a seed the stream still is the sentence's own, started from Python's global generator.
    """
    start = seed if seed is not None else random.getrandbits(64)
    return random.Random(f"{start}/{epoch}/{example.index}")


def training_trees(sentences: Sequence[Sentence], pseudo_projective: bool) -> list[tuple[list[int], list[str]]]:
    """The trees to learn from: checked, and projectivized if asked."""
    trees = []
    for sentence in sentences:
        heads, labels = sentence.gold_heads, sentence.gold_deprels
        problem = tree_problem(heads)
        if problem and not problem.startswith("multiple roots"):
            raise InputError(sentence.path, sentence.first_line, f"not a tree: {problem}")
        trees.append(projectivize(heads, labels) if pseudo_projective and not problem else (heads, labels))
    return trees


def oracle_examples(
    system: TransitionSystem, sentences: Sequence[Sentence], trees: Sequence[tuple[list[int], list[str]]]
) -> tuple[list[Example], Counter]:
    """Examples for every tree the system can build, and why the others were skipped."""
    examples: list[Example] = []
    skipped: Counter[str] = Counter()
    for sentence, (heads, labels) in zip(sentences, trees, strict=True):
        actions = system.oracle_sequence(heads, labels)
        if actions is None:
            reason = "multiple roots" if heads.count(0) > 1 else f"not buildable by {system.name} (non-projective)"
            skipped[reason] += 1
        else:
            examples.append(Example(sentence, system.gold_tree(heads, labels), actions, len(examples)))
    return examples, skipped
