"""Element-wise math (tan ... erfinv, logit, lerp, atan2, heaviside), reductions (amax/amin,
median, quantile, nansum, nanmean, count_nonzero), indexing (take_along_axis, put_along_axis,
scatter, gather_nd, scatter_nd_add, repeat_interleave, diagonal, trace, t, moveaxis, slice,
strided_slice, clone, assign), kron, diff, bincount and histogram: values against numpy/torch
and Paddle's documented examples, gradients against float64 finite differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(71)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


# ----- element-wise -------------------------------------------------------------------------

# name, numpy reference, torch name, a sampler of inputs inside the domain
UNARY = [
    ("tan", np.tan, "tan", lambda s: rng.uniform(-1.2, 1.2, s)),
    ("asin", np.arcsin, "asin", lambda s: rng.uniform(-0.9, 0.9, s)),
    ("acos", np.arccos, "acos", lambda s: rng.uniform(-0.9, 0.9, s)),
    ("atan", np.arctan, "atan", lambda s: rng.normal(size=s) * 2),
    ("sinh", np.sinh, "sinh", lambda s: rng.normal(size=s)),
    ("cosh", np.cosh, "cosh", lambda s: rng.normal(size=s)),
    ("asinh", np.arcsinh, "asinh", lambda s: rng.normal(size=s) * 2),
    ("acosh", np.arccosh, "acosh", lambda s: rng.uniform(1.2, 4, s)),
    ("atanh", np.arctanh, "atanh", lambda s: rng.uniform(-0.9, 0.9, s)),
    ("erf", None, "erf", lambda s: rng.normal(size=s)),
    ("erfinv", None, "erfinv", lambda s: rng.uniform(-0.95, 0.95, s)),
    ("expm1", np.expm1, "expm1", lambda s: rng.normal(size=s)),
    ("log2", np.log2, "log2", lambda s: rng.uniform(0.2, 5, s)),
    ("log10", np.log10, "log10", lambda s: rng.uniform(0.2, 5, s)),
    ("frac", lambda a: a - np.trunc(a), "frac", lambda s: rng.normal(size=s) * 3 + 0.01),
]


@pytest.mark.parametrize("name, ref, torch_name, sample", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_gradients_and_methods(name, ref, torch_name, sample):
    a = sample((3, 4))
    fn = getattr(core, name)
    got = fn(t(a))
    if ref is not None:
        np.testing.assert_allclose(got.numpy(), ref(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(getattr(t(a), name)().numpy(), got.numpy())
    check_grad(fn, a)
    assert fn(t(a.astype("float32"))).dtype == np.float32


@pytest.mark.parametrize("name, ref, torch_name, sample", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_match_torch(name, ref, torch_name, sample):
    torch = pytest.importorskip("torch")
    a = sample((5, 3))
    want = getattr(torch, torch_name)(torch.tensor(a)).numpy()
    np.testing.assert_allclose(getattr(core, name)(t(a)).numpy(), want, rtol=1e-10, atol=1e-12)


def test_erfinv_edges_and_float32_accuracy():
    out = core.erfinv(t([1.0, -1.0, 1.5, 0.0])).numpy()
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2]) and out[3] == 0
    a = np.linspace(-0.999, 0.999, 201)
    back = core.erf(core.erfinv(t(a))).numpy()
    np.testing.assert_allclose(back, a, rtol=1e-12, atol=1e-14)
    back32 = core.erf(core.erfinv(t(a, "float32"))).numpy()
    np.testing.assert_allclose(back32, a, atol=2e-6)


def test_trunc_has_a_zero_gradient_and_keeps_dtype():
    x = t([-1.7, -0.2, 0.5, 2.9], grad=True)
    out = core.trunc(x)
    np.testing.assert_array_equal(out.numpy(), [-1.0, -0.0, 0.0, 2.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 0)
    assert core.trunc(t([1, 2])).dtype == np.int64 and x.trunc().shape == [4]


def test_logit_with_and_without_eps():
    a = rng.uniform(0.05, 0.95, (3, 4))
    np.testing.assert_allclose(core.logit(t(a)).numpy(), np.log(a / (1 - a)), rtol=1e-12)
    check_grad(lambda x: core.logit(x), a)
    check_grad(lambda x: core.logit(x, eps=0.2), a)
    clipped = core.logit(t([0.0, 0.1, 0.5, 1.0]), eps=0.2).numpy()
    np.testing.assert_allclose(clipped, np.log([0.25, 0.25, 1.0, 4.0]), rtol=1e-12)
    x = t([0.1, 0.5], grad=True)
    core.logit(x, eps=0.2).sum().backward()  # Paddle: zero gradient outside [eps, 1 - eps]
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 4.0])
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(core.logit(t(a), 0.2).numpy(),
                               torch.logit(torch.tensor(a), 0.2).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="logit: eps"):
        core.logit(t(a), eps=0.7)


def test_atan2_lerp_and_heaviside():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    np.testing.assert_allclose(core.atan2(t(a), t(b)).numpy(),
                               torch.atan2(torch.tensor(a), torch.tensor(b)).numpy())
    check_grad(core.atan2, a, b)
    y, w = rng.normal(size=(3, 4)), rng.uniform(size=(4,))
    np.testing.assert_allclose(core.lerp(t(a), t(y), t(w)).numpy(),
                               torch.lerp(torch.tensor(a), torch.tensor(y),
                                          torch.tensor(w)).numpy())
    np.testing.assert_allclose(core.lerp(t(a), t(y), 0.3).numpy(), a + 0.3 * (y - a))
    check_grad(lambda p, q, r: core.lerp(p, q, r), a, y, w)
    check_grad(lambda p, q: p.lerp(q, 0.25), a, y)
    x, v = np.array([-1.5, 0.0, 2.0, 0.0]), np.array([0.3, 0.4, 0.5, 0.6])
    np.testing.assert_allclose(core.heaviside(t(x), t(v)).numpy(), [0.0, 0.4, 1.0, 0.6])
    np.testing.assert_allclose(core.heaviside(t(x), t(v)).numpy(),
                               torch.heaviside(torch.tensor(x), torch.tensor(v)).numpy())
    check_grad(core.heaviside, x, v, wrt=[1])  # x's gradient is zero (a step)
    xs = t(x, grad=True)
    core.heaviside(xs, t(v)).sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), 0)
    with pytest.raises(TypeError, match="lerp: weight"):
        core.lerp(t(a), t(y), "half")


# ----- reductions -----------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_values_and_gradients(axis, keepdim):
    a = rng.normal(size=(3, 4))
    ax = None if axis is None else tuple(np.atleast_1d(axis))
    np.testing.assert_allclose(core.amax(t(a), axis, keepdim).numpy(),
                               a.max(axis=ax, keepdims=keepdim))
    np.testing.assert_allclose(t(a).amin(axis, keepdim).numpy(), a.min(axis=ax, keepdims=keepdim))
    check_grad(lambda x: core.amax(x, axis, keepdim), a)
    check_grad(lambda x: core.amin(x, axis, keepdim), a)


def test_amax_splits_the_gradient_among_ties_where_max_picks_one():
    # Paddle's docs: amax distributes the gradient evenly between equal maxima.
    x = t([[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]], grad=True)
    core.amax(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.2, 0.2, 0.2], [0.2, 0.2, 0, 0]],
                               rtol=1e-6)
    y = t([[0.2, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.7]], grad=True)
    core.amin(y, axis=1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0, 1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0, 0]],
                               rtol=1e-6)
    z = t([[0.1, 0.9, 0.9, 0.9]], grad=True)
    core.max(z).backward()
    assert z.grad.numpy().sum() == pytest.approx(1.0) and (z.grad.numpy() > 0).sum() == 1


def test_median_follows_paddles_examples():
    x = core.arange(12).reshape([3, 4])
    y1 = core.median(x)
    assert y1.dtype == np.float32 and y1.shape == [] and y1.item() == 5.5
    np.testing.assert_allclose(core.median(x, axis=0).numpy(), [4, 5, 6, 7])
    np.testing.assert_allclose(core.median(x, axis=1).numpy(), [1.5, 5.5, 9.5])
    np.testing.assert_allclose(core.median(x, axis=0, keepdim=True).numpy(), [[4, 5, 6, 7]])
    values, index = core.median(x, axis=1, mode="min")
    np.testing.assert_array_equal(values.numpy(), [1, 5, 9])
    assert values.dtype == np.int64 and index.dtype == np.int64
    np.testing.assert_array_equal(index.numpy(), [1, 1, 1])
    assert core.median(x, mode="min").item() == 5
    assert core.median(t(np.ones(3))).dtype == np.float64
    with pytest.raises(ValueError, match="median: mode"):
        core.median(x, mode="max")


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_gradients_and_torch(axis, keepdim):
    a = rng.normal(size=(3, 5))
    check_grad(lambda x: core.median(x, axis, keepdim), a)
    even = rng.normal(size=(4, 6))
    check_grad(lambda x: core.median(x, axis, keepdim), even)
    check_grad(lambda x: x.median(axis, keepdim, mode="min")[0] if axis is not None
               else x.median(mode="min"), even)
    torch = pytest.importorskip("torch")  # torch's median is the lower middle (Paddle's 'min')
    ta = torch.tensor(a)
    want = ta.median() if axis is None else ta.median(dim=axis, keepdim=keepdim).values
    np.testing.assert_allclose(core.median(t(a), axis, keepdim).numpy(), want.numpy())
    np.testing.assert_allclose(core.median(t(even), axis, keepdim).numpy(),
                               np.median(even, axis=axis, keepdims=keepdim))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("axis", [None, 1, [0, 2]])
def test_quantile_values_gradients_and_torch(interpolation, axis):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4, 5))
    q = [0.1, 0.5, 0.8]
    got = core.quantile(t(a), q, axis, interpolation=interpolation)
    if isinstance(axis, list):
        flat = np.moveaxis(a, axis, [-2, -1]).reshape(4, -1)
        want = torch.quantile(torch.tensor(flat), torch.tensor(q, dtype=torch.float64), dim=-1,
                              interpolation=interpolation).numpy()
    else:
        want = torch.quantile(torch.tensor(a), torch.tensor(q, dtype=torch.float64), dim=axis,
                              interpolation=interpolation).numpy()
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    check_grad(lambda x: core.quantile(x, q, axis, interpolation=interpolation), a)
    check_grad(lambda x: x.quantile(0.3, axis, True, interpolation=interpolation), a)


def test_quantile_shapes_dtypes_and_errors():
    a = np.arange(10.0)
    assert core.quantile(t(a), 0.35).item() == pytest.approx(np.quantile(a, 0.35))
    assert core.quantile(t(a), [0.35]).shape == [1]
    assert core.quantile(t(np.ones((2, 3))), 0.5, axis=1, keepdim=True).shape == [2, 1]
    assert core.quantile(t([1, 2, 3]), 0.5).dtype == np.float32
    with pytest.raises(ValueError, match="quantile: q must"):
        core.quantile(t(a), 1.5)
    with pytest.raises(ValueError, match="quantile: interpolation"):
        core.quantile(t(a), 0.5, interpolation="cubic")


def test_nansum_nanmean_and_count_nonzero():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    a[0, 1] = a[2, 3] = np.nan
    for axis in (None, 0, 1):
        np.testing.assert_allclose(core.nansum(t(a), axis).numpy(), np.nansum(a, axis=axis))
        np.testing.assert_allclose(core.nanmean(t(a), axis).numpy(), np.nanmean(a, axis=axis))
        np.testing.assert_allclose(
            t(a).nanmean(axis, keepdim=True).numpy(),
            (torch.nanmean(torch.tensor(a), dim=axis, keepdim=True) if axis is not None
             else torch.nanmean(torch.tensor(a)).reshape(1, 1)).numpy())
        check_grad(lambda x, axis=axis: core.nansum(x, axis), a)
        check_grad(lambda x, axis=axis: core.nanmean(x, axis), a)
    x = t([[0, 1, 2], [0, 0, 3]])
    np.testing.assert_array_equal(core.count_nonzero(x, axis=1).numpy(), [2, 1])
    assert core.count_nonzero(x).item() == 3 and core.count_nonzero(x).dtype == np.int64
    assert x.count_nonzero(axis=0, keepdim=True).shape == [1, 3]
    with pytest.raises(TypeError, match="nanmean: x must be a floating"):
        core.nanmean(x)


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


# ----- diagonals, transposes, copies and slices ---------------------------------------------

@pytest.mark.parametrize("offset, axis1, axis2", [(0, 0, 1), (1, 0, 2), (-1, 2, 1), (2, -1, 0)])
def test_diagonal_and_trace(offset, axis1, axis2):
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4, 5))
    np.testing.assert_allclose(core.diagonal(t(x), offset, axis1, axis2).numpy(),
                               torch.diagonal(torch.tensor(x), offset, axis1, axis2).numpy())
    np.testing.assert_allclose(t(x).trace(offset, axis1, axis2).numpy(),
                               np.trace(x, offset, axis1, axis2))
    check_grad(lambda p: core.diagonal(p, offset, axis1, axis2), x)
    check_grad(lambda p: core.trace(p, offset, axis1, axis2), x)


def test_t_moveaxis_clone_and_assign():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    np.testing.assert_allclose(core.t(t(a)).numpy(), a.T)
    v = t([1.0, 2.0])
    assert core.t(v) is v  # Paddle returns 0-D and 1-D input as it is
    check_grad(core.t, a)
    x = rng.normal(size=(2, 3, 4))
    for src, dst in ((0, -1), ([0, 1], [2, 0]), ([2], [0])):
        np.testing.assert_allclose(core.moveaxis(t(x), src, dst).numpy(),
                                   torch.movedim(torch.tensor(x), src, dst).numpy())
        check_grad(lambda p, s=src, d=dst: core.moveaxis(p, s, d), x)
    check_grad(core.clone, a)
    check_grad(core.assign, a)
    c = core.clone(t(a))
    c.data[0, 0] = 99.0
    assert a[0, 0] != 99.0
    assert core.assign([1.5, 2.5]).dtype == np.float32
    assert core.assign(np.array([1, 2])).dtype == np.int64
    out = core.zeros([3, 4], dtype="float64")
    assert core.assign(t(a), output=out) is out
    np.testing.assert_allclose(out.numpy(), a)
    with pytest.raises(ValueError, match="moveaxis: source .* must have the same length"):
        core.moveaxis(t(x), [0, 1], [0])
    with pytest.raises(ValueError, match="t: input must have at most 2"):
        core.t(t(x))
    with pytest.raises(ValueError, match="assign: output has shape"):
        core.assign(t(a), output=core.zeros([2]))


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

def test_kron_and_diff():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 2, 2))
    np.testing.assert_allclose(core.kron(t(a), t(b)).numpy(),
                               torch.kron(torch.tensor(a), torch.tensor(b)).numpy())
    check_grad(core.kron, a, b)
    check_grad(lambda p, q: p.kron(q), rng.normal(size=(2,)), rng.normal(size=(3,)))
    x = rng.normal(size=(3, 5))
    pre, app = rng.normal(size=(3, 1)), rng.normal(size=(3, 2))
    np.testing.assert_allclose(core.diff(t(x)).numpy(), np.diff(x))
    np.testing.assert_allclose(core.diff(t(x), 2, 0).numpy(), np.diff(x, 2, 0))
    np.testing.assert_allclose(
        t(x).diff(2, -1, t(pre), t(app)).numpy(),
        torch.diff(torch.tensor(x), 2, -1, torch.tensor(pre), torch.tensor(app)).numpy())
    check_grad(lambda p, q, r: core.diff(p, 2, -1, q, r), x, pre, app)
    with pytest.raises(ValueError, match="diff: n must be non-negative"):
        core.diff(t(x), -1)


def test_bincount_and_histogram():
    torch = pytest.importorskip("torch")
    x = np.array([1, 1, 4, 0, 2])
    np.testing.assert_array_equal(core.bincount(t(x)).numpy(), [1, 2, 1, 0, 1])
    w = rng.uniform(size=5)
    np.testing.assert_allclose(core.bincount(t(x), t(w), minlength=7).numpy(),
                               torch.bincount(torch.tensor(x), torch.tensor(w), 7).numpy())
    assert core.bincount(t(x)).dtype == np.int64
    # Paddle's example
    np.testing.assert_array_equal(core.histogram(t([1, 2, 1]), bins=4, min=0, max=3).numpy(),
                                  [0, 2, 1, 0])
    data = rng.normal(size=50)
    np.testing.assert_array_equal(
        core.histogram(t(data), bins=7).numpy(),
        torch.histc(torch.tensor(data), bins=7).numpy().astype("int64"))
    assert core.histogram(t(data), 5, -1, 1).numpy().sum() == ((data >= -1) & (data <= 1)).sum()
    dens = core.histogram(t(data), 5, density=True)
    assert dens.dtype == np.float32
    np.testing.assert_allclose(dens.numpy().sum() * (data.max() - data.min()) / 5, 1, rtol=1e-5)
    np.testing.assert_array_equal(core.histogram(t([2.0, 2.0]), 2).numpy(), [0, 2])
    with pytest.raises(ValueError, match="bincount: x must be non-negative"):
        core.bincount(t([-1, 2]))
    with pytest.raises(ValueError, match="histogram: bins must be a positive int"):
        core.histogram(t(data), 0)
    with pytest.raises(ValueError, match="histogram: max must be larger than min"):
        core.histogram(t(data), 3, 2, 1)
