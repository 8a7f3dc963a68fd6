"""MaxPool1D, AdaptiveAvgPool2D, AdaptiveMaxPool2D: gradients, first-max ties, torch parity."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _distinct(shape):
    return RNG.permutation(np.prod(shape)).reshape(shape) * 0.1


def _ties(shape):
    return np.maximum(RNG.integers(-3, 2, size=shape), 0).astype(np.float64)  # ReLU'd: zeros


@pytest.mark.parametrize("size", [1, (2, 3), (3, 2), (4, 5), [None, 2]])
def test_adaptive_pools_gradients(size):
    x = _distinct((2, 2, 7, 5))
    check_grad(lambda t: F.adaptive_avg_pool2d(t, size), x)
    check_grad(lambda t: F.adaptive_max_pool2d(t, size), x)


@pytest.mark.parametrize("size", [1, (2, 3), (3, 2), (4, 5)])
def test_adaptive_pools_match_torch_on_tied_data(size):
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 7, 5))
    for mine, theirs in ((nn.AdaptiveAvgPool2D(size), torch.nn.AdaptiveAvgPool2d(size)),
                         (nn.AdaptiveMaxPool2D(size), torch.nn.AdaptiveMaxPool2d(size))):
        xt = core.to_tensor(x, stop_gradient=False)
        out = mine(xt)
        t = torch.tensor(x, requires_grad=True)
        want = theirs(t)
        g = RNG.standard_normal(out.shape)
        out.backward(core.to_tensor(g))
        want.backward(torch.tensor(g))
        np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k, s, p, ceil", [(2, None, 0, False), (3, 2, 1, False),
                                           (2, 2, 0, True), (3, 2, [1], True)])
def test_max_pool1d_matches_torch_on_ties_and_gradient(k, s, p, ceil):
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 9))
    xt = core.to_tensor(x, stop_gradient=False)
    out = nn.MaxPool1D(k, s, p, ceil_mode=ceil)(xt)
    t = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.max_pool1d(t, k, s, p[0] if isinstance(p, list) else p,
                                          ceil_mode=ceil)
    g = RNG.standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_array_equal(out.numpy(), want.detach().numpy())
    np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=1e-12)
    check_grad(lambda a: F.max_pool1d(a, k, s, p, ceil_mode=ceil), _distinct((1, 2, 9)))
