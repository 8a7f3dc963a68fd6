"""core/indexing.py: take_along_axis, put_along_axis, scatter, gather_nd, scatter_nd_add,
repeat_interleave, slice and strided_slice: values against numpy and torch, Paddle's documented
examples, gradients against float64 finite differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(71)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)



# ----- indexing along an axis, scatters and gathers -------------------------------------------

def test_take_along_axis_values_gradients_and_broadcast():
    a = rng.normal(size=(3, 4))
    idx = np.array([[0, 2, 1, 0], [2, 2, 0, 1]])
    np.testing.assert_allclose(core.take_along_axis(t(a), t(idx), 0).numpy(),
                               np.take_along_axis(a, idx, 0))
    check_grad(lambda x: core.take_along_axis(x, t(idx), 0), a)  # repeats add up
    # Paddle broadcasts indices to arr's shape except along axis: [1, 2] -> [3, 2]
    row = np.array([[3, 0]])
    np.testing.assert_allclose(t(a).take_along_axis(t(row), 1).numpy(), a[:, [3, 0]])
    check_grad(lambda x: core.take_along_axis(x, t(row), 1), a)
    # Without broadcast, smaller indices pick the leading part (torch.gather)
    small = np.array([[1], [0]])
    np.testing.assert_allclose(core.take_along_axis(t(a), t(small), 1, broadcast=False).numpy(),
                               [[a[0, 1]], [a[1, 0]]])
    np.testing.assert_allclose(core.take_along_axis(t(a), t([[-1]]), 1).numpy(), a[:, [-1]])
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(core.take_along_axis(t(a), t(idx), 0).numpy(),
                               torch.take_along_dim(torch.tensor(a), torch.tensor(idx),
                                                    0).numpy())
    with pytest.raises(IndexError, match="take_along_axis: 'indices' values must lie in -4..3"):
        core.take_along_axis(t(a), t([[4]]), 1)
    with pytest.raises(ValueError, match="take_along_axis: indices must have as many"):
        core.take_along_axis(t(a), t([1]), 1)
    with pytest.raises(TypeError, match="take_along_axis: 'indices' must be an integer"):
        core.take_along_axis(t(a), t([[1.0]]), 1)


def test_put_along_axis_follows_paddles_examples():
    x = t([[10, 30, 20], [60, 40, 50]])
    np.testing.assert_array_equal(core.put_along_axis(x, t([[0]]), 99, 0).numpy(),
                                  [[99, 99, 99], [60, 40, 50]])
    index = core.zeros((2, 2)).astype("int32")
    value = t([[1, 2], [3, 4]]).astype(x.dtype)
    np.testing.assert_array_equal(core.put_along_axis(x, index, value, 0, "add", True,
                                                      False).numpy(),
                                  [[14, 36, 20], [60, 40, 50]])
    np.testing.assert_array_equal(core.put_along_axis(x, index, value, 0, "mul", False,
                                                      False).numpy(),
                                  [[3, 8, 20], [60, 40, 50]])
    np.testing.assert_array_equal(x.numpy(), [[10, 30, 20], [60, 40, 50]])  # not in place


@pytest.mark.parametrize("reduce", ["assign", "add", "multiply", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_put_along_axis_reductions_against_a_loop(reduce, include_self):
    a = rng.normal(size=(3, 4))
    idx = np.array([[0, 2, 1, 0], [2, 2, 0, 0], [2, 1, 0, 0]])
    v = rng.normal(size=(3, 4))
    want = a.copy()
    hits = {}
    for i in range(3):
        for j in range(4):
            hits.setdefault((idx[i, j], j), []).append(v[i, j])
    for pos, vals in hits.items():
        pool = ([a[pos]] if include_self else []) + vals
        want[pos] = {"assign": vals[-1], "add": sum(pool), "multiply": np.prod(pool),
                     "mean": np.mean(pool), "amax": max(pool), "amin": min(pool)}[reduce]
    got = core.put_along_axis(t(a), t(idx), t(v), 0, reduce, include_self)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    check_grad(lambda x, u: core.put_along_axis(x, t(idx), u, 0, reduce, include_self), a, v)


def test_put_along_axis_gradient_with_zero_values_and_errors():
    a = rng.normal(size=(2, 3))
    v = np.array([[0.0, 2.0, 0.0], [0.0, 1.5, 3.0]])
    idx = np.array([[1, 0, 1], [1, 0, 1]])
    check_grad(lambda x, u: core.put_along_axis(x, t(idx), u, 0, "mul"), a, v)
    torch = pytest.importorskip("torch")
    want = torch.tensor(a).scatter_reduce(0, torch.tensor(idx), torch.tensor(v), "prod")
    np.testing.assert_allclose(t(a).put_along_axis(t(idx), t(v), 0, "mul").numpy(),
                               want.numpy())
    with pytest.raises(ValueError, match="put_along_axis: reduce must be one of"):
        core.put_along_axis(t(a), t(idx), t(v), 0, "sum")
    with pytest.raises(IndexError, match="put_along_axis: 'indices' values"):
        core.put_along_axis(t(a), t([[2]]), 1.0, 0)
    with pytest.raises(TypeError, match="put_along_axis: values must be"):
        core.put_along_axis(t(a), t(idx), "x", 0)


def test_scatter_follows_paddles_example_and_gradients():
    x = np.array([[1, 1], [2, 2], [3, 3]], dtype="float64")
    index = np.array([2, 1, 0, 1])
    updates = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], dtype="float64")
    np.testing.assert_array_equal(core.scatter(t(x), t(index), t(updates),
                                               overwrite=False).numpy(),
                                  [[3, 3], [6, 6], [1, 1]])
    np.testing.assert_array_equal(core.scatter(t(x), t(index), t(updates)).numpy(),
                                  [[3, 3], [4, 4], [1, 1]])  # the last write wins
    for overwrite in (True, False):
        check_grad(lambda p, u, o=overwrite: core.scatter(p, t(index), u, o), x, updates)
    u = t(updates, grad=True)
    core.scatter(t(x), t(index), u).sum().backward()
    np.testing.assert_array_equal(u.grad.numpy()[:, 0], [1, 0, 1, 1])  # overwritten row: 0
    assert t(x).scatter(t(index), t(updates)).shape == [3, 2]
    with pytest.raises(ValueError, match="scatter: updates must have shape"):
        core.scatter(t(x), t(index), t(updates[:2]))
    with pytest.raises(IndexError, match="scatter: 'index' values must lie in 0..2"):
        core.scatter(t(x), t([3]), t(updates[:1]))


def test_gather_nd_and_scatter_nd_add():
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4, 2))
    index = np.array([[0, 1], [2, 3], [0, 1]])
    np.testing.assert_allclose(core.gather_nd(t(x), t(index)).numpy(), x[index[:, 0],
                                                                         index[:, 1]])
    whole = np.array([[[1, 2, 1]]])
    np.testing.assert_allclose(t(x).gather_nd(t(whole)).numpy(), [[x[1, 2, 1]]])
    check_grad(lambda p: core.gather_nd(p, t(index)), x)
    upd = rng.normal(size=(3, 2))
    want = torch.tensor(x).index_put((torch.tensor(index[:, 0]), torch.tensor(index[:, 1])),
                                     torch.tensor(upd), accumulate=True).numpy()
    np.testing.assert_allclose(core.scatter_nd_add(t(x), t(index), t(upd)).numpy(), want)
    check_grad(lambda p, u: core.scatter_nd_add(p, t(index), u), x, upd)
    with pytest.raises(ValueError, match="gather_nd: index must have shape"):
        core.gather_nd(t(x), t(np.zeros((2, 4), dtype="int64")))
    with pytest.raises(ValueError, match="scatter_nd_add: updates must have shape"):
        core.scatter_nd_add(t(x), t(index), t(upd[:2]))


def test_repeat_interleave():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    np.testing.assert_allclose(core.repeat_interleave(t(a), 2).numpy(),
                               torch.repeat_interleave(torch.tensor(a), 2).numpy())
    counts = np.array([1, 0, 3])
    np.testing.assert_allclose(t(a).repeat_interleave(t(counts), 0).numpy(),
                               np.repeat(a, counts, axis=0))
    check_grad(lambda x: core.repeat_interleave(x, 2, 1), a)
    check_grad(lambda x: core.repeat_interleave(x, t(counts), 0), a)
    with pytest.raises(ValueError, match="repeat_interleave: repeats must have one count"):
        core.repeat_interleave(t(a), t([1, 2]), 0)
    with pytest.raises(ValueError, match="repeat_interleave: repeats must be non-negative"):
        core.repeat_interleave(t(a), -1)


def test_slice_and_strided_slice():
    x = rng.normal(size=(3, 4, 5))
    np.testing.assert_allclose(core.slice(t(x), [0, 2], [-2, 0], [100, 3]).numpy(),
                               x[-2:100, :, 0:3])
    check_grad(lambda p: core.slice(p, [0, 2], [-2, 0], [100, 3]), x)
    np.testing.assert_allclose(core.strided_slice(t(x), [1, 2], [-1, 0], [-100, 5],
                                                  [-2, 2]).numpy(),
                               x[:, -1:-100:-2, 0:5:2])
    check_grad(lambda p: p.strided_slice([1, 2], [-1, 0], [-100, 5], [-2, 2]), x)
    # Paddle's example: starts/ends beyond the axis are clamped
    ex = t(np.arange(24).reshape(2, 3, 4))
    np.testing.assert_array_equal(core.slice(ex, [0, 1, 2], [-3, 0, 2], [3, 2, 4]).numpy(),
                                  np.arange(24).reshape(2, 3, 4)[0:3, 0:2, 2:4])
    with pytest.raises(ValueError, match="slice: axes .* must have the same length"):
        core.slice(t(x), [0, 1], [0], [1, 1])
    with pytest.raises(ValueError, match="strided_slice: strides must not contain 0"):
        core.strided_slice(t(x), [0], [0], [1], [0])


# ----- kron, diff, bincount, histogram -------------------------------------------------------
