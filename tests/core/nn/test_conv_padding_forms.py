"""Every padding form Paddle's convolutions take, against real Paddle 3.3.1's numbers.

The fixtures (tests/core/data/paddle331/nn/conv_padding.npz) come from
tests/core/data/paddle331/make_conv_padding_fixtures.py run with a Python that has Paddle; these
tests only read them. Covered, for F.conv1d/2d/3d, F.conv1d/2d/3d_transpose and the layers: the
per-axis [before, after] pairs including the batch and channel axes (channels first and last),
flat [before, after] ints, one int per axis, 'SAME' / 'VALID' in any case ('SAME' also for the
transposes, with stride, output_padding and output_size; Paddle's 'SAME' convolves without
dilation), with stride 2, dilation 2 and groups 2. Then float64 finite-difference checks of
asymmetric cases, and the errors for forms Paddle refuses.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "data", "paddle331", "nn", "conv_padding.npz")
TOL = {"rtol": 1e-5, "atol": 1e-5}
RNG = np.random.default_rng(18)


def _load():
    with np.load(FIXTURES) as data:
        index, values = json.loads(str(data["index"])), data["values"]
    cases = {}
    for case, entry in index.items():
        arrays = {key: values[start:start + int(np.prod(shape))].reshape(shape)
                  for key, (start, shape) in entry["arrays"].items()}
        cases[case] = (entry["call"], arrays)
    return cases


CASES = _load()


def _run(call: dict, x, w, b):
    """The recorded call on core: a functional op, or a layer given Paddle's parameters."""
    if "op" in call:
        return getattr(F, call["op"])(x, w, b, **call["kwargs"])
    layer = getattr(nn, call["layer"])(*call["args"], **call["kwargs"])
    layer.weight.set_value(w.numpy())
    layer.bias.set_value(b.numpy())
    layer.weight.stop_gradient = layer.bias.stop_gradient = False
    out = layer(x)
    return out, layer


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_paddle_forward_and_backward(case):
    call, arrays = CASES[case]
    x = core.to_tensor(arrays["x"], stop_gradient=False)
    w = core.to_tensor(arrays["w"], stop_gradient=False)
    b = core.to_tensor(arrays["b"], stop_gradient=False) if "b" in arrays else None
    out = _run(call, x, w, b)
    if isinstance(out, tuple):  # a layer: its own parameters carry the gradients
        out, layer = out
        w, b = layer.weight, layer.bias
    assert out.shape == list(arrays["out"].shape)
    np.testing.assert_allclose(out.numpy(), arrays["out"], **TOL)
    (out * core.to_tensor(arrays["g"])).sum().backward()
    np.testing.assert_allclose(x.gradient(), arrays["dx"], **TOL)
    np.testing.assert_allclose(w.gradient(), arrays["dw"], **TOL)
    if b is not None:
        np.testing.assert_allclose(b.gradient(), arrays["db"], **TOL)


def test_the_fixtures_cover_every_form():
    """Each op has the pair form and 'SAME'; the pair form is tried channels-first and last."""
    paddings = {}
    for call, _ in CASES.values():
        name = call.get("op", call.get("layer"))
        paddings.setdefault(name, []).append(call["kwargs"]["padding"])
    for op in ("conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
               "conv3d_transpose"):
        forms = paddings[op]
        assert any(isinstance(p, str) and p.upper() == "SAME" for p in forms), op
        assert any(isinstance(p, list) and isinstance(p[0], list) for p in forms), op
    assert len(CASES) >= 30


