"""GRU, LSTM and SimpleRNN with ``time_major=True``: [time, batch, features] in and out, against
torch's time-major layers with copied weights, and float64 finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn
from tests.gradcheck import check_grad

LAYERS = [nn.GRU, nn.LSTM, nn.SimpleRNN]
TORCH_NAMES = {nn.GRU: "GRU", nn.LSTM: "LSTM", nn.SimpleRNN: "RNN"}


@pytest.mark.parametrize("direction", ["forward", "bidirect"])
@pytest.mark.parametrize("cls", LAYERS)
def test_time_major_matches_torch(cls, direction):
    torch = pytest.importorskip("torch")
    core.seed(2)
    layer = cls(3, 4, num_layers=2, direction=direction, time_major=True)
    reference = getattr(torch.nn, TORCH_NAMES[cls])(
        3, 4, num_layers=2, bidirectional=direction == "bidirect")  # batch_first=False
    with torch.no_grad():
        for name, param in layer.named_parameters():
            getattr(reference, name).copy_(torch.from_numpy(param.numpy()))
    x = np.random.default_rng(0).normal(size=(6, 2, 3)).astype(np.float32)  # [T, B, F]
    out, final = layer(core.to_tensor(x))
    with torch.no_grad():
        want_out, want_final = reference(torch.from_numpy(x))
    assert out.shape == [6, 2, 4 * (2 if direction == "bidirect" else 1)]
    np.testing.assert_allclose(out.numpy(), want_out.numpy(), atol=1e-5)
    finals = final if cls is nn.LSTM else (final,)
    wants = want_final if cls is nn.LSTM else (want_final,)
    for got, want in zip(finals, wants):
        assert got.shape == [2 * (2 if direction == "bidirect" else 1), 2, 4]  # [L * D, B, H]
        np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-5)


@pytest.mark.parametrize("cls", LAYERS)
def test_time_major_is_batch_major_transposed_with_lengths(cls):
    core.seed(5)
    batch_first = cls(2, 3, direction="bidirect")
    time_major = cls(2, 3, direction="bidirect", time_major=True)
    time_major.set_state_dict(batch_first.state_dict())
    x = np.random.default_rng(1).normal(size=(3, 5, 2)).astype(np.float32)  # [B, T, F]
    lengths = np.array([5, 2, 4])
    want, want_final = batch_first(core.to_tensor(x), sequence_length=lengths)
    got, got_final = time_major(core.to_tensor(x.transpose(1, 0, 2)), sequence_length=lengths)
    np.testing.assert_allclose(got.numpy(), want.numpy().transpose(1, 0, 2), rtol=1e-6)
    pairs = zip(got_final, want_final) if cls is nn.LSTM else [(got_final, want_final)]
    for a, b in pairs:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert "time_major=True" in repr(time_major)


@pytest.mark.parametrize("cls", LAYERS)
def test_time_major_gradients(cls):
    core.seed(3)
    rng = np.random.default_rng(3)
    layer = cls(2, 2, num_layers=2, direction="bidirect", time_major=True)
    names = [name for name, _ in layer.named_parameters()]
    states = 2 if cls is nn.LSTM else 1
    lengths = np.array([4, 1, 3])

    def fn(x, *rest):
        for name, value in zip(names, rest[states:]):
            setattr(layer, name, value)
        initial = tuple(rest[:states]) if cls is nn.LSTM else rest[0]
        out, final = layer(x, initial, sequence_length=lengths)
        finals = list(final) if cls is nn.LSTM else [final]
        return core.concat([core.flatten(t) for t in [out, *finals]], axis=0)

    params = [p.numpy().astype(np.float64) for _, p in layer.named_parameters()]
    x = rng.normal(size=(4, 3, 2))  # [T, B, F]
    check_grad(fn, x, *[rng.normal(size=(4, 3, 2)) for _ in range(states)], *params)


def test_time_major_shape_errors_name_the_layout():
    layer = nn.LSTM(2, 3, time_major=True)
    with pytest.raises(ValueError, match=r"inputs must be \[time, batch, 2\] \(time_major=True\)"
                                         r", got \[5, 4, 3\]"):
        layer(core.to_tensor(np.zeros((5, 4, 3), np.float32)))
    with pytest.raises(ValueError, match="sequence_length must be 4 integers in \\[1, 5\\]"):
        layer(core.to_tensor(np.zeros((5, 4, 2), np.float32)), sequence_length=[1, 2, 3, 9])
    with pytest.raises(ValueError, match="time_major='yes' must be True"):
        nn.SimpleRNN(2, 3, time_major="yes")
