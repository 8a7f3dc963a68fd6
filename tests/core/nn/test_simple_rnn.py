"""SimpleRNN: torch parity (tanh/relu, layers, bidirect), padding invariance, gradients."""
import numpy as np
import pytest

import core
from core import nn
from tests.core.nn.test_rnn import run_beside_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("activation, direction", [("tanh", "forward"), ("relu", "bidirect")])
def test_simple_rnn_matches_torch(activation, direction):
    torch = pytest.importorskip("torch")
    core.seed(1)
    layer = nn.SimpleRNN(3, 5, 2, activation, direction)
    reference = torch.nn.RNN(3, 5, 2, nonlinearity=activation, batch_first=True,
                             bidirectional=direction == "bidirect")
    (out, final), (want_out, want_final) = run_beside_torch(layer, reference)
    np.testing.assert_allclose(out.numpy(), want_out.numpy(), atol=1e-5)
    np.testing.assert_allclose(final.numpy(), want_final.numpy(), atol=1e-5)


def test_simple_rnn_padding_and_gradient():
    core.seed(2)
    layer = nn.SimpleRNN(2, 3)
    x = RNG.normal(size=(2, 4, 2)).astype(np.float32)
    out, final = layer(core.to_tensor(x), sequence_length=np.array([4, 2]))
    short, short_final = layer(core.to_tensor(x[1:, :2]))
    np.testing.assert_allclose(final.numpy()[0, 1], short_final.numpy()[0, 0], rtol=1e-6)
    assert not out.numpy()[1, 2:].any()  # padded steps output zeros

    def run(inputs, w_hh):
        layer.weight_hh_l0 = w_hh
        for name in ("weight_ih_l0", "bias_ih_l0", "bias_hh_l0"):
            setattr(layer, name, core.to_tensor(getattr(layer, name).numpy().astype(np.float64)))
        return layer(inputs, sequence_length=np.array([3, 2]))[0]

    check_grad(run, RNG.normal(size=(2, 3, 2)), RNG.normal(size=(3, 3)) * 0.5)
