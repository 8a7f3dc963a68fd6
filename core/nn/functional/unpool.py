"""Max unpooling (``paddle.nn.functional.max_unpool1d`` / ``max_unpool2d`` / ``max_unpool3d``).

Unpooling is max pooling's partial inverse: each pooled value goes back to the position its
window's maximum came from, every other position is zero. The positions are the ``indices``
that max pooling with ``return_mask=True`` gives (Paddle's and PyTorch's convention): for each
(sample, channel), the flat index of the maximum in the row-major order of that channel's
spatial plane of the UNPADDED input, ``h * W + w`` in 2-D, ``(d * H + h) * W + w`` in 3-D.

Forward is one scatter into zeros and backward one gather of the same positions, whatever the
number of spatial axes: the spatial axes are flattened to one, so the 1-, 2- and 3-D forms share
the code and no per-window loop runs. Where two pooled values share an index (overlapping
windows), the last one written wins, and both receive that position's gradient, as in Paddle's
and PyTorch's kernels.
"""
from __future__ import annotations

import math

from core import backend
from core.backend import NotATensorError
from core.tensor import Tensor, apply

_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def max_unpool1d(x: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 data_format: str = "NCL", output_size=None, name=None) -> Tensor:
    """Paddle's ``max_unpool1d(x, indices, kernel_size, stride=None, padding=0,
    data_format='NCL', output_size=None, name=None)``: [N, C, L_in] -> [N, C, L_out] with
    ``L_out = (L_in - 1) * stride - 2 * padding + kernel_size`` unless ``output_size`` ([L_out]
    or [N, C, L_out]) says otherwise; ``x[n, c, i]`` lands at ``out[n, c, indices[n, c, i]]``.
    ``stride`` defaults to ``kernel_size``. Differentiable with respect to ``x``."""
    del name
    return _unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 1)


def max_unpool2d(x: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 data_format: str = "NCHW", output_size=None, name=None) -> Tensor:
    """Paddle's ``max_unpool2d(x, indices, kernel_size, stride=None, padding=0,
    data_format='NCHW', output_size=None, name=None)``: [N, C, H_in, W_in] -> [N, C, H_out,
    W_out] with ``H_out = (H_in - 1) * stride[0] - 2 * padding[0] + kernel_size[0]`` (and
    likewise W) unless ``output_size`` says otherwise; ``indices`` holds, for each pooled
    value, the flat index ``h * W_out + w`` of its position. Differentiable with respect to
    ``x``."""
    del name
    return _unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 2)


def max_unpool3d(x: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 data_format: str = "NCDHW", output_size=None, name=None) -> Tensor:
    """Paddle's ``max_unpool3d(x, indices, kernel_size, stride=None, padding=0,
    data_format='NCDHW', output_size=None, name=None)``: [N, C, D_in, H_in, W_in] -> [N, C,
    D_out, H_out, W_out], each output size ``(in - 1) * stride - 2 * padding + kernel_size``
    unless ``output_size`` says otherwise; ``indices`` holds the flat index ``(d * H_out + h)
    * W_out + w`` of each pooled value's position. Differentiable with respect to ``x``."""
    del name
    return _unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 3)


def unpool_arguments(op: str, dims: int, kernel_size, stride, padding, data_format) -> tuple:
    """``(kernel, stride, padding)`` as tuples of ``dims`` ints, checked (the layers call this
    at construction, so a mistake fails before the first batch)."""
    if data_format != _FORMATS[dims]:
        raise ValueError(f"{op}: data_format={data_format!r} is not supported; only "
                         f"'{_FORMATS[dims]}' (as in Paddle).")
    kernel = _ints(op, "kernel_size", kernel_size, dims, 1)
    stride = kernel if stride is None else _ints(op, "stride", stride, dims, 1)
    pads = _ints(op, "padding", padding, dims, 0)
    return kernel, stride, pads


def _ints(op: str, label: str, value, dims: int, minimum: int) -> tuple[int, ...]:
    items = list(value) if isinstance(value, (list, tuple)) else [value] * dims
    if len(items) != dims or not all(
            not isinstance(v, bool) and hasattr(v, "__index__") and int(v) >= minimum
            for v in items):
        raise ValueError(f"{op}: {label}={value!r} must be an int >= {minimum} or a list of "
                         f"{dims} such ints.")
    return tuple(int(v) for v in items)


