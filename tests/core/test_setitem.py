"""Tensor.__setitem__: values against numpy for each index kind, casts, graph rules, errors."""
import numpy as np
import pytest

import core
from core import nn

BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _both(index, value):
    """(core's result, numpy's result) of ``x[index] = value`` on copies of BASE."""
    t, a = core.to_tensor(BASE), BASE.copy()
    t[index] = value
    a[index] = value.numpy() if isinstance(value, core.Tensor) else value
    return t.numpy(), a


@pytest.mark.parametrize("index", [
    (0, 1, 2), 1, -1, (slice(None), 1), (Ellipsis, 2), (0, slice(1, None), slice(None, None, 2)),
    (slice(None, None, -1), 0), (None, 0), np.array([1, 0]), (0, np.array([2, 0]), 1),
    (np.array([0, 1]), np.array([2, 1])), BASE > 10, (0, np.array([True, False, True])),
    [1],
])
def test_values_match_numpy_for_each_index_kind(index):
    got, expected = _both(index, -7.0)
    np.testing.assert_array_equal(got, expected)


def test_tensor_indices_work_as_their_arrays():
    t = core.to_tensor(BASE)
    t[core.to_tensor([1, 0]), core.to_tensor(2)] = 5.0
    t[t > 20] = 0.0  # a boolean mask Tensor
    a = BASE.copy()
    a[np.array([1, 0]), 2] = 5.0
    a[a > 20] = 0.0
    np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("value", [
    np.array([1.0, 2.0, 3.0, 4.0]),                   # broadcast over the rows
    np.array([[1.0], [2.0], [3.0]]),                  # broadcast over the columns
    [9.0, 8.0, 7.0, 6.0],                             # a list
    core.to_tensor(np.full((3, 4), 0.5, np.float32)),  # a Tensor of the slice's shape
    core.to_tensor(np.array([1.0, 2.0, 3.0, 4.0])),   # a float64 Tensor, broadcast
])
def test_broadcast_and_tensor_values(value):
    got, expected = _both(0, value)
    np.testing.assert_array_equal(got, expected)


def test_the_value_is_cast_to_the_tensors_dtype():
    t = core.to_tensor(np.zeros(4, np.int64))
    t[1] = 2.7  # truncated, as numpy and Paddle's int kernels do
    t[2:] = core.to_tensor(np.array([3.9, -1.5]))
    assert t.dtype == np.int64
    np.testing.assert_array_equal(t.numpy(), [0, 2, 3, -1])
    f = core.zeros([2], dtype="float32")
    f[0] = np.float64(1.0) / 3
    assert f.dtype == np.float32 and f.numpy()[0] == np.float32(1.0 / 3)


def test_assignment_writes_in_place_and_clears_the_value_range():
    labels = core.to_tensor(np.array([0, 1, 2]))
    assert labels._value_range == (0, 2)
    data = labels.data
    labels[0] = 50
    assert labels.data is data and labels._value_range is None
    # cross_entropy reads the cleared range and so finds the new, bad label
    with pytest.raises(ValueError, match="label value 50"):
        nn.functional.cross_entropy(core.zeros([3, 3]), labels)


def test_a_read_only_tensor_is_copied_before_the_write():
    x = core.ones([1, 3])
    e = core.expand(x, [2, 3])  # a broadcast view: one array stands for every row
    e[0] = 7.0
    np.testing.assert_array_equal(e.numpy(), [[7, 7, 7], [1, 1, 1]])
    np.testing.assert_array_equal(x.numpy(), [[1, 1, 1]])


def test_a_writeable_broadcast_view_is_copied_too():
    """cupy's broadcast views are writeable: a write would reach every row sharing memory."""
    row = np.ones(3, np.float32)
    shared = np.lib.stride_tricks.as_strided(row, (2, 3), (0, 4), writeable=True)
    t = core.Tensor(shared)
    t[0] = 7.0
    np.testing.assert_array_equal(t.numpy(), [[7, 7, 7], [1, 1, 1]])
    np.testing.assert_array_equal(row, [1, 1, 1])


def test_parameters_can_be_edited_under_no_grad():
    layer = nn.Linear(3, 2)
    weight = layer.weight.data
    with core.no_grad():
        layer.weight[0] = 0.0
        layer.bias[:] = core.to_tensor(np.array([1.0, 2.0], np.float32))
    assert layer.weight.data is weight  # the parameter's own array: optimizers keep working
    np.testing.assert_array_equal(layer.weight.numpy()[0], [0.0, 0.0])
    np.testing.assert_array_equal(layer.bias.numpy(), [1.0, 2.0])
    out = layer(core.ones([1, 3])).sum()  # the edited parameter still trains
    out.backward()
    assert layer.weight.grad is not None


def test_a_value_that_needs_a_gradient_is_copied_under_no_grad():
    w = core.to_tensor([1.0, 2.0], stop_gradient=False)
    t = core.zeros([2, 2])
    with core.no_grad():
        t[1] = w
    np.testing.assert_array_equal(t.numpy(), [[0, 0], [1, 2]])
    assert t.stop_gradient


def test_tensors_in_the_graph_refuse_assignment():
    leaf = core.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="needs a gradient.*core.where"):
        leaf[0] = 0.0
    interior = leaf * 2
    with pytest.raises(RuntimeError, match="needs a gradient"):
        interior[0] = 0.0
    buffer = core.zeros([2])
    with pytest.raises(RuntimeError, match="assigned value needs a gradient.*detach"):
        buffer[0] = leaf[1]
    buffer[0] = leaf[1].detach()
    assert buffer.numpy().tolist() == [2.0, 0.0] and buffer.stop_gradient
    np.testing.assert_array_equal(leaf.numpy(), [1.0, 2.0])  # nothing was written


def test_errors_name_the_index_and_the_value():
    t = core.zeros([2, 3])
    with pytest.raises(IndexError, match=r"Tensor.__setitem__: .* index 5 .* shape \[2, 3\]"):
        t[5] = 1.0
    with pytest.raises(ValueError, match=r"value of shape \[4\] at index 0"):
        t[0] = np.ones(4)
    with pytest.raises(TypeError, match="value 'abc' cannot be made an array"):
        t[0] = "abc"
    np.testing.assert_array_equal(t.numpy(), np.zeros((2, 3)))


def test_none_is_not_a_value():
    x = core.zeros([3])
    with pytest.raises(TypeError, match="the value is None"):
        x[0] = None
    assert x.numpy().tolist() == [0.0, 0.0, 0.0]
