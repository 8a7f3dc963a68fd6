"""Activation layers: thin wrappers over ``core.nn.functional`` (Paddle 2.x names)."""
from __future__ import annotations

from core.nn.functional import activation as F
from core.nn.layer import Layer
from core.tensor import Tensor


class ReLU(Layer):
    """max(x, 0)."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Sigmoid(Layer):
    """1 / (1 + exp(-x))."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Layer):
    """Hyperbolic tangent."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Softmax(Layer):
    """Softmax along ``axis`` (the last one by default)."""

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__(name)
        self.axis = axis

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"axis={self.axis}"


class LogSoftmax(Layer):
    """log(softmax(x)) along ``axis``, computed stably."""

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__(name)
        self.axis = axis

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"axis={self.axis}"


class _Activation(Layer):
    """An element-wise activation layer: ``_fn`` applied with the layer's keyword arguments."""

    _fn = None

    def __init__(self, name: str | None = None, **options):
        super().__init__(name)
        self._options = options

    def forward(self, x: Tensor) -> Tensor:
        return type(self)._fn(x, **self._options)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self._options.items())


class GELU(_Activation):
    """Gaussian error linear unit, Paddle's ``GELU(approximate=False, name=None)``."""

    _fn = F.gelu

    def __init__(self, approximate: bool = False, name: str | None = None):
        super().__init__(name, approximate=approximate)


class LeakyReLU(_Activation):
    """``max(x, 0) + negative_slope * min(x, 0)``, Paddle's ``LeakyReLU(negative_slope=0.01,
    name=None)``."""

    _fn = F.leaky_relu

    def __init__(self, negative_slope: float = 0.01, name: str | None = None):
        super().__init__(name, negative_slope=negative_slope)


class Silu(_Activation):
    """``x * sigmoid(x)``, Paddle's ``Silu(name=None)``."""

    _fn = F.silu


class ELU(_Activation):
    """Exponential linear unit, Paddle's ``ELU(alpha=1.0, name=None)``."""

    _fn = F.elu

    def __init__(self, alpha: float = 1.0, name: str | None = None):
        super().__init__(name, alpha=alpha)


class ReLU6(_Activation):
    """``min(max(x, 0), 6)``, Paddle's ``ReLU6(name=None)``."""

    _fn = F.relu6


class Hardswish(_Activation):
    """``x * relu6(x + 3) / 6``, Paddle's ``Hardswish(name=None)``."""

    _fn = F.hardswish
