"""Sorting, searching and selection: values against numpy and torch, ties, gradients, shapes."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(11)


def distinct(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def t(values, grad=False):
    return core.to_tensor(np.asarray(values), stop_gradient=not grad)


def test_sort_argsort_and_topk_values_with_ties_in_position_order():
    x = t([[3.0, 1.0, 3.0, 2.0]])
    np.testing.assert_array_equal(core.sort(x).numpy(), [[1, 2, 3, 3]])
    np.testing.assert_array_equal(core.argsort(x).numpy(), [[1, 3, 0, 2]])
    np.testing.assert_array_equal(core.argsort(x, descending=True).numpy(), [[0, 2, 3, 1]])
    values, indices = core.topk(x, 2)
    np.testing.assert_array_equal(values.numpy(), [[3, 3]])
    np.testing.assert_array_equal(indices.numpy(), [[0, 2]])  # the earlier 3 first
    values, indices = core.topk(x, 2, axis=1, largest=False)
    np.testing.assert_array_equal(indices.numpy(), [[1, 3]])
    assert indices.dtype == np.int64 and x.topk(1)[0].shape == [1, 1]
    with pytest.raises(ValueError, match="k=5"):
        core.topk(x, 5)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_and_topk_gradients(axis):
    a = distinct(3, 4)
    check_grad(lambda x: core.sort(x, axis=axis), a)
    check_grad(lambda x: core.sort(x, axis=axis, descending=True), a)
    check_grad(lambda x: core.topk(x, 2, axis=axis)[0], a)
    check_grad(lambda x: core.topk(x, 2, axis=axis, largest=False)[0], a)


def test_against_torch():
    torch = pytest.importorskip("torch")
    a = distinct(4, 5)
    ours, theirs = core.topk(t(a), 3, axis=0), torch.topk(torch.tensor(a), 3, dim=0)
    np.testing.assert_array_equal(ours[0].numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(ours[1].numpy(), theirs.indices.numpy())
    np.testing.assert_array_equal(core.sort(t(a), 1, descending=True).numpy(),
                                  torch.sort(torch.tensor(a), 1, descending=True).values)
    idx = np.array([3, 0, 3])
    np.testing.assert_array_equal(core.index_select(t(a), t(idx), axis=0).numpy(),
                                  torch.index_select(torch.tensor(a), 0, torch.tensor(idx)))
    mask = a > 0
    np.testing.assert_array_equal(core.masked_select(t(a), t(mask)).numpy(),
                                  torch.masked_select(torch.tensor(a), torch.tensor(mask)))
    np.testing.assert_array_equal(core.nonzero(t(mask)).numpy(), torch.nonzero(torch.tensor(mask)))
    values, inverse, counts = torch.unique(torch.tensor([3, 1, 3, 2]), return_inverse=True,
                                           return_counts=True)
    got = core.unique(t([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    for ours_, theirs_ in zip(got, (values, inverse, counts)):
        np.testing.assert_array_equal(ours_.numpy(), theirs_.numpy())


def test_index_select_and_masked_select_gradients():
    a = rng.normal(size=(4, 3))
    idx = np.array([2, 0, 2])  # a repeated index adds up
    check_grad(lambda x: core.index_select(x, core.to_tensor(idx), axis=0), a)
    check_grad(lambda x: core.index_select(x, core.to_tensor(idx[:2]), axis=1), a)
    mask = np.array([True, False, True])  # broadcast over rows
    check_grad(lambda x: core.masked_select(x, core.to_tensor(mask)), a)
    with pytest.raises(ValueError, match="0..3"):
        core.index_select(t(a), t([4]))
    with pytest.raises(TypeError, match="bool"):
        core.masked_select(t(a), t([1, 0, 1]))


def test_nonzero_unique_and_where_with_only_a_condition():
    cond = t([[True, False], [False, True], [True, True]])
    np.testing.assert_array_equal(core.nonzero(cond).numpy(), [[0, 0], [1, 1], [2, 0], [2, 1]])
    rows, cols = core.where(cond)  # paddlepaddle 3.3.1: one [N] int64 tensor per dimension
    assert rows.shape == [4] and rows.dtype == np.int64
    np.testing.assert_array_equal(cols.numpy(), [0, 1, 0, 1])
    assert len(core.nonzero(t([0, 2, 0, 3]), as_tuple=True)) == 1
    values, index, counts = core.unique(t([[2, 1], [2, 5]]), return_index=True,
                                        return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [1, 2, 5])
    np.testing.assert_array_equal(index.numpy(), [1, 0, 3])
    np.testing.assert_array_equal(counts.numpy(), [1, 2, 1])
    rows_unique = core.unique(t([[1, 2], [0, 0], [1, 2]]), axis=0)
    np.testing.assert_array_equal(rows_unique.numpy(), [[0, 0], [1, 2]])
    with pytest.raises(TypeError, match="both"):
        core.where(cond, t([1.0]))
