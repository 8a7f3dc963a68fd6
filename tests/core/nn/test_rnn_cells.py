"""SimpleRNNCell, GRUCell, LSTMCell, RNN and BiRNN: torch parity, agreement with the
full-sequence layers, padding, the fused and the step-by-step paths, gradients, errors, specs."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn
from runner import build
from runner.config import validation
from runner.errors import ConfigError
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)
CELLS = {"SimpleRNNCell": (nn.SimpleRNNCell, nn.SimpleRNN, 1),
         "GRUCell": (nn.GRUCell, nn.GRU, 3), "LSTMCell": (nn.LSTMCell, nn.LSTM, 4)}
WEIGHTS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def _float64(layer):
    for p in layer.parameters():
        p.data = p.data.astype(np.float64)
    return layer


def _states(cls, batch, hidden, dtype=np.float32):
    """Random initial states of a cell class: h, or (h, c) for an LSTM."""
    h = RNG.normal(size=(batch, hidden)).astype(dtype)
    if cls is nn.LSTMCell:
        return h, RNG.normal(size=(batch, hidden)).astype(dtype)
    return h


class Stepped(nn.GRUCell):
    """A GRUCell whose forward is its own: RNN must step it, not run the fused op."""

    def forward(self, inputs, states=None):
        return super().forward(inputs, states)


class SteppedLSTM(nn.LSTMCell):
    def forward(self, inputs, states=None):
        return super().forward(inputs, states)


# ----- the cells against torch ----------------------------------------------------------------

@pytest.mark.parametrize("name, options", [("SimpleRNNCell", {"activation": "tanh"}),
                                           ("SimpleRNNCell", {"activation": "relu"}),
                                           ("GRUCell", {}), ("LSTMCell", {})])
def test_cells_match_torch_values_and_gradients(name, options):
    """Same weights, same step: outputs, new states and every gradient as torch's cell
    (Paddle's GRU candidate c = tanh(W_ic x + b_ic + r * (W_hc h + b_hc)) is torch's)."""
    torch = pytest.importorskip("torch")
    cls = CELLS[name][0]
    core.seed(1)
    cell = cls(3, 4, **options)
    torch_cls = {"SimpleRNNCell": torch.nn.RNNCell, "GRUCell": torch.nn.GRUCell,
                 "LSTMCell": torch.nn.LSTMCell}[name]
    extra = {"nonlinearity": options["activation"]} if options else {}
    ref = torch_cls(3, 4, **extra)
    with torch.no_grad():
        for label in WEIGHTS:
            getattr(ref, label).copy_(torch.from_numpy(getattr(cell, label).numpy()))
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    states = _states(cls, 5, 4)
    flat = states if isinstance(states, tuple) else (states,)
    mine_x = core.to_tensor(x, stop_gradient=False)
    mine_s = [core.to_tensor(s, stop_gradient=False) for s in flat]
    out, new = cell(mine_x, tuple(mine_s) if len(mine_s) == 2 else mine_s[0])
    their_x = torch.tensor(x, requires_grad=True)
    their_s = [torch.tensor(s, requires_grad=True) for s in flat]
    got = ref(their_x, tuple(their_s) if len(their_s) == 2 else their_s[0])
    want_out = got[0] if isinstance(got, tuple) else got
    np.testing.assert_allclose(out.numpy(), want_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    if cls is nn.LSTMCell:
        assert new[0] is out
        np.testing.assert_allclose(new[1].numpy(), got[1].detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        (out * 1.5 + new[1] * 0.5).sum().backward()
        (want_out * 1.5 + got[1] * 0.5).sum().backward()
    else:
        assert new is out
        (out * 1.5).sum().backward()
        (want_out * 1.5).sum().backward()
    np.testing.assert_allclose(mine_x.gradient(), their_x.grad.numpy(), rtol=1e-4, atol=1e-6)
    for mine, theirs in zip(mine_s, their_s):
        np.testing.assert_allclose(mine.gradient(), theirs.grad.numpy(), rtol=1e-4, atol=1e-6)
    for label in WEIGHTS:
        np.testing.assert_allclose(getattr(cell, label).gradient(),
                                   getattr(ref, label).grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(CELLS))
def test_cells_start_from_zeros_and_have_paddles_parameters(name):
    cls, _, gates = CELLS[name]
    core.seed(2)
    cell = cls(3, 4)
    shapes = {label: p.shape for label, p in cell.named_parameters()}
    assert shapes == {"weight_ih": [gates * 4, 3], "weight_hh": [gates * 4, 4],
                      "bias_ih": [gates * 4], "bias_hh": [gates * 4]}
    bound = 1 / np.sqrt(4)  # Paddle's uniform(-1/sqrt(H), 1/sqrt(H)) for all four
    assert all(np.abs(p.numpy()).max() <= bound for p in cell.parameters())
    assert all(np.abs(p.numpy()).max() > bound / 2 for p in cell.parameters())
    x = core.to_tensor(RNG.normal(size=(2, 3)).astype(np.float32))
    zeros = np.zeros((2, 4), np.float32)
    given = (zeros, zeros) if cls is nn.LSTMCell else zeros
    out, _ = cell(x)
    np.testing.assert_array_equal(out.numpy(), cell(x, given)[0].numpy())
    assert cell.state_shape == (((4,), (4,)) if cls is nn.LSTMCell else (4,))


def test_simple_rnn_cell_against_its_formula_and_attr_false():
    """Paddle's ``*_attr=False``: a weight frozen at ones, a bias left out (same output as
    Paddle's frozen zero bias)."""
    cell = nn.SimpleRNNCell(2, 3, activation="relu", weight_ih_attr=False, bias_hh_attr=False)
    assert cell.bias_hh is None and cell.weight_ih.stop_gradient
    assert [n for n, p in cell.named_parameters() if not p.stop_gradient] == [
        "weight_hh", "bias_ih"]
    np.testing.assert_array_equal(cell.weight_ih.numpy(), np.ones((3, 2)))
    x, h = RNG.normal(size=(4, 2)).astype(np.float32), RNG.normal(size=(4, 3)).astype(np.float32)
    want = np.maximum(x @ np.ones((2, 3)) + cell.bias_ih.numpy() + h @ cell.weight_hh.numpy().T, 0)
    np.testing.assert_allclose(cell(x, h)[0].numpy(), want, rtol=1e-5, atol=1e-6)
    assert "activation=relu" in repr(cell)


