"""Arc-eager (Nivre 2003, 2008), kept to single-rooted trees, with Goldberg & Nivre's (2012) dynamic oracle.

SHIFT moves the buffer front b0 onto the stack; LEFT(l) makes b0 the head of the
stack top s0 and pops s0; RIGHT(l) makes s0 the head of b0 and pushes b0; REDUCE
pops an s0 that already has its head.  A word's left dependents are attached as
soon as its head arrives, so arcs are built eagerly and RIGHT leaves the head s0
on the stack with a new dependent (the head is reseated there, :mod:`.base`).

Plain arc-eager can end with several headless words, which would all hang from
the root.  UD trees have exactly one root word, so the legal actions here keep
every configuration completable to a single-rooted tree (in the spirit of Nivre &
Fernández-González 2014, without their UNSHIFT):

* the root (at the bottom of the stack) takes one dependent, by RIGHT with the
  root label, and no other arc;
* the last buffer word cannot be shifted (nothing to its right could head it),
  and takes its head by RIGHT only once every word on the stack has a head;
* the root's dependent is not reduced while the buffer holds words (they would
  be left with no possible head).

Under these rules a configuration is never stuck and every projective tree is
reachable.  The dynamic oracle is the arc-decomposable cost of Goldberg & Nivre
(2012): the number of gold arcs, still reachable, that an action makes
unreachable (a wrong label loses its arc); the rules above only forbid actions
that lose gold arcs too, so the costs stay exact.
"""

from __future__ import annotations

from lstmparse.stacklstm.systems.base import LEFT, RIGHT, ROOT, SHIFT, Configuration, GoldTree, TransitionSystem

REDUCE = "REDUCE"


class ArcEager(TransitionSystem):
    name = "arc-eager"
    kinds = (SHIFT, LEFT, RIGHT, REDUCE)
    oracles = ("static", "dynamic")
    heads_stay_in_place = True  # RIGHT(l): s0 takes b0 as dependent and stays on the stack

    def legal(self, config: Configuration) -> list[int]:
        stack, buffer, heads = config.stack, config.buffer, config.heads
        top = stack[-1]
        top_headed = heads[top] is not None
        root_done = config.attached[ROOT] > 0
        if not buffer:
            return self.legal_set(reduce=top != ROOT)  # every word on the stack has its head by now
        last = len(buffer) == 1
        ready_for_last = not last or all(heads[word] is not None for word in stack[1:])
        return self.legal_set(
            shift=not last,
            left=top != ROOT and not top_headed,
            right=top != ROOT and ready_for_last,
            root=top == ROOT and not root_done,
            reduce=top_headed and not (len(stack) == 2 and heads[top] == ROOT),
        )

    def apply(self, config: Configuration, action: int) -> None:
        kind = self.actions[action].kind
        if kind == SHIFT:
            config.push_stack(config.pop_buffer())
        elif kind == REDUCE:
            config.pop_stack()
        elif kind == LEFT:
            dependent = config.pop_stack()
            self.attach(config, config.buffer[-1], dependent, action)
        else:
            dependent = config.pop_buffer()
            self.attach(config, config.stack[-1], dependent, action)
            config.push_stack(dependent)

    def static_oracle(self, config: Configuration, gold: GoldTree) -> int | None:
        """Nivre's (2008) oracle: an arc as soon as both ends meet, REDUCE when s0 is done, else SHIFT."""
        stack, buffer = config.stack, config.buffer
        top = stack[-1]
        if not buffer:
            return self.reduce_id if top != ROOT else None
        front = buffer[-1]
        if top != ROOT and gold.heads[top] == front:
            return self.action_id(LEFT, gold.labels[top])
        if gold.heads[front] == top:
            return self.action_id(RIGHT, gold.labels[front])
        below = stack[:-1]
        if config.heads[top] is not None and any(gold.heads[front] == k or gold.heads[k] == front for k in below):
            return self.reduce_id
        return self.shift

    @property
    def reduce_id(self) -> int:
        return self.groups["reduce"][0]

    def costs(self, config: Configuration, gold: GoldTree, legal: list[int] | None = None) -> dict[int, int]:
        """Gold arcs each legal action makes unreachable (Goldberg & Nivre 2012, section 4)."""
        legal = self.legal(config) if legal is None else legal
        stack, buffer, heads = config.stack, config.buffer, gold.heads
        top = stack[-1]
        rest = buffer[:-1]  # the buffer after its front

        def headless(word: int) -> bool:
            return config.heads[word] is None

        kind_cost: dict[str, int] = {}
        gold_arc: dict[str, tuple[int, bool]] = {}  # kind -> (dependent, whether the arc is gold)
        if buffer:
            front = buffer[-1]
            can_head_front = self._possible_heads_of_front(config)
            # SHIFT: b0 gives up its head and its headless dependents on the stack; with one word
            # left after it, b0 can only be headed by that word, so an arc from b0 to it is lost too.
            kind_cost[SHIFT] = (heads[front] in can_head_front) + sum(heads[k] == front and headless(k) for k in stack)
            kind_cost[SHIFT] += len(buffer) == 2 and heads[buffer[0]] == front
            # RIGHT: b0 takes s0 as head; it loses any other head on the stack or in the buffer,
            # and its headless dependents on the stack.
            other_head = heads[front] != top and (heads[front] in can_head_front or heads[front] in rest)
            kind_cost[RIGHT] = other_head + sum(heads[k] == front and headless(k) for k in stack)
            if top == ROOT:  # the one root word is chosen: a gold root still in the buffer loses its arc
                kind_cost[RIGHT] += any(heads[k] == ROOT for k in rest)
            gold_arc[RIGHT] = (front, heads[front] == top)
            # LEFT: s0 takes b0 as head; it loses any other head in the buffer and its dependents there.
            lost_dependents = sum(heads[k] == top for k in rest) + (heads[front] == top and top in can_head_front)
            kind_cost[LEFT] = (heads[top] in rest) + lost_dependents
            gold_arc[LEFT] = (top, heads[top] == front)
            # REDUCE: s0 (with its head) loses its dependents in the buffer.
            kind_cost[REDUCE] = lost_dependents
        else:
            kind_cost[REDUCE] = 0
        costs = {}
        for action in legal:
            kind, label = self.actions[action].kind, self.actions[action].label
            arc = gold_arc.get(kind)
            costs[action] = kind_cost[kind] + (arc is not None and arc[1] and label != gold.labels[arc[0]])
        return costs

    def _possible_heads_of_front(self, config: Configuration) -> set[int]:
        """The stack words that can still become b0's head.

        The root only while it has no dependent.  When b0 is the last word it takes its
        head only after every word on the stack has one, and a headless word can then
        be headed only by b0 itself: a stack word below a headless one is out of reach.
        """
        stack, heads = config.stack, config.heads
        possible = set(stack[1:])
        if config.attached[ROOT] == 0:
            possible.add(ROOT)
        if len(config.buffer) == 1:
            possible = set()
            for word in stack:
                if word != ROOT and heads[word] is None:
                    break
                if word != ROOT or config.attached[ROOT] == 0:
                    possible.add(word)
        return possible

    def zero_cost(self, config: Configuration, gold: GoldTree, legal: list[int] | None = None) -> list[int]:
        """The dynamic oracle: legal actions that lose no reachable gold arc."""
        return [action for action, cost in self.costs(config, gold, legal).items() if cost == 0]
