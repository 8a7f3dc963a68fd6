"""Weight initialisers (Paddle's ``paddle.nn.initializer`` names).

Every initialiser is an ``Initializer`` and is called either way:

- ``init(param)``, Paddle's ``Initializer.__call__(param, block=None)``: fills the Tensor or
  Parameter ``param`` in place (its dtype, device and identity kept) and returns it: what
  ``param_init`` code does (``Normal(0.0, 0.02)(linear.weight)``);
- ``init(shape, dtype)``: a new backend array of that shape and dtype (by default
  ``core.get_default_dtype()``, float32 unless set):
  what ``Layer.create_parameter`` does.
"""
from __future__ import annotations

import math
import numbers
import statistics

import numpy as np

from core import backend
from core.framework import get_default_dtype
from core.tensor import Tensor


def _fans(shape: tuple) -> tuple[int, int]:
    """Fan-in and fan-out. Linear weights are [in, out] (Paddle); conv weights [out, in, kh, kw]."""
    if len(shape) < 2:
        return shape[0] if shape else 1, shape[0] if shape else 1
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """The base of the initialisers: Paddle's ``paddle.nn.initializer.Initializer``.

    A subclass computes values in ``_values(shape, dtype)``; calling it (see the module's
    docstring) fills a Tensor in place or returns a new array.
    """

    def __call__(self, param, dtype=None):
        """``init(param, block=None)``: fill the Tensor ``param`` in place and return it (a
        second argument is Paddle's static-graph ``block`` and is ignored); ``init(shape,
        dtype=None)``: a new array of ``shape`` and ``dtype`` (the default float dtype, float32
        unless ``core.set_default_dtype`` changed it, when None)."""
        if isinstance(param, Tensor):
            return _fill(param, self._values(tuple(param.data.shape), param.data.dtype))
        try:
            shape = tuple(int(n) for n in param)
        except TypeError:
            raise TypeError(f"{type(self).__name__}: the first argument must be a Tensor or "
                            f"Parameter to fill in place, or a shape (a list or tuple of "
                            f"ints), got {type(param).__name__}") from None
        return self._values(shape, get_default_dtype() if dtype is None else dtype)

    def _values(self, shape: tuple, dtype):
        raise NotImplementedError(f"{type(self).__name__} must define _values(shape, dtype)")


def _fill(param: Tensor, values) -> Tensor:
    """Write ``values`` into ``param``'s own array (its device and dtype): the same object, so
    optimisers and layers that hold it see the new values."""
    target = param.data
    module = backend.array_module(target)
    if module is np:
        values = backend.to_numpy(values)
    target[...] = module.asarray(values, dtype=target.dtype)
    param._value_range = None  # the recorded integer bounds (to_tensor's) no longer hold
    return param


def _optional_fan(owner: str, name: str, value) -> float | None:
    """A fan given by hand: None (computed from the shape) or a number > 0."""
    return None if value is None else _real(owner, name, value, positive=True)


class Constant(Initializer):
    """Every value ``value``: Paddle's ``Constant(value=0.0)``."""

    def __init__(self, value: float = 0.0):
        self.value = _real("Constant", "value", value)

    def _values(self, shape, dtype):
        return backend.xp().full(shape, self.value, dtype=dtype)


class Uniform(Initializer):
    """U(low, high): Paddle's ``Uniform(low=-1.0, high=1.0, name=None)``."""

    def __init__(self, low: float = -1.0, high: float = 1.0, name: str | None = None):
        del name
        self.low, self.high = _real("Uniform", "low", low), _real("Uniform", "high", high)
        if self.low > self.high:
            raise ValueError(f"Uniform: low must be <= high, got low={low!r}, high={high!r}")

    def _values(self, shape, dtype):
        return backend.asarray(backend.rng().uniform(self.low, self.high, shape), dtype=dtype)


