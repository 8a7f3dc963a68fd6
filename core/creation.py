"""Tensor creation with Paddle 2.x names and defaults (float32, or int64 for integer ranges).

Tensors are made on the current device (``core.device.set_device``). Random values are drawn
from ``core.backend.rng()`` on the host and then moved, so ``core.seed(n)`` gives the same numbers
on the CPU and on a GPU.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.arithmetic import add, multiply
from core.framework import get_default_dtype
from core.ops import as_input, exp
from core.tensor import Tensor, apply
from core.tensor import _on_device_of as _array_on_device_of

__all__ = ["arange", "assign", "bernoulli", "binomial", "clone", "empty", "empty_like", "eye",
           "full", "full_like", "linspace", "log_normal", "logspace", "meshgrid", "multinomial",
           "normal", "ones", "ones_like", "poisson", "rand", "rand_like", "randint",
           "randint_like", "randn", "randn_like", "randperm", "standard_gamma",
           "standard_normal", "tolist", "uniform", "zeros", "zeros_like"]


def _dtype(dtype, default: str, fn: str, kinds: str = "biuf") -> np.dtype:
    try:
        result = np.dtype(default if dtype is None else dtype)
    except TypeError:
        raise TypeError(f"{fn}: dtype {dtype!r} is not a known dtype; use e.g. 'float32', "
                        "'float64', 'int32', 'int64' or 'bool'") from None
    if result.kind not in kinds:
        raise TypeError(f"{fn}: dtype {result} is not allowed here; allowed kinds: "
                        + ", ".join({"b": "bool", "i": "int", "u": "uint", "f": "float"}[k]
                                    for k in kinds))
    return result


def _shape(shape, fn: str) -> tuple:
    """An int, a list/tuple of ints (or 1-element Tensors), or a 1-D int Tensor, as a tuple."""
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, bool) or not isinstance(shape, (list, tuple, int, np.integer)):
        raise TypeError(f"{fn}: shape must be an int or a list/tuple of ints, got {shape!r}")
    dims = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    dims = [d.item() if isinstance(d, Tensor) else d for d in dims]
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in dims):
        raise ValueError(f"{fn}: shape {dims} must contain non-negative ints")
    return tuple(int(d) for d in dims)


def _scalar(value):
    return value.item() if isinstance(value, Tensor) else value


def _filled(shape, value, dtype, fn: str) -> Tensor:
    dtype = _dtype(dtype, get_default_dtype(), fn)
    return Tensor(backend.xp().full(_shape(shape, fn), value, dtype=dtype))


def zeros(shape, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``zeros(shape, dtype=None, name=None)``."""
    del name
    return _filled(shape, 0, dtype, "zeros")


