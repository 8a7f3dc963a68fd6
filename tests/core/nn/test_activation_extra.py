"""Softplus, Mish, Swish, Hardsigmoid, Hardtanh, Softsign, Tanhshrink, PReLU: gradients against
float64 finite differences and values and gradients against torch."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.core.nn.torch_parity import assert_layer_matches_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)
# Away from the kinks (0, +-1, +-3, +-2.5), where finite differences straddle two pieces; the
# large values reach softplus's linear piece (beta x > threshold).
X = np.array([-25.0, -5.0, -3.7, -2.2, -1.1, -0.4, 0.3, 0.9, 1.7, 2.6, 3.5, 5.2, 7.1, 22.0,
              -0.7, 0.6]).reshape(4, 4)

CASES = [  # (layer, functional call, torch call)
    (nn.Softplus(), F.softplus, lambda t, tf: tf.softplus(t)),
    (nn.Softplus(2, 10), lambda x: F.softplus(x, 2, 10),
     lambda t, tf: tf.softplus(t, beta=2, threshold=10)),
    (nn.Softplus(0.5), lambda x: F.softplus(x, beta=0.5), lambda t, tf: tf.softplus(t, 0.5)),
    (nn.Mish(), F.mish, lambda t, tf: tf.mish(t)),
    (nn.Swish(), F.swish, lambda t, tf: tf.silu(t)),
    (nn.Hardsigmoid(), lambda x: F.hardsigmoid(x, 1 / 6), lambda t, tf: tf.hardsigmoid(t)),
    (nn.Hardtanh(), F.hardtanh, lambda t, tf: tf.hardtanh(t)),
    (nn.Hardtanh(-2.5, 3.0), lambda x: F.hardtanh(x, -2.5, 3.0),
     lambda t, tf: tf.hardtanh(t, -2.5, 3.0)),
    (nn.Softsign(), F.softsign, lambda t, tf: tf.softsign(t)),
    (nn.Tanhshrink(), F.tanhshrink, lambda t, tf: tf.tanhshrink(t)),
]


@pytest.mark.parametrize("layer, fn, ref", CASES)
def test_activation_gradient_and_torch_parity(layer, fn, ref):
    check_grad(fn, X)
    # Hardsigmoid's layer uses Paddle's slope 0.1666667, torch's is exactly 1/6
    tol = 1e-6 if isinstance(layer, nn.Hardsigmoid) else 1e-10
    assert_layer_matches_torch(layer, ref, X, rtol=tol, grad_rtol=tol)


def test_hardtanh_refuses_a_min_above_its_max():
    with pytest.raises(ValueError, match="Hardtanh: min=2.0 must be less than max=1.0"):
        nn.Hardtanh(2.0, 1.0)


def test_hardsigmoid_uses_paddles_slope_and_offset():
    x = core.to_tensor(np.array([-4.0, -1.0, 0.0, 2.0, 4.0]), stop_gradient=False)
    out = F.hardsigmoid(x)
    np.testing.assert_allclose(out.numpy(), np.clip(x.numpy() * 0.1666667 + 0.5, 0, 1))
    out.backward()
    np.testing.assert_allclose(x.gradient(), [0, 0.1666667, 0.1666667, 0.1666667, 0])
    check_grad(lambda a: F.hardsigmoid(a, slope=0.2, offset=0.25), X)


def test_activations_keep_float32_and_do_not_overflow():
    x = core.to_tensor(np.array([-1e4, -50.0, 0.5, 50.0, 1e4], np.float32), stop_gradient=False)
    for fn in (F.softplus, F.mish, F.swish, F.softsign, F.tanhshrink):
        x.clear_gradient()
        out = fn(x)
        out.backward()
        assert out.dtype == np.float32 and np.isfinite(out.numpy()).all(), fn.__name__
        assert np.isfinite(x.gradient()).all(), fn.__name__
    np.testing.assert_allclose(F.softplus(x).numpy(), [0, 1.9287499e-22, 0.974077, 50, 1e4],
                               rtol=1e-5)


@pytest.mark.parametrize("shape, n, fmt", [((3, 4), 1, "NCHW"), ((2, 3, 5), 3, "NCL"),
                                           ((2, 3, 2, 2), 3, "NCHW"), ((2, 2, 2, 3), 3, "NHWC"),
                                           ((2, 5, 3), 3, "NLC"), ((2, 3, 2, 2), 1, "NHWC"),
                                           ((4, 3), 3, "NC")])
def test_prelu_gradients_of_input_and_weight(shape, n, fmt):
    x = RNG.standard_normal(shape)
    x[np.abs(x) < 0.05] = 0.3  # away from the kink
    w = RNG.uniform(0.05, 0.5, n)
    check_grad(lambda a, b: F.prelu(a, b, fmt), x, w)


@pytest.mark.parametrize("n", [1, 3])
def test_prelu_layer_matches_torch(n):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 4, 5))
    layer = nn.PReLU(n, init=0.1)
    assert layer._weight.shape == [n] and list(layer.state_dict()) == ["_weight"]
    np.testing.assert_allclose(layer._weight.numpy(), 0.1)
    xt = core.to_tensor(x, stop_gradient=False)
    out = layer(xt)
    g = RNG.standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    ref = torch.nn.PReLU(n, init=0.1).double()
    t = torch.tensor(x, requires_grad=True)
    want = ref(t)
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(layer._weight.gradient(), ref.weight.grad.numpy(), rtol=1e-5)


def test_prelu_checks_its_weight_and_channels():
    x = core.to_tensor(np.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="channel axis"):
        F.prelu(x, core.to_tensor(np.ones(4)))
    with pytest.raises(ValueError, match="1-D"):
        F.prelu(x, core.to_tensor(np.ones((1, 3))))
    with pytest.raises(ValueError, match="data_format"):
        F.prelu(x, core.to_tensor(np.ones(3)), "NCWH")
    assert F.prelu(x, core.to_tensor(np.ones(4)), "NLC").shape == [2, 3, 4]
    with pytest.raises(ValueError, match="weight_attr"):
        nn.PReLU(weight_attr=False)
    assert "num_parameters=3" in repr(nn.PReLU(3))


@pytest.mark.parametrize("fn", [F.softplus, F.mish, F.softsign, F.hardsigmoid])
def test_a_zero_d_input_gives_a_zero_d_output_and_gradient(fn):
    x = core.to_tensor(np.array(0.7), stop_gradient=False)
    out = fn(x)
    out.backward()
    assert out.shape == [] and x.grad.shape == []
    row = core.to_tensor(np.array([0.7]), stop_gradient=False)
    fn(row).backward()
    assert float(out) == pytest.approx(float(fn(row)[0])) and float(x.grad) == pytest.approx(
        float(row.grad[0]))