class Normal(Initializer):
    """N(mean, std^2): Paddle's ``Normal(mean=0.0, std=1.0, name=None)``."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None):
        del name
        self.mean = _real("Normal", "mean", mean)
        self.std = _real("Normal", "std", std)
        if self.std < 0:
            raise ValueError(f"Normal: std must be >= 0, got {std!r}")

    def _values(self, shape, dtype):
        return backend.asarray(backend.rng().normal(self.mean, self.std, shape), dtype=dtype)


class XavierUniform(Initializer):
    """Glorot uniform, Paddle's default weight initialiser: ``XavierUniform(fan_in=None,
    fan_out=None, gain=1.0, name=None)``. U(-a, a) with a = gain * sqrt(6 / (fan_in +
    fan_out)); the fans come from the shape unless given."""

    def __init__(self, fan_in: float | None = None, fan_out: float | None = None,
                 gain: float = 1.0, name: str | None = None):
        del name
        self.fan_in = _optional_fan("XavierUniform", "fan_in", fan_in)
        self.fan_out = _optional_fan("XavierUniform", "fan_out", fan_out)
        self.gain = _real("XavierUniform", "gain", gain)

    def _values(self, shape, dtype):
        fan_in, fan_out = _given_fans(self, shape)
        limit = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return Uniform(-abs(limit), abs(limit))._values(shape, dtype)


class XavierNormal(Initializer):
    """Glorot normal: ``XavierNormal(fan_in=None, fan_out=None, gain=1.0, name=None)``.
    N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in: float | None = None, fan_out: float | None = None,
                 gain: float = 1.0, name: str | None = None):
        del name
        self.fan_in = _optional_fan("XavierNormal", "fan_in", fan_in)
        self.fan_out = _optional_fan("XavierNormal", "fan_out", fan_out)
        self.gain = _real("XavierNormal", "gain", gain)

    def _values(self, shape, dtype):
        fan_in, fan_out = _given_fans(self, shape)
        return Normal(0.0, abs(self.gain) * math.sqrt(2.0 / (fan_in + fan_out)))._values(
            shape, dtype)


def _given_fans(init, shape) -> tuple[float, float]:
    """The fans of ``shape``, each replaced by the one given to ``init`` where not None."""
    fan_in, fan_out = _fans(shape)
    return (fan_in if init.fan_in is None else init.fan_in,
            fan_out if getattr(init, "fan_out", None) is None else init.fan_out)


