"""Adaptive 2-D pooling (``paddle.nn.functional.adaptive_avg_pool2d`` / ``adaptive_max_pool2d``).

Output cell (i, j) covers Paddle's bins ``[floor(i * H / Ho), ceil((i + 1) * H / Ho))`` (and
likewise along W); bins may overlap or differ in size when H is not a multiple of Ho. Max
pooling sends each cell's gradient to the FIRST maximum of its bin (ties are common after ReLU).
"""
from __future__ import annotations

from core import backend
from core.nn.functional._spatial import check_tensor
from core.tensor import Tensor, apply


def _bins(size: int, out: int):
    """Paddle's adaptive bins: [floor(i * size / out), ceil((i + 1) * size / out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive(x: Tensor, output_size, op: str, reduce_max: bool) -> Tensor:
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

    return apply(out, (x,), backward, op)


def adaptive_avg_pool2d(x: Tensor, output_size, data_format: str = "NCHW", name=None) -> Tensor:
    """Average over Paddle's adaptive bins to an ``output_size`` grid, Paddle's
    ``adaptive_avg_pool2d(x, output_size, data_format='NCHW', name=None)`` (NCHW only)."""
    del name
    if data_format != "NCHW":
        raise ValueError(f"adaptive_avg_pool2d: data_format={data_format!r}; only 'NCHW'.")
    return _adaptive(x, output_size, "adaptive_avg_pool2d", False)


def adaptive_max_pool2d(x: Tensor, output_size, return_mask: bool = False, name=None) -> Tensor:
    """Maximum over Paddle's adaptive bins, Paddle's ``adaptive_max_pool2d(x, output_size,
    return_mask=False, name=None)``; the gradient goes to each bin's first maximum."""
    del name
    if return_mask:
        raise ValueError("adaptive_max_pool2d: return_mask=True is not supported.")
    return _adaptive(x, output_size, "adaptive_max_pool2d", True)
