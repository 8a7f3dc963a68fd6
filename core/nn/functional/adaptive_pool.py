"""Adaptive pooling (``paddle.nn.functional.adaptive_avg_pool2d`` / ``adaptive_max_pool2d`` and
their 1-D forms ``adaptive_avg_pool1d`` / ``adaptive_max_pool1d``, run as 2-D pooling over a height
of 1).

Output cell (i, j) covers Paddle's bins ``[floor(i * H / Ho), ceil((i + 1) * H / Ho))`` (and
likewise along W); bins may overlap or differ in size when H is not a multiple of Ho. Max
pooling sends each cell's gradient to the FIRST maximum of its bin (ties are common after ReLU).
"""
from __future__ import annotations

import core
from core import backend
from core.higher_order import linear_grad
from core.nn.functional._spatial import check_tensor
from core.tensor import Tensor, apply


def _bins(size: int, out: int):
    """Paddle's adaptive bins: [floor(i * size / out), ceil((i + 1) * size / out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive(x: Tensor, output_size, op: str, reduce_max: bool, return_mask: bool = False):
    """The pooled [N, C, Ho, Wo] tensor; with ``return_mask`` also the int32 index of each
    cell's first maximum in the flattened H * W input plane (Paddle's and PyTorch's mask)."""
    check_tensor(x, "x", op)
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 2
    h, w = x.shape[2:]
    sizes = [h if sizes[0] is None else sizes[0], w if sizes[1] is None else sizes[1]]
    data = x.data
    xp = backend.array_module(data)
    n, c = data.shape[:2]
    out = xp.empty((n, c, *sizes), dtype=data.dtype)
    picks = []  # (row bin, column bin, index of the first maximum within the flattened bin)
    # One whole-batch reduction per output cell: output grids are small (1x1 .. 7x7).
    for i, (h0, h1) in enumerate(_bins(h, sizes[0])):
        for j, (w0, w1) in enumerate(_bins(w, sizes[1])):
            cell = data[:, :, h0:h1, w0:w1].reshape(n, c, -1)
            if reduce_max:
                first = cell.argmax(axis=-1)
                out[:, :, i, j] = xp.take_along_axis(cell, first[..., None], -1)[..., 0]
                picks.append(((h0, h1), (w0, w1), first))
            else:
                out[:, :, i, j] = cell.mean(axis=-1)
                picks.append(((h0, h1), (w0, w1), None))

    def backward(g):
        dx = xp.zeros_like(data)
        for (i, j), ((h0, h1), (w0, w1), first) in zip(
                ((i, j) for i in range(sizes[0]) for j in range(sizes[1])), picks):
            cell = dx[:, :, h0:h1, w0:w1]
            if first is None:
                cell += g[:, :, i, j][..., None, None] / ((h1 - h0) * (w1 - w0))
            else:
                flat = xp.zeros((n, c, (h1 - h0) * (w1 - w0)), dtype=data.dtype)
                xp.put_along_axis(flat, first[..., None], g[:, :, i, j][..., None], -1)
                cell += flat.reshape(cell.shape)
        return (dx,)

    def grad_fn(_out, g):  # create_graph: the gradient routed as the forward routed x
        if not reduce_max:  # linear in x: the Jacobian is the pool itself
            return (linear_grad(apply, g, backward, lambda h: _adaptive(h, sizes, op, False),
                                f"{op}_grad"),)
        flat = _mask(picks, sizes, data.shape, xp) + (
            xp.arange(n * c, dtype="int64") * (h * w)).reshape(n, c, 1, 1)
        return (linear_grad(apply, g, backward, lambda hh: hh.reshape([-1])[flat], f"{op}_grad"),)

    pooled = apply(out, (x,), backward, op, grad_fn)
    if not return_mask:
        return pooled
    return pooled, Tensor(_mask(picks, sizes, data.shape, xp))


