"""Batch norm's fused path for channels-innermost memory (core.channel_kernels) against torch
and finite differences: conv-style channels-last activations, [N, C] features, block edges
and core's threads."""
import numpy as np
import pytest

import core
from core.nn import functional as F

torch = pytest.importorskip("torch")


def _channels_last(shape, seed=0):
    """An NCHW view of NHWC memory, as conv2d emits (values off-centre to test the shift)."""
    n, c, h, w = shape
    data = np.random.default_rng(seed).normal(3.0, 2.0, (n, h, w, c)).astype(np.float32)
    return data.transpose(0, 3, 1, 2)


@pytest.mark.usefixtures("split_small_work")
@pytest.mark.parametrize("threads", [1, 2])
# (33, 16, 30, 30): seven whole blocks seen widened, then a last one of 1028 rows, not; on two
# threads (the larger split blocks) one of 16384 rows widened and a last of 13316, not.
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (64, 8, 32, 32), (300, 7), (33, 16, 30, 30)])
@pytest.mark.parametrize("training", [True, False])
def test_matches_torch(shape, training, threads):
    previous = core.device.get_num_threads()
    core.device.set_num_threads(threads)
    try:
        data = _channels_last(shape) if len(shape) == 4 else \
            np.random.default_rng(1).normal(3, 2, shape).astype(np.float32)
        c = shape[1]
        rng = np.random.default_rng(2)
        w0, b0 = rng.normal(1, 0.3, c).astype(np.float32), rng.normal(0, 0.3, c).astype(np.float32)
        m0, v0 = rng.normal(0, 1, c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32)
        g = rng.standard_normal(data.shape).astype(np.float32)

        x = core.to_tensor(data, stop_gradient=False)
        w, b = core.to_tensor(w0, stop_gradient=False), core.to_tensor(b0, stop_gradient=False)
        rm, rv = core.to_tensor(m0), core.to_tensor(v0)
        out = F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.9)
        (out * core.to_tensor(g)).sum().backward()

        tx = torch.tensor(np.ascontiguousarray(data), requires_grad=True)
        tw, tb = torch.tensor(w0, requires_grad=True), torch.tensor(b0, requires_grad=True)
        tm, tv = torch.tensor(m0), torch.tensor(v0)
        tout = torch.nn.functional.batch_norm(tx, tm, tv, tw, tb, training=training,
                                              momentum=0.1)
        (tout * torch.tensor(g)).sum().backward()

        tol = dict(rtol=2e-4, atol=2e-4 * np.sqrt(data.size / c))
        np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(w.gradient(), tw.grad.numpy(), **tol)
        np.testing.assert_allclose(b.gradient(), tb.grad.numpy(), **tol)
        np.testing.assert_allclose(rm.numpy(), tm.numpy(), rtol=1e-5, atol=1e-5)
        # Paddle folds the biased batch variance into running_var (torch: the unbiased one).
        axes = tuple(a for a in range(data.ndim) if a != 1)
        expected = v0 if not training else 0.9 * v0 + 0.1 * data.astype(np.float64).var(axes)
        np.testing.assert_allclose(rv.numpy(), expected, rtol=1e-4, atol=1e-5)
    finally:
        core.device.set_num_threads(previous)


def test_input_gradient_matches_finite_differences():
    data = _channels_last((3, 2, 2, 3)).astype(np.float64)
    rng = np.random.default_rng(3)
    weights = rng.standard_normal(data.shape)
    params = [core.to_tensor(rng.normal(1, 0.2, 2)), core.to_tensor(rng.normal(0, 0.2, 2))]

    def loss(values, grad=False):
        x = core.to_tensor(values, stop_gradient=not grad)
        out = F.batch_norm(x, core.to_tensor(np.zeros(2)), core.to_tensor(np.ones(2)),
                           *params, training=True)
        total = (out * core.to_tensor(weights)).sum()
        if grad:
            total.backward()
            return x.gradient()
        return float(total.item())

    analytic = loss(data, grad=True)
    numeric = np.zeros(data.shape)  # C order: flat below is a view
    flat, step = numeric.reshape(-1), 1e-6
    for i in range(data.size):
        up, down = data.copy(), data.copy()
        up.reshape(-1)[i] += step
        down.reshape(-1)[i] -= step
        flat[i] = (loss(up) - loss(down)) / (2 * step)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)
