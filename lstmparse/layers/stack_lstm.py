"""The stack LSTM (Dyer et al. 2015, section 2).

An LSTM whose inputs form a stack: a push feeds the new element to the LSTM state
at the top, a pop moves the top pointer back to the previous state.  Nothing is
deleted, so every pointer stays valid and popped states can be built on again;
DyNet's recurrent states are already persistent (``add_input`` returns a new state
and leaves the old one intact), so a pointer is just a state with a link to the
pointer below.  The summary of a stack is the LSTM output at the top pointer.  An
empty stack is summarized by the output after a learned guard vector, which is
pushed first and never popped.
"""

from __future__ import annotations

import dynet as dy

from lstmparse.core.model_io import builder_parameters


class StackPointer:
    """An immutable position in a stack LSTM's history."""

    __slots__ = ("state", "below", "depth", "input")

    def __init__(
        self, state: dy.RNNState, below: StackPointer | None, depth: int, input: dy.Expression | None = None
    ) -> None:
        self.state = state
        self.below = below
        self.depth = depth
        self.input = input  # the element vector this push fed the LSTM (None for the empty stack)

    def push(self, x: dy.Expression) -> StackPointer:
        """A new pointer whose LSTM state extends this one with ``x``."""
        return StackPointer(self.state.add_input(x), self, self.depth + 1, x)

    def pop(self) -> StackPointer:
        """The pointer below; popping the empty stack is an error."""
        if self.below is None:
            raise IndexError("pop from an empty stack LSTM")
        return self.below

    def summary(self) -> dy.Expression:
        return self.state.output()

    def __len__(self) -> int:
        return self.depth


class StackLSTM:
    """A stack LSTM made of DyNet's ``CoupledLSTMBuilder`` (peepholes, coupled gates)."""

    def __init__(self, model: dy.ParameterCollection, layers: int, input_dim: int, hidden_dim: int) -> None:
        self.layers, self.hidden_dim = layers, hidden_dim
        self.builder = dy.CoupledLSTMBuilder(layers, input_dim, hidden_dim, model)
        self.guard = model.add_parameters(input_dim)

    def named_parameters(self, prefix: str) -> dict:
        """The LSTM's parameters and the empty-stack guard, by name (model format 2)."""
        return builder_parameters(f"{prefix}/lstm", self.builder) | {f"{prefix}/guard": self.guard}

    def empty(self) -> StackPointer:
        """The empty stack for a new computation graph: only the guard is pushed."""
        state = self.builder.initial_state().add_input(self.guard)
        return StackPointer(state, None, 0)
