"""Activation layers: thin wrappers over ``core.nn.functional`` (Paddle 2.x names)."""
from __future__ import annotations

from core.nn import initializer
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


class Softplus(_Activation):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``, Paddle's
    ``Softplus(beta=1, threshold=20, name=None)``."""

    _fn = F.softplus

    def __init__(self, beta: float = 1, threshold: float = 20, name: str | None = None):
        super().__init__(name, beta=beta, threshold=threshold)


class Mish(_Activation):
    """``x * tanh(softplus(x))``, Paddle's ``Mish(name=None)``."""

    _fn = F.mish


class Swish(_Activation):
    """``x * sigmoid(x)``, Paddle's ``Swish(name=None)``."""

    _fn = F.swish


class Hardsigmoid(_Activation):
    """``clip(x / 6 + 1/2, 0, 1)`` (slope 0.1666667, offset 0.5), Paddle's
    ``Hardsigmoid(name=None)``."""

    _fn = F.hardsigmoid


class Hardtanh(_Activation):
    """``clip(x, min, max)``, Paddle's ``Hardtanh(min=-1.0, max=1.0, name=None)``."""

    _fn = F.hardtanh

    def __init__(self, min: float = -1.0, max: float = 1.0,  # noqa: A002 - Paddle's names
                 name: str | None = None):
        super().__init__(name, min=min, max=max)


class Softsign(_Activation):
    """``x / (1 + |x|)``, Paddle's ``Softsign(name=None)``."""

    _fn = F.softsign


class Tanhshrink(_Activation):
    """``x - tanh(x)``, Paddle's ``Tanhshrink(name=None)``."""

    _fn = F.tanhshrink


class PReLU(Layer):
    """``max(0, x) + weight * min(0, x)`` with a learnt slope ``weight`` of shape
    [num_parameters], Paddle's ``PReLU(num_parameters=1, init=0.25, weight_attr=None,
    data_format='NCHW', name=None)``: one slope shared by every element, or one per channel
    (``num_parameters`` = the channels; see ``functional.prelu`` for ``data_format``).

    The parameter is ``_weight`` (Paddle's state_dict key), initialised to ``init``.
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr=None,
                 data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        if weight_attr is False:
            raise ValueError("PReLU: weight_attr=False is not allowed: the slope is the layer's "
                             "only parameter (use LeakyReLU for a fixed slope)")
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) \
                or num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be a positive integer, got "
                             f"{num_parameters!r}")
        self._num_parameters, self._init, self._data_format = num_parameters, init, data_format
        self._weight = self.create_parameter([num_parameters], attr=weight_attr,
                                             default_initializer=initializer.Constant(init))

    def forward(self, x: Tensor) -> Tensor:
        return F.prelu(x, self._weight, self._data_format)

    def extra_repr(self) -> str:
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                f"init={self._init}")
