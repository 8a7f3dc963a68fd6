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
    """``x * sigmoid(x)``, Paddle 3.x's ``Silu(inplace=False, name=None)``; see ``F.silu``."""

    _fn = F.silu

    def __init__(self, inplace: bool = False, name: str | None = None):
        # inplace only when set, so the default layer's repr stays Paddle 2.x's
        super().__init__(name, **({"inplace": inplace} if inplace else {}))


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
        if not min < max:  # Paddle checks it too: clip would return max everywhere
            raise ValueError(f"Hardtanh: min={min} must be less than max={max}.")
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


class SELU(_Activation):
    """``scale * x`` where x > 0, ``scale * alpha * (exp(x) - 1)`` elsewhere, Paddle's
    ``SELU(scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
    name=None)``; ``scale`` must be > 1 and ``alpha`` >= 0 (checked here)."""

    _fn = F.selu

    def __init__(self, scale: float = F._SELU_SCALE, alpha: float = F._SELU_ALPHA,
                 name: str | None = None):
        scale, alpha = F._selu_arguments(scale, alpha, "SELU")
        super().__init__(name, scale=scale, alpha=alpha)


class CELU(_Activation):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``, Paddle's ``CELU(alpha=1.0,
    name=None)``; ``alpha=0`` raises ZeroDivisionError."""

    _fn = F.celu

    def __init__(self, alpha: float = 1.0, name: str | None = None):
        super().__init__(name, alpha=F._celu_alpha(alpha, "CELU"))


class LogSigmoid(_Activation):
    """``log(1 / (1 + exp(-x)))``, computed stably, Paddle's ``LogSigmoid(name=None)``."""

    _fn = F.log_sigmoid


class Softshrink(_Activation):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, 0 between,
    Paddle's ``Softshrink(threshold=0.5, name=None)``; ``threshold`` must be >= 0."""

    _fn = F.softshrink

    def __init__(self, threshold: float = 0.5, name: str | None = None):
        super().__init__(name, threshold=F._softshrink_threshold(threshold, "Softshrink"))


class Hardshrink(_Activation):
    """``x`` where |x| > threshold, 0 elsewhere, Paddle's ``Hardshrink(threshold=0.5,
    name=None)``."""

    _fn = F.hardshrink

    def __init__(self, threshold: float = 0.5, name: str | None = None):
        super().__init__(name, threshold=F._real("Hardshrink", "threshold", threshold))


class ThresholdedReLU(_Activation):
    """``x`` where x > threshold, ``value`` elsewhere, Paddle 3.x's
    ``ThresholdedReLU(threshold=1.0, value=0.0, name=None)``."""

    _fn = F.thresholded_relu

    def __init__(self, threshold: float = 1.0, value: float = 0.0, name: str | None = None):
        super().__init__(name, threshold=F._real("ThresholdedReLU", "threshold", threshold),
                         value=F._real("ThresholdedReLU", "value", value))


class Maxout(_Activation):
    """The maximum over each run of ``groups`` consecutive channels on ``axis`` (C channels in,
    C / groups out), Paddle's ``Maxout(groups, axis=1, name=None)``; see ``F.maxout``."""

    _fn = F.maxout

    def __init__(self, groups: int, axis: int = 1, name: str | None = None):
        super().__init__(name, groups=F._maxout_groups(groups, "Maxout"), axis=axis)


class GLU(_Activation):
    """The gated linear unit ``a * sigmoid(b)`` over the two halves of ``axis``, Paddle's
    ``GLU(axis=-1, name=None)``: the output is half as long along ``axis``."""

    _fn = F.glu

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__(name, axis=axis)


class Softmax2D(Layer):
    """Softmax over the channels of each position of a [N, C, H, W] or [C, H, W] input (axis
    -3), Paddle's ``Softmax2D(name=None)``: at every (h, w) the C values sum to 1."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D: expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, "
                             f"got shape {x.shape} ({x.ndim}-D).")
        return F.softmax(x, axis=-3)


class RReLU(Layer):
    """Randomized leaky ReLU, Paddle's ``RReLU(lower=1/8, upper=1/3, name=None)``: ``x`` where
    x >= 0, ``a * x`` elsewhere, with a slope ``a`` drawn uniformly from [lower, upper] for each
    element in training mode and the mean (lower + upper) / 2 in evaluation mode (``eval()``).
    Paddle's bounds checks, 0 <= lower <= upper <= 1, run here."""

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0,
                 name: str | None = None):
        super().__init__(name)
        self._lower, self._upper = F._rrelu_bounds(lower, upper, "RReLU")

    def forward(self, x: Tensor) -> Tensor:
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self) -> str:
        return f"lower={self._lower}, upper={self._upper}"
