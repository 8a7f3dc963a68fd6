"""Reductions (prod, var, std, logsumexp, cumprod), shape/select ops (flip, roll, unbind, tril,
triu, broadcast_to, expand_as, masked_fill, diag), products (add_n, dot, mm, bmm), floor_divide
and remainder (with // and %), comparisons (allclose, isclose, equal_all) and creation
(meshgrid, randperm, normal, uniform): values against numpy/torch, gradients against float64
finite differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(33)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


# ----- reductions -------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod_values_and_gradients(axis, keepdim):
    a = rng.uniform(0.5, 1.5, size=(2, 3, 4))
    want = np.prod(a, axis=None if axis is None else tuple(np.atleast_1d(axis)), keepdims=keepdim)
    got = core.prod(t(a), axis, keepdim)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert got.shape == list(np.shape(want))
    check_grad(lambda x: core.prod(x, axis, keepdim), a)


def test_prod_gradient_with_zeros_dtype_and_method():
    a = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.5, 2.0, -1.0]])
    check_grad(lambda x: core.prod(x, 1), a)
    check_grad(lambda x: core.prod(x), a)
    assert core.prod(t([[1, 2], [3, 4]])).shape == []
    assert t([1, 2, 3]).prod(dtype="float64").dtype == np.float64
    assert int(t([1, 2, 3]).prod()) == 6
    small = t([1, 2, 3], dtype="int32")
    assert core.prod(small).dtype == np.int32 and core.cumprod(small).dtype == np.int32


@pytest.mark.parametrize("unbiased", [True, False])
@pytest.mark.parametrize("axis", [None, 0, [1, 2], -1])
def test_var_and_std_match_torch(unbiased, axis):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4, 5))
    dims = None if axis is None else axis
    tx = torch.tensor(a)
    for fn, tfn in ((core.var, torch.var), (core.std, torch.std)):
        want = tfn(tx, dim=dims, unbiased=unbiased) if dims is not None else tfn(
            tx, unbiased=unbiased)
        np.testing.assert_allclose(fn(t(a), axis, unbiased).numpy(), want.numpy(), rtol=1e-10)
        kept = fn(t(a), axis, unbiased, True)
        assert kept.ndim == 3
        check_grad(lambda x, fn=fn: fn(x, axis, unbiased), a)
        check_grad(lambda x, fn=fn: fn(x, axis, unbiased, True), a)
    assert core.var(t(a)).shape == [] and t(a).std(axis=0).shape == [4, 5]


def test_var_of_one_sample_is_zero_unbiased_and_int_input_is_refused():
    assert core.var(t([2.0])).item() == 0.0  # Paddle's divisor max(n - 1, 1)
    assert core.var(t([2.0]), unbiased=False).item() == 0.0
    with pytest.raises(TypeError, match="var: x must be a floating"):
        core.var(t([1, 2, 3]))


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
def test_logsumexp_values_gradients_and_stability(axis):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4)) * 5
    dims = (0, 1) if axis is None else axis
    want = torch.logsumexp(torch.tensor(a), dim=dims).numpy()
    np.testing.assert_allclose(core.logsumexp(t(a), axis).numpy(), want, rtol=1e-12)
    check_grad(lambda x: core.logsumexp(x, axis), a)
    check_grad(lambda x: core.logsumexp(x, axis, True), a)
    big = t([[1000.0, 1000.0], [-1000.0, -1000.0]])
    np.testing.assert_allclose(big.logsumexp(axis=1).numpy(),
                               [1000 + np.log(2), -1000 + np.log(2)])


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_cumprod_values_and_gradients(dim):
    a = rng.uniform(0.5, 1.5, size=(3, 4))
    want = np.cumprod(a) if dim is None else np.cumprod(a, axis=dim)
    np.testing.assert_allclose(core.cumprod(t(a), dim).numpy(), want)
    check_grad(lambda x: core.cumprod(x, dim), a)


def test_cumprod_gradient_with_zeros_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 1.5, 2.0, -1.0, 0.5],
                  [1.0, 2.0, 3.0, 4.0, 0.0]])
    check_grad(lambda x: core.cumprod(x, 1), a)
    x = t(a, grad=True)
    w = rng.normal(size=a.shape)
    (core.cumprod(x, 1) * t(w)).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (torch.cumprod(tx, 1) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy())
    assert t([1, 2, 3]).cumprod(dim=0, dtype="float32").dtype == np.float32


# ----- shapes and selection ---------------------------------------------------------------

def test_flip_and_roll():
    a = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(core.flip(t(a), 1).numpy(), np.flip(a, 1))
    np.testing.assert_array_equal(t(a).flip([0, -1]).numpy(), np.flip(a, (0, 2)))
    check_grad(lambda x: core.flip(x, [0, 2]), a)
    np.testing.assert_array_equal(core.roll(t(a), 2).numpy(), np.roll(a, 2))
    np.testing.assert_array_equal(core.roll(t(a), [1, -2], [0, 2]).numpy(),
                                  np.roll(a, (1, -2), (0, 2)))
    np.testing.assert_array_equal(t(a).roll(1, axis=1).numpy(), np.roll(a, 1, 1))
    check_grad(lambda x: core.roll(x, 5), a)
    check_grad(lambda x: core.roll(x, [1, -2], [0, 2]), a)
    with pytest.raises(ValueError, match="roll: shifts"):
        core.roll(t(a), [1, 2], [0])
    with pytest.raises(ValueError, match="flip: axis 3 is out of range"):
        core.flip(t(a), 3)


def test_unbind_gives_differentiable_slices():
    a = rng.normal(size=(3, 4))
    parts = core.unbind(t(a), axis=1)
    assert len(parts) == 4 and all(p.shape == [3] for p in parts)
    np.testing.assert_array_equal(parts[2].numpy(), a[:, 2])
    x = t(a, grad=True)
    first, second, third = x.unbind()
    (first * 2 + third).sum().backward()
    np.testing.assert_array_equal(x.gradient(), [[2.0] * 4, [0.0] * 4, [1.0] * 4])
    check_grad(lambda x: core.unbind(x, -1)[1], a)


@pytest.mark.parametrize("diagonal", [0, 1, -1, 5])
def test_tril_triu(diagonal):
    a = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(core.tril(t(a), diagonal).numpy(), np.tril(a, diagonal))
    np.testing.assert_array_equal(t(a).triu(diagonal).numpy(), np.triu(a, diagonal))
    check_grad(lambda x: core.tril(x, diagonal), a)
    check_grad(lambda x: core.triu(x, diagonal), a)


def test_tril_refuses_1d():
    with pytest.raises(ValueError, match="tril: x must have at least 2 dimensions"):
        core.tril(t([1.0, 2.0]))


def test_broadcast_to_and_expand_as():
    a = rng.normal(size=(3, 1))
    np.testing.assert_array_equal(core.broadcast_to(t(a), [2, 3, 4]).numpy(),
                                  np.broadcast_to(a, (2, 3, 4)))
    check_grad(lambda x: core.broadcast_to(x, [2, 3, 4]), a)
    y = t(np.zeros((2, 3, 5)))
    assert core.expand_as(t(a), y).shape == [2, 3, 5]
    check_grad(lambda x: t(a).expand_as(x) * x, rng.normal(size=(2, 3, 1)), wrt=[0])
    check_grad(lambda x: core.expand_as(x, y), a)
    with pytest.raises(ValueError, match="broadcast_to: cannot expand"):
        core.broadcast_to(t(a), [2, 2])


def test_masked_fill_values_and_gradients():
    a = rng.normal(size=(3, 4))
    mask = rng.random((3, 4)) > 0.5
    np.testing.assert_array_equal(core.masked_fill(t(a), t(mask), -1.0).numpy(),
                                  np.where(mask, -1.0, a))
    row = rng.random(4) > 0.5  # broadcast mask
    np.testing.assert_array_equal(t(a).masked_fill(t(row), 7).numpy(), np.where(row, 7, a))
    check_grad(lambda x: core.masked_fill(x, t(mask), 0.5), a)
    check_grad(lambda x, v: core.masked_fill(x, t(row), v), a, np.array(2.0))
    with pytest.raises(TypeError, match="masked_fill: mask must be a bool"):
        core.masked_fill(t(a), t(mask.astype("int64")), 0.0)


@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diag_both_ways(offset):
    v = rng.normal(size=4)
    np.testing.assert_array_equal(core.diag(t(v), offset).numpy(), np.diag(v, offset))
    padded = core.diag(t(v), offset, padding_value=9).numpy()
    want = np.where(np.eye(4 + abs(offset), k=offset, dtype=bool), np.diag(v, offset), 9)
    np.testing.assert_array_equal(padded, want)
    check_grad(lambda x: core.diag(x, offset), v)
    m = rng.normal(size=(3, 5))
    np.testing.assert_array_equal(core.diag(t(m), offset).numpy(), np.diag(m, offset))
    check_grad(lambda x: core.diag(x, offset), m)
    with pytest.raises(ValueError, match="diag: x must be 1-D or 2-D"):
        core.diag(t(np.zeros((2, 2, 2))))


# ----- products and arithmetic ------------------------------------------------------------

def test_add_n():
    arrays = [rng.normal(size=(2, 3)) for _ in range(3)]
    np.testing.assert_allclose(core.add_n([t(a) for a in arrays]).numpy(), sum(arrays))
    np.testing.assert_array_equal(core.add_n(t(arrays[0])).numpy(), arrays[0])
    check_grad(lambda x, y, z: core.add_n([x, y, z]), *arrays)
    with pytest.raises(ValueError, match="add_n: every input must have the same shape"):
        core.add_n([t(arrays[0]), t(np.zeros(3))])


def test_dot_mm_bmm():
    u, v = rng.normal(size=4), rng.normal(size=4)
    got = core.dot(t(u), t(v))
    assert got.shape == [] and np.isclose(got.item(), u @ v)
    check_grad(core.dot, u, v)
    p, q = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(t(p).dot(t(q)).numpy(), (p * q).sum(1))
    check_grad(core.dot, p, q)
    with pytest.raises(ValueError, match="dot: x and y"):
        core.dot(t(u), t(p))
    m = rng.normal(size=(4, 5))
    np.testing.assert_allclose(core.mm(t(p), t(m)).numpy(), p @ m)
    check_grad(core.mm, p, m)
    with pytest.raises(ValueError, match="mm: cannot multiply"):
        core.mm(t(p), t(p))
    b1, b2 = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5))
    np.testing.assert_allclose(t(b1).bmm(t(b2)).numpy(), b1 @ b2)
    check_grad(core.bmm, b1, b2)
    with pytest.raises(ValueError, match="bmm: x and y must be 3-D"):
        core.bmm(t(p), t(m))


def test_floor_divide_and_remainder_follow_python_for_negatives():
    torch = pytest.importorskip("torch")
    a = np.array([7, -7, 7, -7, 0, 5])
    b = np.array([2, 2, -2, -2, 3, -5])
    np.testing.assert_array_equal(core.floor_divide(t(a), t(b)).numpy(), a // b)
    np.testing.assert_array_equal((t(a) // t(b)).numpy(), a // b)
    np.testing.assert_array_equal(core.remainder(t(a), t(b)).numpy(), a % b)
    np.testing.assert_array_equal((t(a) % t(b)).numpy(), a % b)
    np.testing.assert_array_equal(core.mod(t(a), t(b)).numpy(), [1, 1, -1, -1, 0, 0])
    np.testing.assert_array_equal((t(a) % 3).numpy(), a % 3)
    np.testing.assert_array_equal((20 // t(b)).numpy(), 20 // b)
    np.testing.assert_array_equal((20 % t(b)).numpy(), 20 % b)
    f, g = rng.normal(size=(3, 4)) * 5, rng.uniform(0.5, 2, size=4) * np.array([1, -1, 1, -1])
    np.testing.assert_array_equal(t(f).floor_divide(t(g)).numpy(), f // g)
    np.testing.assert_allclose(t(f).remainder(t(g)).numpy(),
                               torch.remainder(torch.tensor(f), torch.tensor(g)).numpy())
    assert (t(f, grad=True) // t(g)).stop_gradient  # no gradient, as Paddle
    with pytest.raises(ZeroDivisionError, match="floor_divide: integer division by zero"):
        core.floor_divide(t([1, 2]), t([1, 0]))


def test_remainder_gradient_is_paddles():
    a = rng.normal(size=(3, 4)) * 5
    b = rng.uniform(0.5, 2, size=(4,)) * np.array([1, -1, 1, -1])
    x, y = t(a, grad=True), t(b, grad=True)
    w = rng.normal(size=(3, 4))
    (core.remainder(x, y) * t(w)).sum().backward()
    np.testing.assert_array_equal(x.gradient(), w)
    np.testing.assert_allclose(y.gradient(), (-w * np.floor(a / b)).sum(0))
    check_grad(core.remainder, a, b)  # away from the jumps: matches finite differences


# ----- comparisons --------------------------------------------------------------------------

def test_allclose_isclose_equal_all():
    a = np.array([1.0, 2.0, np.nan])
    b = np.array([1.0 + 1e-9, 2.1, np.nan])
    np.testing.assert_array_equal(core.isclose(t(a), t(b)).numpy(), np.isclose(a, b))
    np.testing.assert_array_equal(t(a).isclose(t(b), equal_nan=True).numpy(),
                                  np.isclose(a, b, equal_nan=True))
    out = core.allclose(t(a[:1]), t(b[:1]))
    assert out.shape == [] and out.dtype == np.bool_ and bool(out)
    assert not bool(core.allclose(t(a), t(b), atol=0.2))
    assert bool(t(a).allclose(t(b), atol=0.2, equal_nan=True))
    assert bool(core.equal_all(t([1, 2]), t([1, 2]))) and core.equal_all(t([1]), t([1])).ndim == 0
    assert not bool(core.equal_all(t([1, 2]), t([1, 3])))
    assert not bool(t([1, 2]).equal_all(t([1, 2, 3])))
    with pytest.raises(ValueError, match="rtol must be a non-negative"):
        core.allclose(t(a), t(b), rtol=-1.0)


# ----- creation ---------------------------------------------------------------------------

def test_meshgrid_values_and_gradients():
    x, y, z = rng.normal(size=3), rng.normal(size=4), rng.normal(size=2)
    grids = core.meshgrid(t(x), t(y), t(z))
    for got, want in zip(grids, np.meshgrid(x, y, z, indexing="ij")):
        np.testing.assert_array_equal(got.numpy(), want)
    assert [g.shape for g in core.meshgrid([t(x), t(y)])] == [[3, 4], [3, 4]]
    check_grad(lambda a, b: core.meshgrid(a, b)[0] * core.meshgrid(a, b)[1], x, y)
    with pytest.raises(ValueError, match="meshgrid: argument 1 must be 1-D"):
        core.meshgrid(t(x), t(np.zeros((2, 2))))


def test_randperm_normal_uniform_are_seeded():
    core.seed(5)
    p = core.randperm(10)
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(10))
    n, u = core.normal(shape=[1000]), core.uniform([1000], min=2.0, max=3.0)
    core.seed(5)
    np.testing.assert_array_equal(core.randperm(10).numpy(), p.numpy())
    np.testing.assert_array_equal(core.normal(shape=[1000]).numpy(), n.numpy())
    np.testing.assert_array_equal(core.uniform([1000], min=2.0, max=3.0).numpy(), u.numpy())
    assert n.dtype == np.float32 and abs(float(n.numpy().mean())) < 0.15
    assert u.dtype == np.float32 and 2.0 <= u.numpy().min() and u.numpy().max() < 3.0
    assert core.uniform([3], dtype="float64").dtype == np.float64
    np.testing.assert_array_equal(core.uniform([5], seed=3).numpy(),
                                  core.uniform([5], seed=3).numpy())
    assert core.randperm(4, dtype="int32").dtype == np.int32
    with pytest.raises(ValueError, match="normal: give shape"):
        core.normal()
    with pytest.raises(ValueError, match="uniform: min"):
        core.uniform([2], min=1.0, max=0.0)


def test_normal_with_tensor_mean_and_std_is_differentiable():
    mean = t(np.full((200, 50), 3.0), dtype="float32", grad=True)
    std = t(np.full((200, 50), 0.5), dtype="float32", grad=True)
    out = core.normal(mean, std)
    assert out.shape == [200, 50] and out.dtype == np.float32
    assert abs(float(out.numpy().mean()) - 3.0) < 0.05
    assert abs(float(out.numpy().std()) - 0.5) < 0.05
    out.sum().backward()
    np.testing.assert_array_equal(mean.gradient(), np.ones((200, 50)))
    np.testing.assert_allclose(std.gradient(), (out.numpy() - 3.0) / 0.5, rtol=1e-5, atol=1e-5)
    assert core.normal(0.0, t([1.0, 2.0], dtype="float32")).shape == [2]
