"""core.nn against real Paddle 3.3.1's numbers, where the session-17 sweep found them apart.

The fixtures (tests/core/data/paddle331/nn/agreement.npz) come from
tests/core/data/paddle331/make_nn_fixtures.py run with a Python that has Paddle; these tests
only read them. Covered: interpolate's bicubic, linear, trilinear, area and 5-D nearest modes,
avg pooling with ceil_mode and exclusive=False, adaptive_avg_pool2d with NHWC, LayerNorm's flat
parameters, the RNN layers' state_dict keys (Paddle's duplicate cell names) and numbers from
Paddle's weights, state_dict order around batch norms, cross_entropy with label smoothing and
class weights, multi_margin_loss's weight with p=2, transposed convolutions' default init.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "data", "paddle331", "nn", "agreement.npz")
TOL = {"rtol": 1e-5, "atol": 1e-6}


@pytest.fixture(scope="module")
def paddle331():
    with np.load(FIXTURES) as data:
        return dict(data)


def _weighted_backward(case: str, data: dict, outs) -> None:
    total = None
    for i, out in enumerate(outs):
        term = (out * core.to_tensor(data[f"{case}/w{i}"])).sum()
        total = term if total is None else total + term
    total.backward()


def _state(case: str, data: dict) -> dict:
    return {str(k): data[f"{case}/state/{k}"] for k in data[f"{case}/keys"]}


# ----- pooling -------------------------------------------------------------------------
@pytest.mark.parametrize("case, fn", [("avg_pool1d_inclusive_ceil", F.avg_pool1d),
                                      ("avg_pool2d_inclusive_ceil", F.avg_pool2d)])
def test_inclusive_avg_pool_with_ceil_mode_divides_by_the_padded_window(paddle331, case, fn):
    """The last, partial window divides by the elements it covers in input + asked padding,
    not by the whole kernel (Paddle; core divided by k before)."""
    x = core.to_tensor(paddle331[f"{case}/x"], stop_gradient=False)
    out = fn(x, 3, 2, 1, exclusive=False, ceil_mode=True)
    np.testing.assert_allclose(out.numpy(), paddle331[f"{case}/out"], **TOL)
    _weighted_backward(case, paddle331, [out])
    np.testing.assert_allclose(x.gradient(), paddle331[f"{case}/dx"], **TOL)
    check_grad(lambda t: fn(t, 3, 2, 1, exclusive=False, ceil_mode=True),
               paddle331[f"{case}/x"][:1, :2])


def test_inclusive_avg_pool_without_ceil_mode_still_divides_by_the_kernel():
    x = core.to_tensor(np.ones((1, 1, 5, 5), np.float32))
    out = F.avg_pool2d(x, 3, 2, 1, exclusive=False).numpy()[0, 0]
    np.testing.assert_allclose(out[0, 0], 4 / 9, rtol=1e-6)  # padding counts in the divisor
    np.testing.assert_allclose(out[1, 1], 1.0, rtol=1e-6)


def test_adaptive_avg_pool2d_takes_nhwc(paddle331):
    x = core.to_tensor(paddle331["adaptive_avg_nhwc/x"], stop_gradient=False)
    out = F.adaptive_avg_pool2d(x, [3, None], data_format="NHWC")
    np.testing.assert_allclose(out.numpy(), paddle331["adaptive_avg_nhwc/out"], **TOL)
    _weighted_backward("adaptive_avg_nhwc", paddle331, [out])
    np.testing.assert_allclose(x.gradient(), paddle331["adaptive_avg_nhwc/dx"], **TOL)
    layer = nn.AdaptiveAvgPool2D([3, None], data_format="NHWC")
    np.testing.assert_allclose(layer(x).numpy(), paddle331["adaptive_avg_nhwc/out"], **TOL)
    with pytest.raises(ValueError, match=r"data_format='NCL'; use 'NCHW' or 'NHWC'"):
        F.adaptive_avg_pool2d(x, 3, data_format="NCL")


# ----- interpolate: the modes core lacked ------------------------------------------------
RESIZES = {  # as make_nn_fixtures.RESIZES
    "bicubic_size": {"size": [7, 9], "mode": "bicubic"},
    "bicubic_down_align_corners": {"size": [3, 5], "mode": "bicubic", "align_corners": True},
    "bicubic_scale_nhwc": {"scale_factor": 1.5, "mode": "bicubic", "data_format": "NHWC"},
    "linear_align_mode_1": {"size": [8], "mode": "linear", "align_mode": 1},
    "linear_nwc_align_corners": {"size": [8], "mode": "linear", "align_corners": True,
                                 "data_format": "NWC"},
    "trilinear_scale": {"scale_factor": [2.0, 1.5, 1.7], "mode": "trilinear"},
    "trilinear_ndhwc": {"scale_factor": 2, "mode": "trilinear", "data_format": "NDHWC"},
    "area_2d": {"size": [3, 5], "mode": "area"},
    "area_3d": {"size": [2, 3, 2], "mode": "area"},
    "nearest_3d": {"size": [7, 9, 5], "mode": "nearest"},
}


@pytest.mark.parametrize("case", list(RESIZES))
def test_interpolate_modes_match_paddle(paddle331, case):
    key = f"resize/{case}"
    x = core.to_tensor(paddle331[f"{key}/x"], stop_gradient=False)
    out = F.interpolate(x, **RESIZES[case])
    np.testing.assert_allclose(out.numpy(), paddle331[f"{key}/out"], **TOL)
    _weighted_backward(key, paddle331, [out])
    np.testing.assert_allclose(x.gradient(), paddle331[f"{key}/dx"], **TOL)
    layer = nn.Upsample(**RESIZES[case])
    np.testing.assert_allclose(layer(x).numpy(), paddle331[f"{key}/out"], **TOL)


@pytest.mark.parametrize("case", ["bicubic_size", "linear_align_mode_1", "area_3d"])
def test_interpolate_modes_gradients_match_finite_differences(paddle331, case):
    x = paddle331[f"resize/{case}/x"][:1, :1]
    check_grad(lambda t: F.interpolate(t, **RESIZES[case]), x)


def test_interpolate_names_the_modes_and_ranks_it_takes():
    x4 = core.to_tensor(np.zeros((1, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r"mode='cubic' is not supported; use one of \['area'"):
        F.interpolate(x4, size=[3, 3], mode="cubic")
    with pytest.raises(ValueError, match=r"mode='trilinear' expects a 5-D \(NCDHW, NDHWC\) input, "
                                         r"got shape \[1, 1, 2, 2\]"):
        F.interpolate(x4, size=[3, 3, 3], mode="trilinear")
    with pytest.raises(ValueError, match=r"data_format='NCW'"):
        F.interpolate(x4, size=[3, 3], mode="bilinear", data_format="NCW")


# ----- LayerNorm -----------------------------------------------------------------------
def test_layer_norm_parameters_are_flat_and_numbers_match(paddle331):
    layer = nn.LayerNorm([4, 5])
    assert [(k, v.shape) for k, v in layer.state_dict().items()] == \
        [("weight", [20]), ("bias", [20])]
    missing, unexpected = layer.set_state_dict(_state("layer_norm", paddle331))
    assert (missing, unexpected) == ([], [])
    x = core.to_tensor(paddle331["layer_norm/x"], stop_gradient=False)
    out = layer(x)
    np.testing.assert_allclose(out.numpy(), paddle331["layer_norm/out"], **TOL)
    _weighted_backward("layer_norm", paddle331, [out])
    np.testing.assert_allclose(x.gradient(), paddle331["layer_norm/dx"], **TOL)
    np.testing.assert_allclose(layer.weight.gradient(), paddle331["layer_norm/dweight"], **TOL)
    np.testing.assert_allclose(layer.bias.gradient(), paddle331["layer_norm/dbias"], **TOL)


# ----- RNN layers: keys and numbers ----------------------------------------------------
RNNS = {
    "lstm_2_layers": (nn.LSTM, {"num_layers": 2}),
    "gru_bidirect": (nn.GRU, {"direction": "bidirect"}),
    "simple_rnn": (nn.SimpleRNN, {}),
    "lstm_proj": (nn.LSTM, {"num_layers": 2, "proj_size": 3}),
}


@pytest.mark.parametrize("case", ["lstm_2_layers", "gru_bidirect", "simple_rnn"])
def test_rnn_state_dict_keys_shapes_and_order_are_paddles(paddle331, case):
    cls, kwargs = RNNS[case]
    layer = cls(4, 5, **kwargs)
    want = [(str(k), list(paddle331[f"{case}/state/{k}"].shape)) for k in paddle331[f"{case}/keys"]]
    assert [(k, v.shape) for k, v in layer.state_dict().items()] == want
    # the cell names are the same tensors as the flat ones
    state = layer.state_dict()
    cell = "0.cell_fw" if kwargs.get("direction") == "bidirect" else "0.cell"
    assert state[f"{cell}.weight_ih"] is state["weight_ih_l0"]


def test_projected_lstm_keeps_core_flat_names_and_paddles_cell_names(paddle331):
    """Paddle 3.3.1 mislabels its flat names when proj_size > 0 ('weight_ih_l1' holds the
    [5, 3] projection); its cell names are right. core lists correct flat names (weight_ho_l0
    included) and Paddle's cell names, which load Paddle's checkpoint correctly."""
    layer = nn.LSTM(4, 5, num_layers=2, proj_size=3)
    keys = list(layer.state_dict())
    paddle_keys = [str(k) for k in paddle331["lstm_proj/keys"]]
    cells = [k for k in paddle_keys if ".cell." in k]
    assert keys[-len(cells):] == cells
    assert keys[:-len(cells)] == [f"{p}_l{k}" for k in range(2) for p in
                                  ("weight_ih", "weight_hh", "bias_ih", "bias_hh")] + \
        ["weight_ho_l0", "weight_ho_l1"]


@pytest.mark.parametrize("case", list(RNNS))
def test_rnn_from_paddles_weights_gives_paddles_outputs_and_gradients(paddle331, case):
    cls, kwargs = RNNS[case]
    layer = cls(4, 5, **kwargs)
    missing, unexpected = layer.set_state_dict(_state(case, paddle331))
    assert missing == []
    if case != "lstm_proj":  # there Paddle's mislabelled flat keys are overridden by the cells
        assert unexpected == []
    x = core.to_tensor(paddle331[f"{case}/x"], stop_gradient=False)
    out, states = layer(x)
    outs = [out, *(states if isinstance(states, (list, tuple)) else [states])]
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.numpy(), paddle331[f"{case}/out{i}"], **TOL)
    _weighted_backward(case, paddle331, outs)
    np.testing.assert_allclose(x.gradient(), paddle331[f"{case}/dx"], **TOL)


def test_rnn_states_with_only_flat_or_only_cell_names_load_without_missing_keys():
    core.seed(3)
    source = nn.GRU(4, 5, num_layers=2, direction="bidirect")
    full = {k: v.numpy() for k, v in source.state_dict().items()}
    flat = {k: v for k, v in full.items() if ".cell" not in k}  # core's checkpoints before
    cells = {k: v for k, v in full.items() if ".cell" in k}
    for part in (flat, cells):
        target = nn.GRU(4, 5, num_layers=2, direction="bidirect")
        assert target.set_state_dict(part, strict=True) == ([], [])
        for key, value in full.items():
            np.testing.assert_array_equal(target.state_dict()[key].numpy(), value)


def test_rnn_cell_name_wins_over_the_flat_name_as_in_paddle():
    layer = nn.SimpleRNN(2, 3)
    state = {k: v.numpy() for k, v in layer.state_dict().items()}
    state["weight_ih_l0"] = np.zeros((3, 2), np.float32)
    state["0.cell.weight_ih"] = np.ones((3, 2), np.float32)  # loaded after the flat name
    assert layer.set_state_dict(state) == ([], [])
    np.testing.assert_array_equal(layer.weight_ih_l0.numpy(), np.ones((3, 2)))


def test_rnn_strict_loading_names_a_wrong_cell_shape():
    layer = nn.LSTM(2, 3)
    state = {k: v.numpy() for k, v in layer.state_dict().items()}
    state["0.cell.weight_hh"] = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match=r"weight_hh_l0: saved \[2, 2\] vs model \[12, 3\]"):
        layer.set_state_dict(state, strict=True)


def test_state_dict_lists_each_layers_buffers_after_its_parameters(paddle331):
    net = nn.Sequential(nn.Conv2D(3, 4, 3), nn.BatchNorm2D(4), nn.ReLU(),
                        nn.Sequential(nn.Conv2D(4, 2, 1), nn.BatchNorm2D(2)), nn.Flatten(),
                        nn.Linear(2, 3))
    assert list(net.state_dict()) == [str(k) for k in paddle331["sequential_bn/keys"]]


# ----- losses ----------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_label_smoothing_with_class_weights_is_paddles(paddle331, reduction):
    """Paddle weights each smoothed row by sum_c target[c] * weight[c] (its soft-label rule)
    and "mean" divides by their sum; torch weights inside the sum instead."""
    logits = core.to_tensor(paddle331["ce_smooth/logits"], stop_gradient=False)
    labels = core.to_tensor(paddle331["ce_smooth/labels"])
    weight = core.to_tensor(paddle331["ce_smooth/weight"])
    out = F.cross_entropy(logits, labels, weight, reduction=reduction, label_smoothing=0.2)
    want = paddle331[f"ce_smooth/{reduction}/out"]
    # "none": Paddle gives [N, 1] once smoothing is on (its one-hot detour), [N] without;
    # core keeps [N], the label's shape, either way (docs/paddle.md)
    paddle_shape, want = list(want.shape), want.reshape(out.shape)
    np.testing.assert_allclose(out.numpy(), want, **TOL)
    _weighted_backward(f"ce_smooth/{reduction}", paddle331, [out.reshape(paddle_shape)])
    np.testing.assert_allclose(logits.gradient(), paddle331[f"ce_smooth/{reduction}/dx"], **TOL)
    layer = nn.CrossEntropyLoss(weight, reduction=reduction, label_smoothing=0.2)
    np.testing.assert_allclose(layer(logits, labels).numpy(), want, **TOL)
    check_grad(lambda x: F.cross_entropy(x, labels, weight, reduction=reduction,
                                         label_smoothing=0.2), paddle331["ce_smooth/logits"])


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_multi_margin_loss_weights_outside_the_power(paddle331, reduction):
    x = core.to_tensor(paddle331["ce_smooth/logits"], stop_gradient=False)
    labels = core.to_tensor(paddle331["ce_smooth/labels"])
    weight = core.to_tensor(paddle331["ce_smooth/weight"])
    out = F.multi_margin_loss(x, labels, 2, 0.9, weight, reduction)
    np.testing.assert_allclose(out.numpy(), paddle331[f"multi_margin/{reduction}/out"], **TOL)
    _weighted_backward(f"multi_margin/{reduction}", paddle331, [out])
    np.testing.assert_allclose(x.gradient(), paddle331[f"multi_margin/{reduction}/dx"], **TOL)
    np.testing.assert_allclose(nn.MultiMarginLoss(2, 0.9, weight, reduction)(x, labels).numpy(),
                               paddle331[f"multi_margin/{reduction}/out"], **TOL)
    check_grad(lambda t: F.multi_margin_loss(t, labels, 2, 0.9, weight, reduction),
               paddle331["ce_smooth/logits"])


# ----- default initialisation ---------------------------------------------------------
@pytest.mark.parametrize("case, make", [
    ("conv2d_transpose", lambda: nn.Conv2DTranspose(64, 32, 3, groups=2)),
    ("conv1d_transpose", lambda: nn.Conv1DTranspose(48, 96, 5))])
def test_transposed_convolutions_start_xavier_uniform_as_paddle(paddle331, case, make):
    core.seed(0)
    w = make().weight.numpy()
    bound, std, _ = paddle331[f"init/{case}"]  # Paddle's max |w|, std, mean
    in_ch, out_per_group = w.shape[:2]
    field = int(np.prod(w.shape[2:]))
    xavier = np.sqrt(6 / ((in_ch + out_per_group) * field))
    assert bound == pytest.approx(xavier, rel=1e-3)
    assert np.abs(w).max() <= xavier
    assert np.abs(w).max() == pytest.approx(bound, rel=2e-3)
    assert w.std() == pytest.approx(std, rel=0.03)