def _mask(picks, sizes, shape, xp):
    """The int32 [N, C, Ho, Wo] index of each cell's first maximum in its H * W plane."""
    n, c, _, w = shape
    mask = xp.empty((n, c, *sizes), dtype="int32")
    for index, ((h0, _), (w0, w1), first) in enumerate(picks):
        # first indexes the bin's own row-major [h1 - h0, w1 - w0] patch; map it to the plane
        row, col = first // (w1 - w0) + h0, first % (w1 - w0) + w0
        mask[:, :, index // sizes[1], index % sizes[1]] = row * w + col
    return mask


def adaptive_avg_pool2d(x: Tensor, output_size, data_format: str = "NCHW", name=None) -> Tensor:
    """Average over Paddle's adaptive bins to an ``output_size`` grid, Paddle's
    ``adaptive_avg_pool2d(x, output_size, data_format='NCHW', name=None)``; an NHWC input is
    pooled as its NCHW transpose (and the result transposed back)."""
    del name
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"adaptive_avg_pool2d: data_format={data_format!r}; use 'NCHW' or "
                         "'NHWC'.")
    if data_format == "NHWC":
        check_tensor(x, "x", "adaptive_avg_pool2d", ndim=4)
        out = _adaptive(core.transpose(x, [0, 3, 1, 2]), output_size, "adaptive_avg_pool2d",
                        False)
        return core.transpose(out, [0, 2, 3, 1])
    return _adaptive(x, output_size, "adaptive_avg_pool2d", False)


def adaptive_max_pool2d(x: Tensor, output_size, return_mask: bool = False, name=None):
    """Maximum over Paddle's adaptive bins, Paddle's ``adaptive_max_pool2d(x, output_size,
    return_mask=False, name=None)``; the gradient goes to each bin's first maximum.
    ``return_mask=True`` returns ``(out, mask)``: mask holds each maximum's int32 index in the
    flattened H * W plane of its input channel."""
    del name
    return _adaptive(x, output_size, "adaptive_max_pool2d", True, bool(return_mask))


# ----- 1-D: the 2-D bins over a [N, C, 1, L] view ---------------------------------------------
def output_length(output_size, op: str) -> int:
    """A 1-D ``output_size``: a positive int or a one-element list of one."""
    size = output_size[0] if isinstance(output_size, (list, tuple)) and len(output_size) == 1 \
        else output_size
    if isinstance(size, bool) or not hasattr(size, "__index__") or int(size) < 1:
        raise ValueError(f"{op}: output_size={output_size!r} must be a positive int (or a list "
                         "of one)")
    return int(size)


def _adaptive_1d(x: Tensor, output_size, op: str, reduce_max: bool, return_mask: bool = False):
    check_tensor(x, "x", op, ndim=3)
    size = output_length(output_size, op)
    result = _adaptive(core.unsqueeze(x, 2), (1, size), op, reduce_max, return_mask)
    if not return_mask:
        return core.squeeze(result, 2)
    out, mask = result
    return core.squeeze(out, 2), Tensor(mask.data[:, :, 0])  # index in L: the plane is 1 x L


def adaptive_avg_pool1d(x: Tensor, output_size, name=None) -> Tensor:
    """Average of [N, C, L] over Paddle's adaptive bins, Paddle's ``adaptive_avg_pool1d(x,
    output_size, name=None)``: output i is the mean of ``x[:, :, floor(i * L / m):ceil((i + 1)
    * L / m)]`` for ``m = output_size``."""
    del name
    return _adaptive_1d(x, output_size, "adaptive_avg_pool1d", False)


def adaptive_max_pool1d(x: Tensor, output_size, return_mask: bool = False, name=None):
    """Maximum of [N, C, L] over Paddle's adaptive bins, Paddle's ``adaptive_max_pool1d(x,
    output_size, return_mask=False, name=None)``; the gradient goes to each bin's first maximum.
    ``return_mask=True`` returns ``(out, mask)`` with each maximum's int32 index along L."""
    del name
    return _adaptive_1d(x, output_size, "adaptive_max_pool1d", True, bool(return_mask))
