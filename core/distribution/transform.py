"""Paddle's ``paddle.distribution`` transforms: ``Transform`` and its subclasses
(``AbsTransform``, ``AffineTransform``, ``ChainTransform``, ``ExpTransform``,
``IndependentTransform``, ``PowerTransform``, ``ReshapeTransform``, ``SigmoidTransform``,
``SoftmaxTransform``, ``StackTransform``, ``StickBreakingTransform``, ``TanhTransform``), and
``TransformedDistribution``, which pushes a distribution through them (here, so that
``Transform.__call__`` can make one without an import cycle;
core.distribution.transformed_distribution re-exports it under Paddle's path).

A transform maps x to y = f(x); ``forward_log_det_jacobian(x)`` is log|det df/dx| and
``inverse_log_det_jacobian(y)`` is log|det df^-1/dy|, summed over the transform's event axes.
Each transform knows the event rank of its domain and codomain (0 for the element-wise ones,
1 for those acting on vectors), which ``ChainTransform`` and ``TransformedDistribution`` use to
sum the Jacobian terms over the right axes, as Paddle's ``variable.event_rank``.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import numpy as np

from core.creation import ones, zeros, zeros_like
from core.distribution.distribution import Distribution, as_float
from core.distribution.independent import Independent, sum_rightmost
from core.framework import get_default_dtype
from core.manipulation import broadcast_to, concat, stack, unstack
from core.nn.functional import log_sigmoid, sigmoid, softmax, softplus
from core.tensor import Tensor

__all__ = ["AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "TransformedDistribution"]


class Type(enum.Enum):
    """Paddle's ``transform.Type``: the kind of mapping a transform is."""

    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, kind) -> bool:
        return kind in (cls.BIJECTION, cls.INJECTION)


def _tensor(value, fn: str, arg: str) -> Tensor:
    """A transform's input as a float Tensor (numbers, lists and arrays take the default
    dtype, or a float array's own)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, bool) or not isinstance(
            value, (int, float, np.number, list, tuple, np.ndarray)):
        raise TypeError(f"{fn}: '{arg}' must be a Tensor, a number, a list or a numpy array, "
                        f"got {type(value).__name__}")
    dtype = getattr(value, "dtype", None)
    dtype = np.dtype(dtype) if dtype is not None and np.dtype(dtype).kind == "f" \
        else np.dtype(get_default_dtype())
    return as_float(value, dtype)


def _shape_tuple(shape, fn: str) -> tuple:
    if not isinstance(shape, Sequence) or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"{fn}: 'shape' must be a sequence of ints, got {shape!r}")
    return tuple(int(d) for d in shape)


class Transform:
    """Paddle's ``Transform``: the base of the transforms. Subclasses implement ``_forward``,
    ``_inverse`` and one of ``_forward_log_det_jacobian`` / ``_inverse_log_det_jacobian``
    (the other follows), and ``_forward_shape`` / ``_inverse_shape`` when they change shapes.

    Calling a transform on a Tensor applies ``forward``; on a Distribution it gives
    ``TransformedDistribution(input, [self])``; on a Transform, ``ChainTransform([self,
    input])``."""

    _type = Type.INJECTION
    _domain_event_rank = 0
    _codomain_event_rank = 0

    def __call__(self, input):
        if isinstance(input, Distribution):
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _is_injective(self) -> bool:
        return Type.is_injective(self._type)

    def forward(self, x) -> Tensor:
        """``y = f(x)``."""
        x = self._checked(x, "forward", "x", self._domain_event_rank)
        return self._forward(x)

    def inverse(self, y) -> Tensor:
        """``x = f^-1(y)``."""
        y = self._checked(y, "inverse", "y", self._codomain_event_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x) -> Tensor:
        """``log|det J_f(x)|``; NotImplementedError for a transform that is not injective."""
        x = self._checked(x, "forward_log_det_jacobian", "x", self._domain_event_rank)
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__}.forward_log_det_jacobian: the "
                                      f"transform is not injective")
        if self._has("_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if self._has("_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self._forward(x))
        return self._forward_log_det_jacobian(x)  # raises: neither is implemented

    def inverse_log_det_jacobian(self, y) -> Tensor:
        """``log|det J_f^-1(y)|``: minus ``forward_log_det_jacobian`` at ``f^-1(y)``."""
        y = self._checked(y, "inverse_log_det_jacobian", "y", self._codomain_event_rank)
        if self._has("_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__}.inverse_log_det_jacobian: the "
                                      f"transform is not injective")
        if self._has("_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        return self._inverse_log_det_jacobian(y)  # raises: neither is implemented

    def forward_shape(self, shape) -> tuple:
        """The shape of ``forward(x)`` for an x of shape ``shape``."""
        return self._forward_shape(_shape_tuple(shape, f"{type(self).__name__}.forward_shape"))

    def inverse_shape(self, shape) -> tuple:
        """The shape of ``inverse(y)`` for a y of shape ``shape``."""
        return self._inverse_shape(_shape_tuple(shape, f"{type(self).__name__}.inverse_shape"))

    def _has(self, method: str) -> bool:
        """Whether the subclass implements ``method`` (the base's only raise)."""
        return getattr(type(self), method) is not getattr(Transform, method)

    def _checked(self, value, method: str, arg: str, rank: int) -> Tensor:
        fn = f"{type(self).__name__}.{method}"
        value = _tensor(value, fn, arg)
        if value.ndim < rank:
            raise ValueError(f"{fn}: '{arg}' must have at least {rank} dimensions (the "
                             f"transform's event rank), got shape {value.shape}")
        return value

    def _forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement forward")

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement inverse")

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} implements neither log det "
                                  f"Jacobian")

    def _inverse_log_det_jacobian(self, y: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} implements neither log det "
                                  f"Jacobian")

    def _forward_shape(self, shape: tuple) -> tuple:
        return shape

    def _inverse_shape(self, shape: tuple) -> tuple:
        return shape


