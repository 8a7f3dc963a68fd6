"""Per-coordinate adaptive rules: Adagrad, Adadelta and RMSProp (Paddle 2.x arguments/formulas)."""
from __future__ import annotations

from core import backend
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


__all__ = ["Adadelta", "Adagrad", "RMSProp"]