class _Kaiming(Initializer):
    """He initialisation: ``(fan_in=None, negative_slope=0.0, nonlinearity='relu',
    mode='fan_in')``, with gain = ``calculate_gain(nonlinearity, negative_slope)`` (sqrt(2) for
    relu). ``mode='fan_out'`` scales by the weight's fan-out instead (then ``fan_in`` must be
    None), as Paddle 3.x's."""

    def __init__(self, fan_in: float | None = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu", mode: str = "fan_in"):
        owner = type(self).__name__
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{owner}: mode={mode!r} must be 'fan_in' or 'fan_out'.")
        if mode == "fan_out" and fan_in is not None:
            raise ValueError(f"{owner}: fan_in={fan_in!r} is given with mode='fan_out', which "
                             "takes the weight's fan-out; leave fan_in None.")
        self.mode = mode
        self.fan_in = _optional_fan(owner, "fan_in", fan_in)
        self.negative_slope = _real(owner, "negative_slope", negative_slope)
        self.nonlinearity = nonlinearity
        try:
            self.gain = calculate_gain(nonlinearity, self.negative_slope)  # checks the name now
        except ValueError as exc:
            raise ValueError(f"{owner}: {exc}") from None

    def _fan(self, shape) -> float:
        """The fan the variance is scaled by: fan-in, or fan-out under ``mode='fan_out'``."""
        fan_in, fan_out = _given_fans(self, shape)
        return fan_out if self.mode == "fan_out" else fan_in


class KaimingUniform(_Kaiming):
    """He uniform: Paddle's ``KaimingUniform(fan_in=None, negative_slope=0.0,
    nonlinearity='relu', mode='fan_in')``. U(-a, a) with a = gain * sqrt(3 / fan) (sqrt(6 /
    fan) for relu)."""

    def _values(self, shape, dtype):
        limit = self.gain * math.sqrt(3.0 / self._fan(shape))
        return Uniform(-limit, limit)._values(shape, dtype)


class KaimingNormal(_Kaiming):
    """He normal: Paddle's ``KaimingNormal(fan_in=None, negative_slope=0.0,
    nonlinearity='relu', mode='fan_in')``. N(0, std^2) with std = gain / sqrt(fan) (sqrt(2 /
    fan) for relu)."""

    def _values(self, shape, dtype):
        return Normal(0.0, self.gain / math.sqrt(self._fan(shape)))._values(shape, dtype)


# ----- Paddle 2.6 / 3.x initialisers beyond the basic seven -------------------------------------
# Every draw comes from ``backend.rng()`` (the host generator ``core.seed`` reseeds) and the
# result is moved to the current device once with ``backend.asarray``: the same seed gives the
# same weights on the CPU and on a GPU.

def _real(owner: str, name: str, value, *, positive: bool = False) -> float:
    """``value`` as a finite float (> 0 when ``positive``), or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value) or (positive and value <= 0):
        need = "a finite number > 0" if positive else "a finite number"
        raise ValueError(f"{owner}: {name} must be {need}, got {value!r}")
    return float(value)


def _normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


class TruncatedNormal(Initializer):
    """Normal(``mean``, ``std``) restricted to ``[a, b]``: Paddle 3.x's
    ``TruncatedNormal(mean=0.0, std=1.0, a=-2.0, b=2.0, name=None)``.

    ``a`` and ``b`` are absolute cut-offs (Paddle 3.x, as ``torch.nn.init.trunc_normal_``), not
    multiples of ``std``; Paddle 2.6 had no ``a``/``b`` and cut at ``mean +- 2 * std`` (the same
    for the defaults, not for ``std=0.02``). Values outside ``[a, b]`` are drawn again
    (rejection), which gives the exact truncated distribution; where ``[a, b]`` holds less than
    5% of the mass the draw is by the inverse CDF instead, so it stays fast far in a tail.
    """

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                 name: str | None = None):
        del name
        self.mean = _real("TruncatedNormal", "mean", mean)
        self.std = _real("TruncatedNormal", "std", std, positive=True)
        self.a = _real("TruncatedNormal", "a", a)
        self.b = _real("TruncatedNormal", "b", b)
        if not self.a < self.b:
            raise ValueError(f"TruncatedNormal: a must be < b, got a={a!r}, b={b!r}")
        alpha, beta = (self.a - self.mean) / self.std, (self.b - self.mean) / self.std
        if alpha > 0:  # the upper tail: mirror it, so the CDF values below stay accurate
            alpha, beta, self._sign = -beta, -alpha, -1.0
        else:
            self._sign = 1.0
        self._alpha, self._beta = alpha, beta
        self._mass = _normal_cdf(beta) - _normal_cdf(alpha)
        if not self._mass > 0:
            raise ValueError(f"TruncatedNormal: [a, b] = [{a!r}, {b!r}] holds no probability "
                             f"mass of Normal(mean={mean!r}, std={std!r}) in double precision: "
                             "move a and b nearer to the mean")

    def _values(self, shape, dtype):
        n = math.prod(shape)
        z = self._rejection(n) if self._mass >= 0.05 else self._inverse_cdf(n)
        # standard units -> [a, b]; the clip only removes rounding at the two ends
        values = np.clip(self.mean + self.std * self._sign * z, self.a, self.b)
        return backend.asarray(values.reshape(shape), dtype=dtype)

    def _rejection(self, n: int) -> np.ndarray:
        rng, out, filled = backend.rng(), np.empty(n), 0
        while filled < n:
            draw = rng.standard_normal(int((n - filled) / self._mass * 1.1) + 16)
            keep = draw[(draw >= self._alpha) & (draw <= self._beta)][:n - filled]
            out[filled:filled + keep.size] = keep
            filled += keep.size
        return out

    def _inverse_cdf(self, n: int) -> np.ndarray:
        low = _normal_cdf(self._alpha)
        p = backend.rng().uniform(low, low + self._mass, n)
        inv = statistics.NormalDist().inv_cdf
        tiny = np.nextafter(0.0, 1.0)
        return np.array([inv(min(max(q, tiny), 1.0 - 1e-16)) for q in p])


class Orthogonal(Initializer):
    """A (semi-)orthogonal weight times ``gain``: Paddle's ``Orthogonal(gain=1.0, name=None)``.

    rows = shape[0], cols = shape[1] * ... * shape[-1]. A [max, min] standard-normal matrix is
    QR-factorised, Q's columns take the signs of R's diagonal (so Q is uniform over the
    orthogonal matrices), and Q, transposed when rows < cols, is reshaped to ``shape``: the rows
    are orthonormal when rows <= cols (W W^T = gain^2 I), the columns when rows >= cols.
    core's Linear weight is [in, out], as Paddle's, so Linear(10, 15) gets orthonormal rows.
    """

    def __init__(self, gain: float = 1.0, name: str | None = None):
        del name
        self.gain = _real("Orthogonal", "gain", gain)

    def _values(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the parameter must have 2 or more dimensions, got "
                             f"shape {list(shape)}")
        rows, cols = shape[0], math.prod(shape[1:])
        normal = backend.rng().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(normal)  # host data: drawn by the host generator
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return backend.asarray(self.gain * q.reshape(shape), dtype=dtype)


class Assign(Initializer):
    """The given values: Paddle's ``Assign(value, name=None)``. ``value`` is a numpy array, a
    list or tuple, a number or a Tensor, and must have the parameter's shape (a number fills
    it); it is copied and cast to the parameter's dtype."""

    def __init__(self, value, name: str | None = None):
        del name
        raw = value.data if isinstance(value, Tensor) else value
        try:
            # a copy: later edits of the source must not change the initialiser
            self.value = np.array(backend.to_numpy(raw) if hasattr(raw, "shape") else raw)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"Assign: value must be a numpy array, list, tuple, number or "
                            f"Tensor, got {type(value).__name__} ({exc})") from None
        if self.value.dtype.kind not in "biuf":
            raise TypeError(f"Assign: value must hold numbers, got dtype {self.value.dtype}")

    def _values(self, shape, dtype):
        if self.value.ndim and tuple(self.value.shape) != tuple(shape):
            raise ValueError(f"Assign: value has shape {list(self.value.shape)} but the "
                             f"parameter has shape {list(shape)}")
        return backend.asarray(np.broadcast_to(self.value, shape).copy(), dtype=dtype)