class AbsTransform(Transform):
    """Paddle's ``AbsTransform()``: ``y = |x|``. Not injective: ``inverse(y)`` is the pair
    ``(-y, y)`` and ``inverse_log_det_jacobian(y)`` the pair of zeros, as Paddle's;
    ``forward_log_det_jacobian`` raises NotImplementedError."""

    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = zeros_like(y)
        return zero, zero


class AffineTransform(Transform):
    """Paddle's ``AffineTransform(loc, scale)``: ``y = loc + scale x`` (loc and scale are
    Tensors, numbers or arrays). Its log det Jacobian ``log|scale|`` is broadcast to x's
    shape."""

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        self._loc = _tensor(loc, "AffineTransform", "loc")
        self._scale = _tensor(scale, "AffineTransform", "scale")

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        log_scale = self._scale.abs().log()
        shape = np.broadcast_shapes(tuple(x.shape), tuple(log_scale.shape))
        return log_scale if tuple(log_scale.shape) == shape else broadcast_to(log_scale,
                                                                              list(shape))

    def _forward_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self._loc.shape),
                                         tuple(self._scale.shape)))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """Paddle's ``ChainTransform(transforms)``: the transforms applied in order (``inverse``
    in reverse); the log det Jacobians add up, each summed over the chain's event axes."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence) or not all(
                isinstance(t, Transform) for t in transforms):
            raise TypeError(f"ChainTransform: 'transforms' must be a sequence of Transforms, "
                            f"got {transforms!r}")
        self.transforms = list(transforms)

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    @property
    def _domain_event_rank(self) -> int:
        """The least rank an input needs for every transform of the chain to see its event
        rank (Paddle's recurrence, from the last transform back)."""
        if not self.transforms:
            return 0
        rank = self.transforms[-1]._codomain_event_rank
        for t in reversed(self.transforms):
            rank = max(rank - (t._codomain_event_rank - t._domain_event_rank),
                       t._domain_event_rank)
        return rank

    @property
    def _codomain_event_rank(self) -> int:
        if not self.transforms:
            return 0
        rank = self.transforms[0]._domain_event_rank
        for t in self.transforms:
            rank = max(rank + t._codomain_event_rank - t._domain_event_rank,
                       t._codomain_event_rank)
        return rank

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total, rank = 0.0, self._domain_event_rank
        for t in self.transforms:
            total = total + sum_rightmost(t.forward_log_det_jacobian(x),
                                           rank - t._domain_event_rank)
            x = t.forward(x)
            rank += t._codomain_event_rank - t._domain_event_rank
        return total

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class ExpTransform(Transform):
    """Paddle's ``ExpTransform()``: ``y = exp(x)``; log det Jacobian ``x``."""

    _type = Type.BIJECTION

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """Paddle's ``IndependentTransform(base, reinterpreted_batch_rank)``: ``base`` with its
    last ``reinterpreted_batch_rank`` batch axes made event axes, so the log det Jacobian is
    summed over them; forward and inverse are base's."""

    def __init__(self, base, reinterpreted_batch_rank: int):
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: 'base' must be a Transform, got "
                            f"{type(base).__name__}")
        n = reinterpreted_batch_rank
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ValueError(f"IndependentTransform: 'reinterpreted_batch_rank' must be a "
                             f"positive int, got {n!r}")
        self._base, self._reinterpreted_batch_rank = base, n

    def _is_injective(self):
        return self._base._is_injective()

    @property
    def _domain_event_rank(self) -> int:
        return self._base._domain_event_rank + self._reinterpreted_batch_rank

    @property
    def _codomain_event_rank(self) -> int:
        return self._base._codomain_event_rank + self._reinterpreted_batch_rank

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x),
                              self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class PowerTransform(Transform):
    """Paddle's ``PowerTransform(power)``: ``y = x^power`` on positive x; log det Jacobian
    ``log|power x^(power - 1)|``."""

    _type = Type.BIJECTION

    def __init__(self, power):
        self._power = _tensor(power, "PowerTransform", "power")

    @property
    def power(self) -> Tensor:
        return self._power

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1)).abs().log()

    def _forward_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self._power.shape)))

    _inverse_shape = _forward_shape


