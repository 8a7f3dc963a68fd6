"""Activation functions and layers: values, numerical stability, finite-difference gradients."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad


def _away_from_zero(shape, seed=0):
    """Inputs with |x| >= 0.1, so ReLU's kink never sits inside a finite difference."""
    x = np.random.default_rng(seed).standard_normal(shape)
    return np.where(np.abs(x) < 0.1, 0.5, x)


def test_relu_values_and_gradient_mask():
    x = core.to_tensor([[-2.0, 0.0, 3.0]], stop_gradient=False)
    out = F.relu(x)
    np.testing.assert_array_equal(out.numpy(), [[0.0, 0.0, 3.0]])
    out.backward(core.to_tensor([[5.0, 6.0, 7.0]]))
    np.testing.assert_array_equal(x.gradient(), [[0.0, 0.0, 7.0]])  # no gradient at the kink


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (8, 64, 64, 4)])  # under / over the fast path
def test_relu_keeps_layout_and_nan_at_any_size(shape):
    """Small arrays take plain numpy calls (no layout or thread work), large ones the blocked
    kernels: same values, NaN passed through, the input's memory order kept, same mask."""
    z = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    z.flat[::7] = np.nan
    x = core.to_tensor(z, stop_gradient=False)
    view = core.transpose(x, [0, 3, 1, 2])  # an NCHW view of NHWC memory, as conv2d emits
    y = F.relu(view)
    np.testing.assert_array_equal(y.numpy(), np.maximum(z, 0).transpose(0, 3, 1, 2))
    assert np.argsort(y.data.strides).tolist() == np.argsort(view.data.strides).tolist()
    (y * 1.0).backward(core.to_tensor(np.ones(y.shape, np.float32)))
    np.testing.assert_array_equal(x.gradient(), (np.maximum(z, 0) > 0).astype(np.float32))


@pytest.mark.parametrize("fn", [F.relu, F.sigmoid, F.tanh])
def test_elementwise_gradients(fn):
    check_grad(fn, _away_from_zero((3, 4)))


def test_sigmoid_and_tanh_values_without_overflow():
    x = np.array([-1000.0, -3.0, 0.0, 2.0, 1000.0], dtype=np.float32)
    with np.errstate(over="ignore"):
        expected = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    got = F.sigmoid(core.to_tensor(x)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(F.tanh(core.to_tensor(x)).numpy(), np.tanh(x), rtol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_values_and_gradient(axis):
    x = np.random.default_rng(1).standard_normal((3, 4, 2))
    p = F.softmax(core.to_tensor(x), axis=axis).numpy()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(axis=axis, keepdims=True), rtol=1e-12)
    check_grad(lambda t: F.softmax(t, axis=axis), x)


def test_softmax_last_axis_by_any_name_takes_the_row_path():
    """axis=-1 (the default) is the last axis: the same row-block path as axis=ndim-1 (GEMV
    sums, blocks over core's threads), so both give the same bits, forward and backward."""
    rng = np.random.default_rng(4)
    x, g = (rng.standard_normal((8, 4, 64, 64)).astype(np.float32) for _ in range(2))
    results = []
    for axis in (-1, 3):
        t = core.to_tensor(x, stop_gradient=False)
        out = F.softmax(t, axis=axis)
        out.backward(core.to_tensor(g))
        results.append((out.numpy(), t.gradient()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def _softmax64(x):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("spread", [8.0, 1000.0])  # one shift per block / each row's maximum
def test_softmax_of_large_blocks_matches_float64_at_any_spread(spread):
    """Blocks whose values span little are shifted by one scalar (no per-row maximum), the
    others row by row: float32 results within a few ulps of float64 either way, no overflow,
    no NaN, every row summing to 1."""
    rng = np.random.default_rng(5)
    lift = np.linspace(0, spread, 64)[:, None]  # each query row at another height
    x = rng.uniform(-4, 4, (16, 4, 64, 64)) + lift
    got = F.softmax(core.to_tensor(x.astype(np.float32))).numpy()
    np.testing.assert_allclose(got, _softmax64(x.astype(np.float32)), rtol=3e-6, atol=1e-30)
    np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-5)


def test_softmax_rows_with_nan_or_infinities_keep_their_row_maximum():
    """A block holding NaN or infinities never takes the one-scalar shift: masked (-inf) keys
    get 0, a NaN row stays NaN, and the finite rows of the same block are exact as ever."""
    x = np.random.default_rng(6).standard_normal((64, 128)).astype(np.float32)
    x[3, :40] = -np.inf  # a mask
    x[7, 5] = np.nan
    got = F.softmax(core.to_tensor(x)).numpy()
    want = _softmax64(x)
    assert np.isnan(got[7]).all()
    finite = np.arange(64) != 7
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=1e-30)
    np.testing.assert_array_equal(got[3, :40], 0.0)


@pytest.mark.parametrize("axis", [-1, 1])
def test_log_softmax_values_and_gradient(axis):
    x = np.random.default_rng(2).standard_normal((2, 5, 3))
    got = F.log_softmax(core.to_tensor(x), axis=axis).numpy()
    np.testing.assert_allclose(got, np.log(F.softmax(core.to_tensor(x), axis).numpy()),
                               rtol=1e-10)
    check_grad(lambda t: F.log_softmax(t, axis=axis), x)


def test_softmax_family_is_stable_for_huge_logits():
    x = core.to_tensor([[1000.0, 0.0, -1000.0]])
    np.testing.assert_allclose(F.softmax(x).numpy(), [[1.0, 0.0, 0.0]])
    assert np.isfinite(F.log_softmax(x).numpy()).all()
    np.testing.assert_allclose(F.log_softmax(x).numpy()[0, :2], [0.0, -1000.0])


def test_softmax_bad_axis_is_named():
    with pytest.raises(ValueError, match="axis=2"):
        F.softmax(core.to_tensor(np.zeros((2, 2))), axis=2)


@pytest.mark.parametrize("layer,fn", [
    (nn.ReLU(), F.relu), (nn.Sigmoid(), F.sigmoid), (nn.Tanh(), F.tanh),
    (nn.Softmax(axis=0), lambda t: F.softmax(t, axis=0)),
    (nn.LogSoftmax(), F.log_softmax),
])
def test_layers_match_functional_and_have_gradients(layer, fn):
    x = _away_from_zero((2, 3), seed=3)
    np.testing.assert_array_equal(layer(core.to_tensor(x)).numpy(), fn(core.to_tensor(x)).numpy())
    check_grad(layer, x)
    assert layer.parameters() == []


@pytest.mark.parametrize("layout", ["contiguous", "channels_last_view"])
@pytest.mark.usefixtures("split_small_work")
def test_relu_split_over_threads_matches_one_thread(layout):
    """Large activations are split over core's threads along their outermost memory axis."""
    z = np.random.default_rng(3).standard_normal((16, 28, 28, 20)).astype(np.float32)
    z = z if layout == "contiguous" else z.transpose(0, 3, 1, 2)  # an NCHW view of NHWC memory
    g = np.cos(np.arange(z.size, dtype=np.float32)).reshape(z.shape)
    results = []
    for threads in (1, 2):
        core.device.set_num_threads(threads)
        try:
            x = core.to_tensor(z, stop_gradient=False)
            y = F.relu(x) * 1.0  # a consumer that is not a pool: ReLU's own mask pass runs
            y.backward(core.to_tensor(g))
            results.append((y.numpy(), x.gradient()))
        finally:
            core.device.set_num_threads(1)
    np.testing.assert_array_equal(results[0][0], np.maximum(z, 0))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])
    np.testing.assert_array_equal(results[0][1], g * (z > 0))
