"""Dropout that keeps SELU's self-normalisation (``paddle.nn.functional.alpha_dropout``).

Plain dropout zeroes values and rescales the rest, which shifts the mean and variance that
SELU networks rely on. Alpha dropout sets dropped values to SELU's negative saturation value
``-scale * alpha`` instead, then applies the affine map ``a * y + b`` that restores zero mean
and unit variance for inputs that have them.
"""
from __future__ import annotations

from core import backend
from core.higher_order import captured
from core.nn.functional.activation import _SELU_ALPHA, _SELU_SCALE
from core.tensor import Tensor, apply

_SATURATION = -_SELU_ALPHA * _SELU_SCALE  # SELU's limit for x -> -inf (Paddle's alpha_p)


def check_probability(fn: str, p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{fn}: p={p!r} is not a probability; use a number in [0, 1].")
    return float(p)


def alpha_dropout(x: Tensor, p: float = 0.5, training: bool = True,
                  name: str | None = None) -> Tensor:
    """Paddle's ``alpha_dropout(x, p=0.5, training=True, name=None)``. In training, each element
    is dropped with probability ``p`` (the seeded generator of ``core.seed``)::

        y   = x * keep + alpha_p * (1 - keep)          alpha_p = -1.6733 * 1.0507
        out = a * y + b,   a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5,   b = -a * alpha_p * p

    so an input of zero mean and unit variance keeps them; d out / d x = ``a * keep``. In
    evaluation it is the identity. ``p = 1`` gives zeros (every value dropped; Paddle's formula
    divides by zero there, torch returns zeros).
    """
    del name
    p = check_probability("alpha_dropout", p)
    if not isinstance(x, Tensor):
        raise backend.NotATensorError(f"alpha_dropout: {backend.NOT_A_TENSOR}")
    if not training or p == 0.0:
        return x
    data = x.data
    xp = backend.array_module(data)
    if p == 1.0:
        return apply(xp.zeros_like(data), (x,), lambda g: (xp.zeros_like(g),), "alpha_dropout",
                     _alpha_zero_grad)
    a = ((1.0 - p) * (1.0 + p * _SATURATION ** 2)) ** -0.5
    b = -a * _SATURATION * p
    keep = backend.random_uniform(data.shape, dtype=data.dtype) >= p
    scale = xp.multiply(keep, xp.asarray(a, dtype=data.dtype))  # a where kept, 0 where dropped
    out = data * scale
    out += xp.where(keep, data.dtype.type(b), data.dtype.type(a * _SATURATION + b))
    return apply(out, (x,), lambda g: (g * scale,), "alpha_dropout", _alpha_scale_grad)


def _alpha_scale_grad(out, g):
    """The tensor-level backward (create_graph) of alpha_dropout and feature_alpha_dropout:
    the forward pass's ``a * keep`` (the mask and the affine scale) is a constant."""
    (scale,) = captured(out, "scale")
    return (g * Tensor(scale),)


def _alpha_zero_grad(_out, g):  # p = 1: the output is constant
    return (g * 0.0,)


__all__ = ["alpha_dropout"]
