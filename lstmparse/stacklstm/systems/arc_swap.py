"""Arc-standard with SWAP (Nivre 2009; section 3.3.2 of Ballesteros et al. 2017).

SWAP takes the second word of the stack back to the buffer (legal when it precedes
the top word in the sentence), so words can be reordered and non-projective trees
built; the buffer may then hold tree fragments, whose composed vectors the buffer
LSTM receives.  The static oracle follows the lazy strategy of Nivre, Kuhlmann &
Hall (2009): swap only when the two top words are out of projective order and the
top word's maximal projective component does not continue in the buffer, which
keeps the number of swaps small.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from lstmparse.io.tree import children
from lstmparse.stacklstm.systems.arc_standard import ArcStandard
from lstmparse.stacklstm.systems.base import LEFT, RIGHT, ROOT, SHIFT, SWAP, Configuration, GoldTree


class SwapGoldTree(GoldTree):
    """A gold tree with its projective order and maximal projective components."""

    def __init__(self, heads: Sequence[int], labels: Sequence[str]) -> None:
        super().__init__(heads, labels)
        self.projective_order = projective_order(self.heads)
        self.component = maximal_projective_components(self)


class ArcSwap(ArcStandard):
    name = "arc-swap"
    kinds = (SHIFT, LEFT, RIGHT, SWAP)
    builds_non_projective = True

    def can_swap(self, config: Configuration) -> bool:
        """SWAP needs two words on the stack, in their sentence order."""
        stack = config.stack
        return len(stack) >= 3 and stack[-2] < stack[-1]

    def apply(self, config: Configuration, action: int) -> None:
        if self.actions[action].kind != SWAP:
            super().apply(config, action)
            return
        top = config.pop_stack()
        below = config.pop_stack()
        config.push_stack(top)
        config.push_buffer(below)

    def gold_tree(self, heads: Sequence[int], labels: Sequence[str]) -> SwapGoldTree:
        return SwapGoldTree(heads, labels)

    def static_oracle(self, config: Configuration, gold: GoldTree) -> int | None:
        """The arc-standard oracle, with SWAP where the projective order asks (``gold`` is :meth:`gold_tree`'s)."""
        gold = cast(SwapGoldTree, gold)
        stack, buffer = config.stack, config.buffer
        if len(stack) >= 2:
            top, below = stack[-1], stack[-2]
            if below != ROOT and gold.heads[below] == top and gold.is_complete(config, below):
                return self.action_id(LEFT, gold.labels[below])
            if gold.heads[top] == below and gold.is_complete(config, top):
                return self.action_id(RIGHT, gold.labels[top])
            order = gold.projective_order
            if below != ROOT and order[top] < order[below]:
                if not buffer or gold.component[top] != gold.component[buffer[-1]]:
                    return self.swap
        return self.shift if buffer else None


def projective_order(heads: Sequence[int]) -> list[int]:
    """Position of each node (0 = root) in the in-order traversal of the gold tree."""
    n = len(heads) - 1
    dependents = children(heads[1:])
    order = [0] * (n + 1)
    counter = 0
    # Iterative in-order walk: left children, the node, right children.
    todo: list[tuple[int, bool]] = [(ROOT, False)]
    while todo:
        node, expanded = todo.pop()
        if expanded:
            order[node] = counter
            counter += 1
            continue
        left = [c for c in dependents[node] if c < node]
        right = [c for c in dependents[node] if c > node]
        todo.extend((c, False) for c in reversed(right))
        todo.append((node, True))
        todo.extend((c, False) for c in reversed(left))
    return order


def maximal_projective_components(gold: GoldTree) -> list[int]:
    """Component id of each node: the subtrees that arc-standard alone can build.

    Runs the arc-standard oracle without SWAP, shifting whenever it cannot reduce;
    words joined by an arc end up in one component (union-find over the arcs).
    """
    n = len(gold.heads) - 1
    parent = list(range(n + 1))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    attached = [0] * (n + 1)
    stack, position = [ROOT], 1
    while True:
        if len(stack) >= 2:
            top, below = stack[-1], stack[-2]
            if below != ROOT and gold.heads[below] == top and attached[below] == gold.n_dependents[below]:
                stack.pop(-2)
                attached[top] += 1
                parent[find(below)] = find(top)
                continue
            if gold.heads[top] == below and attached[top] == gold.n_dependents[top]:
                stack.pop()
                attached[below] += 1
                parent[find(top)] = find(below)
                continue
        if position > n:
            break
        stack.append(position)
        position += 1
    return [find(x) for x in range(n + 1)]
