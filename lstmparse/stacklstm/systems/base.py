"""The interface shared by all transition systems.

A system is a set of labelled actions plus four functions of a configuration:
which actions are legal, how an action changes it, when it is final, and which
action a static oracle takes.  Actions change a configuration only through the
primitive operations of :class:`Configuration` (push/pop on stack and buffer, add
an arc).  The neural parser subclasses :class:`Configuration` and mirrors exactly
those primitives on its stack LSTMs, so a new system needs no model code at all
(section 3.3 of Dyer et al. 2015: the parameterization is orthogonal to the system).

When an arc is added, the head's representation changes (the neural parser
composes head and dependent into a new vector).  :meth:`Configuration.add_arc`
then *reseats* the head: if the stack or the buffer holds it, the elements down
to it are popped and pushed back, so that every stack LSTM sees the head's new
vector, as the composed fragment replaces the head in Dyer et al. (2015, section
3.4) and Ballesteros et al. (2017, Figure 5).  Systems that pop the head before
attaching and push it after (arc-standard) lose nothing to this; systems that
leave the head in place (arc-hybrid RIGHT, arc-eager) get it right without
knowing about it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Self, TypeVar

ROOT = 0

NOWHERE, ON_STACK, ON_BUFFER = 0, 1, 2  # where an element is (Configuration.place)

SHIFT = "SHIFT"
LEFT = "LEFT"
RIGHT = "RIGHT"
SWAP = "SWAP"


@dataclass(frozen=True)
class Action:
    """A transition; ``label`` is the arc label for LEFT/RIGHT, None otherwise."""

    kind: str
    label: str | None = None

    def __str__(self) -> str:
        return self.kind if self.label is None else f"{self.kind}({self.label})"


class GoldTree:
    """A gold tree indexed like a configuration (position 0 is the root)."""

    def __init__(self, heads: Sequence[int], labels: Sequence[str]) -> None:
        self.heads = [ROOT, *heads]
        self.labels = [None, *labels]
        self.dependents: list[list[int]] = [[] for _ in range(len(heads) + 1)]
        for dependent, head in enumerate(heads, start=1):
            self.dependents[head].append(dependent)
        self.n_dependents = [len(words) for words in self.dependents]

    def is_complete(self, config: Configuration, word: int) -> bool:
        """True when ``word`` has collected all its gold dependents."""
        return config.attached[word] == self.n_dependents[word]


C = TypeVar("C", bound="Configuration")


class Configuration:
    """Stack, buffer and arcs of a parse over words 1..n, with 0 the artificial root.

    The buffer is stored reversed (its front is the last element) so that taking
    the next word is an O(1) pop.  Subclasses hook the primitive operations.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.stack: list[int] = []
        self.buffer: list[int] = []
        self.heads: list[int | None] = [None] * (n + 1)
        self.labels: list[str | None] = [None] * (n + 1)
        self.attached: list[int] = [0] * (n + 1)  # dependents found so far, per head
        self.place: list[int] = [NOWHERE] * (n + 1)  # ON_STACK, ON_BUFFER or NOWHERE, per element

    def copy(self) -> Self:
        """An independent configuration in the same state (for beam search)."""
        clone = copy.copy(self)
        clone.stack, clone.buffer, clone.place = self.stack[:], self.buffer[:], self.place[:]
        clone.heads, clone.labels, clone.attached = self.heads[:], self.labels[:], self.attached[:]
        return clone

    def start(self) -> None:
        """The initial configuration: the root on the stack, all words in the buffer."""
        for word in range(self.n, 0, -1):
            self.push_buffer(word)
        self.push_stack(ROOT)

    def push_stack(self, item: int) -> None:
        self.stack.append(item)
        self.place[item] = ON_STACK

    def pop_stack(self) -> int:
        item = self.stack.pop()
        self.place[item] = NOWHERE
        return item

    def push_buffer(self, item: int) -> None:
        self.buffer.append(item)
        self.place[item] = ON_BUFFER

    def pop_buffer(self) -> int:
        item = self.buffer.pop()
        self.place[item] = NOWHERE
        return item

    def add_arc(self, head: int, dependent: int, label: str | None, action: int) -> None:
        """Attach ``dependent`` to ``head``; ``action`` is the reducing action's id.

        The head's representation is updated (:meth:`represent_arc`) and the head
        reseated wherever it is held, so no system can leave a stale vector behind.
        """
        self.heads[dependent] = head
        self.labels[dependent] = label
        self.attached[head] += 1
        self.represent_arc(head, dependent, action)
        self.reseat(head)

    def represent_arc(self, head: int, dependent: int, action: int) -> None:
        """Hook: the head's representation now takes in the dependent (nothing to do without a model)."""

    def reseat(self, item: int) -> None:
        """Pop the stack or buffer down to ``item`` and push the same elements back, in order.

        The lists end as they were; the primitives' overrides (the stack LSTMs) push
        each element's current representation, so ``item``'s new one is seen, and so
        is everything above it, whose LSTM states depend on it.
        """
        where = self.place[item]
        if where == NOWHERE:
            return
        items, pop, push = (
            (self.stack, self.pop_stack, self.push_stack)
            if where == ON_STACK
            else (self.buffer, self.pop_buffer, self.push_buffer)
        )
        depth = 0
        while items[-1 - depth] != item:
            depth += 1
        lifted = [pop() for _ in range(depth + 1)]
        for element in reversed(lifted):
            push(element)

    def tree(self) -> tuple[list[int], list[str]]:
        """The parse as (heads, deprels) for words 1..n."""
        return [h if h is not None else ROOT for h in self.heads[1:]], [lab or "dep" for lab in self.labels[1:]]