# ----- spellings that must agree -----------------------------------------------------------
@pytest.mark.parametrize("op, x_shape, w_shape, spellings", [
    ("conv1d", (1, 2, 7), (3, 2, 3),
     [[1, 2], [[0, 0], [0, 0], [1, 2]], ((0, 0), (0, 0), (1, 2))]),
    ("conv2d", (1, 2, 6, 5), (3, 2, 3, 3),
     [[2, 0, 1, 3], [[0, 0], [0, 0], [2, 0], [1, 3]], ((0, 0), (0, 0), (2, 0), (1, 3))]),
    ("conv3d", (1, 2, 4, 5, 4), (2, 2, 2, 3, 2),
     [[1, 0, 2, 1, 0, 1], [[0, 0], [0, 0], [1, 0], [2, 1], [0, 1]]]),
    ("conv2d_transpose", (1, 2, 4, 5), (2, 3, 3, 3),
     [[2, 0, 1, 2], [[0, 0], [0, 0], [2, 0], [1, 2]], ((0, 0), (0, 0), (2, 0), (1, 2))]),
    ("conv1d_transpose", (1, 2, 5), (2, 3, 3), [[2, 1], [[0, 0], [0, 0], [2, 1]]]),
    ("conv3d_transpose", (1, 2, 3, 3, 3), (2, 2, 3, 2, 2),
     [[1, 0, 2, 1, 0, 1], [[0, 0], [0, 0], [1, 0], [2, 1], [0, 1]]]),
])
def test_spellings_of_one_padding_agree_channels_first_and_last(op, x_shape, w_shape,
                                                                spellings):
    """Flat ints, lists of pairs and tuples of pairs give the same numbers; channels-last data
    takes the pairs with the channel pair last."""
    fn = getattr(F, op)
    x, w = core.to_tensor(RNG.standard_normal(x_shape)), core.to_tensor(
        RNG.standard_normal(w_shape))
    base = fn(x, w, padding=spellings[0], stride=2).numpy()
    for spelled in spellings[1:]:
        np.testing.assert_allclose(fn(x, w, padding=spelled, stride=2).numpy(), base,
                                   rtol=1e-12)
    ndim = len(x_shape) - 2
    last = {1: "NLC", 2: "NHWC", 3: "NDHWC"}[ndim]
    order = [0, *range(2, ndim + 2), 1]
    pairs = spellings[1]
    moved = [pairs[0], *pairs[2:], pairs[1]]
    out = fn(core.transpose(x, order), w, padding=moved, stride=2, data_format=last)
    back = [0, ndim + 1, *range(1, ndim + 1)]
    np.testing.assert_allclose(core.transpose(out, back).numpy(), base, rtol=1e-12)


@pytest.mark.parametrize("op, x_shape, w_shape", [
    ("conv1d_transpose", (1, 2, 5), (2, 3, 3)), ("conv2d_transpose", (1, 2, 5, 4), (2, 3, 3, 3)),
    ("conv3d_transpose", (1, 2, 3, 4, 2), (2, 3, 3, 3, 2))])
