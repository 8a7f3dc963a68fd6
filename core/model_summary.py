"""The model summary: one row per computing layer (name, type, output shape, parameters, FLOPs
per sample) and the totals, from one probe sample run through the model with forward hooks.

It works for any model (a spec, a built-in or a plugin's), because it reads what the layers do
rather than how they were described. FLOPs count a multiply-add as two: GEMM layers (Linear,
convolutions, recurrent cells, attention) by their weights and shapes, any other layer as one
operation per output value. ``summary`` is Paddle's ``paddle.summary`` (``core.summary``); the
runner prints the same table (``python -m runner.summary``, ``model_summary.txt``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import core
from core import nn
from core.nn.norm import _BatchNormBase


@dataclass
class Row:
    name: str
    type: str
    shape: tuple  # one sample's output shape
    params: int
    flops: int


def summarize(model: nn.Layer, input_shape, vocab_size: int = 0, variable_length: bool = False,
              input_dtype: str = "float32", steps: int = 8) -> list[Row]:
    """The rows of ``model`` for one sample of ``input_shape`` (``steps`` time steps for
    variable-length sequences)."""
    return _rows(model, [_sample(input_shape, vocab_size, variable_length, input_dtype, steps)])


def _rows(model: nn.Layer, args: list, statistics: bool = False) -> list[Row]:
    """The rows of ``model`` run once on ``model(*args)`` (eval mode, no gradient);
    ``statistics`` counts BatchNorm's running statistics among a row's parameters (Paddle's
    table does)."""
    leaves = [(name, layer) for name, layer in model.named_sublayers() if not layer._sub_layers]
    if not model._sub_layers:  # a network that is one layer (a Linear): its own row
        leaves = [(type(model).__name__, model)]
    seen: dict[str, tuple] = {}
    hooks = []
    for name, layer in leaves:
        def record(layer, inputs, output, name=name):
            out = output[0] if isinstance(output, (tuple, list)) else output
            first = inputs[0] if inputs else None
            seen[name] = (tuple(getattr(first, "shape", ())), tuple(getattr(out, "shape", ())))
        hooks.append(layer.register_forward_post_hook(record))
    try:
        was_training = model.training
        model.eval()
        with core.no_grad():
            model(*args)
        if was_training:
            model.train()
    finally:
        for hook in hooks:
            hook.remove()
    rows = []
    for name, layer in leaves:
        params = sum(int(p.size) for p in layer.parameters(include_sublayers=False))
        if statistics:
            params += sum(int(b.size) for b in _statistics(layer))
        in_shape, out_shape = seen.get(name, ((), ()))
        rows.append(Row(name, type(layer).__name__, tuple(out_shape[1:]), params,
                        _flops(layer, in_shape[1:], out_shape[1:])))
    return rows


def _statistics(layer: nn.Layer) -> list:
    """The layer's own BatchNorm running statistics (``_mean``, ``_variance``). Paddle creates
    them as non-trainable parameters, so its summary counts them: ``BatchNorm2D(64)`` has 256
    parameters, and they are the "Non-trainable params" of a network with BatchNorm (resnet50:
    106,240). core keeps them as buffers."""
    if not isinstance(layer, _BatchNormBase):
        return []
    return [buf for name, buf in layer._buffers.items() if name in ("_mean", "_variance")]


def summary(net: nn.Layer, input_size=None, dtypes=None, input=None) -> dict:  # noqa: A002
    """Print ``net``'s layer table for one sample and return ``{"total_params": n,
    "trainable_params": m}``, as ``paddle.summary(net, input_size, dtypes, input)``.

    ``input_size`` is the input's shape with its batch axis first (``(1, 1, 28, 28)``; the batch
    size, also -1 or None, does not matter) or an ``InputSpec``; for a network whose forward
    takes several inputs, a list of them (``[(1, 1, 8, 8), (1, 4)]``). Or give an example
    ``input`` Tensor (a list of Tensors for several inputs): only its shape and dtype are used.
    ``dtypes`` (one dtype for every input, or a list of one per input; default float32, or the
    ``InputSpec``'s) makes integer inputs (word ids) when integer. The model runs once on
    zeros of batch size 1 in eval mode without a gradient, and its mode is restored.
    """
    if input is not None:
        given = list(input) if isinstance(input, (list, tuple)) else [input]
        if not given or not all(hasattr(x, "shape") and hasattr(x, "dtype") for x in given):
            raise ValueError("summary: input must be a Tensor, or a list of Tensors for a "
                             f"network with several inputs; got {type(input).__name__}")
        inputs = [(tuple(x.shape), str(x.dtype)) for x in given]
    elif input_size is not None:
        inputs = _sized_inputs(input_size, dtypes)
    else:
        raise ValueError("summary: give input_size (e.g. (1, 1, 28, 28)) or an input Tensor")
    for shape, _ in inputs:
        if len(shape) < 2 or any(n is None or n < 1 for n in shape[1:]):
            raise ValueError(f"summary: the input shape {list(shape)} needs a batch axis first "
                             "and positive sizes after it, e.g. (1, 1, 28, 28)")
    rows = _rows(net, [_sample(shape[1:], 0, False, dtype, 0) for shape, dtype in inputs],
                 statistics=True)
    total = sum(int(p.size) for p in net.parameters()) + sum(
        int(b.size) for _, layer in net.named_sublayers(include_self=True)
        for b in _statistics(layer))
    trainable = sum(int(p.size) for p in net.parameters() if not p.stop_gradient)
    print(f"{format_table(rows)}\nTotal params: {total:,}\nTrainable params: {trainable:,}\n"
          f"Non-trainable params: {total - trainable:,}")
    return {"total_params": total, "trainable_params": trainable}


def _is_shape(value) -> bool:
    return isinstance(value, (list, tuple)) and all(
        (isinstance(n, (int, np.integer)) and not isinstance(n, bool)) or n is None
        for n in value)


def _sized_inputs(input_size, dtypes) -> list[tuple[tuple, str]]:
    """``(shape, dtype)`` of each input described by ``input_size`` and ``dtypes``."""
    several = isinstance(input_size, (list, tuple)) and bool(input_size) and all(
        isinstance(item, (list, tuple)) or hasattr(item, "example_shape")
        for item in input_size)
    items = list(input_size) if several else [input_size]
    if isinstance(dtypes, (list, tuple)):
        if several and len(dtypes) != len(items):
            raise ValueError(f"summary: dtypes has {len(dtypes)} entries for {len(items)} "
                             "inputs; give one dtype per input (or one for all)")
        kinds = list(dtypes) if several else list(dtypes[:1]) or [None]
    else:
        kinds = [dtypes] * len(items)
    inputs = []
    for item, kind in zip(items, kinds):
        spec_dtype = None
        if hasattr(item, "example_shape"):  # an InputSpec
            item, spec_dtype = item.example_shape(), item.dtype
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            item = (item,)
        if not _is_shape(item) or not item:
            what = "each input's shape" if several else "one input's shape (or a list of them)"
            raise ValueError(f"summary: input_size={input_size!r} must be {what}, batch axis "
                             "first, e.g. (1, 1, 28, 28) or [(1, 1, 8, 8), (1, 4)]")
        inputs.append((tuple(item), kind or spec_dtype or "float32"))
    return inputs


def format_table(rows: list[Row]) -> str:
    """The rows as an aligned text table with a total line."""
    header = ("layer", "type", "output shape", "params", "FLOPs/sample")
    lines = [(r.name, r.type, "[" + ", ".join(map(str, r.shape)) + "]" if r.shape else "-",
              f"{r.params:,}", _si(r.flops)) for r in rows]
    total = ("total", "", "", f"{sum(r.params for r in rows):,}",
             _si(sum(r.flops for r in rows)))
    widths = [max(len(str(line[i])) for line in [header, *lines, total]) for i in range(5)]

    def fmt(line):
        cells = [str(c).ljust(w) if i < 3 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        return "  ".join(cells).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *map(fmt, lines), rule, fmt(total)])


def _sample(input_shape, vocab_size, variable_length, input_dtype, steps):
    """Zeros of one sample in ``input_dtype`` (word ids: int64 unless an integer dtype is
    given)."""
    shape = (1, steps, *input_shape) if variable_length else (1, *input_shape)
    dtype = np.dtype(input_dtype)
    if vocab_size and dtype.kind not in "iu":
        dtype = np.dtype(np.int64)
    x = core.to_tensor(np.zeros(shape, dtype=dtype))
    return (x, np.array([steps])) if variable_length else x


def _flops(layer, in_shape: tuple, out_shape: tuple) -> int:
    """Floating-point operations of one sample through ``layer`` (a multiply-add is two)."""
    out_size = math.prod(out_shape) if out_shape else 0
    weight = getattr(layer, "weight", None)
    kind = type(layer).__name__
    if kind == "Embedding":
        return 0  # a lookup
    if weight is not None and weight.ndim >= 2 and "Transpose" in kind:
        # Each input value meets weight.size / in_channels weights.
        return 2 * math.prod(in_shape) * (weight.size // max(weight.shape[0], 1))
    if kind == "Bilinear" and weight is not None:  # out_k = x1 W_k x2: in1 * in2 per output
        return 2 * out_size * (weight.size // max(weight.shape[0], 1))
    if weight is not None and weight.ndim >= 2 and ("Conv" in kind or kind == "Linear"):
        per_output = weight.size // max(weight.shape[0 if "Conv" in kind else 1], 1)
        return 2 * out_size * per_output  # each output: a dot product of per_output terms
    if hasattr(layer, "hidden_size") or kind == "MultiHeadAttention":
        # A sequence sample is [steps, features]; a cell's is [features]: one step.
        steps = in_shape[0] if len(in_shape) >= 2 else 1
        weights = sum(int(p.size) for p in layer.parameters() if p.ndim >= 2)
        flops = 2 * weights * steps  # every weight used once per step
        if kind == "MultiHeadAttention":
            width = in_shape[-1] if in_shape else 0
            flops += 4 * steps * steps * width  # scores and their weighted sum
        return flops
    return out_size


def _si(value: int) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.2f}{unit}"
    return str(value)


# ----- paddle.flops: Paddle's own counting rules (hapi/dynamic_flops.py) ----------------------
# Paddle counts differently from the summary above: a multiply-add is ONE operation, a bias add
# one more per output of a convolution but none for Linear, and only the layer types below count
# (others, ReLU and MaxPool2D included, are zero). ``flops`` follows Paddle so that its numbers
# match those printed by Paddle for the same network.
def _count_conv(layer, inputs, output) -> None:
    kernel = math.prod(layer.weight.shape[2:])
    per_output = inputs[0].shape[1] / layer.groups * kernel + (layer.bias is not None)
    layer.total_ops += abs(int(output.size * per_output))


def _count_elements(layer, inputs, output) -> None:  # LeakyReLU: one per input value
    layer.total_ops += int(inputs[0].size)


def _count_batch_norm(layer, inputs, output) -> None:  # eval mode: scale and shift
    layer.total_ops += 2 * int(inputs[0].size)


def _count_linear(layer, inputs, output) -> None:  # in_features multiply-adds per output
    layer.total_ops += int(layer.weight.shape[0]) * int(output.size)


def _count_avg_pool(layer, inputs, output) -> None:
    layer.total_ops += int(output.size)


def _count_adaptive_avg_pool(layer, inputs, output) -> None:  # the window's adds and a divide
    window = np.array(inputs[0].shape[2:]) // np.array(output.shape[2:])
    layer.total_ops += (int(np.prod(window)) + 1) * int(output.size)


def _count_zero(layer, inputs, output) -> None:
    del layer, inputs, output


def _paddle_counters() -> dict:
    """Paddle's ``register_hooks``: exact layer type -> counting function."""
    conv = ("Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
            "Conv3DTranspose")
    table = {getattr(nn, name): _count_conv for name in conv}
    table.update({nn.BatchNorm2D: _count_batch_norm, nn.BatchNorm: _count_batch_norm,
                  nn.ReLU: _count_zero, nn.ReLU6: _count_zero, nn.Dropout: _count_zero,
                  nn.LeakyReLU: _count_elements, nn.Linear: _count_linear})
    table.update({getattr(nn, f"AvgPool{d}D"): _count_avg_pool for d in (1, 2, 3)})
    table.update({getattr(nn, f"AdaptiveAvgPool{d}D"): _count_adaptive_avg_pool
                  for d in (1, 2, 3)})
    return table


def flops(net: nn.Layer, input_size, custom_ops: dict | None = None,
          print_detail: bool = False) -> int:
    """Paddle's ``paddle.flops(net, input_size, custom_ops=None, print_detail=False)``: the
    operations of one forward pass of ``net`` on random input of ``input_size`` (batch axis
    first), counted per leaf layer by Paddle's rules (a multiply-add is one operation; see the
    counters above; other layer types count zero). ``custom_ops`` maps a layer type to
    ``fn(layer, inputs, output)`` that adds to ``layer.total_ops``, as in Paddle. Prints which
    types were counted and the total; ``print_detail`` also prints the per-layer table. The
    net runs in eval mode without a gradient, and its mode is restored."""
    if not isinstance(net, nn.Layer):
        raise TypeError(f"flops: net must be a core.nn.Layer, got {type(net).__name__} (core "
                        "has no static Program)")
    if not _is_shape(input_size) or not input_size or any(
            n is None or n < 1 for n in input_size):
        raise ValueError(f"flops: input_size={input_size!r} must be the input's shape, batch "
                         "axis first, e.g. [1, 1, 28, 28]")
    if custom_ops is not None and not (isinstance(custom_ops, dict) and all(
            isinstance(k, type) and callable(v) for k, v in custom_ops.items())):
        raise TypeError(f"flops: custom_ops must be a dict {{Layer type: fn(layer, inputs, "
                        f"output)}}, got {custom_ops!r}")
    leaves = _leaves(net)
    records = _count(net, leaves, list(input_size), custom_ops or {})
    total_ops = sum(ops for _, _, _, _, ops in records.values())
    total_params = sum(params for _, _, _, params, _ in records.values())
    if print_detail:
        print(_box_table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"],
                         [list(records[name]) for name, _ in leaves if name in records]))
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops


def _leaves(net: nn.Layer) -> list[tuple[str, nn.Layer]]:
    """(name, layer) of the layers that compute: those without sublayers. A net that is one
    layer counts itself (Paddle counts only sublayers, so it would report 0)."""
    if not net._sub_layers:
        return [(type(net).__name__.lower(), net)]
    return [(name, layer) for name, layer in net.named_sublayers() if not layer._sub_layers]


def _count(net, leaves, input_size, custom_ops) -> dict:
    """{name: (name, input shape, output shape, params, operations)} of the leaves that ran."""
    counters = _paddle_counters()
    records, hooks, announced = {}, [], set()
    for name, layer in leaves:
        kind = type(layer)
        counter = custom_ops.get(kind) or counters.get(kind)
        if kind not in announced:  # Paddle's messages: which types count and how
            announced.add(kind)
            print(f"Customize Function has been applied to {kind}" if kind in custom_ops else
                  f"{kind}'s flops has been counted" if kind in counters else
                  f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")
        layer.total_ops = 0

        def record(layer, inputs, output, name=name, counter=counter):
            out = output[0] if isinstance(output, (tuple, list)) else output
            if counter is not None:
                counter(layer, inputs, out)
            params = sum(int(p.size) for p in layer.parameters())
            shape = list(getattr(inputs[0], "shape", ())) if inputs else []
            records[name] = (name, shape, list(out.shape), params,
                             _as_int(layer.total_ops))
        hooks.append(layer.register_forward_post_hook(record))
    was_training = net.training
    try:
        net.eval()
        with core.no_grad():
            net(core.randn(input_size))
    finally:
        if was_training:
            net.train()
        for hook in hooks:
            hook.remove()
        for _, layer in leaves:
            del layer.total_ops
    return records


def _as_int(value) -> int:
    """``total_ops`` as an int: custom counters may leave a Python number or a Tensor."""
    return abs(int(np.asarray(value.numpy() if hasattr(value, "numpy") else value).sum()))


def _box_table(header: list, rows: list) -> str:
    """Paddle's flops table: centred cells between +---+ rules."""
    cells = [[str(c) for c in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) + 2 for i in range(len(header))]
    rule = "+" + "+".join("-" * w for w in widths) + "+"

    def line(row):
        return "|" + "|".join(c.center(w) for c, w in zip(row, widths)) + "|"
    return "\n".join([rule, line(cells[0]), rule, *map(line, cells[1:]), rule])
