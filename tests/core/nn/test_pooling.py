"""max_pool2d / avg_pool2d and their layers: gradients, first-max ties, torch parity, errors."""
import numpy as np
import pytest

import core
from core.nn.functional.pooling import avg_pool2d, max_pool2d
from core.nn.pooling import AvgPool2D, MaxPool2D
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _distinct(shape):
    """Values far apart (no ties), so finite differences never cross a window's maximum."""
    return RNG.permutation(np.prod(shape)).reshape(shape) * 0.1


def _loop_max_pool(x, g, k, s, p):
    """Reference by loops: output and the input gradient sent to each window's FIRST max."""
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    ho, wo = (xp.shape[2] - k) // s + 1, (xp.shape[3] - k) // s + 1
    out, dx = np.zeros(x.shape[:2] + (ho, wo)), np.zeros_like(xp)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for i in range(ho):
                for j in range(wo):
                    window = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    first = np.argmax(window)  # argmax returns the first maximum
                    out[n, c, i, j] = window.flat[first]
                    dx[n, c, i * s + first // k, j * s + first % k] += g[n, c, i, j]
    return out, dx[:, :, p:p + x.shape[2], p:p + x.shape[3]]


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1), (3, 1, 1), (2, 1, 0), (3, 3, 0)])
def test_max_pool_ties_send_gradient_to_first_maximum(k, s, p):
    (out, want_out), (dx, want_dx) = _beside_loop(_with_ties((2, 3, 8, 9)), k, s, p)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_max_pool_in_blocks_of_images_keeps_values_and_first_maximum_ties(monkeypatch, k, s, p):
    """Both passes run a few images at a time (cache-sized blocks): with blocks of 2 images over
    a batch of 5 (a ragged last block) the maxima and the gradient sent to each window's first
    maximum are the loop reference's."""
    from core.nn.functional import pooling

    x = _with_ties((5, 3, 8, 9))
    pooled = max_pool2d(core.to_tensor(x), k, s, p).numpy()
    monkeypatch.setattr(pooling, "_BLOCK_BYTES", 2 * pooled[0].nbytes)
    assert pooling._images_per_block(pooled, np) == 2  # blocks of 2, 2 and 1 images
    (out, want_out), (dx, want_dx) = _beside_loop(x, k, s, p)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


def _with_ties(shape):
    """Non-negative integers, many zeros: windows with tied maxima everywhere."""
    return np.maximum(RNG.integers(-3, 2, size=shape), 0).astype(np.float64)


def _beside_loop(x, k, s, p):
    """((max_pool2d's output, the loop reference's), (its input gradient, the reference's))
    for one random output gradient."""
    xt = core.to_tensor(x, stop_gradient=False)
    out = max_pool2d(xt, k, s, p)
    g = RNG.standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    want_out, want_dx = _loop_max_pool(x, g, k, s, p)
    return (out.numpy(), want_out), (xt.gradient(), want_dx)


def test_max_pool_tie_gradient_total_is_preserved():
    """Each window passes on exactly its output gradient: no duplication on all-zero windows."""
    x = core.to_tensor(np.zeros((1, 2, 4, 4), np.float32), stop_gradient=False)
    max_pool2d(x, 2).backward()  # output gradient of ones
    assert x.gradient().sum() == 8.0
    np.testing.assert_array_equal(x.gradient()[0, 0], [[1, 0, 1, 0], [0, 0, 0, 0]] * 2)


@pytest.mark.parametrize("k, s, p", [(2, None, 0), (3, 2, 1), ((3, 2), (1, 2), (1, 1))])
def test_max_pool_gradients(k, s, p):
    check_grad(lambda x: max_pool2d(x, k, s, p), _distinct((2, 2, 7, 6)))


@pytest.mark.parametrize("exclusive", [True, False])
@pytest.mark.parametrize("k, s, p", [(2, None, 0), (3, 2, 1), ((3, 2), (1, 2), (1, 0))])
def test_avg_pool_gradients(k, s, p, exclusive):
    check_grad(lambda x: avg_pool2d(x, k, s, p, exclusive=exclusive),
               RNG.standard_normal((2, 2, 7, 6)))


