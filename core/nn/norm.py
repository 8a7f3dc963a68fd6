"""Normalisation layers: ``BatchNorm1D/2D/3D``, ``LayerNorm``, ``GroupNorm``,
``InstanceNorm1D/2D/3D``, ``LocalResponseNorm``.

Parameters are ``weight`` (ones) and ``bias`` (zeros); the running statistics are buffers named
``_mean`` (zeros) and ``_variance`` (ones), Paddle's state_dict keys, so checkpoints read alike.
"""
from __future__ import annotations

import math

import core
from core import backend
from core.nn import initializer
from core.nn.functional.norm import (
                                     batch_norm,
                                     group_norm,
                                     instance_norm,
                                     layer_norm,
                                     local_response_norm,
)
from core.nn.layer import Layer
from core.tensor import Tensor, unique_name


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
        # named as Paddle's (its running statistics are parameters <full_name>.w_1 / .w_2)
        self.register_buffer("_mean", Tensor(xp.zeros(num_features, dtype=self._dtype),
                                             name=unique_name(f"{self.full_name()}.w")))
        self.register_buffer("_variance", Tensor(xp.ones(num_features, dtype=self._dtype),
                                                 name=unique_name(f"{self.full_name()}.w")))

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
    """Batch norm over [N, C] or [N, C, L] inputs, Paddle's ``BatchNorm1D(num_features,
    momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, data_format='NCL',
    use_global_stats=None, name=None)`` ("NCL", "NLC" or "NC"; a 2-D input is [N, C] under
    any of them, as in Paddle)."""

    _dims = (2, 3)
    _formats = ("NCL", "NLC", "NC")

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-5,
                 weight_attr=None, bias_attr=None, data_format: str = "NCL",
                 use_global_stats: bool | None = None, name: str | None = None):
        # Paddle's default layout in the signature itself (ported code inspects it too)
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch norm over [N, C, H, W] inputs (``data_format`` "NCHW" or "NHWC"); at inference
    (eval mode, no gradient) right after a Conv2D that only it reads, in a Sequential or a
    network spec, it runs inside that convolution, with the same result up to rounding.

    The convolution's kernel is rescaled and given a bias (core.nn.fusion): one pass over the
    activation fewer. A hook on either layer keeps the two apart."""

    _dims = (4,)
    _formats = ("NCHW", "NHWC")

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-5,
                 weight_attr=None, bias_attr=None, data_format: str = "NCHW",
                 use_global_stats: bool | None = None, name: str | None = None):
        # Paddle's default layout in the signature itself (ported code inspects it too)
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm3D(_BatchNormBase):
    """Batch norm over [N, C, D, H, W] inputs, Paddle's ``BatchNorm3D(num_features,
    momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, data_format='NCDHW',
    use_global_stats=None, name=None)`` ("NCDHW" or "NDHWC"): per channel, ``(x - mean) /
    sqrt(var + epsilon) * weight + bias`` with the batch's statistics over N, D, H, W in
    training (biased variance) and the running ones in eval mode."""

    _dims = (5,)
    _formats = ("NCDHW", "NDHWC")

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-5,
                 weight_attr=None, bias_attr=None, data_format: str = "NCDHW",
                 use_global_stats: bool | None = None, name: str | None = None):
        # Paddle's default layout in the signature itself (ported code inspects it too)
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class _AffineNorm(Layer):
    """A per-sample normalisation with a learnt scale (ones) and shift (zeros); ``False``
    for ``weight_attr`` / ``bias_attr`` leaves either out, as in Paddle."""

    _scale_name = "weight"

    def _placed(self, device, dtype) -> None:
        """Paddle 3.x's keyword-only ``device=`` / ``dtype=``: the parameters moved and cast."""
        if device is not None or dtype is not None:
            self.to(device=device, dtype=dtype)

    def _affine(self, shape, weight_attr, bias_attr) -> None:
        scale = None if weight_attr is False else self.create_parameter(
            shape, attr=weight_attr, default_initializer=initializer.Constant(1.0))
        setattr(self, self._scale_name, scale)
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, attr=bias_attr, is_bias=True)