def ones(shape, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``ones(shape, dtype=None, name=None)``."""
    del name
    return _filled(shape, 1, dtype, "ones")


def full(shape, fill_value, dtype=None, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (float32 unless ``dtype`` says);
    Paddle's ``full(shape, fill_value, dtype=None, name=None)``."""
    del name
    value = _scalar(fill_value)
    if dtype is None and isinstance(value, bool):  # Paddle 3.3.1: full(shape, True) is bool
        dtype = "bool"
    return _filled(shape, value, dtype, "full")


def _like(x, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: 'x' must be a Tensor, got {type(x).__name__}")
    return x


def _filled_like(x, value, dtype, fn: str) -> Tensor:
    x = _like(x, fn)
    dtype = _dtype(dtype, x.dtype, fn)
    return Tensor(backend.array_module(x.data).full(x.data.shape, value, dtype=dtype))


def zeros_like(x, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``zeros_like(x, dtype=None, name=None)``."""
    del name
    return _filled_like(x, 0, dtype, "zeros_like")


def ones_like(x, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``ones_like(x, dtype=None, name=None)``."""
    del name
    return _filled_like(x, 1, dtype, "ones_like")


def full_like(x, fill_value, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``full_like(x, fill_value, dtype=None, name=None)``."""
    del name
    return _filled_like(x, _scalar(fill_value), dtype, "full_like")


def arange(start=0, end=None, step=1, dtype=None, name: str | None = None) -> Tensor:
    """Values start, start+step, ... below ``end`` (``arange(n)`` is 0..n-1); int64 when every
    bound is an int, else float32, as in Paddle (``arange(start=0, end=None, step=1,
    dtype=None, name=None)``)."""
    del name
    start, end, step = _scalar(start), _scalar(end), _scalar(step)
    if end is None:
        start, end = 0, start
    bounds = (start, end, step)
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.number)) for v in bounds):
        raise TypeError(f"arange: start, end and step must be numbers, got {bounds}")
    if step == 0:
        raise ValueError("arange: step must not be 0")
    integral = all(isinstance(v, (int, np.integer)) for v in bounds)
    dtype = _dtype(dtype, "int64" if integral else get_default_dtype(), "arange", "iuf")
    return Tensor(backend.xp().arange(start, end, step, dtype=dtype))


def linspace(start, stop, num, dtype=None, name: str | None = None) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop``, both included (float32 unless
    ``dtype`` says; an integer dtype truncates, as Paddle)."""
    del name
    start, stop, num = _scalar(start), _scalar(stop), _scalar(num)
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 0:
        raise ValueError(f"linspace: num must be an int >= 0, got {num!r}")
    dtype = _dtype(dtype, get_default_dtype(), "linspace", "iuf")
    values = np.linspace(float(start), float(stop), int(num), dtype=np.float64)
    return Tensor(backend.asarray(values.astype(dtype)))


def eye(num_rows: int, num_columns: int | None = None, dtype=None,
        name: str | None = None) -> Tensor:
    """A 2-D tensor with ones on the diagonal (square unless ``num_columns`` is given);
    Paddle's ``eye(num_rows, num_columns=None, dtype=None, name=None)``."""
    del name
    rows, = _shape(num_rows, "eye")
    cols, = _shape(rows if num_columns is None else num_columns, "eye")
    return Tensor(backend.xp().eye(rows, cols, dtype=_dtype(dtype, get_default_dtype(), "eye")))


def rand(shape, dtype=None, name=None) -> Tensor:
    """Uniform samples in [0, 1)."""
    dtype = _dtype(dtype, get_default_dtype(), "rand", "f")
    return Tensor(backend.asarray(backend.rng().random(_shape(shape, "rand")), dtype=dtype))


def randn(shape, dtype=None, name=None) -> Tensor:
    """Standard normal samples."""
    dtype = _dtype(dtype, get_default_dtype(), "randn", "f")
    samples = backend.rng().standard_normal(_shape(shape, "randn"))
    return Tensor(backend.asarray(samples, dtype=dtype))


def _random_like(x, dtype, draw, fn: str) -> Tensor:
    """``draw(shape)``'s host samples with x's shape, in x's float dtype unless ``dtype`` says,
    on x's device."""
    x = _like(x, fn)
    dtype = _dtype(dtype, x.dtype, fn, "f")
    samples = draw(x.data.shape).astype(dtype)
    return Tensor(backend.array_module(x.data).asarray(samples))


def randn_like(x, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``randn_like(x, dtype=None, name=None)``: standard normal samples with x's
    shape, in x's dtype unless ``dtype`` says (float types only), on x's device; drawn from
    core.seed's generator, without gradient (``stop_gradient=True``)."""
    del name
    return _random_like(x, dtype, backend.rng().standard_normal, "randn_like")


def rand_like(input, name: str | None = None, *, dtype=None, device=None,  # noqa: A002 - Paddle's name
              requires_grad: bool = False) -> Tensor:
    """Paddle's ``rand_like(input, name=None, *, dtype=None, device=None,
    requires_grad=False)``: samples uniform in [0, 1) with input's shape, in its dtype unless
    ``dtype`` says (float types only), on its device unless ``device`` names another
    ('cpu', 'gpu:0'); drawn from core.seed's generator. ``requires_grad=True`` returns a leaf
    with ``stop_gradient=False``."""
    del name
    out = _random_like(input, dtype, backend.rng().random, "rand_like")
    if device is not None:
        out = out.to(device)
    out.stop_gradient = not requires_grad
    return out


def randint(low=0, high=None, shape=(1,), dtype=None, name=None) -> Tensor:
    """Integers uniform in [low, high) (``randint(n)`` draws from [0, n)); int64 by default."""
    low, high = _scalar(low), _scalar(high)
    if high is None:
        low, high = 0, low
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (low, high)):
        raise TypeError(f"randint: low and high must be ints, got {low!r} and {high!r}")
    if low >= high:
        raise ValueError(f"randint: low ({low}) must be less than high ({high})")
    dtype = _dtype(dtype, "int64", "randint", "iu")
    samples = backend.rng().integers(low, high, size=_shape(shape, "randint"))
    return Tensor(backend.asarray(samples, dtype=dtype))


def meshgrid(*args, **kwargs) -> list[Tensor]:
    """Coordinate grids of 1-D tensors (indexing 'ij', as Paddle): output k has shape
    [len(args[0]), len(args[1]), ...] and repeats args[k] along its own axis. A single list or
    tuple of tensors may be passed instead. Each grid is differentiable."""
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise TypeError("meshgrid: give at least one 1-D Tensor")
    for i, t in enumerate(args):
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid: argument {i} must be a Tensor, got {type(t).__name__}")
        if t.ndim != 1:
            raise ValueError(f"meshgrid: argument {i} must be 1-D, got shape {t.shape}")
    shape = tuple(t.data.shape[0] for t in args)
    xp = backend.array_module(args[0].data)
    grids = []
    for k, t in enumerate(args):
        view = [1] * len(shape)
        view[k] = shape[k]
        others = tuple(i for i in range(len(shape)) if i != k)
        grids.append(apply(xp.broadcast_to(t.data.reshape(view), shape), (t,),
                           lambda g, others=others: (g.sum(axis=others),), "meshgrid"))
    return grids


def randperm(n, dtype="int64", name: str | None = None) -> Tensor:
    """A random permutation of 0..n-1 (from ``core.seed``'s generator)."""
    del name
    n = _scalar(n)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"randperm: n must be an int >= 0, got {n!r}")
    dtype = _dtype(dtype, "int64", "randperm", "iuf")
    return Tensor(backend.asarray(backend.rng().permutation(int(n)).astype(dtype)))


def normal(mean=0.0, std=1.0, shape=None, name: str | None = None) -> Tensor:
    """Normal samples ``z * std + mean``. With a Tensor ``mean`` (or ``std``) the output has
    its shape and dtype and is differentiable in it, as Paddle (two Tensors need the same
    number of elements; ``std`` takes ``mean``'s shape); with numbers, ``shape`` is needed
    (float32)."""
    del name
    like = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    if like is None:
        if shape is None:
            raise ValueError("normal: give shape when mean and std are numbers")
        for arg, value in (("mean", mean), ("std", std)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise TypeError(f"normal: {arg} must be a number or a Tensor, got {value!r}")
        samples = backend.rng().normal(float(mean), float(std), _shape(shape, "normal"))
        return Tensor(backend.asarray(samples, dtype=get_default_dtype()))
    if like.dtype.kind != "f":
        raise TypeError(f"normal: a Tensor mean or std must be floating, got {like.dtype}")
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        if std.size != mean.size:
            raise ValueError(f"normal: mean of shape {mean.shape} and std of shape {std.shape} "
                             "must have the same number of elements")
        if std.shape != mean.shape:
            std = _reshape_like(std, mean)
    z = Tensor(backend.asarray(backend.rng().standard_normal(tuple(like.data.shape)),
                               dtype=like.dtype))
    return add(multiply(z, std), mean)


def _reshape_like(t: Tensor, like: Tensor) -> Tensor:
    shape = t.data.shape
    return apply(t.data.reshape(like.data.shape), (t,), lambda g: (g.reshape(shape),), "reshape")


def uniform(shape, dtype=None, min=0.0, max=1.0, seed=0,  # noqa: A002 - Paddle's names
            name: str | None = None) -> Tensor:
    """Paddle 3.3's ``uniform(shape, dtype=None, min=0, max=1.0, seed=0, name=None)``: samples
    in [min, max) (float32 unless ``dtype`` says; Paddle 2.x's default ``min`` was -1.0).
    ``seed=0`` draws from ``core.seed``'s generator; another seed gives the same numbers on every
    call."""
    del name
    dtype = _dtype(dtype, get_default_dtype(), "uniform", "f")
    low, high = float(_scalar(min)), float(_scalar(max))
    if low > high:
        raise ValueError(f"uniform: min ({low}) must not be greater than max ({high})")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"uniform: seed must be an int >= 0, got {seed!r}")
    gen = backend.rng() if seed == 0 else np.random.default_rng(int(seed))
    samples = gen.uniform(low, high, _shape(shape, "uniform"))
    return Tensor(backend.asarray(samples, dtype=dtype))


# ----- copies (Paddle's clone and assign are in paddle.tensor.creation too) ---------------------

def clone(x, name: str | None = None) -> Tensor:
    """A copy of ``x`` that stays in the graph (the gradient passes through unchanged)."""
    del name
    return as_input(x, "clone").clone()


def assign(x, output=None) -> Tensor:
    """A copy of ``x`` (a Tensor, a numpy array, a list or a number) as a new Tensor; a Tensor
    ``x`` keeps its gradient path. With ``output`` the values are written into that Tensor and
    it is returned: an in-place write, which records no gradient. An ``output`` of another
    shape takes x's shape and dtype, as Paddle's (its docstring assigns a [3, 2] int64 array
    into a [3, 3] float32 tensor); one of x's shape keeps its dtype."""
    if isinstance(x, Tensor):
        out = x.clone()
    else:
        try:
            array = backend.asarray(x)
        except (TypeError, ValueError):
            raise TypeError(f"assign: x must be a Tensor, an array, a list or a number, got "
                            f"{type(x).__name__}") from None
        if array.dtype == "float64" and not hasattr(x, "dtype"):
            array = array.astype(get_default_dtype())  # Python floats: the default, as to_tensor
        out = Tensor(array.copy())
    if output is None:
        return out
    if not isinstance(output, Tensor):
        raise TypeError(f"assign: output must be a Tensor or None, got {type(output).__name__}")
    if tuple(output.shape) != tuple(out.shape):
        output.data = _array_on_device_of(output.data, out.data)  # output's device, as set_value
        output._value_range = None
        return output
    output.set_value(out.data.astype(output.dtype, copy=False))
    return output


# ----- uninitialised tensors and sampling from given probabilities ------------------------------

def empty(shape, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``empty(shape, dtype=None)``: a tensor whose values are not set (whatever the
    memory held; float32 unless ``dtype`` says). Write every value before reading it."""
    del name
    dtype = _dtype(dtype, get_default_dtype(), "empty")
    return Tensor(backend.xp().empty(_shape(shape, "empty"), dtype=dtype))


def empty_like(x, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``empty_like(x, dtype=None)``: ``empty`` with x's shape (and dtype unless
    ``dtype`` says), on x's device."""
    del name
    x = _like(x, "empty_like")
    dtype = _dtype(dtype, x.dtype, "empty_like")
    return Tensor(backend.array_module(x.data).empty(x.data.shape, dtype=dtype))


def bernoulli(x, p=None, name: str | None = None) -> Tensor:
    """Paddle's ``bernoulli(x, p=None)``: 1 with probability ``x`` (element-wise, or ``p`` for
    every element when given), else 0, in x's dtype; drawn from core.seed's generator. No
    gradient, as Paddle."""
    del name
    x = _like(x, "bernoulli")
    if x.dtype.kind != "f":
        raise TypeError(f"bernoulli: x must be a float tensor of probabilities, got {x.dtype}")
    if p is not None:
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"bernoulli: p must be None or a number in [0, 1], got {p!r}")
        probs = np.full(x.data.shape, float(p))
    else:
        probs = backend.to_numpy(x.data)
        if probs.size and not ((probs >= 0) & (probs <= 1)).all():
            raise ValueError("bernoulli: every probability in x must be in [0, 1]; got values "
                             f"from {probs.min()} to {probs.max()}")
    draws = backend.rng().random(probs.shape) < probs
    return Tensor(backend.array_module(x.data).asarray(draws.astype(x.dtype)))


def multinomial(x, num_samples: int = 1, replacement: bool = False,
                name: str | None = None) -> Tensor:
    """Paddle's ``multinomial(x, num_samples=1, replacement=False)``: for each row of ``x``
    (1-D or 2-D non-negative weights, not necessarily summing to 1), ``num_samples`` category
    indices (int64) drawn in proportion to the weights, with or without replacement, from
    core.seed's generator. The weights are read on the host (a GPU synchronises)."""
    del name
    x = _like(x, "multinomial")
    if x.ndim not in (1, 2) or x.dtype.kind != "f":
        raise ValueError(f"multinomial: x must be a 1-D or 2-D float tensor of weights, got "
                         f"shape {x.shape} and dtype {x.dtype}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) \
            or num_samples < 1:
        raise ValueError(f"multinomial: num_samples must be an int >= 1, got {num_samples!r}")
    weights = np.atleast_2d(backend.to_numpy(x.data)).astype(np.float64)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("multinomial: the weights in x must be finite and >= 0")
    rows = [_draw_categories(row, int(num_samples), replacement) for row in weights]
    out = np.stack(rows) if x.ndim == 2 else rows[0]
    return Tensor(backend.array_module(x.data).asarray(out.astype(np.int64)))


def _draw_categories(weights: np.ndarray, count: int, replacement: bool) -> np.ndarray:
    total, nonzero = weights.sum(), int((weights > 0).sum())
    if total <= 0:
        raise ValueError("multinomial: a row of x has no positive weight")
    if not replacement and count > nonzero:
        raise ValueError(f"multinomial: num_samples={count} without replacement needs at least "
                         f"that many categories of positive weight; a row has {nonzero}")
    return backend.rng().choice(weights.size, size=count, replace=replacement,
                                p=weights / total)


# ----- Paddle 3's further samplers and ranges: each draws on the host from core.seed's generator
# (so a seed gives the same numbers on the CPU and on a GPU) and records no gradient, as
# Paddle, except log_normal with a Tensor mean or std, which is exp(normal(...)).

def standard_normal(shape, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``standard_normal(shape, dtype=None)``: samples of N(0, 1) (float32 unless
    ``dtype`` says; float types only)."""
    del name
    dtype = _dtype(dtype, get_default_dtype(), "standard_normal", "f")
    samples = backend.rng().standard_normal(_shape(shape, "standard_normal"))
    return Tensor(backend.asarray(samples, dtype=dtype))


def randint_like(x, low=0, high=None, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``randint_like(x, low=0, high=None, dtype=None)``: integers uniform in
    [low, high) (``[0, low)`` when ``high`` is None) with x's shape, in x's dtype unless
    ``dtype`` says (bool, int or float), on x's device."""
    del name
    x = _like(x, "randint_like")
    low, high = _scalar(low), _scalar(high)
    if high is None:
        low, high = 0, low
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (low, high)):
        raise TypeError(f"randint_like: low and high must be ints, got {low!r} and {high!r}")
    if low >= high:
        raise ValueError(f"randint_like: low ({low}) must be less than high ({high}); with "
                         "high=None, low is the upper bound and must be > 0")
    dtype = _dtype(dtype, x.dtype, "randint_like")
    samples = backend.rng().integers(low, high, size=x.data.shape)
    return _on_device_of(x, samples.astype(dtype))


def logspace(start, stop, num, base=10.0, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``logspace(start, stop, num, base=10.0, dtype=None)``: ``num`` values
    ``base ** e`` for exponents e evenly spaced from ``start`` to ``stop`` (both included);
    float32 unless ``dtype`` says (an integer dtype truncates, as linspace)."""
    del name
    start, stop, num, base = (_scalar(v) for v in (start, stop, num, base))
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 0:
        raise ValueError(f"logspace: num must be an int >= 0, got {num!r}")
    if isinstance(base, bool) or not isinstance(base, (int, float, np.number)):
        raise TypeError(f"logspace: base must be a number, got {base!r}")
    dtype = _dtype(dtype, get_default_dtype(), "logspace", "iuf")
    exponents = np.linspace(float(start), float(stop), int(num), dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        values = np.power(float(base), exponents)
    return Tensor(backend.asarray(values.astype(dtype)))


def poisson(x, name: str | None = None) -> Tensor:
    """Paddle's ``poisson(x)``: a Poisson sample for each rate in ``x`` (a float tensor of
    rates >= 0), with x's shape, dtype and device; no gradient."""
    del name
    x = _like(x, "poisson")
    rates = _float_parameters(x, "poisson", "x", "rates")
    if (rates < 0).any():
        raise ValueError(f"poisson: every rate in x must be >= 0, got a minimum of {rates.min()}")
    return _on_device_of(x, backend.rng().poisson(rates).astype(x.dtype))


def standard_gamma(x, name: str | None = None) -> Tensor:
    """Paddle's ``standard_gamma(x)``: a sample of Gamma(alpha, 1) for each shape parameter
    alpha in ``x`` (a float tensor of values >= 0), with x's shape, dtype and device; no
    gradient."""
    del name
    x = _like(x, "standard_gamma")
    alphas = _float_parameters(x, "standard_gamma", "x", "shape parameters")
    if (alphas < 0).any():
        raise ValueError("standard_gamma: every shape parameter in x must be >= 0, got a "
                         f"minimum of {alphas.min()}")
    return _on_device_of(x, backend.rng().standard_gamma(alphas).astype(x.dtype))


def binomial(count, prob, name: str | None = None) -> Tensor:
    """Paddle's ``binomial(count, prob)``: for each pair of a number of trials in ``count``
    (whole numbers >= 0, an int or float tensor) and a success probability in ``prob`` (a float
    tensor, values in [0, 1]), broadcast together, the number of successes, as int64 on
    count's device; no gradient."""
    del name
    for arg, value in (("count", count), ("prob", prob)):
        if not isinstance(value, Tensor):
            raise TypeError(f"binomial: {arg} must be a Tensor, got {type(value).__name__}")
    if count.dtype.kind not in "iuf":
        raise TypeError(f"binomial: count must be an int or float tensor, got {count.dtype}")
    trials = backend.to_numpy(count.data).astype(np.float64)
    if not np.isfinite(trials).all() or (trials < 0).any() or (trials != np.floor(trials)).any():
        raise ValueError("binomial: every value in count must be a whole number >= 0")
    probs = _float_parameters(prob, "binomial", "prob", "probabilities")
    if ((probs < 0) | (probs > 1)).any():
        raise ValueError(f"binomial: every probability in prob must be in [0, 1]; got values "
                         f"from {probs.min()} to {probs.max()}")
    try:
        shape = np.broadcast_shapes(trials.shape, probs.shape)
    except ValueError:
        raise ValueError(f"binomial: count of shape {count.shape} and prob of shape "
                         f"{prob.shape} do not broadcast together") from None
    draws = backend.rng().binomial(np.broadcast_to(trials.astype(np.int64), shape),
                                   np.broadcast_to(probs, shape))
    return _on_device_of(count, np.asarray(draws, dtype=np.int64))


def log_normal(mean=1.0, std=2.0, shape=None, name: str | None = None) -> Tensor:
    """Paddle's ``log_normal(mean=1.0, std=2.0, shape=None)``: ``exp`` of samples of
    N(mean, std**2), as ``core.normal`` draws them: with numbers, ``shape`` is needed
    (float32); with a Tensor ``mean`` or ``std`` the output has its shape and dtype and is
    differentiable in it, as Paddle."""
    del name
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if shape is None:
            raise ValueError("log_normal: give shape when mean and std are numbers")
        if not isinstance(std, bool) and isinstance(std, (int, float, np.number)) and std < 0:
            raise ValueError(f"log_normal: std must be >= 0, got {std}")
    return exp(normal(mean, std, shape))


def tolist(x) -> list:
    """Paddle's ``tolist(x)``: x's values as (nested) Python lists of Python numbers (a
    0-D tensor gives a number); a GPU tensor is copied to the host."""
    return _like(x, "tolist").tolist()


def _float_parameters(t, fn: str, arg: str, what: str) -> np.ndarray:
    """The distribution parameters in Tensor ``t`` on the host, as finite float64 values."""
    if t.dtype.kind != "f":
        raise TypeError(f"{fn}: {arg} must be a float tensor of {what}, got {t.dtype}")
    values = backend.to_numpy(t.data).astype(np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"{fn}: every value in {arg} must be finite")
    return values


def _on_device_of(x: Tensor, host_values: np.ndarray) -> Tensor:
    return Tensor(backend.array_module(x.data).asarray(host_values))


Tensor.multinomial = multinomial  # a Paddle Tensor method too (see the end of core/ops.py)
