"""Per-coordinate adaptive rules: Adagrad, Adadelta, RMSProp and Rprop (Paddle's arguments and
formulas)."""
from __future__ import annotations

import numbers

from core import backend
from core.optimizer.lr import LRScheduler
from core.optimizer.optimizer import Optimizer, check_range


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.)::

        moment = moment + grad ** 2          (moment starts at initial_accumulator_value)
        param  = param - lr * grad / (sqrt(moment) + epsilon)
    """

    _accumulators = ("moment",)
    _group_options = {"epsilon": "_epsilon", "initial_accumulator_value": "_initial"}

    def __init__(self, learning_rate, epsilon: float = 1e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name: str | None = None,
                 initial_accumulator_value: float = 0.0):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = check_range("Adagrad", "epsilon", epsilon, 0.0)
        self._initial = check_range("Adagrad", "initial_accumulator_value",
                                    initial_accumulator_value, 0.0)
        self._init_groups()

    def _initial_value(self, name: str) -> float:
        return self._initial

    def _update(self, param, grad, state, lr):
        moment = state["moment"]
        moment += grad * grad
        denom = backend.array_module(moment).sqrt(moment)
        denom += self._epsilon
        param.data -= lr * grad / denom


class Adadelta(Optimizer):
    """Adadelta (Zeiler), with Paddle 2.x's learning rate on the step::

        avg_squared_grad   = rho * avg_squared_grad + (1 - rho) * grad ** 2
        update             = -sqrt((avg_squared_update + epsilon)
                                   / (avg_squared_grad + epsilon)) * grad
        avg_squared_update = rho * avg_squared_update + (1 - rho) * update ** 2
        param              = param + lr * update
    """

    _accumulators = ("avg_squared_grad", "avg_squared_update")
    _group_options = {"epsilon": "_epsilon", "rho": "_rho"}

    def __init__(self, learning_rate=0.001, epsilon: float = 1e-6, rho: float = 0.95,
                 parameters=None, weight_decay=None, grad_clip=None, name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = check_range("Adadelta", "epsilon", epsilon, 0.0)
        self._rho = check_range("Adadelta", "rho", rho, 0.0, 1.0)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        rho, eps = self._rho, self._epsilon
        sq_grad, sq_update = state["avg_squared_grad"], state["avg_squared_update"]
        sq_grad *= rho
        sq_grad += (1.0 - rho) * (grad * grad)
        update = (sq_update + eps) / (sq_grad + eps)
        xp = backend.array_module(update)
        xp.sqrt(update, out=update)
        update *= grad
        update *= -1.0
        sq_update *= rho
        sq_update += (1.0 - rho) * (update * update)
        update *= lr
        param.data += update


class RMSProp(Optimizer):
    """RMSProp (Hinton), as Paddle's ``RMSProp``::

        mean_square = rho * mean_square + (1 - rho) * grad ** 2
        mean_grad   = rho * mean_grad + (1 - rho) * grad                   (centered only)
        denom       = sqrt(mean_square + epsilon)                          (not centered)
                    = sqrt(mean_square - mean_grad ** 2 + epsilon)         (centered)
        moment      = momentum * moment + lr * grad / denom
        param       = param - moment

    ``moment`` is kept only when ``momentum > 0`` (with 0 it is just this step's term), and
    ``mean_grad`` only when ``centered``: 1 to 3 state arrays per parameter (per parameter
    group, when groups set ``momentum`` / ``centered``).
    """

    _group_options = {"rho": "_rho", "epsilon": "_epsilon", "momentum": "_momentum",
                      "centered": "_centered"}

    def __init__(self, learning_rate, rho: float = 0.95, epsilon: float = 1e-6,
                 momentum: float = 0.0, centered: bool = False, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho = check_range("RMSProp", "rho", rho, 0.0, 1.0)
        self._epsilon = check_range("RMSProp", "epsilon", epsilon, 0.0)
        self._momentum = check_range("RMSProp", "momentum", momentum, 0.0)
        self._centered = bool(centered)
        self._init_groups()

    def _accumulators_for(self, param) -> tuple[str, ...]:
        del param  # the settings in force (a group's while it is updated)
        return (("mean_square",) + (("mean_grad",) if self._centered else ())
                + (("moment",) if self._momentum > 0 else ()))

    def _update(self, param, grad, state, lr):
        rho = self._rho
        mean_square = state["mean_square"]
        mean_square *= rho
        mean_square += (1.0 - rho) * (grad * grad)
        if self._centered:
            mean_grad = state["mean_grad"]
            mean_grad *= rho
            mean_grad += (1.0 - rho) * grad
            denom = mean_square - mean_grad * mean_grad
            denom += self._epsilon
        else:
            denom = mean_square + self._epsilon
        xp = backend.array_module(denom)
        xp.sqrt(denom, out=denom)
        term = lr * grad / denom
        if self._momentum > 0:
            moment = state["moment"]
            moment *= self._momentum
            moment += term
            term = moment
        param.data -= term


class Rprop(Optimizer):
    """Rprop (Riedmiller & Braun), resilient backpropagation, as Paddle's ``rprop`` kernel::

        product = grad * prev
        eta     = etas[1] where product > 0, etas[0] where product < 0, else 1
        rate    = clip(rate * eta, learning_rate_range[0], learning_rate_range[1])
        grad    = 0 where product < 0          (a sign change: no step, and no memory of it)
        param   = param - sign(grad) * rate
        prev    = grad

    Each element keeps its own step size ``rate`` (starting at ``learning_rate``) and its
    previous gradient: two state arrays per parameter. Only the gradient's sign is used, so
    Rprop suits full-batch training (Paddle's note). As in Paddle, the step sizes start at
    ``learning_rate`` and then follow their own rule: ``learning_rate`` must be a float (no
    scheduler), and neither ``set_lr`` nor a parameter group's ``learning_rate`` changes them;
    there is no ``weight_decay``.
    """

    _accumulators = ("prevs", "learning_rates")

    def __init__(self, learning_rate: float = 0.001, learning_rate_range=(1e-5, 50),
                 parameters=None, etas=(0.5, 1.2), grad_clip=None,
                 multi_precision: bool = False, name: str | None = None):
        if isinstance(learning_rate, LRScheduler):
            raise TypeError("Rprop: learning_rate must be a float (the initial step size of "
                            "every element), not an LRScheduler: Rprop adapts its step sizes "
                            "itself")
        low, high = _pair("learning_rate_range", learning_rate_range)
        shrink, grow = _pair("etas", etas)
        lr = check_range("Rprop", "learning_rate", learning_rate, 0.0)
        if not 0.0 < low <= lr <= high:
            raise ValueError("Rprop: learning_rate_range must satisfy 0 < "
                             "learning_rate_range[0] <= learning_rate <= learning_rate_range[1]; "
                             f"got learning_rate_range={tuple(learning_rate_range)!r} with "
                             f"learning_rate={learning_rate!r}")
        if not 0.0 < shrink < 1.0 < grow:
            raise ValueError("Rprop: etas must satisfy 0 < etas[0] < 1 < etas[1] (the factors "
                             f"that shrink and grow a step size), got {tuple(etas)!r}")
        super().__init__(lr, parameters, None, grad_clip, name)
        self._set_multi_precision(multi_precision)
        self._initial_lr, self._range, self._etas = lr, (low, high), (shrink, grow)
        self._init_groups()

    def _initial_value(self, name: str) -> float:
        return self._initial_lr if name == "learning_rates" else 0.0

    def _update(self, param, grad, state, lr):
        del lr  # each element's own step size (state "learning_rates") is the rate
        prev, rates = state["prevs"], state["learning_rates"]
        xp = backend.array_module(rates)
        product = grad * prev
        eta = xp.ones_like(rates)
        eta[product > 0] = self._etas[1]
        reversed_sign = product < 0
        eta[reversed_sign] = self._etas[0]
        rates *= eta
        xp.clip(rates, *self._range, out=rates)
        grad = xp.where(reversed_sign, 0, grad).astype(rates.dtype, copy=False)
        param.data -= xp.sign(grad) * rates
        prev[...] = grad


def _pair(name: str, value) -> tuple[float, float]:
    """Two finite numbers (a tuple or list), for Rprop's ranges."""
    items = tuple(value) if isinstance(value, (tuple, list)) else ()
    if len(items) != 2 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                  for v in items):
        raise ValueError(f"Rprop: {name} must be a pair of numbers (a tuple or list of two), "
                         f"got {value!r}")
    return float(items[0]), float(items[1])


__all__ = ["Adadelta", "Adagrad", "RMSProp", "Rprop"]
