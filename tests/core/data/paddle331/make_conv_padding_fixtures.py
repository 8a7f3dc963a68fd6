"""Produce tests/core/data/paddle331/nn/conv_padding.npz with real Paddle 3.3.1 (CPU):

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_conv_padding_fixtures.py

Not collected by pytest and never imported by the tests (the project does not depend on
Paddle). Every padding form Paddle's convolutions take, on F.conv1d/2d/3d, their transposes and
a few layers: the per-axis [before, after] pairs including the batch and channel axes (NC* and
N*C), flat [before, after] ints, one int per axis, 'SAME' / 'VALID' in either case ('SAME' also
for the transposes, with stride, dilation, output_padding and output_size), over odd sizes,
asymmetric pads, stride 2, dilation 2 and groups 2. Each case stores its call (op or layer and
arguments), its inputs ``x``, ``w``, ``b`` (when it has a bias), the output ``out``, and the
gradients ``dx``, ``dw``, ``db`` of ``sum(out * g)`` for the stored random ``g``;
tests/core/nn/test_conv_padding_forms.py replays them on core. To keep the file small (an npz
entry costs ~150 bytes of zip headers) every array lives in one float32 vector, ``values``,
and ``index`` (JSON) gives per case the call and each array's offset and shape.
"""
from __future__ import annotations

import json
import os

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nn", "conv_padding.npz")
RNG = np.random.default_rng(3311)