class TransitionSystem:
    """Labelled actions and the rules of one transition system."""

    name = "base"
    kinds: tuple[str, ...] = ()
    builds_non_projective = False
    oracles: ClassVar[tuple[str, ...]] = ("static",)  # the oracles training can follow (oracles.ORACLES)
    # True when some arc leaves its head on the stack or buffer, where it is reseated
    # (models saved before that was done, revision 1, computed something else).
    heads_stay_in_place = False
    swap: int | None = None  # the SWAP action's id, in systems that have one

    def __init__(self, labels: Iterable[str], root_label: str = "root") -> None:
        self.root_label = root_label
        self.labels = sorted(set(labels) | {root_label})
        self.actions: list[Action] = []
        for kind in self.kinds:
            if kind in (LEFT, RIGHT):
                self.actions.extend(Action(kind, label) for label in self.labels)
            else:
                self.actions.append(Action(kind))
        self.index = {action: i for i, action in enumerate(self.actions)}
        self.groups = self._action_groups()
        self.shift = self.groups["shift"][0]
        if SWAP in self.kinds:
            self.swap = self.groups["swap"][0]
        self._legal_sets = lru_cache(maxsize=None)(self._build_legal_set)

    def _action_groups(self) -> dict[str, list[int]]:
        """Action ids by the name :meth:`legal_set` allows them under.

        ``left`` and ``right`` are the arcs with ordinary labels, ``root`` the one
        RIGHT arc that carries the root label (the root takes no left dependent, so a
        LEFT with the root label is never legal); any other kind is its lower-case name.
        """
        groups: dict[str, list[int]] = {"shift": [], "left": [], "right": [], "root": []}
        for kind in self.kinds:
            groups.setdefault(kind.lower(), [])
        for i, action in enumerate(self.actions):
            if action.kind == LEFT:
                if action.label != self.root_label:
                    groups["left"].append(i)
            elif action.kind == RIGHT:
                groups["root" if action.label == self.root_label else "right"].append(i)
            else:
                groups[action.kind.lower()].append(i)
        return groups

    def legal_set(self, **allowed: bool) -> list[int]:
        """The ids of the allowed groups (:meth:`_action_groups`), e.g. ``legal_set(shift=True, reduce=False)``.

        Cached: configurations ask for the same few combinations over and over.
        """
        return self._legal_sets(**allowed)

    def _build_legal_set(self, **allowed: bool) -> list[int]:
        return [i for name, ids in self.groups.items() if allowed.get(name) for i in ids]

    @classmethod
    def has_oracle(cls, name: str) -> bool:
        return name in cls.oracles

    def initial(self, n: int) -> Configuration:
        """The configuration a parse of ``n`` words starts from."""
        return self.initial_as(Configuration, n)

    def initial_as(self, configuration_class: type[C], n: int, **kwargs) -> C:
        """The start of a parse in a configuration class that carries more (a network's vectors)."""
        config = configuration_class(n, **kwargs)
        config.start()
        return config

    def is_final(self, config: Configuration) -> bool:
        return not config.buffer and config.stack == [ROOT]

    def legal(self, config: Configuration) -> list[int]:
        raise NotImplementedError

    def apply(self, config: Configuration, action: int) -> None:
        raise NotImplementedError

    def gold_tree(self, heads: Sequence[int], labels: Sequence[str]) -> GoldTree:
        """The gold tree with whatever the system's oracles precompute on it."""
        return GoldTree(heads, labels)

    def static_oracle(self, config: Configuration, gold: GoldTree) -> int | None:
        """The oracle's action, or None when the gold tree cannot be reached."""
        raise NotImplementedError

    def zero_cost(self, config: Configuration, gold: GoldTree, legal: list[int] | None = None) -> list[int]:
        """The dynamic oracle (systems whose ``oracles`` include it): actions that lose no gold arc."""
        raise NotImplementedError

    def attach(self, config: Configuration, head: int, dependent: int, action: int) -> None:
        config.add_arc(head, dependent, self.actions[action].label, action)

    def action_id(self, kind: str, label: str | None = None) -> int | None:
        """The id of an action, None for a label the system was not built with."""
        return self.index.get(Action(kind, label))

    def oracle_sequence(self, heads: Sequence[int], labels: Sequence[str]) -> list[int] | None:
        """The static oracle's actions for a gold tree, or None if the system cannot build it."""
        gold = self.gold_tree(heads, labels)
        config = self.initial(len(heads))
        sequence: list[int] = []
        limit = 4 * len(heads) * len(heads) + 10
        while not self.is_final(config):
            action = self.static_oracle(config, gold)
            if action is None or action not in self.legal(config) or len(sequence) > limit:
                return None
            sequence.append(action)
            self.apply(config, action)
        built_heads, built_labels = config.tree()
        if built_heads != list(heads) or built_labels != list(labels):
            return None
        return sequence
