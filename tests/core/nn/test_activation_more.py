"""GELU (exact and tanh), LeakyReLU, Silu, ELU, ReLU6, Hardswish: gradients and torch parity."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.core.nn.torch_parity import assert_layer_matches_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)
# Away from the kinks (0, +-3, 6), where finite differences straddle two pieces.
X = np.array([-5.0, -3.7, -2.2, -1.1, -0.4, 0.3, 0.9, 1.7, 2.6, 3.5, 5.2, 7.1]).reshape(3, 4)

CASES = [  # (layer, functional call, torch call)
    (nn.GELU(), lambda x: F.gelu(x), lambda t, tf: tf.gelu(t)),
    (nn.GELU(True), lambda x: F.gelu(x, True), lambda t, tf: tf.gelu(t, approximate="tanh")),
    (nn.LeakyReLU(), lambda x: F.leaky_relu(x), lambda t, tf: tf.leaky_relu(t, 0.01)),
    (nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2), lambda t, tf: tf.leaky_relu(t, 0.2)),
    (nn.Silu(), F.silu, lambda t, tf: tf.silu(t)),
    (nn.ELU(), F.elu, lambda t, tf: tf.elu(t)),
    (nn.ELU(0.5), lambda x: F.elu(x, 0.5), lambda t, tf: tf.elu(t, 0.5)),
    (nn.ReLU6(), F.relu6, lambda t, tf: tf.relu6(t)),
    (nn.Hardswish(), F.hardswish, lambda t, tf: tf.hardswish(t)),
]


@pytest.mark.parametrize("layer, fn, ref", CASES)
def test_activation_gradient_and_torch_parity(layer, fn, ref):
    check_grad(fn, X)
    assert_layer_matches_torch(layer, ref, X)


def test_gelu_matches_paddle_documented_values():
    """Paddle's docstring example: gelu([[-1, 0.5], [1, 1.5]]) and its approximate form."""
    x = core.to_tensor(np.array([[-1.0, 0.5], [1.0, 1.5]], np.float32))
    np.testing.assert_allclose(F.gelu(x).numpy(), [[-0.15865529, 0.34573123],
                                                   [0.84134471, 1.39978933]], rtol=1e-5)
    np.testing.assert_allclose(F.gelu(x, True).numpy(), [[-0.15880799, 0.34571400],
                                                         [0.84119201, 1.39957154]], rtol=1e-5)
    assert F.gelu(x).dtype == np.float32 and "approximate=True" in repr(nn.GELU(True))
