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
# Blocks when the sweep is split over threads: every numpy call on a block hands the GIL over
# between the threads, and 4x fewer calls made batch norm networks up to 7% faster on two
# threads (CNN+BN inference 1.07x, training 1.02x; the spec's ResNet training 1.03x); on one
# thread these blocks were 2-3% slower, so a sweep on one thread keeps the smaller ones.
_SPLIT_BLOCK_BYTES = 1 << 20
# Element-wise passes see a block [n, C] as [n / f, C * f] with per-channel vectors tiled f
# times, rows of about this many numbers: numpy's inner loop then runs over ~1024 numbers
# instead of C (16 channels: a multiply 1.7x faster; 64: 1.25x). Sums stay on [n, C] (GEMVs).
_WIDE = 1024


def _fold(channels: int) -> int:
    return max(1, _WIDE // max(1, channels))


def _block_rows(channels: int, itemsize: int, block_bytes: int = _BLOCK_BYTES) -> int:
    """Rows per block: about ``block_bytes``, a multiple of the widening factor."""
    fold = _fold(channels)
    return max(fold, block_bytes // max(1, channels * itemsize) // fold * fold, 8)


def _plan(x2) -> tuple[int, int]:
    """(rows per block, threads) for a sweep over ``x2``: each block is read two or three
    times (statistics, then the normalisation or gradient)."""
    rows, channels = x2.shape
    step = _block_rows(channels, x2.itemsize)
    workers = threads.host_workers(x2, -(-rows // step), passes=3 * x2.size)
    if workers > 1:
        wide = _block_rows(channels, x2.itemsize, _SPLIT_BLOCK_BYTES)
        if -(-rows // wide) >= workers:
            step = wide
    return step, workers


class _Widened:
    """Per-channel vectors tiled for the widened view, and that view of contiguous blocks
    (a block whose row count the factor does not divide, the last one, stays [n, C])."""

    def __init__(self, channels: int, *vectors):
        self.fold = _fold(channels)
        self.narrow = vectors
        self.wide = tuple(np.tile(v, self.fold) for v in vectors)

    def __call__(self, rows: int, *blocks):
        """(the blocks as seen for element-wise work, the vectors that match them)."""
        if self.fold == 1 or rows % self.fold:
            return blocks, self.narrow
        return tuple(b.reshape(rows // self.fold, -1) for b in blocks), self.wide


def _sweep(x2, fn, combine: bool, plan: tuple[int, int] | None = None):
    """``fn(start, stop)`` over blocks of rows (``plan``: see ``_plan``), the blocks split
    over core's threads; with ``combine`` the per-block tuples of arrays are summed in order."""
    rows = x2.shape[0]
    step, workers = plan or _plan(x2)

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
    plan = _plan(x2)
    ones = np.ones(min(rows, plan[0]), x2.dtype)

    widened = _Widened(x2.shape[1], shift32)

    def part(start, stop):
        n = stop - start
        (block,), (shift_v,) = widened(n, x2[start:stop])
        d = block - shift_v
        s1 = ones[:n] @ d.reshape(n, -1)
        d *= d
        return s1.astype(np.float64), (ones[:n] @ d.reshape(n, -1)).astype(np.float64)

    s1, s2 = _sweep(x2, part, combine=True, plan=plan)
    mean_d = s1 / rows
    var = np.maximum(s2 / rows - mean_d * mean_d, 0.0)
    return (shift + mean_d).astype(x2.dtype), var.astype(x2.dtype)


def affine(x2, scale, shift, out2):
    """``out2 = x2 * scale + shift`` per column (``out2`` [rows, channels], may be new)."""
    widened = _Widened(x2.shape[1], scale, shift)

    def part(start, stop):
        (x, out), (scale_v, shift_v) = widened(stop - start, x2[start:stop], out2[start:stop])
        np.multiply(x, scale_v, out=out)
        out += shift_v

    _sweep(x2, part, combine=False)
    return out2


def grad_sums(g2, x2, mean, inv_std):
    """(sum of g, sum of g * x_hat) per column, x_hat = (x - mean) * inv_std; the blocks sum
    g * (x - mean), recomputed per block instead of kept from the forward pass (less memory
    held between the passes), and inv_std, constant per column, scales the sums once (a pass
    per block fewer: 36 -> 27 us a 256 KB block)."""
    plan = _plan(g2)
    ones = np.ones(min(g2.shape[0], plan[0]), g2.dtype)

    widened = _Widened(g2.shape[1], mean)

    def part(start, stop):
        n = stop - start
        (x, g), (mean_v,) = widened(n, x2[start:stop], g2[start:stop])
        centred = x - mean_v
        centred *= g
        return ones[:n] @ g2[start:stop], ones[:n] @ centred.reshape(n, -1)

    g_sum, centred_sum = _sweep(g2, part, combine=True, plan=plan)
    return g_sum, centred_sum * inv_std


def affine2(g2, a, x2, b, c, out2):
    """``out2 = g2 * a + x2 * b + c`` per column: batch norm's input gradient in one sweep."""
    widened = _Widened(g2.shape[1], a, b, c)

    def part(start, stop):
        (g, x, target), (a_v, b_v, c_v) = widened(stop - start, g2[start:stop], x2[start:stop],
                                                  out2[start:stop])
        np.multiply(g, a_v, out=target)
        target += x * b_v
        target += c_v

    _sweep(g2, part, combine=False)
    return out2