@pytest.mark.parametrize("stride", [1, 2, 3])
def test_transposed_same_is_the_explicit_padding_paddle_derives(op, x_shape, w_shape, stride):
    """Paddle's 'SAME' for a transposed convolution: the padding conv's 'SAME' would take over
    x's sizes (output ceil(x / stride), odd extra after), dilation reset to 1."""
    fn = getattr(F, op)
    x, w = core.to_tensor(RNG.standard_normal(x_shape)), core.to_tensor(
        RNG.standard_normal(w_shape))
    pads = []
    for size, k in zip(x_shape[2:], w_shape[2:]):
        total = max((-(-size // stride) - 1) * stride + k - size, 0)
        pads += [total // 2, total - total // 2]
    want = fn(x, w, stride=stride, padding=pads).numpy()
    for spelled in ("SAME", "same", "Same"):
        got = fn(x, w, stride=stride, padding=spelled, dilation=2).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)


# ----- gradients in float64 -------------------------------------------------------------------
@pytest.mark.parametrize("op, x_shape, w_shape, kwargs", [
    ("conv2d", (1, 2, 5, 4), (2, 2, 3, 2),
     {"padding": [[0, 0], [0, 0], [2, 0], [0, 1]], "stride": 2}),
    ("conv2d", (1, 5, 4, 4), (4, 2, 3, 3),
     {"padding": [[0, 0], [1, 2], [0, 1], [0, 0]], "groups": 2, "data_format": "NHWC"}),
    ("conv1d", (1, 6, 2), (2, 2, 3),
     {"padding": [[0, 0], [2, 0], [0, 0]], "dilation": 2, "data_format": "NLC"}),
    ("conv3d", (1, 2, 3, 4, 3), (2, 2, 2, 2, 2),
     {"padding": [[0, 0], [0, 0], [1, 0], [0, 2], [1, 1]], "stride": [1, 2, 1]}),
    ("conv2d_transpose", (1, 2, 3, 4), (2, 2, 3, 3),
     {"padding": "SAME", "stride": 2, "output_padding": 1}),
    ("conv2d_transpose", (1, 3, 4, 2), (2, 2, 3, 2),
     {"padding": [[0, 0], [2, 0], [0, 1], [0, 0]], "stride": 2, "data_format": "NHWC"}),
    ("conv1d_transpose", (1, 2, 4), (2, 2, 3), {"padding": "same", "stride": 3}),
    ("conv3d_transpose", (1, 2, 2, 3, 2), (2, 1, 2, 3, 2),
     {"padding": "SAME", "stride": 2}),
])
def test_asymmetric_padding_gradients_match_finite_differences(op, x_shape, w_shape, kwargs):
    fn = getattr(F, op)
    check_grad(lambda x, w: fn(x, w, **kwargs), RNG.standard_normal(x_shape),
               RNG.standard_normal(w_shape))


# ----- layers -----------------------------------------------------------------------------------
def test_layers_take_the_pair_form_and_transposed_same():
    x = core.to_tensor(RNG.standard_normal((1, 2, 5, 5)).astype(np.float32))
    assert nn.Conv2D(2, 3, 3, padding=[[0, 0], [0, 0], [1, 2], [0, 1]])(x).shape == [1, 3, 6, 4]
    assert nn.Conv2DTranspose(2, 3, 3, padding="same")(x).shape == [1, 3, 5, 5]
    assert nn.Conv2DTranspose(2, 3, 3, stride=2, padding="SAME")(x).shape == [1, 3, 9, 9]
    assert nn.Conv2DTranspose(2, 3, 3, stride=2, padding="SAME")(x, output_size=[10, 10]).shape \
        == [1, 3, 10, 10]
    x1 = core.to_tensor(RNG.standard_normal((1, 2, 5)).astype(np.float32))
    assert nn.Conv1DTranspose(2, 3, 3, stride=2, padding="same")(x1).shape == [1, 3, 9]
    x3 = core.to_tensor(RNG.standard_normal((1, 2, 5, 4, 3)).astype(np.float32))
    assert nn.Conv3DTranspose(2, 3, 3, stride=2, padding="same")(x3).shape == [1, 3, 9, 8, 5]
    reflect = nn.Conv2D(2, 3, 3, padding=[[0, 0], [0, 0], [1, 2], [0, 1]],
                        padding_mode="reflect")
    assert reflect(x).shape == [1, 3, 6, 4]


# ----- errors -------------------------------------------------------------------------------------
def _x(*shape):
    return core.to_tensor(np.zeros(shape, np.float32))


@pytest.mark.parametrize("call, match", [
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding=[[0, 1], [0, 0], [1, 2], [0, 1]]),
     r"conv2d: padding must be \[0, 0\] on the batch and channel axes \(pairs 0 and 1 for "
     r"NCHW data\).*got \[\[0, 1\]"),
    (lambda: F.conv2d(_x(1, 5, 5, 2), _x(3, 2, 3, 3), padding=[[0, 0], [0, 0], [1, 2], [0, 1]],
                      data_format="NHWC"), r"pairs 0 and 3 for NHWC data"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding=[[0, 0], [1, 2], [0, 1]]),
     r"4 \[before, after\] pairs, one per axis of the NCHW data.*got \[\[0, 0\], \[1, 2\]"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding=[1, 2, 3]),
     r"an int >= 0, a pair \(height, width\), 4 ints \[top, bottom, left, right\].*"
     r"got \[1, 2, 3\]"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding=[-1, 2]), r"got \[-1, 2\]"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3),
                      padding=[[0, 0], [0, 0], [1, 2, 3], [0, 1]]), r"got \[\[0, 0\], \[0, 0\], "
                                                                    r"\[1, 2, 3\]"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding=[[0, 0], 1, [1, 1], [1, 1]]),
     r"got \[\[0, 0\], 1, \[1, 1\], \[1, 1\]\]"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding=1.5), r"got 1\.5"),
    (lambda: F.conv2d(_x(1, 2, 5, 5), _x(3, 2, 3, 3), padding="full"),
     r"conv2d: padding string must be 'SAME' or 'VALID' \(any case\), got 'full'"),
    (lambda: F.conv1d(_x(1, 2, 5), _x(3, 2, 3), padding=[1, 2, 0, 0]),
     r"conv1d: padding must be .*\[pad\], 2 ints \[left, right\].*got \[1, 2, 0, 0\]"),
    (lambda: F.conv1d(_x(1, 5, 2), _x(3, 2, 3), padding=[[0, 0], [0, 0], [1, 1]],
                      data_format="NLC"), r"pairs 0 and 2 for NLC data"),
    (lambda: F.conv3d(_x(1, 2, 3, 3, 3), _x(2, 2, 2, 2, 2), padding=[[0, 0], [1, 1], [1, 1],
                                                                     [1, 1], [0, 0]]),
     r"conv3d: padding must be \[0, 0\] on the batch and channel axes \(pairs 0 and 1 for "
     r"NCDHW data\)"),
    (lambda: F.conv3d(_x(1, 2, 3, 3, 3), _x(2, 2, 2, 2, 2), padding=[1, 1, 1, 1]),
     r"three ints \(depth, height, width\), 6 ints \[front, back, top, bottom, left, right\]"),
    (lambda: F.conv2d_transpose(_x(1, 2, 5, 5), _x(2, 3, 3, 3), padding="full"),
     r"conv2d_transpose: padding string must be 'SAME' or 'VALID'"),
    (lambda: F.conv2d_transpose(_x(1, 2, 5, 5), _x(2, 3, 3, 3),
                                padding=[[1, 0], [0, 0], [1, 2], [0, 1]]),
     r"conv2d_transpose: padding must be \[0, 0\] on the batch and channel axes"),
    (lambda: F.conv2d_transpose(_x(1, 2, 5, 5), _x(2, 3, 3, 3), padding=[1, 2, 3]),
     r"conv2d_transpose: padding must be .*got \[1, 2, 3\]"),
    (lambda: F.conv2d_transpose(_x(1, 2, 5, 5), _x(2, 3, 3, 3), stride=2, output_padding=2),
     r"conv2d_transpose: output_padding=2 must lie in \[0, max\(stride, dilation\)\) = "
     r"\[0, 2\) along the height"),
    (lambda: F.conv2d_transpose(_x(1, 2, 5, 5), _x(2, 3, 3, 3), stride=2, padding="SAME",
                                output_size=[8, 9]), r"output_size=\[8, 9\] cannot be reached"),
    (lambda: F.conv1d_transpose(_x(1, 2, 5), _x(2, 3, 3), padding=[1, 2, 3]),
     r"conv1d_transpose: padding must be .*got \[1, 2, 3\]"),
    (lambda: F.conv1d_transpose(_x(1, 2, 5), _x(2, 3, 3), padding="SAME", dilation=2,
                                output_padding=1),
     r"conv1d_transpose: output_padding=1 must be an int in \[0, max\(stride, dilation\)\) = "
     r"\[0, 1\)"),
    (lambda: F.conv3d_transpose(_x(1, 2, 3, 3, 3), _x(2, 1, 2, 2, 2),
                                padding=[[0, 0], [0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
     r"conv3d_transpose: padding must be .*got \[\[0, 0\]"),
    (lambda: nn.Conv2D(2, 3, 3, padding=[[0, 1], [0, 0], [1, 2], [0, 1]]),
     r"Conv2D: padding must be \[0, 0\] on the batch and channel axes"),
    (lambda: nn.Conv1D(2, 3, 3, padding=[[0, 1], [0, 0], [1, 2]]),
     r"Conv1D: padding must be \[0, 0\] on the batch and channel axes"),
    (lambda: nn.Conv3D(2, 3, 3, padding=[1, 2]), r"Conv3D: padding must be"),
    (lambda: nn.Conv2DTranspose(2, 3, 3, padding="full"),
     r"Conv2DTranspose: padding string must be 'SAME' or 'VALID'"),
    (lambda: nn.Conv1DTranspose(2, 3, 3, padding=[1, 2, 3]), r"Conv1DTranspose: padding must"),
    (lambda: nn.Conv3DTranspose(2, 3, 3, padding=[[0, 0], [0, 0], [1, 1], [1, 1], [1, 1]],
                                data_format="NDHWC"), r"pairs 0 and 4 for NDHWC data"),
    (lambda: nn.Conv2D(2, 3, 3, padding=[[0, 1], [0, 0], [1, 2], [0, 1]],
                       padding_mode="circular"),
     r"Conv2D: padding=\[\[0, 1\], .* must be an int >= 0, 2 ints or 4 ints \(4 \[before, "
     r"after\] pairs with \[0, 0\] for the batch and channel axes\)"),
])
def test_refused_padding_forms_name_the_value_and_what_is_allowed(call, match):
    with pytest.raises(ValueError, match=match):
        call()