def _output_size(op: str, size_in, kernel, stride, pads, output_size) -> tuple[int, ...]:
    """Paddle's ``_unpool_output_size``: the default ``(in - 1) * stride - 2 * pad + kernel``,
    or ``output_size`` (its last ``dims`` entries when it also names N and C), which must lie
    strictly between ``default - stride`` and ``default + stride`` on each axis."""
    dims = len(kernel)
    default = tuple((n - 1) * s - 2 * p + k for n, k, s, p in zip(size_in, kernel, stride, pads))
    if output_size is None:
        wanted = default
    else:
        items = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size]
        if len(items) == dims + 2:
            items = items[2:]
        if len(items) != dims or not all(
                not isinstance(v, bool) and hasattr(v, "__index__") for v in items):
            raise ValueError(f"{op}: output_size={output_size!r} must hold {dims} or "
                             f"{dims + 2} ints.")
        wanted = tuple(int(v) for v in items)
        for axis, (size, base, s) in enumerate(zip(wanted, default, stride)):
            if not base - s < size < base + s:
                raise ValueError(f"{op}: output_size={output_size!r} is invalid: axis {axis} "
                                 f"must be between {base - s} and {base + s} (exclusive), the "
                                 f"default {base} give or take the stride.")
    if min(wanted) < 1:
        raise ValueError(f"{op}: the output size {list(wanted)} has an empty axis; check "
                         f"kernel_size {list(kernel)}, stride {list(stride)} and padding "
                         f"{list(pads)} against the input's spatial size {list(size_in)}.")
    return wanted


def _unpool(x, indices, kernel_size, stride, padding, data_format, output_size, dims: int):
    op = f"max_unpool{dims}d"
    for label, t in (("x", x), ("indices", indices)):
        if not isinstance(t, Tensor):
            hint = " (wrap arrays with core.to_tensor)" if hasattr(t, "__array__") else ""
            raise NotATensorError(f"{op}: '{label}' must be a core.Tensor, got "
                                  f"{type(t).__name__}{hint}")
    if x.ndim != dims + 2:
        raise ValueError(f"{op}: 'x' must be {dims + 2}-D ({_FORMATS[dims]}), got shape "
                         f"{x.shape}")
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: 'x' must be a floating tensor, got dtype {x.dtype}")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{op}: 'indices' must hold integers (max pooling's return_mask), got "
                        f"dtype {indices.dtype}")
    if indices.shape != x.shape:
        raise ValueError(f"{op}: 'indices' of shape {indices.shape} must have the shape of "
                         f"'x', {x.shape}")
    kernel, stride, pads = unpool_arguments(op, dims, kernel_size, stride, padding, data_format)
    size_out = _output_size(op, x.shape[2:], kernel, stride, pads, output_size)
    n, c = x.shape[:2]
    plane = math.prod(size_out)
    data = x.data
    xp = backend.array_module(data)
    flat = indices.data.reshape(n * c, -1)
    if flat.size:
        # One read of (min, max): an index outside the output plane would write into another
        # channel (or fail deep in the scatter), so name it here instead.
        lo, hi = backend.to_numpy(xp.stack([flat.min(), flat.max()])).tolist()
        if lo < 0 or hi >= plane:
            bad = lo if lo < 0 else hi
            raise ValueError(f"{op}: 'indices' holds {bad}, outside the output's spatial "
                             f"plane of {plane} positions {list(size_out)}; indices must be "
                             f"in [0, {plane - 1}] (max pooling's return_mask of an input of "
                             "this size).")
    rows = xp.arange(n * c)[:, None]
    out = xp.zeros((n * c, plane), dtype=data.dtype)
    out[rows, flat] = data.reshape(n * c, -1)

    def backward(g):
        return (g.reshape(n * c, plane)[rows, flat].reshape(data.shape),)

    return apply(out.reshape(n, c, *size_out), (x,), backward, op)


__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]