# ----- the cells reproduce the full-sequence layers -------------------------------------------

def _cell_of(layer, cell_cls, suffix=""):
    """A cell holding ``layer``'s first-layer weights (direction ``suffix``)."""
    options = {"activation": layer.activation} if cell_cls is nn.SimpleRNNCell else {}
    cell = cell_cls(layer.input_size, layer.hidden_size, **options)
    for label in WEIGHTS:
        getattr(cell, label).data = getattr(layer, f"{label}_l0{suffix}").data.copy()
    return cell


@pytest.mark.parametrize("name", list(CELLS))
def test_a_cell_stepped_by_hand_reproduces_the_layer(name):
    cell_cls, layer_cls, _ = CELLS[name]
    core.seed(3)
    layer = layer_cls(3, 5)
    cell = _cell_of(layer, cell_cls)
    x = RNG.normal(size=(2, 6, 3)).astype(np.float32)
    out, final = layer(core.to_tensor(x))
    states, steps = None, []
    for t in range(6):
        y, states = cell(core.to_tensor(x[:, t]), states)
        steps.append(y.numpy())
    np.testing.assert_allclose(np.stack(steps, 1), out.numpy(), rtol=1e-5, atol=1e-6)
    if cell_cls is nn.LSTMCell:
        np.testing.assert_allclose(states[1].numpy(), final[1].numpy()[0], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(states.numpy(), final.numpy()[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(CELLS))
@pytest.mark.parametrize("stepped", [False, True])
def test_birnn_with_lengths_reproduces_the_bidirectional_layer(name, stepped):
    """BiRNN(cell_fw, cell_bw) with sequence_length against the layer's direction="bidirect":
    the same outputs at real steps and final states (those of the last real step); also when
    the cells are stepped (a forward post hook on each, which must see every step). At padded
    steps the layer outputs zeros (Paddle's fused op) and BiRNN the cells' step from the held
    states (Paddle's rnn): the final ones forward, the initial zeros backward."""
    cell_cls, layer_cls, _ = CELLS[name]
    core.seed(4)
    layer = layer_cls(3, 4, direction="bidirect")
    fw, bw = _cell_of(layer, cell_cls), _cell_of(layer, cell_cls, "_reverse")
    calls = []
    if stepped:
        for cell in (fw, bw):
            cell.register_forward_post_hook(lambda *_: calls.append(1))
    lengths = np.array([5, 2, 4])
    x = RNG.normal(size=(3, 5, 3)).astype(np.float32)
    out, final = layer(core.to_tensor(x), sequence_length=lengths)
    got, (final_fw, final_bw) = nn.BiRNN(fw, bw)(x, sequence_length=lengths)
    assert len(calls) == (10 if stepped else 0)
    real = np.arange(5)[None, :] < lengths[:, None]
    np.testing.assert_allclose(got.numpy()[real], out.numpy()[real], rtol=1e-5, atol=1e-6)
    assert not out.numpy()[1, 2:].any()
    held = tuple(s[1:2] for s in final_fw) if cell_cls is nn.LSTMCell else final_fw[1:2]
    start = bw.get_initial_states(core.to_tensor(x[1:2, 0]))
    for t in (2, 3, 4):
        want = [cell(x[1:2, t], states)[0].numpy()[0] for cell, states in ((fw, held),
                                                                           (bw, start))]
        np.testing.assert_allclose(got.numpy()[1, t], np.concatenate(want), rtol=1e-5,
                                   atol=1e-6)
    if cell_cls is nn.LSTMCell:
        final, final_fw, final_bw = final[1], final_fw[1], final_bw[1]
    np.testing.assert_allclose(final_fw.numpy(), final.numpy()[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final_bw.numpy(), final.numpy()[1], rtol=1e-5, atol=1e-6)


# ----- RNN / BiRNN against torch and between their two paths ----------------------------------

def test_birnn_of_lstm_cells_matches_torch_packed_sequences():
    """torch's packed bidirectional LSTM has the same semantics at real steps: each row's
    backward pass from its last real step, finals of the last real steps (at padded steps
    torch outputs zeros, Paddle's BiRNN the cells' step from the held states)."""
    torch = pytest.importorskip("torch")
    core.seed(5)
    fw, bw = nn.LSTMCell(3, 4), nn.LSTMCell(3, 4)
    ref = torch.nn.LSTM(3, 4, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for cell, suffix in ((fw, ""), (bw, "_reverse")):
            for label in WEIGHTS:
                getattr(ref, f"{label}_l0{suffix}").copy_(
                    torch.from_numpy(getattr(cell, label).numpy()))
    lengths = np.array([4, 1, 3])
    x = RNG.normal(size=(3, 4, 3)).astype(np.float32)
    out, ((h_fw, c_fw), (h_bw, c_bw)) = nn.BiRNN(fw, bw)(x, sequence_length=lengths)
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.from_numpy(x), torch.tensor(lengths),
                                                     batch_first=True, enforce_sorted=False)
    with torch.no_grad():
        want, (h, c) = ref(packed)
    want, _ = torch.nn.utils.rnn.pad_packed_sequence(want, batch_first=True, total_length=4)
    real = np.arange(4)[None, :] < lengths[:, None]
    np.testing.assert_allclose(out.numpy()[real], want.numpy()[real], rtol=1e-5, atol=1e-6)
    for mine, theirs in ((h_fw, h[0]), (h_bw, h[1]), (c_fw, c[0]), (c_bw, c[1])):
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_rnn_of_a_projected_lstm_cell_matches_torch():
    """Paddle 3.x's proj_size: h' = (o * tanh(c')) W_ho, W_ho [H, P] (torch's weight_hr_l0 is
    its transpose); h has P features, c has H."""
    torch = pytest.importorskip("torch")
    core.seed(6)
    cell = nn.LSTMCell(3, 5, proj_size=2)
    assert cell.weight_hh.shape == [20, 2] and cell.weight_ho.shape == [5, 2]
    assert cell.state_shape == ((2,), (5,))
    ref = torch.nn.LSTM(3, 5, batch_first=True, proj_size=2)
    with torch.no_grad():
        for label in WEIGHTS:
            getattr(ref, f"{label}_l0").copy_(torch.from_numpy(getattr(cell, label).numpy()))
        ref.weight_hr_l0.copy_(torch.from_numpy(cell.weight_ho.numpy().T))
    x = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    out, (h, c) = nn.RNN(cell)(x)
    with torch.no_grad():
        want, (want_h, want_c) = ref(torch.from_numpy(x))
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), want_h.numpy()[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), want_c.numpy()[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("is_reverse", [False, True])
@pytest.mark.parametrize("time_major", [False, True])
def test_rnn_fused_and_stepped_paths_agree(is_reverse, time_major):
    """The fused op over the whole sequence and the cell called step by step (a subclass with
    its own forward) give the same outputs and finals, with lengths, reversal and time-major
    inputs; a row of length 0 keeps its initial state. A padded step outputs the cell's step
    from the held states (Paddle's rnn): the final ones forward, the initial ones in reverse
    (whole rows are reversed, so the padding comes first)."""
    core.seed(7)
    fused = nn.GRUCell(3, 4)
    stepped = Stepped(3, 4)
    stepped.set_state_dict(fused.state_dict())
    lengths = np.array([5, 0, 3])
    x = RNG.normal(size=(3, 5, 3)).astype(np.float32)
    h0 = RNG.normal(size=(3, 4)).astype(np.float32)
    data = x.transpose(1, 0, 2) if time_major else x
    runs = [nn.RNN(c, is_reverse, time_major)(data, h0, sequence_length=lengths)
            for c in (fused, stepped)]
    (out, final), (out2, final2) = runs
    np.testing.assert_allclose(out.numpy(), out2.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final.numpy(), final2.numpy(), rtol=1e-5, atol=1e-6)
    batch_major = out.numpy().transpose(1, 0, 2) if time_major else out.numpy()
    assert batch_major.shape == (3, 5, 4)
    np.testing.assert_array_equal(final.numpy()[1], h0[1])
    held = h0 if is_reverse else final.numpy()
    for b, t in ((1, 0), (1, 4), (2, 3), (2, 4)):
        want = fused(x[b:b + 1, t], held[b:b + 1])[0].numpy()[0]
        np.testing.assert_allclose(batch_major[b, t], want, rtol=1e-5, atol=1e-6)
    if is_reverse:  # the first real step is the backward pass's last: it sets the final
        row = x[2, :3][::-1]
        _, want = nn.RNN(fused)(row[None].copy(), h0[2:3])
        np.testing.assert_allclose(final.numpy()[2], want.numpy()[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(batch_major[2, 0], want.numpy()[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [nn.LSTMCell, SteppedLSTM])
def test_nan_in_the_padding_never_reaches_the_states(cls):
    """The padded steps' outputs are the cell's for their (NaN) inputs, as in Paddle; the
    states are held with ``where``, so NaN reaches neither them nor the real steps' outputs
    (Paddle's mask arithmetic, new * m + old * (1 - m), would spread it)."""
    core.seed(10)
    x = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    x[1, 2:] = np.nan
    out, (h, c) = nn.RNN(cls(3, 4))(x, sequence_length=[4, 2])
    assert np.isfinite(out.numpy()[0]).all() and np.isfinite(out.numpy()[1, :2]).all()
    assert np.isnan(out.numpy()[1, 2:]).all()
    assert np.isfinite(h.numpy()).all() and np.isfinite(c.numpy()).all()


def test_rnn_without_lengths_against_hand_written_steps():
    """No lengths: every step runs; is_reverse reads the rows from the end (numpy formula of
    the Elman cell)."""
    core.seed(8)
    cell = nn.SimpleRNNCell(2, 3)
    w_ih, w_hh, b_ih, b_hh = (getattr(cell, n).numpy() for n in WEIGHTS)
    x = RNG.normal(size=(2, 4, 2)).astype(np.float32)
    h, want = np.zeros((2, 3), np.float32), []
    for t in range(3, -1, -1):
        h = np.tanh(x[:, t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh)
        want.append(h)
    out, final = nn.RNN(cell, is_reverse=True)(x)
    np.testing.assert_allclose(out.numpy(), np.stack(want[::-1], 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final.numpy(), h, rtol=1e-5, atol=1e-6)


def test_rnn_passes_keyword_arguments_to_a_cell_of_ones_own():
    """Any Layer with forward(inputs, states, ...) and get_initial_states runs in RNN; extra
    keyword arguments reach every step, and nested states are held past each row's length."""

    class Accumulate(nn.rnn_cells.RNNCellBase):
        def forward(self, inputs, states, scale=1.0):
            total, count = states
            total = total + inputs * scale
            return total, (total, count + 1.0)

        @property
        def state_shape(self):
            return ((2,), (1,))

    x = RNG.normal(size=(2, 3, 2))
    out, (total, count) = nn.RNN(Accumulate())(x, sequence_length=[3, 1], scale=2.0)
    np.testing.assert_allclose(total.numpy(), [2 * x[0].sum(0), 2 * x[1, 0]], rtol=1e-12)
    np.testing.assert_array_equal(count.numpy(), [[3.0], [1.0]])
    np.testing.assert_allclose(out.numpy()[0], 2 * np.cumsum(x[0], 0), rtol=1e-12)
    # padded steps output the cell's step from the held total (Paddle's rnn)
    np.testing.assert_allclose(out.numpy()[1, 1:], 2 * x[1, 0] + 2 * x[1, 1:], rtol=1e-12)
    assert total.dtype == core.to_tensor(x).dtype  # the default states follow the inputs


def test_get_initial_states_shapes_dtypes_and_values():
    cell = nn.LSTMCell(3, 4)
    ref = core.to_tensor(np.zeros((5, 2, 3), np.float64))
    h, c = cell.get_initial_states(ref, batch_dim_idx=1)
    assert h.shape == [2, 4] and c.shape == [2, 4] and str(h.dtype) == "float64"
    ones = cell.get_initial_states(ref, shape=[-1, 7], dtype="float32", init_value=1.0)
    assert ones.shape == [5, 7] and str(ones.dtype) == "float32" and ones.numpy().all()
    nested = cell.get_initial_states(ref, shape=((2,), [(3,), (1, 2)]), dtype="float32")
    assert [nested[0].shape, nested[1][0].shape, nested[1][1].shape] == [[5, 2], [5, 3],
                                                                          [5, 1, 2]]
    with pytest.raises(NotImplementedError, match="must define state_shape"):
        nn.rnn_cells.RNNCellBase().get_initial_states(ref)


# ----- gradients (float64 finite differences) -------------------------------------------------

@pytest.mark.parametrize("name", ["SimpleRNNCell", "GRUCell", "LSTMCell"])
def test_cell_gradients(name):
    cls, _, gates = CELLS[name]
    cell = _float64(cls(2, 3))

    def run(x, h, *weights):
        for label, w in zip(WEIGHTS, weights):
            setattr(cell, label, w)
        states = (h, h * 0.5) if cls is nn.LSTMCell else h
        out, new = cell(x, states)
        return out + new[1] if cls is nn.LSTMCell else out

    check_grad(run, RNG.normal(size=(2, 2)), RNG.normal(size=(2, 3)),
               RNG.normal(size=(gates * 3, 2)), RNG.normal(size=(gates * 3, 3)),
               RNG.normal(size=gates * 3), RNG.normal(size=gates * 3))


def test_projected_lstm_cell_gradients():
    cell = _float64(nn.LSTMCell(2, 3, proj_size=2))

    def run(x, h, c, w_hh, w_ho):
        cell.weight_hh, cell.weight_ho = w_hh, w_ho
        out, (_, c_new) = cell(x, (h, c))
        return core.concat([out, c_new], axis=-1)

    check_grad(run, RNG.normal(size=(2, 2)), RNG.normal(size=(2, 2)), RNG.normal(size=(2, 3)),
               RNG.normal(size=(12, 2)), RNG.normal(size=(3, 2)))


@pytest.mark.parametrize("cls", [nn.GRUCell, nn.LSTMCell, Stepped, SteppedLSTM])
@pytest.mark.parametrize("is_reverse", [False, True])
def test_rnn_gradients_with_sequence_length(cls, is_reverse):
    """RNN over padded rows, fused (GRUCell, LSTMCell) and stepped (their subclasses): the
    inputs', initial states' and recurrent weight's gradients; outputs and finals both count."""
    cell = _float64(cls(2, 3))
    lstm = issubclass(cls, nn.LSTMCell)
    lengths = np.array([3, 1, 2])

    def run(x, h0, w_hh):
        cell.weight_hh = w_hh
        states = (h0, h0 * 0.5) if lstm else h0
        out, final = nn.RNN(cell, is_reverse=is_reverse)(x, states, sequence_length=lengths)
        last = final[1] if lstm else final
        return core.concat([out.reshape([3, -1]), last], axis=-1)

    check_grad(run, RNG.normal(size=(3, 3, 2)), RNG.normal(size=(3, 3)),
               RNG.normal(size=((4 if lstm else 3) * 3, 3)) * 0.5)


@pytest.mark.parametrize("stepped", [False, True])
def test_birnn_gradients_with_sequence_length(stepped):
    cls = Stepped if stepped else nn.GRUCell
    fw, bw = _float64(cls(2, 3)), _float64(cls(2, 2))
    lengths = np.array([2, 3])

    def run(x, h_fw, w_ih_bw):
        bw.weight_ih = w_ih_bw
        states = (h_fw, core.zeros([2, 2], "float64"))
        out, (last_fw, last_bw) = nn.BiRNN(fw, bw)(x, states, sequence_length=lengths)
        return core.concat([out.reshape([2, -1]), last_fw, last_bw], axis=-1)

    check_grad(run, RNG.normal(size=(2, 3, 2)), RNG.normal(size=(2, 3)),
               RNG.normal(size=(6, 2)))


# ----- argument errors ------------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: nn.GRUCell(0, 3), "GRUCell: input_size=0 must be a positive integer"),
    (lambda: nn.LSTMCell(2, 2.5), "LSTMCell: hidden_size=2.5 must be a positive integer"),
    (lambda: nn.SimpleRNNCell(2, 3, activation="sigmoid"),
     "SimpleRNNCell: activation='sigmoid' is not supported; use 'tanh' or 'relu'"),
    (lambda: nn.LSTMCell(2, 3, proj_size=3), r"LSTMCell: proj_size=3 must be an integer in "
                                             r"\[0, hidden_size\) = \[0, 3\)"),
    (lambda: nn.LSTMCell(2, 3, proj_size=-1), "LSTMCell: proj_size=-1"),
    (lambda: nn.RNN(nn.GRUCell(2, 3), is_reverse="yes"),
     "RNN: is_reverse='yes' must be True or False"),
    (lambda: nn.BiRNN(nn.GRUCell(2, 3), nn.GRUCell(3, 3)),
     "BiRNN: cell_fw.input_size=2 and cell_bw.input_size=3 must be equal"),
    (lambda: nn.BiRNN(nn.GRUCell(2, 3), nn.GRUCell(2, 3), time_major=1),
     "BiRNN: time_major=1 must be True or False"),
])
def test_constructor_errors_name_the_argument(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_rnn_refuses_a_cell_that_is_not_a_layer():
    with pytest.raises(TypeError, match="RNN: cell must be an RNN cell .* got function"):
        nn.RNN(lambda x, h: (x, h))
    with pytest.raises(TypeError, match="BiRNN: cell_bw must be an RNN cell"):
        nn.BiRNN(nn.GRUCell(2, 3), "gru")


@pytest.mark.parametrize("call, message", [
    (lambda: nn.GRUCell(2, 3)(np.ones((4, 3), np.float32)),
     r"GRUCell: inputs must be \[batch, input_size\] = \[batch, 2\], got \[4, 3\]"),
    (lambda: nn.GRUCell(2, 3)(np.ones((4, 2), np.float32), np.ones((4, 2), np.float32)),
     r"GRUCell: states must be \[batch, 3\] = \[4, 3\], got \[4, 2\]"),
    (lambda: nn.LSTMCell(2, 3)(np.ones((4, 2), np.float32), np.ones((4, 3), np.float32)),
     r"LSTMCell: states must be a pair \(h, c\)"),
    (lambda: nn.LSTMCell(2, 3)(np.ones((4, 2), np.float32),
                               (np.ones((4, 3), np.float32), np.ones((1, 3), np.float32))),
     r"LSTMCell: states\[1\] \(c\) must be \[batch, 3\] = \[4, 3\], got \[1, 3\]"),
    (lambda: nn.RNN(nn.GRUCell(2, 3))(np.ones((4, 2), np.float32)),
     r"RNN: inputs must be \[batch, time, features\] with at least one step"),
    (lambda: nn.RNN(nn.GRUCell(2, 3))(np.ones((2, 4, 2), np.float32), sequence_length=[5, 1]),
     r"RNN: sequence_length must be 2 integers in \[0, 4\]"),
    (lambda: nn.RNN(nn.GRUCell(2, 3))(np.ones((2, 4, 2), np.float32),
                                      sequence_length=[1.0, 2.0]),
     r"RNN: sequence_length must be 2 integers"),
    (lambda: nn.RNN(nn.GRUCell(2, 3))(np.ones((2, 4, 2), np.float32),
                                      np.ones((2, 4), np.float32)),
     r"GRUCell: initial_states must be \[batch, 3\] = \[2, 3\], got \[2, 4\]"),
    (lambda: nn.RNN(nn.LSTMCell(2, 3))(np.ones((2, 4, 2), np.float32),
                                       np.ones((2, 3), np.float32)),
     r"LSTMCell: initial_states must be a pair \(h, c\)"),
    (lambda: nn.BiRNN(nn.GRUCell(2, 3), nn.GRUCell(2, 3))(np.ones((2, 4, 2), np.float32),
                                                          np.ones((2, 3), np.float32)),
     r"BiRNN: initial_states must be None or a pair"),
])
def test_forward_errors_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_rnn_needs_initial_states_for_a_cell_without_get_initial_states():
    class Plain(nn.Layer):
        def forward(self, inputs, states):
            return inputs, states

    with pytest.raises(ValueError, match="RNN: initial_states=None needs a cell with "
                                         "get_initial_states"):
        nn.RNN(Plain())(np.ones((2, 3, 2), np.float32))
    out, final = nn.RNN(Plain())(np.ones((2, 3, 2), np.float32), np.zeros((2, 1), np.float32))
    assert out.shape == [2, 3, 2] and final.shape == [2, 1]


# ----- summary and network specs --------------------------------------------------------------

def test_summary_of_a_network_around_an_rnn():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(nn.LSTMCell(3, 4))
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])

    info = core.summary(Net(), (1, 5, 3))
    assert info["total_params"] == 4 * 4 * (3 + 4 + 2) + 4 * 2 + 2


def _spec(layers: dict):
    return validation.group_option("model", {"name": "net", "layers": layers, "blocks": {}})


@pytest.mark.parametrize("cell", ["GRUCell", "LSTMCell", "SimpleRNNCell"])
def test_cells_are_spec_layers_that_step_once_from_zeros(cell):
    """A cell in a spec reads [batch, features] (its input_size inferred) and passes on its
    output (the first of (outputs, states)): one step from zero states."""
    layers = {"flat": {"type": "Flatten"}, "cell": {"type": cell, "hidden_size": 6},
              "out": {"type": "Linear"}}
    core.seed(9)
    model = build.build_model(_spec(layers), (2, 3), 4)
    assert model["cell"].input_size == 6 and model["cell"].hidden_size == 6
    x = RNG.normal(size=(5, 2, 3)).astype(np.float32)
    with core.no_grad():
        got = model(core.to_tensor(x))
        step, _ = model["cell"](core.to_tensor(x.reshape(5, 6)))
        np.testing.assert_allclose(got.numpy(), model["out"](step).numpy(), rtol=1e-6)


def test_a_cell_on_sequences_in_a_spec_is_a_config_error():
    """A cell takes one step, [batch, features]; on variable-length sequences ([batch, T,
    features]) the spec's probe reports it before anything runs."""
    layers = {"cell": {"type": "GRUCell", "hidden_size": 6}, "out": {"type": "Linear"}}
    with pytest.raises(ConfigError, match=r"model.layers.cell \(GRUCell\) cannot take its "
                                          r"input.*inputs must be \[batch, input_size\]"):
        build.build_model(_spec(layers), (4,), 3, 0, True)
    for wrapper in ("RNN", "BiRNN"):
        with pytest.raises(ConfigError, match=f"'{wrapper}' is not a known layer type"):
            build.build_model(_spec({"r": {"type": wrapper}}), (4,), 3)
