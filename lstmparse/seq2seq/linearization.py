"""Trees as token sequences (Vinyals et al. 2015, sections 2.2 and 2.3).

A tree is written depth first: ``(NP`` opens a constituent, ``)NP`` closes it, and
every preterminal is ``XX`` (POS tags are not predicted; words are not in the
sequence but are put back from the input when the tree is rebuilt).  Labels lose
their function tags.  The model's output need not be such a sequence; ``repair``
turns any token sequence into the nearest well-formed one with the right number
of words (section 3.2, "Generating well-formed trees").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lstmparse.io.ptb import Constituent, PTBTree, base_label

LEAF = "XX"


def opening(label: str) -> str:
    return "(" + label


def closing(label: str) -> str:
    return ")" + label


def linearize(tree: PTBTree) -> list[str]:
    """The tree's token sequence (function tags stripped, preterminals XX)."""
    tokens: list[str] = []
    for child in tree.children:
        _linearize_node(child, tokens)
    return tokens


def _linearize_node(node: Constituent, tokens: list[str]) -> None:
    if node.is_preterminal:
        tokens.append(LEAF)
        return
    label = base_label(node.label)
    tokens.append(opening(label))
    for child in node.children:
        _linearize_node(child, tokens)
    tokens.append(closing(label))


def is_well_formed(tokens: Sequence[str], words: int) -> bool:
    """Balanced, each ``)L`` closing an open ``(L``, no empty constituent, exactly ``words`` XX."""
    open_labels: list[str] = []
    filled: list[bool] = []
    leaves = 0
    for token in tokens:
        if token == LEAF:
            leaves += 1
            if filled:
                filled[-1] = True
        elif token.startswith("("):
            if filled:
                filled[-1] = True
            open_labels.append(token[1:])
            filled.append(False)
        elif not open_labels or open_labels.pop() != token[1:] or not filled.pop():
            return False
    return not open_labels and leaves == words and words > 0


def repair(tokens: Sequence[str], words: int) -> list[str]:
    """The well-formed sequence nearest to ``tokens`` with exactly ``words`` leaves.

    Read left to right: a closing bracket closes the innermost open constituent
    (whose opening label wins), closing brackets with nothing open and leaves past
    ``words`` are dropped, constituents that end up empty are dropped, brackets still
    open at the end are closed, and missing leaves are added at the end of the last
    top-level constituent.  A well-formed sequence comes back unchanged.
    """
    return linearize(PTBTree(_tolerant_tree(tokens, words)))


def _tolerant_tree(tokens: Sequence[str], words: int) -> list[Constituent]:
    """The top-level constituents ``repair`` reads from ``tokens``; leaves are XX without words.

    For a well-formed sequence this is exactly the tree it writes.
    """
    root = Constituent("")
    stack = [root]
    leaves = 0
    for token in tokens:
        if token == LEAF:
            if leaves < words:
                stack[-1].children.append(Constituent(LEAF, word=""))
                leaves += 1
        elif token.startswith("("):
            stack.append(Constituent(token[1:]))
        elif len(stack) > 1:
            _close(stack)
    while len(stack) > 1:
        _close(stack)
    last = root.children[-1] if root.children and not root.children[-1].is_preterminal else root
    last.children.extend(Constituent(LEAF, word="") for _ in range(words - leaves))
    return root.children


@dataclass(frozen=True)
class Prefix:
    """What a partial sequence allows next, for decoding constrained to well-formed trees.

    A leaf or an opening bracket only while words are left (so every constituent
    can still get a word), the closing bracket of the innermost open constituent
    once it has a child, and the end once everything is closed and every word
    placed.  From the empty prefix these rules always leave some token allowed
    and admit exactly the well-formed sequences.
    """

    open_labels: tuple[str, ...] = ()
    filled: tuple[bool, ...] = ()
    leaves: int = 0

    def can_place_word(self, words: int) -> bool:
        """A leaf or an opening bracket may come next."""
        return self.leaves < words

    def closable(self) -> str | None:
        """The label whose closing bracket may come next, if any."""
        return self.open_labels[-1] if self.open_labels and self.filled[-1] else None

    def can_end(self, words: int) -> bool:
        return not self.open_labels and self.leaves == words

    def then(self, token: str) -> Prefix:
        """The prefix extended by ``token`` (which it must allow)."""
        filled = self.filled[:-1] + (True,) if self.filled else ()
        if token == LEAF:
            return Prefix(self.open_labels, filled, self.leaves + 1)
        if token.startswith("("):
            return Prefix(self.open_labels + (token[1:],), filled + (False,), self.leaves)
        return Prefix(self.open_labels[:-1], self.filled[:-1], self.leaves)


def _close(stack: list[Constituent]) -> None:
    node = stack.pop()
    if node.children:
        stack[-1].children.append(node)


def delinearize(tokens: Sequence[str], words: Sequence[str], tags: Sequence[str] | None = None) -> PTBTree:
    """The tree of a well-formed sequence, with ``words`` (and ``tags``, else XX) at its leaves."""
    if not is_well_formed(tokens, len(words)):
        raise ValueError(f"not a well-formed tree of {len(words)} words: {' '.join(tokens)}")
    tree = PTBTree(_tolerant_tree(tokens, len(words)))
    for position, leaf in enumerate(tree.preterminals()):
        leaf.word = words[position]
        leaf.label = tags[position] if tags is not None else LEAF
    return tree
