"""Produce tests/core/data/paddle331/nn/agreement.npz with real Paddle 3.3.1 (CPU):

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_nn_fixtures.py

Not collected by pytest and never imported by the tests (the project does not depend on
Paddle). Each case stores its inputs, the seeded Paddle layer's state (``<case>/state/<key>``,
with the key order in ``<case>/keys``), its outputs and the gradients of ``sum(out * w)`` for a
fixed random ``w``; tests/core/nn/test_paddle_agreement_nn.py replays them on core. These are
the cases where core disagreed with Paddle before session 17's agreement sweep (the sweep's
harness compared ~260 layer and functional configurations; see the session report).
"""
from __future__ import annotations

import os

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nn", "agreement.npz")
RNG = np.random.default_rng(331)
DATA: dict[str, np.ndarray] = {}


def tensor(array, grad=True):
    t = paddle.to_tensor(array)
    t.stop_gradient = not grad
    return t


def weighted_backward(case: str, outs) -> None:
    """Backward of sum(out * w) over the float outputs; w saved as <case>/w<i>."""
    total = None
    for i, out in enumerate(outs):
        w = RNG.standard_normal(out.shape).astype("float32")
        DATA[f"{case}/w{i}"] = w
        term = (out * paddle.to_tensor(w)).sum()
        total = term if total is None else total + term
    total.backward()


def save_state(case: str, layer) -> None:
    state = layer.state_dict()
    DATA[f"{case}/keys"] = np.array(list(state))
    for key, value in state.items():
        DATA[f"{case}/state/{key}"] = value.numpy()


def pools() -> None:
    for case, fn, shape in (
            ("avg_pool1d_inclusive_ceil", F.avg_pool1d, (2, 3, 10)),
            ("avg_pool2d_inclusive_ceil", F.avg_pool2d, (2, 3, 8, 7))):
        x = RNG.standard_normal(shape).astype("float32")
        xt = tensor(x)
        out = fn(xt, 3, 2, 1, exclusive=False, ceil_mode=True)
        weighted_backward(case, [out])
        DATA.update({f"{case}/x": x, f"{case}/out": out.numpy(), f"{case}/dx": xt.grad.numpy()})


def adaptive_avg_nhwc() -> None:
    x = RNG.standard_normal((2, 7, 9, 3)).astype("float32")
    xt = tensor(x)
    out = F.adaptive_avg_pool2d(xt, [3, None], data_format="NHWC")
    weighted_backward("adaptive_avg_nhwc", [out])
    DATA.update({"adaptive_avg_nhwc/x": x, "adaptive_avg_nhwc/out": out.numpy(),
                 "adaptive_avg_nhwc/dx": xt.grad.numpy()})


def layer_norm() -> None:
    paddle.seed(5)
    layer = nn.LayerNorm([4, 5])
    layer.weight.set_value(RNG.uniform(0.5, 1.5, [20]).astype("float32"))
    layer.bias.set_value(RNG.standard_normal([20]).astype("float32"))
    save_state("layer_norm", layer)
    x = RNG.standard_normal((3, 2, 4, 5)).astype("float32")
    xt = tensor(x)
    out = layer(xt)
    weighted_backward("layer_norm", [out])
    DATA.update({"layer_norm/x": x, "layer_norm/out": out.numpy(),
                 "layer_norm/dx": xt.grad.numpy(), "layer_norm/dweight": layer.weight.grad.numpy(),
                 "layer_norm/dbias": layer.bias.grad.numpy()})


RNNS = {
    "lstm_2_layers": (nn.LSTM, {"num_layers": 2}),
    "gru_bidirect": (nn.GRU, {"direction": "bidirect"}),
    "simple_rnn": (nn.SimpleRNN, {}),
    "lstm_proj": (nn.LSTM, {"num_layers": 2, "proj_size": 3}),
}


def rnns() -> None:
    for case, (cls, kwargs) in RNNS.items():
        paddle.seed(7)
        layer = cls(4, 5, **kwargs)
        save_state(case, layer)
        x = RNG.standard_normal((2, 6, 4)).astype("float32")
        xt = tensor(x)
        out, states = layer(xt)
        outs = [out, *(states if isinstance(states, (list, tuple)) else [states])]
        weighted_backward(case, outs)
        DATA[f"{case}/x"] = x
        DATA[f"{case}/dx"] = xt.grad.numpy()
        for i, o in enumerate(outs):
            DATA[f"{case}/out{i}"] = o.numpy()