class ReshapeTransform(Transform):
    """Paddle's ``ReshapeTransform(in_event_shape, out_event_shape)``: reshapes the event
    part of x (the trailing ``in_event_shape``) to ``out_event_shape`` (same size); log det
    Jacobian 0 (one per batch element)."""

    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        shapes = {}
        for arg, shape in (("in_event_shape", in_event_shape),
                           ("out_event_shape", out_event_shape)):
            try:
                shapes[arg] = _shape_tuple(shape, "ReshapeTransform")
            except TypeError:
                raise TypeError(f"ReshapeTransform: '{arg}' must be a sequence of ints, got "
                                f"{shape!r}") from None
        self._in_event_shape = shapes["in_event_shape"]
        self._out_event_shape = shapes["out_event_shape"]
        sizes = [math.prod(s) for s in (self._in_event_shape, self._out_event_shape)]
        if sizes[0] != sizes[1]:
            raise ValueError(f"ReshapeTransform: 'in_event_shape' {list(in_event_shape)} and "
                             f"'out_event_shape' {list(out_event_shape)} must have the same "
                             f"number of elements, got {sizes[0]} and {sizes[1]}")

    @property
    def in_event_shape(self) -> tuple:
        return self._in_event_shape

    @property
    def out_event_shape(self) -> tuple:
        return self._out_event_shape

    @property
    def _domain_event_rank(self) -> int:
        return len(self._in_event_shape)

    @property
    def _codomain_event_rank(self) -> int:
        return len(self._out_event_shape)

    def _forward(self, x):
        return x.reshape(self._swap(tuple(x.shape), self._in_event_shape,
                                    self._out_event_shape, "forward"))

    def _inverse(self, y):
        return y.reshape(self._swap(tuple(y.shape), self._out_event_shape,
                                    self._in_event_shape, "inverse"))

    def _forward_log_det_jacobian(self, x):
        return zeros(list(x.shape[:x.ndim - len(self._in_event_shape)]), dtype=x.dtype)

    def _forward_shape(self, shape):
        return self._swap(shape, self._in_event_shape, self._out_event_shape, "forward_shape")

    def _inverse_shape(self, shape):
        return self._swap(shape, self._out_event_shape, self._in_event_shape, "inverse_shape")

    @staticmethod
    def _swap(shape: tuple, old: tuple, new: tuple, method: str) -> tuple:
        n = len(old)
        if len(shape) < n or tuple(shape[len(shape) - n:]) != old:
            raise ValueError(f"ReshapeTransform.{method}: the shape must end in the event "
                             f"shape {list(old)}, got {list(shape)}")
        return tuple(shape[:len(shape) - n]) + new


class SigmoidTransform(Transform):
    """Paddle's ``SigmoidTransform()``: ``y = sigmoid(x)``, ``x = logit(y)``; log det Jacobian
    ``-softplus(-x) - softplus(x)``."""

    _type = Type.BIJECTION

    def _forward(self, x):
        return sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -softplus(-x) - softplus(x)


class SoftmaxTransform(Transform):
    """Paddle's ``SoftmaxTransform()``: ``y = softmax(x)`` over the last axis, to the simplex;
    ``inverse`` is ``log(y)`` (one of the preimages). Not injective: the log det Jacobians
    raise NotImplementedError."""

    _type = Type.OTHER
    _domain_event_rank = 1
    _codomain_event_rank = 1

    def _forward(self, x):
        return softmax(x, -1)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("SoftmaxTransform.forward_shape: 'shape' must have at least 1 "
                             "dimension, got ()")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """Paddle's ``StackTransform(transforms, axis=0)``: ``transforms[i]`` applied to slice i
    of x along ``axis`` (whose size must be len(transforms))."""

    def __init__(self, transforms, axis: int = 0):
        if not isinstance(transforms, Sequence) or not transforms or not all(
                isinstance(t, Transform) for t in transforms):
            raise TypeError(f"StackTransform: 'transforms' must be a non-empty sequence of "
                            f"Transforms, got {transforms!r}")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"StackTransform: 'axis' must be an int, got {axis!r}")
        self._transforms, self._axis = list(transforms), axis

    @property
    def transforms(self) -> list:
        return self._transforms

    @property
    def axis(self) -> int:
        return self._axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def _domain_event_rank(self) -> int:
        return max(t._domain_event_rank for t in self._transforms)

    @property
    def _codomain_event_rank(self) -> int:
        return max(t._codomain_event_rank for t in self._transforms)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")

    def _map(self, value: Tensor, method: str) -> Tensor:
        if not -value.ndim <= self._axis < value.ndim:
            raise ValueError(f"StackTransform.{method}: 'axis' {self._axis} is out of range "
                             f"for an input of shape {value.shape}")
        if value.shape[self._axis] != len(self._transforms):
            raise ValueError(f"StackTransform.{method}: the input's size along axis "
                             f"{self._axis} must be {len(self._transforms)} (the number of "
                             f"transforms), got {value.shape[self._axis]}")
        parts = unstack(value, self._axis)
        return stack([getattr(t, method)(v) for v, t in zip(parts, self._transforms)],
                     self._axis)


