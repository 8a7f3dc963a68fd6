"""``Distribution``, the base of core.distribution (Paddle's ``paddle.distribution.Distribution``),
and the helpers its subclasses share: parameters to broadcast float Tensors, values to Tensors
of the parameters' dtype, sample shapes, and draws from core's seeded host generator.

Random numbers come from ``core.backend.rng()`` on the host and are then moved to the current
device, as core.creation does, so ``core.seed(n)`` gives the same samples on the CPU and a GPU.
"""
from __future__ import annotations

import warnings

import numpy as np

from core import backend
from core.framework import get_default_dtype
from core.manipulation import broadcast_to, cast
from core.tensor import Tensor, no_grad

__all__ = ["Distribution", "kl_divergence", "register_kl"]


class Distribution:
    """Paddle's ``Distribution(batch_shape=(), event_shape=())``: the abstract base.

    ``batch_shape`` counts independent (not identically distributed) distributions, and
    ``event_shape`` is the shape of one draw; ``sample(shape)`` returns
    ``shape + batch_shape + event_shape``. Subclasses implement ``sample``, ``rsample``,
    ``log_prob``, ``entropy``, ``mean`` and ``variance`` where they exist."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = _int_tuple(batch_shape, "batch_shape")
        self._event_shape = _int_tuple(event_shape, "event_shape")

    @property
    def batch_shape(self) -> tuple:
        """The shape of the batch of distributions (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        """The shape of one draw (a tuple; () for a scalar distribution)."""
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        """The mean of each distribution in the batch."""
        raise self._missing("mean")

    @property
    def variance(self) -> Tensor:
        """The variance of each distribution in the batch."""
        raise self._missing("variance")

    def sample(self, shape=()) -> Tensor:
        """Draws of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        raise self._missing("sample")

    def rsample(self, shape=()) -> Tensor:
        """Reparameterised draws: differentiable with respect to the parameters."""
        raise self._missing("rsample")

    def entropy(self) -> Tensor:
        """The entropy of each distribution in the batch, in nats."""
        raise self._missing("entropy")

    def log_prob(self, value) -> Tensor:
        """The log density (or log mass) at ``value``."""
        raise self._missing("log_prob")

    def prob(self, value) -> Tensor:
        """The density (or mass) at ``value``: ``exp(log_prob(value))``."""
        return self.log_prob(value).exp()

    def probs(self, value) -> Tensor:
        """Paddle's older name of ``prob`` (which Paddle says will be deprecated)."""
        return self.prob(value)

    def kl_divergence(self, other) -> Tensor:
        """KL(self || other): ``core.distribution.kl_divergence(self, other)``."""
        return kl_divergence(self, other)

    def _extend_shape(self, sample_shape) -> tuple:
        return sample_shape + self._batch_shape + self._event_shape

    def _missing(self, what: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__name__} does not implement {what}")


# ----- kl_divergence and register_kl (the closed forms are registered in core.distribution.kl)
# Dispatch follows Paddle's: among the registered pairs that (type(p), type(q)) are subclasses
# of, the most specific one wins (first by p's class, then by q's); when the two orders
# disagree, a RuntimeWarning names the ambiguity.

_REGISTRY: dict = {}


def kl_divergence(p, q):
    """Paddle's ``kl_divergence(p, q)``: KL(p || q) = E_p[log p(x) - log q(x)], batch-wise.
    Raises NotImplementedError naming the pair when no closed form is registered."""
    for arg, dist in (("p", p), ("q", q)):
        if not isinstance(dist, Distribution):
            raise TypeError(f"kl_divergence: '{arg}' must be a Distribution, got "
                            f"{type(dist).__name__}")
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Paddle's ``register_kl(cls_p, cls_q)``: a decorator that makes ``fn(p, q)`` the KL
    divergence between instances of these Distribution subclasses (and their subclasses)."""
    for arg, cls in (("cls_p", cls_p), ("cls_q", cls_q)):
        if not (isinstance(cls, type) and issubclass(cls, Distribution)):
            raise TypeError(f"register_kl: '{arg}' must be a subclass of Distribution, got "
                            f"{cls!r}")

    def decorator(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn

    return decorator


def _more_specific(a: tuple, b: tuple) -> bool:
    """Whether pair ``a`` comes before ``b``: lexicographic by subclass, as Paddle's."""
    for cls_a, cls_b in zip(a, b):
        if not issubclass(cls_a, cls_b):
            return False
        if cls_a is not cls_b:
            return True
    return True


def _best(pairs: list) -> tuple:
    best = pairs[0]
    for pair in pairs[1:]:
        if _more_specific(pair, best):
            best = pair
    return best


def _dispatch(cls_p, cls_q):
    matches = [pair for pair in _REGISTRY
               if issubclass(cls_p, pair[0]) and issubclass(cls_q, pair[1])]
    if not matches:
        known = ", ".join(sorted(f"({p.__name__}, {q.__name__})" for p, q in _REGISTRY))
        raise NotImplementedError(
            f"kl_divergence: no KL divergence is registered for ({cls_p.__name__}, "
            f"{cls_q.__name__}); register one with "
            f"@core.distribution.register_kl({cls_p.__name__}, {cls_q.__name__}). "
            f"Registered pairs: {known}")
    left = _best(matches)
    right = tuple(reversed(_best([tuple(reversed(m)) for m in matches])))
    if _REGISTRY[left] is not _REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}): register "
                      f"register_kl({left[0].__name__}, {right[1].__name__})", RuntimeWarning,
                      stacklevel=3)
    return _REGISTRY[left]


