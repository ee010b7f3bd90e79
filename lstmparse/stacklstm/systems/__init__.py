"""Transition systems by name; each lives in a module of its own."""

from __future__ import annotations

from collections.abc import Iterable

from lstmparse.stacklstm.systems.arc_eager import ArcEager
from lstmparse.stacklstm.systems.arc_hybrid import ArcHybrid
from lstmparse.stacklstm.systems.arc_standard import ArcStandard
from lstmparse.stacklstm.systems.arc_swap import ArcSwap
from lstmparse.stacklstm.systems.base import Action, Configuration, GoldTree, TransitionSystem

SYSTEMS: dict[str, type[TransitionSystem]] = {cls.name: cls for cls in (ArcStandard, ArcSwap, ArcHybrid, ArcEager)}


def make_system(name: str, labels: Iterable[str], root_label: str = "root") -> TransitionSystem:
    """Build the named system over a label set."""
    try:
        return SYSTEMS[name](labels, root_label)
    except KeyError:
        raise ValueError(f"unknown transition system {name!r}; known: {', '.join(SYSTEMS)}") from None


__all__ = ["SYSTEMS", "Action", "Configuration", "GoldTree", "TransitionSystem", "make_system"]
