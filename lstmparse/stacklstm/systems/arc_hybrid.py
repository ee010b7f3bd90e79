"""Arc-hybrid (Kuhlmann, Gómez-Rodríguez & Satta 2011; Figure 5 of Ballesteros et al. 2017).

SHIFT moves the buffer front b onto the stack; LEFT(l) pops the stack top s0 and
makes b its head; RIGHT(l) pops s0 and makes the word below it, s1, its head.  The
root starts on the stack and takes exactly one dependent, at the very end.

Besides the static oracle this system has the O(1)-per-action dynamic oracle of
Goldberg & Nivre (2013): the cost of an action is the number of gold arcs that
become unreachable by taking it, so the zero-cost actions are exactly those that
keep the best reachable tree as good as before, from any configuration.
"""

from __future__ import annotations

from lstmparse.stacklstm.systems.base import (
    LEFT,
    ON_BUFFER,
    ON_STACK,
    RIGHT,
    SHIFT,
    Configuration,
    GoldTree,
    TransitionSystem,
)


class ArcHybrid(TransitionSystem):
    name = "arc-hybrid"
    kinds = (SHIFT, LEFT, RIGHT)
    oracles = ("static", "dynamic")
    heads_stay_in_place = True  # RIGHT(l): s1 takes the dependent and stays on the stack

    def legal(self, config: Configuration) -> list[int]:
        depth, has_buffer = len(config.stack), bool(config.buffer)
        return self.legal_set(
            shift=has_buffer, left=has_buffer and depth >= 2, right=depth >= 3, root=depth == 2 and not has_buffer
        )

    def apply(self, config: Configuration, action: int) -> None:
        kind = self.actions[action].kind
        if kind == SHIFT:
            config.push_stack(config.pop_buffer())
        elif kind == LEFT:
            dependent = config.pop_stack()
            head = config.pop_buffer()
            self.attach(config, head, dependent, action)
            config.push_buffer(head)
        else:
            dependent = config.pop_stack()
            head = config.stack[-1]
            self.attach(config, head, dependent, action)

    def static_oracle(self, config: Configuration, gold: GoldTree) -> int | None:
        if len(config.stack) >= 2:
            top, below = config.stack[-1], config.stack[-2]
            if config.buffer and gold.heads[top] == config.buffer[-1] and gold.is_complete(config, top):
                return self.action_id(LEFT, gold.labels[top])
            if gold.heads[top] == below and gold.is_complete(config, top):
                return self.action_id(RIGHT, gold.labels[top])
        return self.shift if config.buffer else None

    def costs(self, config: Configuration, gold: GoldTree, legal: list[int] | None = None) -> dict[int, int]:
        """Cost (gold arcs lost, a wrong label counting as a lost arc) of each legal action.

        Where a word is (``config.place``) and the gold dependents of a word make each
        count O(dependents) rather than a scan of the stack or buffer.
        """
        legal = self.legal(config) if legal is None else legal
        stack, buffer, heads, place = config.stack, config.buffer, gold.heads, config.place
        top = stack[-1]
        front = buffer[-1] if buffer else None
        kind_cost = {}
        if front is not None:
            # SHIFT: the front loses a head deeper than s0 and every dependent on the stack.
            head = heads[front]
            kind_cost[SHIFT] = (head != top and place[head] == ON_STACK) + sum(
                place[k] == ON_STACK for k in gold.dependents[front]
            )
        gold_arc = {}  # kind -> whether that kind's arc is the gold arc of s0
        if len(stack) >= 2:
            below = stack[-2]
            # Popping s0 loses its dependents in the buffer; its head too if that is still reachable.
            lost_dependents = sum(place[k] == ON_BUFFER for k in gold.dependents[top])
            head_in_buffer = place[heads[top]] == ON_BUFFER
            kind_cost[RIGHT] = head_in_buffer + lost_dependents
            gold_arc[RIGHT] = heads[top] == below
            if front is not None:
                kind_cost[LEFT] = (heads[top] != front and (heads[top] == below or head_in_buffer)) + lost_dependents
                gold_arc[LEFT] = heads[top] == front
        costs = {}
        for action in legal:
            kind, label = self.actions[action].kind, self.actions[action].label
            wrong_label = gold_arc.get(kind, False) and label != gold.labels[top]
            costs[action] = kind_cost[kind] + wrong_label
        return costs

    def zero_cost(self, config: Configuration, gold: GoldTree, legal: list[int] | None = None) -> list[int]:
        """The dynamic oracle: legal actions that lose no reachable gold arc."""
        return [action for action, cost in self.costs(config, gold, legal).items() if cost == 0]
