"""Paddle 3.x tensor functions and Tensor methods added for ported code: shapes and splits
(core/manipulation.py), fills and scatters (core/indexing.py), running extremes and NaN-ignoring
order statistics (core/statistics.py), mode / unique_consecutive (core/search.py), tests
(core/logic.py), element-wise math (core/elementwise.py), mv / dist (core/linalg) and the
in-place variants (core/inplace.py). Values against numpy and torch and Paddle's documented
examples, gradients against float64 finite differences, and the errors of bad arguments."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(9)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


# ----- shapes and splits -------------------------------------------------------------------------

@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
def test_rot90_matches_numpy_and_is_differentiable(k):
    a = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(core.rot90(t(a), k, [1, 2]).numpy(), np.rot90(a, k, (1, 2)))
    np.testing.assert_array_equal(t(a).rot90(k).numpy(), np.rot90(a, k))
    check_grad(lambda x: core.rot90(x, k, [2, 0]), a)


def test_rot90_rejects_bad_axes():
    with pytest.raises(ValueError, match="rot90: axes must be two different axes"):
        core.rot90(t(np.ones((2, 2))), 1, [0, 0])
    with pytest.raises(ValueError, match="rot90: x must have at least 2 dimensions"):
        core.rot90(t([1.0]))


def test_atleast_nd_shapes_follow_numpy():
    for fn, npfn in ((core.atleast_1d, np.atleast_1d), (core.atleast_2d, np.atleast_2d),
                     (core.atleast_3d, np.atleast_3d)):
        for shape in ((), (3,), (2, 3), (2, 3, 4)):
            assert fn(t(np.ones(shape))).shape == list(npfn(np.ones(shape)).shape)
    pair = core.atleast_2d(t(1.0), t([1.0, 2.0]))
    assert [p.shape for p in pair] == [[1, 1], [1, 2]]
    with pytest.raises(TypeError, match="atleast_1d: 'inputs\\[0\\]' must be a Tensor"):
        core.atleast_1d([1, 2])


@pytest.mark.parametrize("sections", [3, 4, [1, 3], [-2], [0, 0, 5]])
def test_tensor_split_matches_numpy_array_split(sections):
    a = rng.normal(size=(2, 5))
    parts = core.tensor_split(t(a), sections, axis=1)
    expected = np.array_split(a, sections, axis=1)
    assert len(parts) == len(expected)
    for got, want in zip(parts, expected):
        np.testing.assert_array_equal(got.numpy(), want)
    check_grad(lambda x: core.concat(core.tensor_split(x, sections, 1)[::-1], 1), a)


def test_hsplit_vsplit_dsplit_follow_paddle_docs():
    x = t(rng.normal(size=(7, 8)))
    assert [p.shape for p in core.hsplit(x, [1, 4])] == [[7, 1], [7, 3], [7, 4]]
    assert [p.shape for p in core.hsplit(t(np.ones(8)), 2)] == [[4], [4]]
    y = t(rng.normal(size=(8, 6, 7)))
    assert [p.shape for p in core.vsplit(y, [1, 4])] == [[1, 6, 7], [3, 6, 7], [4, 6, 7]]
    assert [p.shape for p in y.dsplit(7)] == [[8, 6, 1]] * 7
    with pytest.raises(ValueError, match="vsplit: x must have at least 2 dimensions"):
        core.vsplit(t(np.ones(4)), 2)
    with pytest.raises(ValueError, match="tensor_split: num_or_indices must be a positive int"):
        core.tensor_split(x, 0)


def test_stacks_match_numpy():
    a, b = rng.normal(size=3), rng.normal(size=3)
    m = rng.normal(size=(3, 2))
    np.testing.assert_array_equal(core.hstack([t(a), t(b)]).numpy(), np.hstack([a, b]))
    np.testing.assert_array_equal(core.vstack([t(a), t(b)]).numpy(), np.vstack([a, b]))
    np.testing.assert_array_equal(core.row_stack([t(a), t(b)]).numpy(), np.vstack([a, b]))
    np.testing.assert_array_equal(core.dstack([t(a), t(b)]).numpy(), np.dstack([a, b]))
    np.testing.assert_array_equal(core.column_stack([t(a), t(m)]).numpy(),
                                  np.column_stack([a, m]))
    check_grad(lambda x, y: core.column_stack([x, y]), a, m)
    with pytest.raises(TypeError, match="hstack: 'x' must be a non-empty list"):
        core.hstack(t(a))


def test_view_view_as_and_unflatten():
    a = rng.normal(size=(2, 6))
    np.testing.assert_array_equal(t(a).view([3, -1]).numpy(), a.reshape(3, 4))
    np.testing.assert_array_equal(core.view_as(t(a), t(np.ones((4, 3)))).numpy(),
                                  a.reshape(4, 3))
    bits = core.view(t(np.ones((2, 2), "float32")), "int32")
    assert bits.dtype == np.int32 and bits.numpy()[0, 0] == 0x3F800000
    with pytest.raises(ValueError, match="view: cannot read x of shape \\[3\\]"):
        core.view(t(np.ones(3, "int8")), "int32")
    np.testing.assert_array_equal(core.unflatten(t(a), 1, [2, -1]).numpy(), a.reshape(2, 2, 3))
    check_grad(lambda x: x.unflatten(-1, [3, 2]), a)
    with pytest.raises(ValueError, match="unflatten: shape=\\[4, 2\\] has 8 elements"):
        core.unflatten(t(a), 1, [4, 2])


def test_as_strided_and_unfold_match_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    got = core.as_strided(t(a), [3, 2], [2, 1], 1).numpy()
    want = torch.as_strided(torch.tensor(a), (3, 2), (2, 1), 1).numpy()
    np.testing.assert_array_equal(got, want)
    check_grad(lambda x: core.as_strided(x, [3, 3], [1, 2], 2), a)  # overlapping reads
    with pytest.raises(ValueError, match="as_strided: .* reach element 14"):
        core.as_strided(t(a), [2, 2], [6, 2], 6)
    b = rng.normal(size=(2, 7, 3))
    np.testing.assert_array_equal(t(b).unfold(1, 3, 2).numpy(),
                                  torch.tensor(b).unfold(1, 3, 2).numpy())
    np.testing.assert_array_equal(core.unfold(t(b), -1, 2, 1).numpy(),
                                  torch.tensor(b).unfold(-1, 2, 1).numpy())
    check_grad(lambda x: core.unfold(x, 1, 3, 2), b)
    with pytest.raises(ValueError, match="unfold: step must be positive"):
        core.unfold(t(b), 1, 2, 0)


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, 0, 2), (-2, 2, 0)])
def test_diag_embed_matches_torch(offset, dim1, dim2):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(2, 3))
    want = torch.diag_embed(torch.tensor(a), offset, dim1, dim2).numpy()
    np.testing.assert_array_equal(core.diag_embed(t(a), offset, dim1, dim2).numpy(), want)
    check_grad(lambda x: x.diag_embed(offset, dim1, dim2), a)


def test_diagflat_block_diag_and_broadcasting():
    a = rng.normal(size=(2, 2))
    np.testing.assert_array_equal(core.diagflat(t(a), 1).numpy(), np.diagflat(a, 1))
    blocks = [rng.normal(size=(2, 2)), rng.normal(size=3)]
    torch = pytest.importorskip("torch")
    want = torch.block_diag(*[torch.tensor(b) for b in blocks]).numpy()
    np.testing.assert_array_equal(core.block_diag([t(b) for b in blocks]).numpy(), want)
    check_grad(lambda x, y: core.block_diag([x, y]), *blocks)
    assert core.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    with pytest.raises(ValueError, match="broadcast_shape: shapes \\[2\\] and \\[3\\]"):
        core.broadcast_shape([2], [3])
    outs = core.broadcast_tensors([t(np.ones((2, 1))), t(np.ones(3))])
    assert [o.shape for o in outs] == [[2, 3], [2, 3]]
    np.testing.assert_array_equal(t(a).reverse(0).numpy(), a[::-1])
    np.testing.assert_array_equal(core.reverse(t(a), [0, 1]).numpy(), a[::-1, ::-1])


# ----- fills and scatters along indices ----------------------------------------------------------

def test_index_fill_and_index_add_match_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    idx = [0, 2, -1]
    got = core.index_fill(t(a), t(idx), 1, -1.5).numpy()
    want = torch.tensor(a).index_fill(1, torch.tensor([0, 2, 3]), -1.5).numpy()
    np.testing.assert_array_equal(got, want)
    check_grad(lambda x, v: core.index_fill(x, t([0, 2]), 1, v), a, np.array(0.5))
    v = rng.normal(size=(2, 4))
    got = t(a).index_add(t([1, 1]), 0, t(v)).numpy()
    want = torch.tensor(a).index_add(0, torch.tensor([1, 1]), torch.tensor(v)).numpy()
    np.testing.assert_allclose(got, want)
    check_grad(lambda x, y: core.index_add(x, t([2, 0]), 0, y), a, v)
    with pytest.raises(IndexError, match="index_fill: 'index' values must lie in -4..3"):
        core.index_fill(t(a), t([4]), 1, 0.0)
    with pytest.raises(ValueError, match="index_add: value must have shape \\[2, 4\\]"):
        core.index_add(t(a), t([0, 1]), 0, t(np.ones((2, 3))))


def test_index_put_assign_and_accumulate():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    rows, cols = [0, 2, 0], [1, 3, 1]
    v = rng.normal(size=3)
    got = core.index_put(t(a), (t(rows), t(cols)), t(v), accumulate=True).numpy()
    want = torch.tensor(a).index_put((torch.tensor(rows), torch.tensor(cols)), torch.tensor(v),
                                     accumulate=True).numpy()
    np.testing.assert_allclose(got, want)
    check_grad(lambda x, y: core.index_put(x, (t(rows), t(cols)), y, True), a, v)
    got = t(a).index_put((t([0, 2]),), t(7.0)).numpy()
    want = a.copy()
    want[[0, 2]] = 7.0
    np.testing.assert_array_equal(got, want)
    check_grad(lambda x, y: core.index_put(x, (t([0, 2]), t([1, 3])), y), a, v[:2])
    with pytest.raises(TypeError, match="index_put: indices\\[0\\] must be an integer or bool"):
        core.index_put(t(a), (t([0.5]),), t(1.0))


def test_masked_scatter_matches_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    mask = rng.normal(size=(4,)) > 0
    v = rng.normal(size=20)
    got = core.masked_scatter(t(a), t(mask), t(v)).numpy()
    want = torch.tensor(a).masked_scatter(torch.tensor(mask), torch.tensor(v)).numpy()
    np.testing.assert_array_equal(got, want)
    check_grad(lambda x, y: x.masked_scatter(t(mask), y), a, v)
    with pytest.raises(ValueError, match="masked_scatter: the mask selects 12 positions"):
        core.masked_scatter(t(a), t(np.ones((3, 4), bool)), t(np.ones(5)))


def test_take_modes_follow_paddle_docs():
    x = core.arange(0, 12).reshape([3, 4])
    np.testing.assert_array_equal(core.take(x, core.arange(-2, 4).reshape([2, 3])).numpy(),
                                  [[10, 11, 0], [1, 2, 3]])
    idx = core.arange(-2, 13).reshape([3, 5])
    np.testing.assert_array_equal(x.take(idx, mode="wrap").numpy(),
                                  np.take(np.arange(12), idx.numpy(), mode="wrap"))
    np.testing.assert_array_equal(x.take(idx, mode="clip").numpy(),
                                  np.take(np.arange(12), idx.numpy(), mode="clip"))
    with pytest.raises(IndexError, match="take: 'index' values must lie in -12..11"):
        core.take(x, idx)
    with pytest.raises(ValueError, match="take: mode must be 'raise', 'wrap' or 'clip'"):
        core.take(x, idx, mode="nearest")
    check_grad(lambda y: core.take(y, t([[0, 5], [5, -1]])), rng.normal(size=(2, 3)))


def test_select_slice_and_diagonal_scatter_match_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4, 5))
    v = rng.normal(size=(3, 5))
    np.testing.assert_array_equal(
        core.select_scatter(t(a), t(v), 1, -1).numpy(),
        torch.select_scatter(torch.tensor(a), torch.tensor(v), 1, -1).numpy())
    check_grad(lambda x, y: core.select_scatter(x, y, 1, 2), a, v)
    res = core.slice_scatter(core.zeros([3, 9]), core.ones([3, 1]), [1], [2], [6], [2])
    assert res.numpy()[0].tolist() == [0, 0, 1, 0, 1, 0, 0, 0, 0]  # Paddle's example
    w = rng.normal(size=(3, 2, 5))
    check_grad(lambda x, y: x.slice_scatter(y, [1], [0], [4], [2]), a, w)
    d = rng.normal(size=(4, 3))  # the offset-1 diagonal over axes 0 and 2: length 4, batch 4
    want = torch.diagonal_scatter(torch.tensor(a), torch.tensor(d), 1, 0, 2).numpy()
    np.testing.assert_array_equal(core.diagonal_scatter(t(a), t(d.T.copy()).t(), 1, 0, 2)
                                  .numpy(), want)
    check_grad(lambda x, y: core.diagonal_scatter(x, y, 1, 0, 2), a, d)
    with pytest.raises(ValueError, match="diagonal_scatter: y must have the diagonal's shape"):
        core.diagonal_scatter(t(a), t(np.ones(3)))
    with pytest.raises(IndexError, match="select_scatter: index must be an int in -4..3"):
        core.select_scatter(t(a), t(v), 1, 4)


def test_scatter_nd_and_triangle_indices():
    out = core.scatter_nd(t([[1], [1], [3]]), t([1.0, 2.0, 3.0]), [4])
    np.testing.assert_array_equal(out.numpy(), [0, 3, 0, 3])
    check_grad(lambda u: core.scatter_nd(t([[0, 1], [0, 1]]), u, [2, 3]), np.array([1.0, 2.0]))
    np.testing.assert_array_equal(core.tril_indices(4, 3, -1).numpy(),
                                  np.stack(np.tril_indices(4, -1, 3)))
    np.testing.assert_array_equal(core.triu_indices(3, offset=1).numpy(),
                                  np.stack(np.triu_indices(3, 1, 3)))
    assert core.triu_indices(3, 3, dtype="int32").dtype == np.int32
    with pytest.raises(TypeError, match="tril_indices: dtype must be int32 or int64"):
        core.tril_indices(3, 3, 0, "float32")


# ----- running extremes, logcumsumexp, NaN-ignoring order statistics, mode ---------------------

@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin_match_torch(name):
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 3, 3, 2, 0], [5, np.nan, 1, 7, np.nan], [2, 2, 2, 1, 4]])
    for axis in (0, 1, -1):
        values, index = getattr(core, name)(t(a), axis)
        tv, ti = getattr(torch, name)(torch.tensor(a), axis)
        np.testing.assert_array_equal(values.numpy(), tv.numpy())
        np.testing.assert_array_equal(index.numpy(), ti.numpy())
    values, index = getattr(t(a[[0, 2]]), name)()  # axis None: the flattened tensor
    tv, ti = getattr(torch, name)(torch.tensor(a[[0, 2]]).reshape(-1), 0)
    np.testing.assert_array_equal(index.numpy(), ti.numpy())
    b = rng.normal(size=(3, 5))
    check_grad(lambda x: getattr(core, name)(x, 1)[0], b)
    check_grad(lambda x: getattr(core, name)(x)[0], b)
    assert getattr(core, name)(t(b), 0, dtype="int32")[1].dtype == np.int32
    with pytest.raises(ValueError, match=f"{name}: dtype must be int32 or int64"):
        getattr(core, name)(t(b), 0, "float32")


def test_logcumsumexp_is_stable_and_matches_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 6)) * 30
    for axis in (0, 1):
        np.testing.assert_allclose(core.logcumsumexp(t(a), axis).numpy(),
                                   torch.logcumsumexp(torch.tensor(a), axis).numpy())
    np.testing.assert_allclose(t(a).logcumsumexp().numpy(),
                               torch.logcumsumexp(torch.tensor(a).reshape(-1), 0).numpy())
    far = core.logcumsumexp(t([0.0, 100.0, -100.0], dtype="float32")).numpy()
    np.testing.assert_allclose(far, [0.0, 100.0, 100.0], rtol=1e-6)  # no overflow, no -inf
    check_grad(lambda x: core.logcumsumexp(x, 1), rng.normal(size=(2, 5)))
    with pytest.raises(TypeError, match="logcumsumexp: x must be a floating tensor"):
        core.logcumsumexp(t([1, 2]))
    assert core.logcumsumexp(t([1, 2]), dtype="float64").dtype == np.float64


def test_nanmedian_and_nanquantile_match_numpy():
    a = rng.normal(size=(4, 6))
    a[0, 1] = a[2, 3] = a[2, 5] = np.nan
    a[3] = np.nan
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want_med = np.nanmedian(a, axis=1)
    np.testing.assert_allclose(core.nanmedian(t(a), 1).numpy(), want_med)
    np.testing.assert_allclose(core.nanmedian(t(a[:3])).numpy(), np.nanmedian(a[:3]))
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
            want = np.nanquantile(a, [0.2, 0.75], axis=1, method=method)
        got = t(a).nanquantile([0.2, 0.75], 1, interpolation=method).numpy()
        np.testing.assert_allclose(got, want)
    values, index = core.nanmedian(t(a[:3]), 1, keepdim=True, mode="min")
    rows = a[:3]
    assert values.shape == [3, 1]
    np.testing.assert_array_equal(values.numpy()[:, 0], rows[np.arange(3), index.numpy()[:, 0]])
    b = a[:3].copy()
    check_grad(lambda x: core.nanmedian(x, 1), np.nan_to_num(b) + np.arange(18).reshape(3, 6))
    check_grad(lambda x: core.nanquantile(x, 0.3, 1), b[[1]] * 0 + rng.normal(size=(1, 6)))
    with pytest.raises(ValueError, match="nanquantile: q must be a number in \\[0, 1\\]"):
        core.nanquantile(t(a), 1.5)
    with pytest.raises(ValueError, match="nanmedian: mode must be 'avg' or 'min'"):
        core.nanmedian(t(a), mode="max")


def test_mode_follows_paddle_docs_and_torch():
    x = t([[[1, 2, 2], [2, 3, 3]], [[0, 5, 5], [9, 9, 0]]], dtype="float32")
    values, index = core.mode(x, 2)
    np.testing.assert_array_equal(values.numpy(), [[2, 3], [5, 9]])
    np.testing.assert_array_equal(index.numpy(), [[2, 2], [2, 1]])  # Paddle's example
    torch = pytest.importorskip("torch")
    a = rng.integers(0, 3, size=(5, 8)).astype("float64")
    values, index = t(a).mode(0, keepdim=True)
    tv, ti = torch.mode(torch.tensor(a), 0, keepdim=True)
    np.testing.assert_array_equal(values.numpy(), tv.numpy())
    np.testing.assert_array_equal(index.numpy(), ti.numpy())
    # distinct values: each is a mode, the smallest is taken (finite differences agree)
    check_grad(lambda y: core.mode(y, 1)[0], np.array([[1.5, 0.2, 3.0], [2.0, -1.0, 0.5]]))
    y = t([[1.0, 2.0, 1.0], [3.0, 3.0, 0.5]], grad=True)
    core.mode(y, 1)[0].sum().backward()  # with repeats the gradient goes to the index given
    np.testing.assert_array_equal(y.gradient(), [[0, 0, 1], [0, 1, 0]])
    # a 0-D tensor is its own mode at index 0, as in Paddle (tests/core/test_ops_zero_dim.py)
    assert [int(part) for part in core.mode(t(1.0))] == [1, 0]


def test_unique_consecutive_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    out, inverse, counts = core.unique_consecutive(t(a), True, True)
    tout, tinv, tcounts = torch.unique_consecutive(torch.tensor(a), True, True)
    for got, want in ((out, tout), (inverse, tinv), (counts, tcounts)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    b = np.array([[2, 2, 1, 1], [0, 0, 3, 1]])
    out, counts = t(b).unique_consecutive(return_counts=True, axis=1, dtype="int32")
    tout, tcounts = torch.unique_consecutive(torch.tensor(b), return_counts=True, dim=1)
    np.testing.assert_array_equal(out.numpy(), tout.numpy())
    np.testing.assert_array_equal(counts.numpy(), tcounts.numpy())
    assert counts.dtype == np.int32


# ----- tests (core/logic.py) ---------------------------------------------------------------------

def test_isin_and_infinity_and_dtype_tests():
    x = t([1.0, np.inf, -np.inf, 2.0, np.nan])
    np.testing.assert_array_equal(core.isin(x, t([2.0, 1.0])).numpy(),
                                  [True, False, False, True, False])
    np.testing.assert_array_equal(x.isin(t([2.0]), invert=True).numpy(),
                                  [True, True, True, False, True])
    np.testing.assert_array_equal(core.isposinf(x).numpy(), [0, 1, 0, 0, 0])
    np.testing.assert_array_equal(x.isneginf().numpy(), [0, 0, 1, 0, 0])
    assert not core.isposinf(t([1, 2])).numpy().any()
    assert core.isreal(x).numpy().all()
    assert core.is_empty(t(np.ones((0, 2)))).item() and not x.is_empty().item()
    assert core.is_floating_point(x) and not core.is_integer(x) and not x.is_complex()
    assert core.is_integer(t([1])) and not core.is_integer(t([True]))
    np.testing.assert_array_equal(core.less(x, 2.0).numpy(), x.numpy() < 2)
    with pytest.raises(TypeError, match="isin: 'test_x' must be a Tensor"):
        core.isin(x, [1.0])


# ----- element-wise math -------------------------------------------------------------------------

A = np.array([-2.5, -0.7, 0.3, 1.2, 4.0])
B = np.array([1.5, -2.0, 3.0, -0.5, 0.8])


@pytest.mark.parametrize("name,torch_name", [
    ("hypot", "hypot"), ("logaddexp", "logaddexp"), ("copysign", "copysign"),
    ("fmax", "fmax"), ("fmin", "fmin"), ("nextafter", "nextafter"),
])
def test_binary_functions_match_torch(name, torch_name):
    torch = pytest.importorskip("torch")
    got = getattr(core, name)(t(A), t(B)).numpy()
    want = getattr(torch, torch_name)(torch.tensor(A), torch.tensor(B)).numpy()
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(getattr(t(A), name)(t(B)).numpy(), want)
    if name != "nextafter":
        check_grad(lambda x, y: getattr(core, name)(x, y), A, B[:1])  # y broadcasts


def test_fmax_fmin_ignore_nan_and_gcd_lcm_ldexp():
    x, y = t([np.nan, 1.0, np.nan]), t([2.0, np.nan, np.nan])
    np.testing.assert_array_equal(core.fmax(x, y).numpy(), [2.0, 1.0, np.nan])
    np.testing.assert_array_equal(core.fmin(x, y).numpy(), [2.0, 1.0, np.nan])
    np.testing.assert_array_equal(core.gcd(t([12, 0, -9]), t([8, 0, 6])).numpy(), [4, 0, 3])
    np.testing.assert_array_equal(t([4, 0, -3]).lcm(t([6, 5, 2])).numpy(), [12, 0, 6])
    with pytest.raises(TypeError, match="gcd: x must be an integer tensor"):
        core.gcd(t([1.0]), t([2]))
    out = core.ldexp(t([1, 3]), t([2, -1]))
    assert out.dtype == np.float32 and out.numpy().tolist() == [4.0, 1.5]
    check_grad(lambda v: core.ldexp(v, t([1, -2, 3, 0, 2])), A)
    with pytest.raises(TypeError, match="ldexp: y must be a real tensor"):  # float y: as Paddle
        core.ldexp(t(A), t(B + 0j))


@pytest.mark.parametrize("name,torch_fn", [
    ("sinc", "sinc"), ("deg2rad", "deg2rad"), ("rad2deg", "rad2deg"), ("lgamma", "lgamma"),
    ("gammaln", "lgamma"), ("digamma", "digamma"), ("i0", "special.i0"),
    ("i0e", "special.i0e"), ("i1", "special.i1"), ("i1e", "special.i1e"), ("sgn", "sgn"),
    ("neg", "neg"), ("negative", "negative"), ("positive", "positive"),
])
def test_unary_functions_match_torch(name, torch_fn):
    torch = pytest.importorskip("torch")
    fn = torch
    for part in torch_fn.split("."):
        fn = getattr(fn, part)
    a = np.array([-2.5, -0.7, 0.3, 1.2, 4.0, 0.0]) if name not in ("lgamma", "gammaln",
                                                                   "digamma") else A
    np.testing.assert_allclose(getattr(core, name)(t(a)).numpy(), fn(torch.tensor(a)).numpy(),
                               rtol=1e-10, atol=1e-12)
    if name not in ("negative", "positive"):
        np.testing.assert_allclose(getattr(t(a), name)().numpy(), fn(torch.tensor(a)).numpy(),
                                   rtol=1e-10, atol=1e-12)
    if name not in ("sgn", "positive"):
        check_grad(getattr(core, name), A if name != "digamma" else A + 3, rtol=1e-4)


def test_polygamma_multigammaln_and_the_host_fallbacks():
    torch = pytest.importorskip("torch")
    a = np.array([0.3, 1.7, 4.0])
    for n in (0, 1, 3):
        np.testing.assert_allclose(core.polygamma(t(a), n).numpy(),
                                   torch.polygamma(n, torch.tensor(a)).numpy(), rtol=1e-9)
    check_grad(lambda x: core.polygamma(x, 1), a, rtol=1e-4)
    np.testing.assert_allclose(t(a + 2).multigammaln(3).numpy(),
                               torch.special.multigammaln(torch.tensor(a + 2), 3).numpy())
    check_grad(lambda x: core.multigammaln(x, 2), a + 2, rtol=1e-4)
    with pytest.raises(ValueError, match="polygamma: n must be a non-negative int"):
        core.polygamma(t(a), -1)
    from core.elementwise import _HOST_FALLBACKS  # the functions used on a host without scipy

    b = np.array([-2.5, 0.3, 1.7, 4.0, 10.0, 1e-3])
    np.testing.assert_allclose(_HOST_FALLBACKS["digamma"](b), torch.digamma(torch.tensor(b)),
                               rtol=1e-10)
    np.testing.assert_allclose(_HOST_FALLBACKS["gammaln"](b), torch.lgamma(torch.tensor(b)),
                               rtol=1e-12)


def test_signbit_nan_to_num_stanh_sigmoid_frexp_and_vander():
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(core.signbit(t([-0.0, 0.0, -1.0, 2.0])).numpy(),
                                  [True, False, True, False])
    x = t([np.nan, np.inf, -np.inf, 1.5], dtype="float32")
    f32 = np.finfo("float32")
    np.testing.assert_array_equal(core.nan_to_num(x).numpy(), [0, f32.max, f32.min, 1.5])
    np.testing.assert_array_equal(x.nan_to_num(1.0, 2.0, -2.0).numpy(), [1, 2, -2, 1.5])
    check_grad(lambda v: core.nan_to_num(v), A)
    np.testing.assert_allclose(core.stanh(t(A)).numpy(), 1.7159 * np.tanh(0.67 * A))
    check_grad(lambda v: core.stanh(v, 0.5, 2.0), A)
    np.testing.assert_allclose(t(A * 300).sigmoid().numpy(),
                               torch.sigmoid(torch.tensor(A * 300)).numpy())
    check_grad(lambda v: v.sigmoid(), A)
    mantissa, exponent = core.frexp(t(A))
    np.testing.assert_array_equal(mantissa.numpy() * 2 ** exponent.numpy(), A)
    np.testing.assert_allclose(core.vander(t(A), 3).numpy(), np.vander(A, 3))
    np.testing.assert_allclose(t(A).vander(increasing=True).numpy(), np.vander(A,
                                                                               increasing=True))
    check_grad(lambda v: core.vander(v, 4), A)
    with pytest.raises(ValueError, match="vander: x must be 1-D"):
        core.vander(t(np.ones((2, 2))))
    with pytest.raises(TypeError, match="positive: x must be a numeric tensor, got dtype bool"):
        core.positive(t([True]))


# ----- linalg: mv, dist, and methods for existing functions ------------------------------------

def test_mv_dist_and_linalg_methods():
    m, v = rng.normal(size=(3, 4)), rng.normal(size=4)
    np.testing.assert_allclose(core.mv(t(m), t(v)).numpy(), m @ v)
    check_grad(core.mv, m, v)
    with pytest.raises(ValueError, match="mv: x must be \\[m, n\\] and vec \\[n\\]"):
        core.mv(t(m), t(np.ones(3)))
    for p in (2.0, 1.0, 0.0, np.inf, -np.inf, 3):
        want = np.linalg.norm((m - v).reshape(-1), p) if p else np.count_nonzero(m - v)
        np.testing.assert_allclose(core.dist(t(m), t(v), p).numpy(), want)
    check_grad(lambda x, y: x.dist(y, 3.0), m, v)
    np.testing.assert_allclose(t(m).cov().numpy(), np.cov(m))
    np.testing.assert_allclose(t(m).corrcoef().numpy(), np.corrcoef(m))
    sq = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(t(sq).solve(t(m)).numpy(), np.linalg.solve(sq, m))
    np.testing.assert_allclose(t(m).tensordot(t(m.T), 1).numpy(), m @ m.T)
    np.testing.assert_allclose(t(m).addmm(t(m), t(np.eye(4)), 2.0).numpy(), 3 * m)


# ----- in-place variants ------------------------------------------------------------------------

def test_reshaping_in_place_methods_and_functions():
    x = t(np.arange(6.0).reshape(2, 3))
    assert x.reshape_([3, 2]) is x and x.shape == [3, 2]
    assert x.flatten_().shape == [6]
    assert x.unsqueeze_([0, 2]).shape == [1, 6, 1]
    assert x.squeeze_().shape == [6]
    y = core.reshape_(x, [2, 3])
    assert y is x and core.transpose_(x, [1, 0]).shape == [3, 2]
    assert core.t_(x).shape == [2, 3]
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
    assert x.cast_("int32") is x and x.dtype == np.int32
    leaf = t([1.0, 2.0], grad=True)
    with pytest.raises(ValueError, match="Tensor.reshape_: the tensor is a leaf tensor"):
        leaf.reshape_([2, 1])
    with core.no_grad():
        assert leaf.unsqueeze_(0).shape == [1, 2]


def test_value_in_place_methods_match_their_functions():
    a = rng.normal(size=(3, 4))
    mask = a > 0
    x = t(a)
    assert x.masked_fill_(t(mask), 0.0) is x
    np.testing.assert_array_equal(x.numpy(), np.where(mask, 0.0, a))
    x = t(a)
    core.index_fill_(x, t([1]), 0, 9.0)
    assert (x.numpy()[1] == 9).all()
    x = t(a)
    x.index_add_(t([0]), 1, t(np.ones((3, 1))))
    np.testing.assert_allclose(x.numpy()[:, 0], a[:, 0] + 1)
    x = t(a)
    x.index_put_((t([0]), t([0])), t(5.0))
    assert x.numpy()[0, 0] == 5
    x = t(a)
    x.masked_scatter_(t(mask), t(np.zeros(12)))
    np.testing.assert_array_equal(x.numpy(), np.where(mask, 0.0, a))
    for name, fn in (("sin_", np.sin), ("tan_", np.tan), ("floor_", np.floor),
                     ("log1p_", lambda v: np.log1p(np.abs(v))), ("square_", np.square),
                     ("neg_", np.negative)):
        x = t(np.abs(a) if name == "log1p_" else a)
        assert getattr(x, name)() is x
        np.testing.assert_allclose(x.numpy(), fn(a), rtol=1e-12)
    x = t(a)
    x.tril_(1)
    np.testing.assert_array_equal(x.numpy(), np.tril(a, 1))
    x = t(a)
    x.cumsum_(1)
    np.testing.assert_allclose(x.numpy(), np.cumsum(a, 1))
    x = t(a)
    x.pow_(2)
    np.testing.assert_allclose(x.numpy(), a ** 2)
    x = t(np.array([12, 9]))
    x.gcd_(t(np.array([8, 6])))
    assert x.numpy().tolist() == [4, 3]
    x = t(np.array([3, -2]))
    x.abs_()
    assert x.numpy().tolist() == [3, 2]
    with pytest.raises(TypeError, match="Tensor.sin_: the tensor has dtype int64"):
        t([1, 2]).sin_()
    with pytest.raises(ValueError, match="Tensor.masked_fill_: the tensor is a leaf tensor"):
        t(a, grad=True).masked_fill_(t(mask), 0.0)
    with pytest.raises(ValueError, match="Tensor.index_add_: the operand needs a gradient"):
        t(a).index_add_(t([0]), 1, t(np.ones((3, 1)), grad=True))
