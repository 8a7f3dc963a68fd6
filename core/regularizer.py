"""Weight-decay regularizers (Paddle's ``paddle.regularizer``): L2Decay and L1Decay.

A regularizer is a callable that, given a parameter, returns the term the optimizer adds to that
parameter's gradient before the update. Pass one as an optimizer's ``weight_decay`` (applies to
every parameter) or as a parameter's own ``regularizer`` (overrides the optimizer's for that
parameter, as in Paddle).
"""
from __future__ import annotations

import math

from core import backend
from core.tensor import Tensor


class WeightDecayRegularizer:
    """Base: ``__call__(param)`` returns the extra gradient term as a raw backend array."""

    def __init__(self, coeff: float = 0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)) \
                or not math.isfinite(coeff) or coeff < 0:
            raise ValueError(f"{type(self).__name__}: coeff must be a finite number >= 0, "
                             f"got {coeff!r}")
        self.coeff = float(coeff)

    def __call__(self, param):
        return self._term(param.data if isinstance(param, Tensor) else param)

    def _term(self, data):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(coeff={self.coeff})"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: adds ``coeff * w`` to the gradient (the loss gains ``coeff/2 * |w|^2``)."""

    def _term(self, data):
        return self.coeff * data


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: adds ``coeff * sign(w)`` to the gradient (the loss gains ``coeff*|w|``)."""

    def _term(self, data):
        return self.coeff * backend.array_module(data).sign(data)


__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