class Dirac(Initializer):
    """The identity convolution: Paddle's ``Dirac(groups=1, name=None)`` for 3-, 4- and 5-D conv
    weights [out, in, k...].

    Zeros, then ``W[g * n + d, d, k1 // 2, k2 // 2, ...] = 1`` for every group g and
    d < min(n, in), where n = out / groups: a conv with this weight passes the first
    min(n, in) input channels of each group through unchanged (cropped by the padding).
    """

    def __init__(self, groups: int = 1, name: str | None = None):
        del name
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"Dirac: groups must be a positive integer, got {groups!r}")
        self.groups = groups

    def _values(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: the parameter must have 3, 4 or 5 dimensions (a conv "
                             f"weight), got shape {list(shape)}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac: shape[0]={shape[0]} (output channels) is not divisible "
                             f"by groups={self.groups}")
        weight = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for d in range(min(per_group, shape[1])):
                weight[(g * per_group + d, d, *centre)] = 1.0
        return backend.asarray(weight, dtype=dtype)


class Bilinear(Initializer):
    """The bilinear-interpolation kernel, for a Conv2DTranspose that upsamples: Paddle's
    ``Bilinear()``.

    The weight must be 4-D [.., .., K, K]; every (i, j) gets the same K x K kernel
    ``W[y, x] = (1 - |x / f - c|) * (1 - |y / f - c|)`` with ``f = ceil(K / 2)`` and
    ``c = (2f - 1 - f % 2) / (2f)``. With ``kernel_size = 2 * factor - factor % 2``,
    ``stride = factor`` and ``padding = ceil((factor - 1) / 2)`` a channel-wise
    (``groups = C``) transposed conv upsamples by ``factor``. The row index is
    ``y = (i // K) % K`` (Caffe's BilinearFiller, which Paddle ports; see docs/paddle.md).
    """

    def _values(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(f"Bilinear: the parameter must be 4-D with a square kernel "
                             f"(shape[2] == shape[3]), got shape {list(shape)}")
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        ramp = 1 - np.abs(np.arange(size) / f - c)
        return backend.asarray(np.broadcast_to(np.outer(ramp, ramp), shape).copy(), dtype=dtype)


_GAINS = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
          "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
          "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for ``nonlinearity``: Paddle's ``calculate_gain(nonlinearity,
    param=None)``.

    1 for sigmoid, linear and the conv names (conv1d ... conv3d_transpose), 5/3 for tanh,
    sqrt(2) for relu, 3/4 for selu and sqrt(2 / (1 + param^2)) for leaky_relu (``param`` is the
    negative slope, 0.01 when None).
    """
    if param is None:
        param = 0.01
    param = _real("calculate_gain", "param", param)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + param ** 2))
    if not isinstance(nonlinearity, str) or nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: nonlinearity={nonlinearity!r} is not supported: use "
                         f"one of {sorted([*_GAINS, 'leaky_relu'])}")
    return _GAINS[nonlinearity]


_global = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None) -> None:
    """Initialise every parameter created from now on with ``weight_init`` (biases with
    ``bias_init``): Paddle's ``set_global_initializer(weight_init, bias_init=None)``.

    The global initialiser replaces a layer's own default (Conv2D's Kaiming normal, Linear's
    Xavier uniform, ...) but not an initialiser given in the parameter's attribute (a
    ``weight_attr`` object whose ``initializer`` is set). ``None`` removes it: call
    ``set_global_initializer(None)`` to go back to the layers' defaults. With ``bias_init``
    None, biases keep their layer's default.
    """
    for arg, init in (("weight_init", weight_init), ("bias_init", bias_init)):
        if init is not None and not callable(init):
            raise TypeError(f"set_global_initializer: {arg} must be an initializer (a callable "
                            f"(shape, dtype) -> array, e.g. core.nn.initializer.Normal()) or "
                            f"None, got {type(init).__name__}")
    _global["weight"], _global["bias"] = weight_init, bias_init


def _global_initializer(is_bias: bool):
    """The initializer ``set_global_initializer`` set for weights or biases (or None);
    ``Layer.create_parameter`` puts it above the layer's default."""
    return _global["bias" if is_bias else "weight"]