def batch_norm_order() -> None:
    paddle.seed(1)
    net = nn.Sequential(nn.Conv2D(3, 4, 3), nn.BatchNorm2D(4), nn.ReLU(),
                        nn.Sequential(nn.Conv2D(4, 2, 1), nn.BatchNorm2D(2)), nn.Flatten(),
                        nn.Linear(2, 3))
    DATA["sequential_bn/keys"] = np.array(list(net.state_dict()))


def losses() -> None:
    logits = RNG.standard_normal((6, 4)).astype("float32")
    labels = np.array([0, 3, 1, 2, 3, 1])
    weight = np.array([0.2, 1.0, 0.5, 2.0], "float32")
    DATA.update({"ce_smooth/logits": logits, "ce_smooth/labels": labels,
                 "ce_smooth/weight": weight})
    for reduction in ("mean", "sum", "none"):
        xt = tensor(logits)
        out = F.cross_entropy(xt, paddle.to_tensor(labels), weight=paddle.to_tensor(weight),
                              reduction=reduction, label_smoothing=0.2)
        weighted_backward(f"ce_smooth/{reduction}", [out])
        DATA[f"ce_smooth/{reduction}/out"] = out.numpy()
        DATA[f"ce_smooth/{reduction}/dx"] = xt.grad.numpy()
    for reduction in ("mean", "none"):
        xt = tensor(logits)
        out = F.multi_margin_loss(xt, paddle.to_tensor(labels), p=2, margin=0.9,
                                  weight=paddle.to_tensor(weight), reduction=reduction)
        weighted_backward(f"multi_margin/{reduction}", [out])
        DATA[f"multi_margin/{reduction}/out"] = out.numpy()
        DATA[f"multi_margin/{reduction}/dx"] = xt.grad.numpy()


def transposed_init() -> None:
    paddle.seed(0)
    for case, layer in (("conv2d_transpose", nn.Conv2DTranspose(64, 32, 3, groups=2)),
                        ("conv1d_transpose", nn.Conv1DTranspose(48, 96, 5))):
        w = layer.weight.numpy()
        DATA[f"init/{case}"] = np.array([np.abs(w).max(), w.std(), w.mean()], "float64")


# the interpolate modes core lacked: name -> (input shape, keyword arguments)
RESIZES = {
    "bicubic_size": ((2, 3, 5, 4), {"size": [7, 9], "mode": "bicubic"}),
    "bicubic_down_align_corners": ((1, 2, 7, 8), {"size": [3, 5], "mode": "bicubic",
                                                  "align_corners": True}),
    "bicubic_scale_nhwc": ((2, 5, 4, 3), {"scale_factor": 1.5, "mode": "bicubic",
                                          "data_format": "NHWC"}),
    "linear_align_mode_1": ((2, 3, 5), {"size": [8], "mode": "linear", "align_mode": 1}),
    "linear_nwc_align_corners": ((2, 5, 3), {"size": [8], "mode": "linear",
                                             "align_corners": True, "data_format": "NWC"}),
    "trilinear_scale": ((1, 2, 3, 4, 3), {"scale_factor": [2.0, 1.5, 1.7], "mode": "trilinear"}),
    "trilinear_ndhwc": ((1, 3, 4, 3, 2), {"scale_factor": 2, "mode": "trilinear",
                                          "data_format": "NDHWC"}),
    "area_2d": ((2, 3, 7, 8), {"size": [3, 5], "mode": "area"}),
    "area_3d": ((1, 2, 5, 4, 3), {"size": [2, 3, 2], "mode": "area"}),
    "nearest_3d": ((1, 2, 3, 4, 3), {"size": [7, 9, 5], "mode": "nearest"}),
}


def resizes() -> None:
    for case, (shape, kwargs) in RESIZES.items():
        x = RNG.standard_normal(shape).astype("float32")
        xt = tensor(x)
        out = F.interpolate(xt, **kwargs)
        weighted_backward(f"resize/{case}", [out])
        DATA.update({f"resize/{case}/x": x, f"resize/{case}/out": out.numpy(),
                     f"resize/{case}/dx": xt.grad.numpy()})


def main() -> None:
    resizes()
    pools()
    adaptive_avg_nhwc()
    layer_norm()
    rnns()
    batch_norm_order()
    losses()
    transposed_init()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **DATA)
    print(f"wrote {OUT}: {len(DATA)} arrays, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
