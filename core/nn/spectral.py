"""Paddle's ``SpectralNorm`` layer: a weight tensor in, the weight divided by its largest
singular value out.

It is the layer form of the spectral_norm op; ``core.nn.utils.spectral_norm`` is the hook form
that re-parameterises another layer's weight. Both share ``utils.power_iteration`` and the
differentiable division ``W / sigma`` (gradient through sigma, not through u and v).
"""
from __future__ import annotations

import math

from core import backend
from core.nn import initializer
from core.nn.layer import Layer
from core.nn.utils import _as_matrix, _spectral_divide, power_iteration
from core.tensor import Tensor

_DTYPES = ("float16", "float32", "float64")


class SpectralNorm(Layer):
    """Spectral normalisation of a weight tensor, Paddle's ``SpectralNorm(weight_shape,
    dim=0, power_iters=1, eps=1e-12, dtype='float32')``; ``forward(weight)`` returns
    ``weight / sigma(weight)``.

    The weight (of shape ``weight_shape``) is seen as a matrix ``W`` [h, w]: axis ``dim`` moved
    first, the rest flattened. The parameters ``weight_u`` [h] and ``weight_v`` [w] start as
    standard-normal draws and take no gradient. Each forward runs ``power_iters`` rounds of::

        v = W^T u / (||W^T u|| + eps),   u = W v / (||W v|| + eps)

    then ``sigma = u^T W v`` and returns ``weight / sigma``. As Paddle's op, the iteration runs
    on copies: ``weight_u`` / ``weight_v`` keep their initial values, so every forward starts
    from the same vectors (raise ``power_iters`` for a closer sigma). The gradient flows to the
    weight through sigma too (not through u and v).
    """

    def __init__(self, weight_shape, dim: int = 0, power_iters: int = 1,
                 eps: float = 1e-12, dtype: str = "float32"):
        super().__init__(dtype=dtype if dtype in _DTYPES else None)
        if dtype not in _DTYPES:
            raise ValueError(f"SpectralNorm: dtype={dtype!r} must be one of {_DTYPES}.")
        shape = list(weight_shape) if isinstance(weight_shape, (list, tuple)) else None
        if not shape or any(isinstance(n, bool) or not isinstance(n, int) or n <= 0
                            for n in shape):
            raise ValueError(f"SpectralNorm: weight_shape={weight_shape!r} must be a non-empty "
                             "list of positive integers.")
        if isinstance(dim, bool) or not isinstance(dim, int) or not -len(shape) <= dim < \
                len(shape):
            raise ValueError(f"SpectralNorm: dim={dim!r} must be an integer in "
                             f"[{-len(shape)}, {len(shape) - 1}] for weight_shape={shape}.")
        if isinstance(power_iters, bool) or not isinstance(power_iters, int) or power_iters < 0:
            raise ValueError(f"SpectralNorm: power_iters={power_iters!r} must be a "
                             "non-negative integer.")
        if not isinstance(eps, (int, float)) or isinstance(eps, bool) or \
                not eps > 0 or not math.isfinite(eps):
            raise ValueError(f"SpectralNorm: eps={eps!r} must be a finite number > 0.")
        self.weight_shape, self.dim = shape, dim % len(shape)
        # Paddle names the argument eps; the attribute keeps core's older name.
        self.power_iters, self.epsilon = power_iters, float(eps)
        h = shape[self.dim]
        w = math.prod(shape) // h
        frozen = {"trainable": False}  # Paddle: stop_gradient = True
        self.weight_u = self.create_parameter([h], attr=frozen,
                                              default_initializer=initializer.Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([w], attr=frozen,
                                              default_initializer=initializer.Normal(0.0, 1.0))

    def _normalize(self, x):
        """``x / (||x|| + epsilon)``, Paddle's spectral_norm op (the hook form uses max)."""
        xp = backend.array_module(x)
        return x / (xp.sqrt((x * x).sum()) + self.epsilon)

    def forward(self, weight: Tensor) -> Tensor:
        if not isinstance(weight, Tensor):
            raise TypeError(f"SpectralNorm: the input must be a core.Tensor (the weight), got "
                            f"{type(weight).__name__}")
        if list(weight.shape) != self.weight_shape:
            raise ValueError(f"SpectralNorm: the weight has shape {weight.shape}, but the layer "
                             f"was built for weight_shape={self.weight_shape}.")
        data = weight.data
        u = self.weight_u.data.astype(data.dtype, copy=True)
        v = self.weight_v.data.astype(data.dtype, copy=True)
        u, v = power_iteration(_as_matrix(data, self.dim), u, v, self.power_iters,
                               self._normalize)
        return _spectral_divide(weight, u, v, self.dim)

    def extra_repr(self) -> str:
        return f"weight_shape={self.weight_shape}, dim={self.dim}, " \
               f"power_iters={self.power_iters}, epsilon={self.epsilon}"