def test_avg_pool_exclusive_divides_by_real_elements_only():
    x = core.to_tensor(np.ones((1, 1, 4, 4)))
    np.testing.assert_allclose(avg_pool2d(x, 3, 1, 1).numpy(), np.ones((1, 1, 4, 4)))
    inclusive = avg_pool2d(x, 3, 1, 1, exclusive=False).numpy()[0, 0]
    assert inclusive[0, 0] == pytest.approx(4 / 9) and inclusive[1, 1] == pytest.approx(1.0)
    assert avg_pool2d(x, 2, divisor_override=2).numpy()[0, 0, 0, 0] == pytest.approx(2.0)
    check_grad(lambda x: avg_pool2d(x, 2, 1, divisor_override=3),
               RNG.standard_normal((1, 2, 4, 5)))


def test_pooling_nhwc_and_views():
    x = RNG.standard_normal((2, 3, 8, 6))
    ref = max_pool2d(core.to_tensor(x), 2).numpy()
    nhwc = max_pool2d(core.to_tensor(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC").numpy()
    np.testing.assert_array_equal(nhwc.transpose(0, 3, 1, 2), ref)
    check_grad(lambda x: avg_pool2d(x, 2, data_format="NHWC"), RNG.standard_normal((2, 4, 4, 3)))
    check_grad(lambda x: max_pool2d(x[:, :, 1:, ::2], 2), _distinct((2, 2, 7, 12)))


def test_pooling_matches_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    for k, s, p in ((2, 2, 0), (3, 2, 1), (3, 1, 1), ((2, 3), (2, 1), (1, 1))):
        x = np.maximum(RNG.standard_normal((4, 5, 11, 10)), 0)  # ReLU output: ties at 0
        for ours, theirs in ((max_pool2d, tf.max_pool2d),
                             (lambda *a: avg_pool2d(*a, exclusive=False), tf.avg_pool2d)):
            xt = core.to_tensor(x, stop_gradient=False)
            out = ours(xt, k, s, p)
            g = RNG.standard_normal(out.shape)
            out.backward(core.to_tensor(g))
            ref_x = torch.tensor(x, requires_grad=True)
            ref = theirs(ref_x, k, s, p)
            ref.backward(torch.tensor(g))
            np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12)
            np.testing.assert_allclose(xt.gradient(), ref_x.grad.numpy(), rtol=1e-12,
                                       atol=1e-12)


@pytest.mark.usefixtures("split_small_work")
def test_pooling_split_over_threads_matches():
    x = np.maximum(RNG.integers(-2, 3, size=(7, 3, 8, 8)), 0).astype(np.float32)
    results = []
    for threads in (1, 2):
        core.device.set_num_threads(threads)
        try:
            xt = core.to_tensor(x, stop_gradient=False)
            out = max_pool2d(xt, 2)
            out.backward(core.to_tensor(np.arange(out.size, dtype=np.float32)
                                        .reshape(out.shape)))
            results.append((out.numpy(), xt.gradient()))
        finally:
            core.device.set_num_threads(1)
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_pool_layers():
    x = core.to_tensor(RNG.standard_normal((2, 3, 6, 6)).astype(np.float32))
    np.testing.assert_array_equal(MaxPool2D(2)(x).numpy(), max_pool2d(x, 2).numpy())
    np.testing.assert_array_equal(AvgPool2D(3, 1, 1)(x).numpy(), avg_pool2d(x, 3, 1, 1).numpy())
    assert MaxPool2D(2).parameters() == [] and "kernel_size=2" in repr(MaxPool2D(2))


@pytest.mark.parametrize("call, message", [
    (lambda x: max_pool2d(x, 2, padding=2), "half the kernel"),
    (lambda x: max_pool2d(x, 0), "kernel_size"),
    (lambda x: max_pool2d(x, 2, return_mask=True, data_format="NHWC"), "return_mask"),
    (lambda x: avg_pool2d(x, 9), "does not fit"),
    (lambda x: avg_pool2d(x, 2, divisor_override=0), "divisor_override"),
    (lambda x: avg_pool2d(x, 2, data_format="NCWH"), "data_format"),
    (lambda x: max_pool2d(x[0], 2), "4-D")])
def test_pooling_rejects_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call(core.to_tensor(np.zeros((1, 2, 6, 6), np.float32)))


def _relu_then_pool(z, k, s, p, also=None, hook=None):
    """(dz, the gradient a hook on ReLU's output saw) of sum(pool(relu(z)) * g) [+ also(r)]."""
    zt = core.to_tensor(z, stop_gradient=False)
    r = core.nn.functional.relu(zt)
    seen = []
    if hook:
        r.register_hook(lambda grad: seen.append(grad.numpy().copy()))
    pooled = max_pool2d(r, k, s, p)
    g = np.cos(np.arange(pooled.size)).reshape(pooled.shape)
    loss = (pooled * core.to_tensor(g)).sum()
    if also is not None:
        loss = loss + also(r)
    loss.backward()
    return zt.gradient(), seen


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_relu_then_max_pool_gradient_matches_torch(k, s, p):
    """A max-pool after a ReLU masks its own gradient and ReLU's backward passes it through:
    the input gradient is unchanged, with and without other consumers and gradient hooks.
    Ties (zeros after the ReLU) are many here, and windows may overlap."""
    torch = pytest.importorskip("torch")
    z = np.round(RNG.standard_normal((3, 4, 9, 9)), 1)
    for also, hook in ((None, False), (lambda r: (r * r).sum(), False), (None, True)):
        ours, seen = _relu_then_pool(z, k, s, p, also, hook)
        zt = torch.tensor(z, requires_grad=True)
        rt = torch.relu(zt)
        rt.retain_grad()
        pooled = torch.nn.functional.max_pool2d(rt, k, s, p)
        g = np.cos(np.arange(pooled.numel())).reshape(pooled.shape)
        loss = (pooled * torch.tensor(g)).sum()
        if also is not None:
            loss = loss + (rt * rt).sum()
        loss.backward()
        np.testing.assert_allclose(ours, zt.grad.numpy(), rtol=1e-12, atol=1e-12)
        if hook:  # the hook saw ReLU's output gradient itself, not a masked one
            np.testing.assert_allclose(seen[0], rt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_relu_then_max_pool_skips_relus_mask_pass(monkeypatch):
    """With the pool as the ReLU output's only consumer, ReLU's backward does no work."""
    z = RNG.standard_normal((2, 3, 8, 8))
    want, _ = _relu_then_pool(z, 2, 2, 0, also=lambda r: r.sum() * 0)  # two consumers: masks

    def refuse(*args):
        raise AssertionError("ReLU's mask pass ran")

    monkeypatch.setattr(type(core.backend.kernels(z)), "relu_grad", refuse)
    got, _ = _relu_then_pool(z, 2, 2, 0)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k, s, p, size", [(2, 2, 0, (7, 9)), (3, 2, 1, (8, 6)),
                                           (3, 3, 0, (7, 8)), ((2, 3), (2, 2), (1, 1), (5, 7))])