# (case, op, x shape in the call's layout, weight shape, keyword arguments, bias?)
# Transposed weights are [in, out/groups, *k]; the others [out, in/groups, *k].
PAIRS2 = [[0, 0], [0, 0], [1, 2], [0, 1]]
CASES = [
    ("conv2d_pairs_nchw", "conv2d", (2, 2, 5, 5), (3, 2, 3, 3), {"padding": PAIRS2}, True),
    ("conv2d_pairs_nhwc", "conv2d", (2, 5, 6, 2), (3, 2, 3, 3),
     {"padding": [[0, 0], [1, 2], [0, 1], [0, 0]], "data_format": "NHWC"}, True),
    ("conv2d_pairs_tuples_stride2", "conv2d", (1, 2, 7, 6), (3, 2, 3, 2),
     {"padding": ((0, 0), (0, 0), (2, 0), (1, 3)), "stride": 2}, False),
    ("conv2d_pairs_dilation2", "conv2d", (1, 2, 7, 8), (2, 2, 3, 3),
     {"padding": [[0, 0], [0, 0], [2, 1], [1, 3]], "dilation": 2}, True),
    ("conv2d_pairs_groups2", "conv2d", (1, 4, 7, 5), (4, 2, 3, 2),
     {"padding": [[0, 0], [0, 0], [0, 1], [2, 2]], "stride": [2, 1], "groups": 2}, True),
    ("conv2d_four_ints_stride2", "conv2d", (1, 2, 7, 6), (3, 2, 3, 3),
     {"padding": [2, 0, 1, 3], "stride": 2}, False),
    ("conv2d_same_stride2", "conv2d", (1, 2, 7, 6), (3, 2, 3, 4),
     {"padding": "same", "stride": 2}, True),
    ("conv2d_same_dilation2", "conv2d", (1, 2, 7, 7), (2, 2, 3, 3),
     {"padding": "SAME", "dilation": 2}, False),
    ("conv2d_same_dilation2_stride2_nhwc_groups2", "conv2d", (1, 7, 6, 4), (4, 2, 3, 3),
     {"padding": "SAME", "dilation": 2, "stride": 2, "groups": 2, "data_format": "NHWC"},
     True),
    ("conv2d_valid_stride2", "conv2d", (1, 2, 7, 6), (3, 2, 3, 3),
     {"padding": "valid", "stride": 2}, False),
    ("conv2d_two_ints", "conv2d", (1, 2, 5, 6), (3, 2, 3, 3), {"padding": [1, 2]}, False),
    ("conv1d_pairs_ncl_stride2", "conv1d", (2, 2, 9), (3, 2, 3),
     {"padding": [[0, 0], [0, 0], [1, 2]], "stride": 2}, True),
    ("conv1d_pairs_nlc_dilation2", "conv1d", (1, 8, 2), (3, 2, 3),
     {"padding": [[0, 0], [2, 0], [0, 0]], "dilation": 2, "data_format": "NLC"}, True),
    ("conv1d_two_ints_groups2", "conv1d", (1, 4, 7), (4, 2, 3),
     {"padding": [0, 2], "groups": 2}, False),
    ("conv1d_same_stride2_dilation2", "conv1d", (1, 2, 9), (2, 2, 3),
     {"padding": "same", "stride": 2, "dilation": 2}, True),
    ("conv3d_pairs_ncdhw", "conv3d", (1, 2, 4, 5, 3), (2, 2, 3, 2, 2),
     {"padding": [[0, 0], [0, 0], [1, 2], [0, 1], [2, 0]]}, True),
    ("conv3d_pairs_ndhwc_stride2", "conv3d", (1, 5, 4, 5, 2), (3, 2, 2, 3, 3),
     {"padding": [[0, 0], [0, 1], [1, 0], [2, 1], [0, 0]], "stride": 2,
      "data_format": "NDHWC"}, False),
    ("conv3d_six_ints_dilation2_groups2", "conv3d", (1, 4, 5, 4, 5), (2, 2, 2, 2, 2),
     {"padding": [1, 0, 0, 2, 1, 1], "dilation": 2, "groups": 2}, True),
    ("conv3d_same_stride2", "conv3d", (1, 2, 5, 4, 3), (2, 2, 3, 3, 2),
     {"padding": "SAME", "stride": 2}, True),
    ("conv2d_transpose_same", "conv2d_transpose", (1, 2, 5, 5), (2, 3, 3, 3),
     {"padding": "same"}, True),
    ("conv2d_transpose_same_stride2", "conv2d_transpose", (1, 2, 5, 4), (2, 3, 3, 3),
     {"padding": "SAME", "stride": 2}, False),
    ("conv2d_transpose_same_stride3_output_padding", "conv2d_transpose", (1, 2, 4, 5),
     (2, 2, 3, 2), {"padding": "same", "stride": 3, "output_padding": [1, 2]}, True),
    ("conv2d_transpose_same_stride2_output_size", "conv2d_transpose", (1, 2, 5, 4),
     (2, 3, 3, 3), {"padding": "same", "stride": 2, "output_size": [10, 8]}, False),
    ("conv2d_transpose_same_dilation2_nhwc_groups2", "conv2d_transpose", (1, 5, 4, 4),
     (4, 1, 3, 3), {"padding": "SAME", "stride": 2, "dilation": 2, "groups": 2,
                    "data_format": "NHWC"}, True),
    ("conv2d_transpose_pairs_stride2_output_padding", "conv2d_transpose", (1, 2, 4, 5),
     (2, 3, 3, 3), {"padding": PAIRS2, "stride": 2, "output_padding": 1}, True),
    ("conv2d_transpose_pairs_nhwc_dilation2_groups2", "conv2d_transpose", (1, 4, 5, 4),
     (4, 2, 3, 2), {"padding": [[0, 0], [2, 1], [0, 1], [0, 0]], "stride": 2, "dilation": 2,
                    "groups": 2, "data_format": "NHWC"}, False),
    ("conv2d_transpose_four_ints", "conv2d_transpose", (1, 2, 4, 4), (2, 3, 3, 3),
     {"padding": [1, 0, 2, 1], "stride": [2, 3]}, True),
    ("conv2d_transpose_valid_stride2", "conv2d_transpose", (1, 2, 4, 3), (2, 3, 3, 3),
     {"padding": "VALID", "stride": 2}, False),
    ("conv1d_transpose_same_stride2", "conv1d_transpose", (1, 2, 5), (2, 3, 3),
     {"padding": "same", "stride": 2}, True),
    ("conv1d_transpose_pairs_nlc_output_padding", "conv1d_transpose", (1, 6, 2), (2, 3, 4),
     {"padding": [[0, 0], [1, 2], [0, 0]], "stride": 2, "output_padding": 1,
      "data_format": "NLC"}, True),
    ("conv1d_transpose_same_stride3_output_size", "conv1d_transpose", (1, 2, 5), (2, 2, 3),
     {"padding": "SAME", "stride": 3, "output_size": 14}, False),
    ("conv3d_transpose_same_stride2_output_padding", "conv3d_transpose", (1, 2, 3, 2, 4),
     (2, 1, 3, 3, 3), {"padding": "same", "stride": 2, "output_padding": 1}, True),
    ("conv3d_transpose_pairs_ndhwc_groups2", "conv3d_transpose", (1, 3, 4, 3, 4),
     (4, 1, 2, 3, 2), {"padding": [[0, 0], [1, 0], [0, 2], [1, 1], [0, 0]], "stride": 2,
                       "groups": 2, "data_format": "NDHWC"}, True),
    ("conv3d_transpose_six_ints", "conv3d_transpose", (1, 2, 3, 3, 4), (2, 2, 2, 3, 3),
     {"padding": [1, 0, 0, 1, 2, 1], "stride": [1, 2, 2]}, False),
]

