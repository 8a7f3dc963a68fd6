"""SimpleRNN: torch parity (tanh/relu, layers, bidirect), padding invariance, gradients."""
import numpy as np
import pytest

import core
from core import nn
from core.nn.functional import rnn as R
from tests.core.nn.test_rnn import run_beside_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("activation, direction", [("tanh", "forward"), ("relu", "bidirect")])
def test_simple_rnn_matches_torch(activation, direction):
    torch = pytest.importorskip("torch")
    core.seed(1)
    layer = nn.SimpleRNN(3, 5, 2, direction, activation=activation)  # Paddle's order
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


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize("lengths", [[4, 0, 3], [4, 4, 4], [1, 3, 3], None])
def test_fused_op_gradients_with_ragged_lengths(activation, lengths):
    """The fused op (input projection, recurrence over length-sorted rows, carried states)
    against finite differences, for every input; a row of length 0 carries h0."""
    b, t, f, h = 3, 4, 2, 3
    lens = None if lengths is None else np.array(lengths)

    def run(x, h0, w_ih, w_hh, b_ih, b_hh):
        return R.simple_rnn(x, h0, w_ih, w_hh, b_ih, b_hh, lens, activation)

    args = [RNG.normal(size=s) for s in ((b, t, f), (b, h), (h, f), (h, h), h, h)]
    check_grad(run, *args)
    if lens is not None and 0 in lengths:
        out = run(*(core.to_tensor(a) for a in args)).numpy()
        np.testing.assert_array_equal(out[1], np.repeat(args[1][1][None], t, axis=0))


def test_fused_op_refuses_unknown_activation():
    x, h0, w = core.ones([1, 2, 2]), core.ones([1, 2]), core.ones([2, 2])
    with pytest.raises(ValueError, match="activation='sigmoid' is not supported"):
        R.simple_rnn(x, h0, w, w, activation="sigmoid")
