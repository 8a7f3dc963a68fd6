"""Power-average (LP) pooling, Paddle 3's ``lp_pool1d`` / ``lp_pool2d``.

Paddle's LP kernel sums ``x ** p`` over the input elements of each window (padding and the
overhang of a ``ceil_mode`` window add nothing) and takes the ``1/p``-th power of the sum. The sum
is ``avg_pool2d`` with ``divisor_override=1`` of ``x ** p``: that pools over zero padding, and
since ``x ** p`` is taken before padding, a padded cell adds 0 whatever ``p`` is. Built from
differentiable ops, so the gradient ``dy * x ** (p - 1) * y ** (1 - p)`` is Paddle's too.
``norm_type=inf`` is Paddle's max pooling over the window's input elements.
"""
from __future__ import annotations

import math

import core
from core.nn.functional._spatial import check_tensor
from core.nn.functional.pooling import _pads_1d, _single, avg_pool2d, max_pool2d
from core.tensor import Tensor

__all__ = ["lp_pool1d", "lp_pool2d"]


def check_norm_type(norm_type, op: str) -> float:
    """``norm_type`` as a float: a non-zero number or +inf (Paddle: "can not be 0"; its -inf
    returns ones whatever the input, so core refuses it)."""
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) \
            or math.isnan(norm_type) or norm_type == 0 or norm_type == -math.inf:
        raise ValueError(f"{op}: norm_type={norm_type!r} must be a non-zero number or inf")
    return float(norm_type)


def lp_pool2d(x: Tensor, norm_type: float, kernel_size, stride=None, padding=0,
              ceil_mode: bool = False, data_format: str = "NCHW", name=None) -> Tensor:
    """Power-average pooling of [N, C, H, W] (or NHWC), Paddle 3's ``lp_pool2d(x, norm_type,
    kernel_size, stride=None, padding=0, ceil_mode=False, data_format='NCHW', name=None)``::

        out[n, c, h, w] = (sum over the window's input cells of x ** norm_type) ** (1 / norm_type)

    ``norm_type = 1`` is sum pooling; large ``norm_type`` approaches max pooling (of |x| for
    even powers). ``kernel_size``/``stride``/``padding`` are spelled as for ``avg_pool2d``;
    ``stride`` defaults to ``kernel_size``. Negative inputs with a fractional ``norm_type`` give
    NaN, as the power does in Paddle. ``norm_type=inf`` is max pooling (of x, not |x|), as in
    Paddle.
    """
    del name
    p = check_norm_type(norm_type, "lp_pool2d")
    check_tensor(x, "x", "lp_pool2d")
    if p == math.inf:  # the limit of the p-norm: the window's maximum, as in Paddle
        return max_pool2d(x, kernel_size, stride, padding, ceil_mode=ceil_mode,
                          data_format=data_format)
    sums = avg_pool2d(core.pow(x, p), kernel_size, stride, padding, ceil_mode,
                      divisor_override=1, data_format=data_format)
    return core.pow(sums, 1.0 / p)


def lp_pool1d(x: Tensor, norm_type: float, kernel_size, stride=None, padding=0,
              ceil_mode: bool = False, data_format: str = "NCL", name=None) -> Tensor:
    """Power-average pooling of [N, C, L] (or NLC), Paddle 3's ``lp_pool1d(x, norm_type,
    kernel_size, stride=None, padding=0, ceil_mode=False, data_format='NCL', name=None)``:
    ``out[n, c, l] = (sum over the window of x ** norm_type) ** (1 / norm_type)``; ``lp_pool2d``
    over a height of 1. ``padding`` is an int, [p], [left, right] or 'SAME'/'VALID'.
    """
    del name
    p = check_norm_type(norm_type, "lp_pool1d")
    check_tensor(x, "x", "lp_pool1d", ndim=3)
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"lp_pool1d: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    axis = 2 if data_format == "NCL" else 1  # the unit height goes before the length
    out = lp_pool2d(core.unsqueeze(x, axis), p, (1, _single(kernel_size)),
                    None if stride is None else (1, _single(stride)), _pads_1d(padding),
                    ceil_mode, "NCHW" if data_format == "NCL" else "NHWC")
    return core.squeeze(out, axis)
