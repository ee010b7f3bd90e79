"""Stack LSTM: persistent pointers, summaries and gradients."""

from __future__ import annotations

import dynet as dy
import numpy as np

from lstmparse.layers.stack_lstm import StackLSTM


def make_stack():
    model = dy.ParameterCollection()
    return model, StackLSTM(model, layers=2, input_dim=3, hidden_dim=4)


def test_pop_then_push_equals_a_stack_built_from_scratch():
    model, stack = make_stack()
    dy.renew_cg()
    a, b, c = (dy.inputVector(v) for v in ([1, 0, 0], [0, 2, 0], [0, 0, 3]))
    pointer = stack.empty().push(a).push(b).pop().push(c)
    scratch = stack.empty().push(a).push(c)
    assert len(pointer) == 2
    np.testing.assert_allclose(pointer.summary().npvalue(), scratch.summary().npvalue(), rtol=1e-6)
    assert not np.allclose(pointer.summary().npvalue(), stack.empty().push(a).push(b).summary().npvalue())


def test_empty_stack_summary_is_the_guard_and_differs_from_a_pushed_one():
    model, stack = make_stack()
    dy.renew_cg()
    empty = stack.empty()
    assert len(empty) == 0
    assert not np.allclose(empty.summary().npvalue(), empty.push(dy.inputVector([1, 1, 1])).summary().npvalue())
    try:
        empty.pop()
    except IndexError:
        pass
    else:
        raise AssertionError("popping the empty stack must fail")


def test_gradients_reach_the_shared_history_and_the_guard():
    model, stack = make_stack()
    dy.renew_cg()
    a = model.add_parameters(3)
    b, c = dy.inputVector([0, 1, 0]), dy.inputVector([1, 0, 1])
    pointer = stack.empty().push(a).push(b).pop().push(c)
    loss = dy.squared_norm(pointer.summary())
    loss.backward()
    assert np.abs(a.grad_as_array()).sum() > 0  # a is below the popped b and still in c's history
    assert np.abs(stack.guard.grad_as_array()).sum() > 0
