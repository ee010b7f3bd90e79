"""Arc-standard (Nivre 2004; Figure 4 of Dyer et al. 2015).

SHIFT moves the buffer front onto the stack; LEFT(l) makes the top the head of the
word below it; RIGHT(l) makes the word below the head of the top.  Both reductions
leave the head on the stack.  The root starts on the stack and takes exactly one
dependent, labelled with the root label, when the buffer is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .base import LEFT, RIGHT, ROOT, SHIFT, Configuration, GoldTree, TransitionSystem


class ArcStandard(TransitionSystem):
    name = "arc-standard"
    kinds = (SHIFT, LEFT, RIGHT)

    def __init__(self, labels: Sequence[str], root_label: str = "root") -> None:
        super().__init__(labels, root_label)
        self.shift = self.ids(SHIFT)[0]
        self.left_ids = self.ids(LEFT, root=False)
        self.right_ids = self.ids(RIGHT, root=False)
        self.root_id = self.ids(RIGHT, root=True)[0]
        self._legal_sets = lru_cache(maxsize=None)(self._legal_set)

    def _legal_set(self, can_shift: bool, can_reduce: bool, can_attach_root: bool, can_swap: bool) -> list[int]:
        legal = [self.shift] if can_shift else []
        if can_reduce:
            legal += self.left_ids + self.right_ids
        if can_attach_root:
            legal.append(self.root_id)
        if can_swap:
            legal.append(self.swap)
        return legal

    def can_swap(self, config: Configuration) -> bool:
        return False

    def legal(self, config: Configuration) -> list[int]:
        depth, has_buffer = len(config.stack), bool(config.buffer)
        return self._legal_sets(has_buffer, depth >= 3, depth == 2 and not has_buffer, self.can_swap(config))

    def apply(self, config: Configuration, action: int) -> None:
        kind = self.actions[action].kind
        if kind == SHIFT:
            config.push_stack(config.pop_buffer())
            return
        top = config.pop_stack()
        below = config.pop_stack()
        head, dependent = (top, below) if kind == LEFT else (below, top)
        self.attach(config, head, dependent, action)
        config.push_stack(head)

    def static_oracle(self, config: Configuration, gold: GoldTree) -> int | None:
        if len(config.stack) >= 2:
            top, below = config.stack[-1], config.stack[-2]
            if below != ROOT and gold.heads[below] == top:
                return self.action_id(LEFT, gold.labels[below])
            if gold.heads[top] == below and gold.is_complete(config, top):
                return self.action_id(RIGHT, gold.labels[top])
        return self.shift if config.buffer else None