def test_max_pool_ceil_mode_shape_values_and_first_max_gradient_match_torch(k, s, p, size):
    """Paddle's ceil_mode (was refused): the last partial window counts; ReLU'd data has ties."""
    torch = pytest.importorskip("torch")
    x = np.maximum(RNG.integers(-3, 2, size=(2, 3) + size), 0).astype(np.float64)
    xt = core.to_tensor(x, stop_gradient=False)
    out = max_pool2d(xt, k, s, p, ceil_mode=True)
    ref_x = torch.tensor(x, requires_grad=True)
    ref = torch.nn.functional.max_pool2d(ref_x, k, s, p, ceil_mode=True)
    assert out.shape == list(ref.shape)
    np.testing.assert_array_equal(out.numpy(), ref.detach().numpy())
    g = RNG.standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(xt.gradient(), ref_x.grad.numpy(), rtol=1e-12)


def test_max_pool_ceil_mode_gradient_and_avg_pool_ceil_mode():
    assert max_pool2d(core.to_tensor(np.zeros((1, 1, 7, 9))), 2, ceil_mode=True).shape == \
        [1, 1, 4, 5]  # floor mode: [1, 1, 3, 4]
    check_grad(lambda x: max_pool2d(x, 3, 2, ceil_mode=True), _distinct((1, 2, 6, 6)))
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((1, 2, 7, 7))
    got = avg_pool2d(core.to_tensor(x), 2, 2, ceil_mode=True).numpy()
    want = torch.nn.functional.avg_pool2d(torch.tensor(x), 2, 2, ceil_mode=True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