# ----- helpers for the subclasses -------------------------------------------------------------

def _int_tuple(shape, arg: str) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in shape):
        raise TypeError(f"'{arg}' must be a sequence of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def sample_shape(shape, fn: str) -> tuple:
    """``sample``'s ``shape`` (an int, a list or a tuple of ints) as a tuple."""
    try:
        return _int_tuple(shape, "shape")
    except TypeError as exc:
        raise TypeError(f"{fn}: {exc}") from None


def _explicit_dtype(value):
    """The float dtype a parameter brings (a Tensor's or a numpy array's), or None."""
    dtype = getattr(value, "dtype", None)
    return np.dtype(dtype) if dtype is not None and np.dtype(dtype).kind == "f" else None


def params(fn: str, **named) -> list[Tensor]:
    """The parameters as float Tensors of one dtype, broadcast to one shape.

    Python numbers and lists take ``core.get_default_dtype()``; float64 arrays or Tensors make
    every parameter float64, other floats float32. Tensors keep their gradient path."""
    for name, value in named.items():
        if isinstance(value, bool) or not isinstance(
                value, (int, float, np.number, list, tuple, np.ndarray, Tensor)):
            raise TypeError(f"{fn}: '{name}' must be a float, a list, a numpy array or a Tensor, "
                            f"got {type(value).__name__}")
    explicit = [d for d in map(_explicit_dtype, named.values()) if d is not None]
    if explicit:
        dtype = np.dtype("float64") if np.dtype("float64") in explicit else np.dtype("float32")
    else:
        dtype = np.dtype(get_default_dtype())
    tensors = {name: as_float(value, dtype) for name, value in named.items()}
    try:
        shape = np.broadcast_shapes(*(tuple(t.data.shape) for t in tensors.values()))
    except ValueError:
        shapes = ", ".join(f"{name} {list(t.shape)}" for name, t in tensors.items())
        raise ValueError(f"{fn}: the parameters' shapes do not broadcast together: "
                         f"{shapes}") from None
    return [t if tuple(t.data.shape) == shape else broadcast_to(t, list(shape))
            for t in tensors.values()]


def as_float(value, dtype) -> Tensor:
    """``value`` (a number, list, array or Tensor) as a Tensor of float ``dtype``; a Tensor is
    cast (differentiably) only when its dtype differs."""
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else cast(value, dtype)
    return Tensor(backend.asarray(np.asarray(value, dtype=dtype)))


def value_of(value, like: Tensor, fn: str) -> Tensor:
    """``log_prob``'s ``value`` as a Tensor of ``like``'s dtype (Paddle casts it too)."""
    if isinstance(value, bool) or not isinstance(
            value, (int, float, np.number, list, tuple, np.ndarray, Tensor)):
        raise TypeError(f"{fn}: 'value' must be a number, a list, a numpy array or a Tensor, "
                        f"got {type(value).__name__}")
    return as_float(value, like.dtype)


def host(t: Tensor) -> np.ndarray:
    """A parameter's values on the host, for the generator's draws."""
    return t.detach().numpy()


def on_device(array, dtype) -> Tensor:
    """Host draws as a Tensor of ``dtype`` on the current device."""
    return Tensor(backend.asarray(np.asarray(array), dtype=dtype))


def uniform_draws(shape, dtype) -> Tensor:
    """Uniform draws strictly inside (0, 1) in ``dtype``: the samplers take log(u) and
    log(1 - u), which a 0 (or a float32 rounding to 1) would make infinite."""
    dtype = np.dtype(dtype)
    low, high = np.finfo(dtype).tiny, np.nextafter(dtype.type(1), dtype.type(0))
    return on_device(np.clip(backend.rng().random(shape), low, high), dtype)


def detached(fn, *args) -> Tensor:
    """``fn(*args)`` recorded on no graph: ``sample`` is ``rsample`` without the gradient."""
    with no_grad():
        return fn(*args)
