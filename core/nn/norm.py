"""Batch normalisation layers: ``BatchNorm1D`` and ``BatchNorm2D`` (Paddle 2.x semantics).

Parameters are ``weight`` (ones) and ``bias`` (zeros); the running statistics are buffers named
``_mean`` (zeros) and ``_variance`` (ones), Paddle's state_dict keys, so checkpoints read alike.
"""
from __future__ import annotations

from core import backend
from core.nn import initializer
from core.nn.functional.norm import batch_norm
from core.nn.layer import Layer
from core.tensor import Tensor


class _BatchNormBase(Layer):
    _dims: tuple[int, ...] = ()  # input ranks this layer accepts
    _formats: tuple[str, ...] = ()

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-5,
                 weight_attr=None, bias_attr=None, data_format: str | None = None,
                 use_global_stats: bool | None = None, name: str | None = None):
        super().__init__(name)
        kind = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int) \
                or num_features <= 0:
            raise ValueError(f"{kind}: num_features={num_features!r} must be a positive integer.")
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{kind}: momentum={momentum!r} must be in [0, 1] (Paddle's "
                             "convention: running = momentum * running + (1 - momentum) * batch).")
        if epsilon <= 0:
            raise ValueError(f"{kind}: epsilon={epsilon!r} must be positive.")
        data_format = data_format or self._formats[0]
        if data_format not in self._formats:
            raise ValueError(f"{kind}: data_format={data_format!r} is not supported; use one of "
                             f"{self._formats}.")
        self.num_features, self.momentum, self.epsilon = num_features, momentum, epsilon
        self.data_format, self.use_global_stats = data_format, use_global_stats
        self.weight = None if weight_attr is False else self.create_parameter(
            [num_features], attr=weight_attr, default_initializer=initializer.Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_features], attr=bias_attr, is_bias=True)
        xp = backend.xp()
        self.register_buffer("_mean", Tensor(xp.zeros(num_features, dtype=self._dtype)))
        self.register_buffer("_variance", Tensor(xp.ones(num_features, dtype=self._dtype)))

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self._dims:
            raise ValueError(f"{type(self).__name__}: expected an input with "
                             f"{' or '.join(map(str, self._dims))} dimensions, got shape "
                             f"{x.shape}.")
        channel = 1 if self.data_format[1] == "C" or x.ndim == 2 else x.ndim - 1
        if x.shape[channel] != self.num_features:
            raise ValueError(f"{type(self).__name__}: input of shape {x.shape} "
                             f"({self.data_format}) has {x.shape[channel]} channels, but the "
                             f"layer was built for num_features={self.num_features}.")
        fmt = "NC" if x.ndim == 2 else self.data_format
        return batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                          training=self.training, momentum=self.momentum, epsilon=self.epsilon,
                          data_format=fmt, use_global_stats=self.use_global_stats)

    def extra_repr(self) -> str:
        return f"num_features={self.num_features}, momentum={self.momentum}, " \
               f"epsilon={self.epsilon}, data_format={self.data_format}"


class BatchNorm1D(_BatchNormBase):
    """Batch norm over [N, C] or [N, C, L] inputs (``data_format`` "NCL" or "NLC")."""

    _dims = (2, 3)
    _formats = ("NCL", "NLC", "NC")


class BatchNorm2D(_BatchNormBase):
    """Batch norm over [N, C, H, W] inputs (``data_format`` "NCHW" or "NHWC")."""

    _dims = (4,)
    _formats = ("NCHW", "NHWC")
