"""Weight initialisers (Paddle's ``paddle.nn.initializer`` names): callables (shape, dtype)."""
from __future__ import annotations

import math

from core import backend


def _fans(shape: tuple) -> tuple[int, int]:
    """Fan-in and fan-out. Linear weights are [in, out] (Paddle); conv weights [out, in, kh, kw]."""
    if len(shape) < 2:
        return shape[0] if shape else 1, shape[0] if shape else 1
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Constant:
    def __init__(self, value: float = 0.0):
        self.value = value

    def __call__(self, shape, dtype="float32"):
        return backend.xp().full(shape, self.value, dtype=dtype)


class Uniform:
    def __init__(self, low: float = -1.0, high: float = 1.0):
        self.low, self.high = low, high

    def __call__(self, shape, dtype="float32"):
        return backend.asarray(backend.rng().uniform(self.low, self.high, shape), dtype=dtype)


class Normal:
    def __init__(self, mean: float = 0.0, std: float = 1.0):
        self.mean, self.std = mean, std

    def __call__(self, shape, dtype="float32"):
        return backend.asarray(backend.rng().normal(self.mean, self.std, shape), dtype=dtype)


class XavierUniform:
    """Glorot uniform: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)); Paddle's default."""

    def __call__(self, shape, dtype="float32"):
        fan_in, fan_out = _fans(shape)
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        return Uniform(-limit, limit)(shape, dtype)


class XavierNormal:
    def __call__(self, shape, dtype="float32"):
        fan_in, fan_out = _fans(shape)
        return Normal(0.0, math.sqrt(2.0 / (fan_in + fan_out)))(shape, dtype)


class KaimingUniform:
    """He uniform for ReLU networks: U(-a, a) with a = sqrt(6 / fan_in)."""

    def __call__(self, shape, dtype="float32"):
        limit = math.sqrt(6.0 / _fans(shape)[0])
        return Uniform(-limit, limit)(shape, dtype)


class KaimingNormal:
    def __call__(self, shape, dtype="float32"):
        return Normal(0.0, math.sqrt(2.0 / _fans(shape)[0]))(shape, dtype)