class StickBreakingTransform(Transform):
    """Paddle's ``StickBreakingTransform()``: an unconstrained vector [..., k] to the simplex
    [..., k + 1] by stick breaking (``z_i = sigmoid(x_i - log(k - i))``)."""

    _type = Type.BIJECTION
    _domain_event_rank = 1
    _codomain_event_rank = 1

    @staticmethod
    def _log_offset(k: int, like: Tensor) -> Tensor:
        """``log(k - i)`` for i = 0..k-1."""
        return as_float(np.log(np.arange(k, 0, -1)), like.dtype)

    def _forward(self, x):
        z = sigmoid(x - self._log_offset(x.shape[-1], x))
        one = ones(list(x.shape[:-1]) + [1], dtype=x.dtype)
        rest = (1 - z).cumprod(-1)
        return concat([z, one], -1) * concat([one, rest], -1)

    def _inverse(self, y):
        head = y[..., :-1]
        remaining = 1 - head.cumsum(-1)
        return head.log() - remaining.log() + self._log_offset(head.shape[-1], y)

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        shifted = x - self._log_offset(x.shape[-1], x)
        return (-shifted + log_sigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform.forward_shape: 'shape' must not be empty")
        return shape[:-1] + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform.inverse_shape: 'shape' must not be empty")
        return shape[:-1] + (shape[-1] - 1,)


class TanhTransform(Transform):
    """Paddle's ``TanhTransform()``: ``y = tanh(x)``; log det Jacobian
    ``2 (log 2 - x - softplus(-2x))``, stabler than ``log(1 - tanh(x)^2)``."""

    _type = Type.BIJECTION

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        return 2 * (math.log(2) - x - softplus(-2 * x))


class TransformedDistribution(Distribution):
    """Paddle's ``TransformedDistribution(base, transforms)``: the distribution of
    ``transforms[-1](...transforms[0](X))`` for ``X ~ base``. ``log_prob(y)`` inverts the
    transforms and adds their inverse log det Jacobians; when the transforms act on more
    event axes than base has, base is wrapped in ``Independent`` first, as Paddle's."""

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: 'base' must be a Distribution, got "
                            f"{type(base).__name__}")
        if not isinstance(transforms, Sequence) or not all(
                isinstance(t, Transform) for t in transforms):
            raise TypeError(f"TransformedDistribution: 'transforms' must be a sequence of "
                            f"Transforms, got {transforms!r}")
        self._transforms = list(transforms)
        chain = ChainTransform(self._transforms)
        base_shape = base.batch_shape + base.event_shape
        needed = chain._domain_event_rank
        if len(base_shape) < needed:
            raise ValueError(f"TransformedDistribution: 'base' must have at least {needed} "
                             f"dimensions (batch and event) for these transforms, got shape "
                             f"{list(base_shape)}")
        if needed > len(base.event_shape):
            base = Independent(base, needed - len(base.event_shape))
        self._base = base
        shape = chain.forward_shape(base.batch_shape + base.event_shape)
        event_rank = chain._codomain_event_rank + max(len(base.event_shape) - needed, 0)
        cut = len(shape) - event_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def base(self) -> Distribution:
        """The base distribution (Independent-wrapped where the transforms needed it)."""
        return self._base

    @property
    def transforms(self) -> list:
        return list(self._transforms)

    def sample(self, shape=()) -> Tensor:
        """base's draws through the transforms (no gradient)."""
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x.detach()

    def rsample(self, shape=()) -> Tensor:
        """base's ``rsample`` through the transforms: differentiable where base's is."""
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value) -> Tensor:
        """``base.log_prob(x) - sum log|det J_t|`` along the inverted chain, each term summed
        over the event axes it does not cover itself."""
        log_prob, y = 0.0, value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain_event_rank - t._codomain_event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._domain_event_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y),
                                        event_rank - len(self._base.event_shape))
