"""Training oracles as objects: which actions are correct in a configuration, and which to follow.

A transition system names the oracles it offers (``TransitionSystem.oracles``) and
:func:`make_oracle` builds one; training asks it, at every configuration where the
parser has a choice:

- :meth:`Oracle.correct`: the actions whose probability the loss raises (the loss of
  the configuration is ``-log`` of their total probability, counted only when some
  legal action is not correct);
- :meth:`Oracle.explores`: whether this step follows the model rather than the
  oracle (drawn from the sentence's own random stream);
- :meth:`Oracle.needs_scores`: whether :meth:`Oracle.follow` reads the model's
  probabilities, so that training only computes them during the parse when asked;
- :meth:`Oracle.follow`: the action the parse takes.

The loop (one sentence per graph in :class:`~lstmparse.stacklstm.model.StackLSTMParser`,
lock-step in :mod:`~lstmparse.stacklstm.batch_loss`) never names an oracle, so a new
one is one class here and its name in the systems that have it.  Free of DyNet: the
command line lists the oracles before DyNet is configured.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np

from lstmparse.stacklstm.systems.base import Configuration, GoldTree, TransitionSystem


class OracleExample(Protocol):
    """What an oracle reads of a training sentence (a :class:`~lstmparse.stacklstm.examples.Example`)."""

    gold: GoldTree  # the gold tree
    actions: list[int]  # the static oracle's action sequence for it


@dataclass(frozen=True)
class Exploration:
    """How often and how boldly a parse follows its own predictions (Ballesteros et al. 2016).

    ``p``: the probability that a step follows an action sampled from the model's
    distribution raised to the power ``alpha``, renormalized (0: never).
    """

    p: float = 0.0
    alpha: float = 1.0


NO_EXPLORATION = Exploration()


class Oracle(ABC):
    """What a training parse counts as correct and which action it takes."""

    name: ClassVar[str]
    description: ClassVar[str]  # one line for ``lstmparse train --help``

    def __init__(self, system: TransitionSystem, exploration: Exploration = NO_EXPLORATION) -> None:
        self.system, self.exploration = system, exploration

    @abstractmethod
    def correct(self, config: Configuration, example: OracleExample, step: int, legal: Sequence[int]) -> list[int]:
        """The correct actions among ``legal`` at the parse's ``step``-th action (0-based)."""

    def explores(self, correct: Sequence[int], rng: random.Random) -> bool:
        """Whether this step follows a sampled action instead of the oracle (never, by default)."""
        return False

    def needs_scores(self, correct: Sequence[int], exploring: bool) -> bool:
        """Whether :meth:`follow` reads the model's log-probabilities at this step."""
        return exploring or len(correct) > 1

    def follow(
        self,
        correct: Sequence[int],
        legal: Sequence[int],
        log_probs: np.ndarray | None,
        exploring: bool,
        rng: random.Random,
    ) -> int:
        """The action the parse takes: sampled when exploring, else the correct action the model likes best."""
        if len(correct) == 1 and not exploring:
            return correct[0]
        assert log_probs is not None, "needs_scores() asked for the model's scores here"
        if exploring:
            return sample(legal, log_probs, self.exploration.alpha, rng)
        return max(correct, key=log_probs.__getitem__)


class StaticOracle(Oracle):
    """The gold tree's one canonical action sequence (Dyer et al. 2015): one correct action, always followed."""

    name = "static"
    description = "the gold tree's canonical action sequence"

    def correct(self, config: Configuration, example: OracleExample, step: int, legal: Sequence[int]) -> list[int]:
        return [example.actions[step]]


class DynamicOracle(Oracle):
    """The system's dynamic oracle with exploration (Goldberg & Nivre 2013; Ballesteros et al. 2016, eq. 3).

    Correct are the zero-cost actions: those after which the best tree still
    reachable loses no gold arc.  With probability ``exploration.p`` the parse
    follows a sampled action instead, and learns from the configurations its own
    mistakes lead to.
    """

    name = "dynamic"
    description = "zero-cost actions of the system's dynamic oracle, with training by exploration"

    def correct(self, config: Configuration, example: OracleExample, step: int, legal: Sequence[int]) -> list[int]:
        return self.system.zero_cost(config, example.gold, list(legal)) or list(legal)

    def explores(self, correct: Sequence[int], rng: random.Random) -> bool:
        return self.exploration.p > 0 and rng.random() < self.exploration.p


ORACLES: dict[str, type[Oracle]] = {oracle.name: oracle for oracle in (StaticOracle, DynamicOracle)}


def make_oracle(system: TransitionSystem, name: str, exploration: Exploration = NO_EXPLORATION) -> Oracle:
    """The named oracle for ``system`` (a ValueError when the system does not offer it)."""
    if not system.has_oracle(name) or name not in ORACLES:
        raise ValueError(f"{system.name} has no {name} oracle; it has {', '.join(system.oracles)}")
    return ORACLES[name](system, exploration)


def sample(actions: Sequence[int], log_probs: np.ndarray, alpha: float, rng: random.Random) -> int:
    """An action drawn from the distribution p(a)^alpha, renormalized over ``actions``, with ``rng``."""
    chosen = log_probs[list(actions)]
    weights = np.exp(alpha * (chosen - chosen.max()))
    return rng.choices(actions, weights=weights.tolist())[0]
