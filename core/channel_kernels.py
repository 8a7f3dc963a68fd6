"""Per-channel statistics and affine maps over ``[rows, channels]`` views, for batch norm.

Why: batch norm over a channels-last activation (what conv2d emits) was six numpy passes over
the whole activation, each on one core, plus reductions over strided axes; it took half of a
small CNN's step. Here the rows are cut into blocks of about 256 KB that stay in cache while
every pass over a block runs, the column sums are GEMVs (``ones @ block``, a BLAS call rather
than a strided reduction), and the blocks are split over core's threads (core.threads), with
partial sums combined in slice order (deterministic for a given thread count).

The variance uses each channel's first row as a shift (the "shifted data" algorithm), so one
sweep gives both moments without the cancellation of ``E[x^2] - E[x]^2`` on unshifted data.
``HostKernels`` in core.backend_kernels hands these out for numpy arrays; cupy runs the same
math with whole-array operations.
"""
from __future__ import annotations

import numpy as np

from core import threads

_BLOCK_BYTES = 1 << 18


def _block_rows(channels: int, itemsize: int) -> int:
    return max(8, _BLOCK_BYTES // max(1, channels * itemsize))


def _sweep(x2, fn, combine: bool):
    """``fn(start, stop)`` over blocks of rows, the blocks split over core's threads; with
    ``combine`` the per-block tuples of arrays are summed in order."""
    rows = x2.shape[0]
    step = _block_rows(x2.shape[1], x2.itemsize)
    workers = threads.host_workers(x2, -(-rows // step)) if x2.size >= 1 << 16 else 1

    def task(first, last):  # blocks first..last-1
        total = None
        for b in range(first, last):
            part = fn(b * step, min(rows, (b + 1) * step))
            if combine:
                total = part if total is None else tuple(t + p for t, p in zip(total, part))
        return total

    parts = threads.run_split(-(-rows // step), workers, task)
    if not combine:
        return None
    total = parts[0]
    for part in parts[1:]:
        total = tuple(t + p for t, p in zip(total, part))
    return total


def moments(x2):
    """(mean, biased variance) of each column of ``x2`` [rows, channels] (float64 sums)."""
    rows = x2.shape[0]
    shift = x2[0].astype(np.float64)
    shift32 = x2[0].copy()
    ones = np.ones(min(rows, _block_rows(x2.shape[1], x2.itemsize)), x2.dtype)

    def part(start, stop):
        d = x2[start:stop] - shift32
        s1 = ones[:stop - start] @ d
        d *= d
        return s1.astype(np.float64), (ones[:stop - start] @ d).astype(np.float64)

    s1, s2 = _sweep(x2, part, combine=True)
    mean_d = s1 / rows
    var = np.maximum(s2 / rows - mean_d * mean_d, 0.0)
    return (shift + mean_d).astype(x2.dtype), var.astype(x2.dtype)


def affine(x2, scale, shift, out2):
    """``out2 = x2 * scale + shift`` per column (``out2`` [rows, channels], may be new)."""
    def part(start, stop):
        np.multiply(x2[start:stop], scale, out=out2[start:stop])
        out2[start:stop] += shift

    _sweep(x2, part, combine=False)
    return out2


def grad_sums(g2, x2, mean, inv_std):
    """(sum of g, sum of g * x_hat) per column, x_hat = (x - mean) * inv_std recomputed per
    block instead of kept from the forward pass (less memory held between the passes)."""
    ones = np.ones(min(g2.shape[0], _block_rows(g2.shape[1], g2.itemsize)), g2.dtype)

    def part(start, stop):
        xh = x2[start:stop] - mean
        xh *= inv_std
        xh *= g2[start:stop]
        n = stop - start
        return ones[:n] @ g2[start:stop], ones[:n] @ xh

    return _sweep(g2, part, combine=True)


def affine2(g2, a, x2, b, c, out2):
    """``out2 = g2 * a + x2 * b + c`` per column: batch norm's input gradient in one sweep."""
    def part(start, stop):
        target = out2[start:stop]
        np.multiply(g2[start:stop], a, out=target)
        target += x2[start:stop] * b
        target += c

    _sweep(g2, part, combine=False)
    return out2