class LayerNorm(_AffineNorm):
    """Layer normalisation over the trailing ``normalized_shape`` axes, Paddle's
    ``LayerNorm(normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None)``
    with 3.x's keyword-only ``elementwise_affine=True`` (False: neither weight nor bias),
    ``bias=True`` (False: no bias), ``device`` and ``dtype``.
    """

    def __init__(self, normalized_shape, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, name: str | None = None, *, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__(name)
        shape = [normalized_shape] if isinstance(normalized_shape, int) else \
            list(normalized_shape)
        self.normalized_shape, self.epsilon = shape, epsilon
        if not elementwise_affine:  # Paddle 3.x's torch-style switches
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        # one flat vector of prod(normalized_shape), as Paddle's weight and bias [20] for [4, 5]
        # (layer_norm reshapes it to normalized_shape); core's earlier checkpoints, which kept
        # normalized_shape, still load (``_legacy_shapes``: Layer.set_state_dict reshapes them)
        self._affine([math.prod(shape)], weight_attr, bias_attr)
        self._placed(device, dtype)

    def _legacy_shapes(self) -> dict[str, tuple]:
        if len(self.normalized_shape) < 2:
            return {}
        return {name: tuple(self.normalized_shape) for name in ("weight", "bias")
                if getattr(self, name) is not None}

    def forward(self, x: Tensor) -> Tensor:
        return layer_norm(x, self.normalized_shape, self.weight, self.bias, self.epsilon)

    def extra_repr(self) -> str:
        return f"normalized_shape={self.normalized_shape}, epsilon={self.epsilon}"


class GroupNorm(_AffineNorm):
    """Group normalisation, Paddle's ``GroupNorm(num_groups, num_channels, epsilon=1e-05,
    weight_attr=None, bias_attr=None, data_format='NCHW', name=None)`` with 3.x's
    keyword-only ``affine=True`` (False: neither weight nor bias), ``device`` and ``dtype``."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05,
                 weight_attr=None, bias_attr=None, data_format: str = "NCHW",
                 name: str | None = None, *, affine: bool = True, device=None, dtype=None):
        super().__init__(name)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} is not divisible by "
                             f"num_groups={num_groups}.")
        formats = ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
        if data_format not in formats:
            raise ValueError(f"GroupNorm: data_format={data_format!r} is not one of {formats}.")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.epsilon, self.data_format = epsilon, data_format
        if not affine:  # Paddle 3.x's torch-style switch
            weight_attr = bias_attr = False
        self._affine([num_channels], weight_attr, bias_attr)
        self._placed(device, dtype)

    def forward(self, x: Tensor) -> Tensor:
        return group_norm(x, self.num_groups, self.epsilon, self.weight, self.bias,
                          self.data_format)

    def extra_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}, " \
               f"epsilon={self.epsilon}"


class InstanceNorm2D(_AffineNorm):
    """Instance normalisation of [N, C, H, W] inputs, Paddle's ``InstanceNorm2D(num_features,
    epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, data_format='NCHW',
    name=None)``; the learnt per-channel parameters are ``scale`` and ``bias`` (Paddle's
    state_dict keys). No running statistics are tracked, as in Paddle."""

    _scale_name = "scale"

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr=None, bias_attr=None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(name)
        self.num_features, self.epsilon, self.momentum = num_features, epsilon, momentum
        self.data_format = data_format
        self._affine([num_features], weight_attr, bias_attr)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim != 4:
            raise ValueError(f"InstanceNorm2D: expected a 4-D input, got shape {x.shape}.")
        return instance_norm(x, weight=self.scale, bias=self.bias, eps=self.epsilon,
                             data_format=self.data_format)

    def extra_repr(self) -> str:
        return f"num_features={self.num_features}, epsilon={self.epsilon}"


class InstanceNorm1D(_AffineNorm):
    """Instance normalisation of [N, C, L] inputs (or [N, C], where each value is its own
    instance and the output is the bias), Paddle's ``InstanceNorm1D(num_features,
    epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, data_format='NCL',
    name=None)``: ``(x - mean) / sqrt(var + epsilon) * scale + bias`` with each sample's and
    channel's statistics over L (biased variance). The learnt per-channel parameters are
    ``scale`` and ``bias`` (Paddle's state_dict keys); ``momentum`` is accepted for Paddle's
    signature, and no running statistics are tracked, as in Paddle."""

    _scale_name = "scale"

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr=None, bias_attr=None, data_format: str = "NCL",
                 name: str | None = None):
        super().__init__(name)
        if isinstance(num_features, bool) or not isinstance(num_features, int) \
                or num_features <= 0:
            raise ValueError(f"InstanceNorm1D: num_features={num_features!r} must be a positive "
                             "integer.")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or epsilon <= 0:
            raise ValueError(f"InstanceNorm1D: epsilon={epsilon!r} must be a positive number.")
        if data_format != "NCL":
            raise ValueError(f"InstanceNorm1D: data_format={data_format!r} is not supported; "
                             "only 'NCL' is (Paddle's instance_norm is channels-first).")
        self.num_features, self.epsilon, self.momentum = num_features, epsilon, momentum
        self.data_format = data_format
        self._affine([num_features], weight_attr, bias_attr)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in (2, 3):
            raise ValueError(f"InstanceNorm1D: expected a 2-D or 3-D input, got shape "
                             f"{x.shape}.")
        if x.shape[1] != self.num_features:
            raise ValueError(f"InstanceNorm1D: input of shape {x.shape} has {x.shape[1]} "
                             f"channels, but the layer was built for "
                             f"num_features={self.num_features}.")
        if x.ndim == 2:  # [N, C]: a length of one, as Paddle's kernel treats it
            return core.squeeze(self.forward(core.unsqueeze(x, 2)), 2)
        return instance_norm(x, weight=self.scale, bias=self.bias, eps=self.epsilon,
                             data_format="NCL")

    def extra_repr(self) -> str:
        return f"num_features={self.num_features}, epsilon={self.epsilon}"


class LocalResponseNorm(Layer):
    """Local response normalisation across channels, Paddle's ``LocalResponseNorm(size,
    alpha=0.0001, beta=0.75, k=1.0, data_format='NCHW', name=None)``: ``x[c] / (k + alpha /
    size * (sum of x^2 over the ``size`` channels around c))^beta`` (see
    ``functional.local_response_norm``: alpha is divided by size, as Paddle's implementation
    and PyTorch do)."""

    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                 data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"LocalResponseNorm: size={size!r} must be a positive integer.")
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        return local_response_norm(x, self.size, self.alpha, self.beta, self.k,
                                   self.data_format)

    def extra_repr(self) -> str:
        return f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class InstanceNorm3D(_AffineNorm):
    """Instance normalisation of [N, C, D, H, W] inputs, Paddle's ``InstanceNorm3D(num_features,
    epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, data_format='NCDHW',
    name=None)``: ``(x - mean) / sqrt(var + epsilon) * scale + bias`` with each sample's and
    channel's statistics over D, H, W (biased variance). The learnt per-channel parameters are
    ``scale`` and ``bias`` (Paddle's state_dict keys); ``momentum`` is accepted for Paddle's
    signature, and no running statistics are tracked, as in Paddle."""

    _scale_name = "scale"

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr=None, bias_attr=None, data_format: str = "NCDHW",
                 name: str | None = None):
        super().__init__(name)
        if isinstance(num_features, bool) or not isinstance(num_features, int) \
                or num_features <= 0:
            raise ValueError(f"InstanceNorm3D: num_features={num_features!r} must be a positive "
                             "integer.")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or epsilon <= 0:
            raise ValueError(f"InstanceNorm3D: epsilon={epsilon!r} must be a positive number.")
        if data_format != "NCDHW":
            raise ValueError(f"InstanceNorm3D: data_format={data_format!r} is not supported; "
                             "only 'NCDHW' is (Paddle's instance_norm is channels-first).")
        self.num_features, self.epsilon, self.momentum = num_features, epsilon, momentum
        self.data_format = data_format
        self._affine([num_features], weight_attr, bias_attr)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim != 5:
            raise ValueError(f"InstanceNorm3D: expected a 5-D input, got shape {x.shape}.")
        if x.shape[1] != self.num_features:
            raise ValueError(f"InstanceNorm3D: input of shape {x.shape} has {x.shape[1]} "
                             f"channels, but the layer was built for "
                             f"num_features={self.num_features}.")
        return instance_norm(x, weight=self.scale, bias=self.bias, eps=self.epsilon,
                             data_format="NCDHW")

    def extra_repr(self) -> str:
        return f"num_features={self.num_features}, epsilon={self.epsilon}"
