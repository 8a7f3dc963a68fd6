"""Paddle 3's in-place activations of ``paddle.nn.functional``: ``relu_``, ``elu_``,
``hardtanh_``, ``leaky_relu_``, ``softmax_``, ``tanh_`` and ``thresholded_relu_``. Each gives
x the values of the out-of-place activation and returns x itself.

Autograd follows core's rule for in-place Tensor methods (docs/paddle.md, "In-place
changes"): without a graph (``stop_gradient=True``, or under ``core.no_grad()``) the values are
written into x's own array (views see the change); a tensor that needs a gradient is refused.
Paddle records the change in the graph and keeps earlier uses of x correct with its version
counter and per-tensor grad nodes; core's graph links tensors themselves, so an op that used x
before the change would send its gradient through the activation: a wrong gradient without a
word. Refusing is the safe answer; ``F.relu(x)`` gives the same values in a new tensor.
"""
from __future__ import annotations

import numpy as np

from core import inplace as tensor_inplace
from core.nn.functional import activation as A
from core.tensor import Tensor, is_grad_enabled, no_grad

__all__ = ["elu_", "hardtanh_", "leaky_relu_", "relu_", "softmax_", "tanh_",
           "thresholded_relu_"]


def relu_(x: Tensor, name: str | None = None) -> Tensor:
    """Paddle's ``relu_(x, name=None)``: x becomes ``max(x, 0)``; returns x."""
    del name
    return _in_place(x, "relu_", A.relu)


def elu_(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """Paddle's ``elu_(x, alpha=1.0, name=None)``: x becomes ``x`` where x > 0 and ``alpha *
    (exp(x) - 1)`` elsewhere; returns x. ``alpha`` must be >= 0 (Paddle: "elu_ only support
    alpha >= 0, please use elu instead")."""
    del name
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha >= 0:
        raise ValueError(f"elu_: alpha={alpha!r} must be a number >= 0 (as in Paddle); use "
                         "F.elu for a negative alpha")
    return _in_place(x, "elu_", A.elu, alpha)


def hardtanh_(x: Tensor, min: float = -1.0, max: float = 1.0,  # noqa: A002 - Paddle's names
              name: str | None = None) -> Tensor:
    """Paddle's ``hardtanh_(x, min=-1.0, max=1.0, name=None)``: x becomes ``clip(x, min,
    max)``; returns x."""
    del name
    for label, value in (("min", min), ("max", max)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"hardtanh_: {label}={value!r} must be a number")
    return _in_place(x, "hardtanh_", A.hardtanh, min, max)


def leaky_relu_(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """Paddle's ``leaky_relu_(x, negative_slope=0.01, name=None)``: x becomes ``x`` where
    x > 0 and ``negative_slope * x`` elsewhere; returns x."""
    del name
    if isinstance(negative_slope, bool) or not isinstance(negative_slope, (int, float)):
        raise ValueError(f"leaky_relu_: negative_slope={negative_slope!r} must be a number")
    return _in_place(x, "leaky_relu_", A.leaky_relu, negative_slope)


def softmax_(x: Tensor, axis: int = -1, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``softmax_(x, axis=-1, dtype=None, name=None)``: x becomes ``exp(x) /
    sum(exp(x))`` along ``axis``; returns x. With a ``dtype`` other than x's, Paddle casts x
    to a new tensor first and the in-place softmax changes that one: x keeps its values and
    the result is ``F.softmax(x, axis, dtype)``, here too."""
    del name
    _check_tensor(x, "softmax_")
    if dtype is not None and np.dtype(dtype) != x.data.dtype:
        return A.softmax(x, axis, dtype)
    return _in_place(x, "softmax_", A.softmax, axis)


def tanh_(x: Tensor, name: str | None = None) -> Tensor:
    """Paddle's ``tanh_(x, name=None)``: x becomes ``tanh(x)``; returns x. (``core.tanh_``
    and ``Tensor.tanh_`` follow core's rule for Tensor methods instead and refuse a tensor that
    needs a gradient.)"""
    del name
    return _in_place(x, "tanh_", A.tanh)


def thresholded_relu_(x: Tensor, threshold: float = 1.0, value: float = 0.0,
                      name: str | None = None) -> Tensor:
    """Paddle's ``thresholded_relu_(x, threshold=1.0, value=0.0, name=None)``: x becomes
    ``x`` where x > threshold and ``value`` elsewhere; returns x."""
    del name
    return _in_place(x, "thresholded_relu_", A.thresholded_relu, threshold, value)


# ----- the shared rule -------------------------------------------------------------------------

def _check_tensor(x, fn: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: x must be a core.Tensor (an in-place op changes a Tensor), got "
                        f"{type(x).__name__}; use the out-of-place F.{fn[:-1]} for arrays")
    if x.data.dtype.kind != "f":
        raise TypeError(f"{fn}: x must be a floating tensor, got dtype {x.data.dtype}; an "
                        f"in-place op keeps x's dtype (use F.{fn[:-1]}, or cast x first)")


def _in_place(x: Tensor, fn: str, op, *args) -> Tensor:
    """x given ``op(x, *args)``'s values outside a graph; returns x. Refused in a graph."""
    _check_tensor(x, fn)
    if not is_grad_enabled() or x.stop_gradient:
        with no_grad():
            out = op(x, *args)
        return tensor_inplace._write(x, out.data, fn)
    if x.is_leaf:
        raise ValueError(
            f"{fn}: the tensor is a leaf tensor that needs a gradient (stop_gradient=False), and "
            "an in-place change cannot be recorded in the graph (Paddle: 'Leaf Tensor that "
            f"doesn't stop gradient can't use inplace strategy'). Use F.{fn[:-1]}(x), or change "
            "it inside `with core.no_grad():` when the change is not to be differentiated.")
    raise ValueError(
        f"{fn}: the tensor is computed in the autograd graph and needs a gradient; core does not "
        "record in-place changes there (its graph links tensors, so ops that used x before the "
        "change would get a wrong gradient; Paddle's version counter guards this). Use "
        f"x = F.{fn[:-1]}(x) (the same values, in a new tensor), or call {fn} inside "
        "`with core.no_grad():` for inference.")
