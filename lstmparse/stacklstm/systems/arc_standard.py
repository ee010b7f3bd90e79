"""Arc-standard (Nivre 2004; Figure 4 of Dyer et al. 2015).

SHIFT moves the buffer front onto the stack; LEFT(l) makes the top the head of the
word below it; RIGHT(l) makes the word below the head of the top.  Both reductions
leave the head on the stack.  The root starts on the stack and takes exactly one
dependent, labelled with the root label, when the buffer is empty.
"""

from __future__ import annotations

from lstmparse.stacklstm.systems.base import LEFT, RIGHT, ROOT, SHIFT, Configuration, GoldTree, TransitionSystem


class ArcStandard(TransitionSystem):
    name = "arc-standard"
    kinds: tuple[str, ...] = (SHIFT, LEFT, RIGHT)

    def can_swap(self, config: Configuration) -> bool:
        return False

    def legal(self, config: Configuration) -> list[int]:
        depth, has_buffer = len(config.stack), bool(config.buffer)
        can_reduce = depth >= 3
        return self.legal_set(
            shift=has_buffer,
            left=can_reduce,
            right=can_reduce,
            root=depth == 2 and not has_buffer,
            swap=self.can_swap(config),
        )

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
