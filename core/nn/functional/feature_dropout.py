"""Channel-wise alpha dropout, Paddle 3's ``feature_alpha_dropout``.

``alpha_dropout`` decides each element alone; this decides each whole channel (feature map) of
each sample at once, as ``dropout2d`` does for plain dropout, so convolutional SELU networks drop
features rather than pixels. The affine correction is alpha dropout's.
"""
from __future__ import annotations

from core import backend
from core.nn.functional.dropout_variants import _SATURATION, check_probability
from core.nn.functional.dropout_variants import _alpha_scale_grad as _scale_grad
from core.nn.functional.dropout_variants import _alpha_zero_grad as _zero_grad
from core.tensor import Tensor, apply

__all__ = ["feature_alpha_dropout"]


def feature_alpha_dropout(x: Tensor, p: float = 0.5, training: bool = True,
                          name: str | None = None) -> Tensor:
    """Paddle 3's ``feature_alpha_dropout(x, p=0.5, training=True, name=None)``. ``x`` is
    [N, C, ...] (at least 2-D); in training each channel ``x[n, c]`` is dropped with
    probability ``p`` (the seeded generator of ``core.seed``)::

        y   = x * keep + alpha_p * (1 - keep)          alpha_p = -1.6733 * 1.0507
        out = a * y + b,   a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5,   b = -a * alpha_p * p

    with ``keep`` of shape [N, C, 1, ...]; d out / d x = ``a * keep``. In evaluation it is the
    identity; ``p = 1`` gives zeros, as in Paddle.
    """
    del name
    p = check_probability("feature_alpha_dropout", p)
    if not isinstance(x, Tensor):
        raise backend.NotATensorError(f"feature_alpha_dropout: {backend.NOT_A_TENSOR}")
    if x.ndim < 2:
        raise ValueError(f"feature_alpha_dropout: 'x' must be at least 2-D ([N, C, ...]), got "
                         f"shape {x.shape}")
    if not training or p == 0.0:
        return x
    data = x.data
    xp = backend.array_module(data)
    if p == 1.0:
        return apply(xp.zeros_like(data), (x,), lambda g: (xp.zeros_like(g),),
                     "feature_alpha_dropout", _zero_grad)
    a = ((1.0 - p) * (1.0 + p * _SATURATION ** 2)) ** -0.5
    b = -a * _SATURATION * p
    noise = data.shape[:2] + (1,) * (data.ndim - 2)  # one draw per sample and channel
    keep = backend.random_uniform(noise, dtype=data.dtype) >= p
    scale = xp.multiply(keep, xp.asarray(a, dtype=data.dtype))  # a where kept, 0 where dropped
    out = data * scale
    out += xp.where(keep, data.dtype.type(b), data.dtype.type(a * _SATURATION + b))
    return apply(out, (x,), lambda g: (g * scale,), "feature_alpha_dropout", _scale_grad)