# Layers: (case, class, x shape, constructor positional args, constructor keywords)
LAYERS = [
    ("Conv2D_pairs", "Conv2D", (1, 2, 5, 5), (2, 3, 3), {"padding": PAIRS2}),
    ("Conv2DTranspose_same_stride2", "Conv2DTranspose", (1, 2, 5, 5), (2, 3, 3),
     {"stride": 2, "padding": "same"}),
    ("Conv1D_pairs_nlc", "Conv1D", (1, 7, 2), (2, 4, 3),
     {"padding": [[0, 0], [1, 2], [0, 0]], "data_format": "NLC"}),
    ("Conv3DTranspose_same_stride2", "Conv3DTranspose", (1, 2, 3, 2, 3), (2, 2, 2),
     {"stride": 2, "padding": "SAME"}),
]


def tensor(array):
    t = paddle.to_tensor(array)
    t.stop_gradient = False
    return t


def record(data: dict, case: str, spec: dict, x, out, params: dict) -> None:
    """Backward of sum(out * g); keeps the call, the inputs, out and the gradients."""
    g = RNG.standard_normal(out.shape).astype("float32")
    (out * paddle.to_tensor(g)).sum().backward()
    arrays = {"g": g, "out": out.numpy(), "x": x.numpy(), "dx": x.grad.numpy()}
    for key, value in params.items():
        arrays[key], arrays[f"d{key}"] = value.numpy(), value.grad.numpy()
    data[case] = (spec, arrays)


def pack(data: dict) -> dict[str, np.ndarray]:
    """One float32 vector of every array, and the JSON index of where each lies."""
    index, parts, offset = {}, [], 0
    for case, (spec, arrays) in data.items():
        entry = {"call": spec, "arrays": {}}
        for key, array in arrays.items():
            entry["arrays"][key] = [offset, list(array.shape)]
            parts.append(np.asarray(array, np.float32).ravel())
            offset += array.size
        index[case] = entry
    return {"index": np.array(json.dumps(index)), "values": np.concatenate(parts)}


def functional_cases(data: dict) -> None:
    for case, op, x_shape, w_shape, kwargs, has_bias in CASES:
        x = tensor(RNG.standard_normal(x_shape).astype("float32"))
        params = {"w": tensor(RNG.standard_normal(w_shape).astype("float32"))}
        if has_bias:
            transposed = op.endswith("transpose")
            groups = kwargs.get("groups", 1)
            channels = w_shape[1] * groups if transposed else w_shape[0]
            params["b"] = tensor(RNG.standard_normal(channels).astype("float32"))
        out = getattr(F, op)(x, params["w"], params.get("b"), **kwargs)
        record(data, case, {"op": op, "kwargs": kwargs}, x, out, params)


def layer_cases(data: dict) -> None:
    for case, cls, x_shape, args, kwargs in LAYERS:
        layer = getattr(nn, cls)(*args, **kwargs)
        for param in (layer.weight, layer.bias):
            param.set_value(RNG.standard_normal(param.shape).astype("float32"))
        x = tensor(RNG.standard_normal(x_shape).astype("float32"))
        out = layer(x)
        record(data, case, {"layer": cls, "args": list(args), "kwargs": kwargs}, x, out,
               {"w": layer.weight, "b": layer.bias})


def main() -> None:
    paddle.set_device("cpu")
    data: dict[str, tuple] = {}
    functional_cases(data)
    layer_cases(data)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **pack(data))
    print(f"wrote {len(CASES) + len(LAYERS)} cases to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
