"""cumsum, maximum/minimum (Paddle's tie rule), expand, tile, chunk, cast, linspace, one_hot and
normalize: values against numpy/torch and float64 finite-difference gradients."""
import numpy as np
import pytest

import core
from core.nn import functional as F
from tests.gradcheck import check_grad

rng = np.random.default_rng(12)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_values_and_gradients(axis):
    a = rng.normal(size=(3, 4))
    want = np.cumsum(a) if axis is None else np.cumsum(a, axis=axis)
    np.testing.assert_allclose(core.cumsum(t(a), axis).numpy(), want)
    check_grad(lambda x: core.cumsum(x, axis), a)
    assert t([1, 2, 3]).cumsum().dtype == np.int64


def test_maximum_minimum_values_gradients_and_ties():
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    np.testing.assert_array_equal(core.maximum(t(a), t(b)).numpy(), np.maximum(a, b))
    np.testing.assert_array_equal(core.minimum(t(a), t(b)).numpy(), np.minimum(a, b))
    check_grad(core.maximum, a, b)
    check_grad(core.minimum, a, b)
    # ties: Paddle's kernels send the whole gradient to y (dx = g*(x > y), dy = g*(x <= y))
    for fn in (core.maximum, core.minimum):
        x, y = t([1.0, 2.0], grad=True), t([1.0, 0.0], grad=True)
        fn(x, y).sum().backward()
        want_x = [0.0, 1.0] if fn is core.maximum else [0.0, 0.0]
        np.testing.assert_array_equal(x.gradient(), want_x)
        np.testing.assert_array_equal(y.gradient(), 1 - np.array(want_x))


def test_expand_tile_and_chunk():
    a = rng.normal(size=(3, 1))
    assert core.expand(t(a), [2, 3, 4]).shape == [2, 3, 4]
    np.testing.assert_array_equal(core.expand(t(a), [-1, 5]).numpy(), np.broadcast_to(a, (3, 5)))
    check_grad(lambda x: core.expand(x, [2, -1, 4]), a)
    with pytest.raises(ValueError, match="expand"):
        core.expand(t(a), [4, 2])
    b = rng.normal(size=(2, 3))
    for reps in ([2, 1], [1, 3], [2, 2, 2], [2]):
        np.testing.assert_array_equal(core.tile(t(b), reps).numpy(), np.tile(b, reps))
        check_grad(lambda x, reps=reps: core.tile(x, reps), b)
    parts = core.chunk(t(b), 3, axis=1)
    assert [p.shape for p in parts] == [[2, 1]] * 3
    check_grad(lambda x: core.chunk(x, 2, axis=0)[1], b)
    with pytest.raises(ValueError, match="equal parts"):
        core.chunk(t(b), 2, axis=1)


def test_cast_is_differentiable_between_floats_only():
    a = rng.normal(size=(2, 3))
    # float32 rounding: a wide step keeps the difference quotient accurate (the map is linear)
    check_grad(lambda x: core.cast(x, "float32").cast("float64"), a, rtol=1e-4, atol=1e-5, eps=1e-2)
    x = t(a, grad=True)
    as_int = core.cast(x, "int64")
    assert as_int.dtype == np.int64 and as_int.stop_gradient
    assert core.cast(t([1, 2]), "float32").stop_gradient


def test_linspace():
    got = core.linspace(0, 1, 5)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_array_equal(core.linspace(1, 2, 1).numpy(), [1.0])
    np.testing.assert_array_equal(core.linspace(0, 10, 3, dtype="int64").numpy(), [0, 5, 10])
    with pytest.raises(ValueError, match="num"):
        core.linspace(0, 1, -1)


def test_one_hot():
    got = F.one_hot(t([[2, 0], [1, 1]]), 3)
    assert got.shape == [2, 2, 3] and got.dtype == np.float32
    np.testing.assert_array_equal(got.numpy()[0], [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="out of range"):
        F.one_hot(t([3]), 3)


@pytest.mark.parametrize("p, axis", [(2, 1), (1, 0), (3, -1)])
def test_normalize_values_gradients_and_torch(p, axis):
    a = rng.normal(size=(3, 4))
    want = a / np.maximum((np.abs(a) ** p).sum(axis=axis, keepdims=True) ** (1 / p), 1e-12)
    np.testing.assert_allclose(F.normalize(t(a), p=p, axis=axis).numpy(), want, rtol=1e-12)
    check_grad(lambda x: F.normalize(x, p=p, axis=axis), a)
    torch = pytest.importorskip("torch")
    theirs = torch.nn.functional.normalize(torch.tensor(a), p=p, dim=axis)
    np.testing.assert_allclose(F.normalize(t(a), p=p, axis=axis).numpy(), theirs, rtol=1e-12)


def test_normalize_of_a_zero_row_is_zero_with_a_finite_gradient():
    x = t(np.array([[0.0, 0.0], [3.0, 4.0]]), grad=True)
    out = F.normalize(x)
    np.testing.assert_allclose(out.numpy(), [[0, 0], [0.6, 0.8]])
    out.sum().backward()
    assert np.isfinite(x.gradient()).all()
    np.testing.assert_allclose(x.gradient()[0], [1e12, 1e12])  # g / epsilon
