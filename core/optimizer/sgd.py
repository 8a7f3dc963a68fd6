"""Plain SGD and SGD with (Nesterov) momentum, with Paddle 2.x's arguments and formulas."""
from __future__ import annotations

from core.optimizer.optimizer import Optimizer, check_range


class SGD(Optimizer):
    """Stochastic gradient descent: ``param = param - lr * grad``.

    ``grad`` already includes the regularization term (``weight_decay``), as in Paddle.
    """

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        param.data -= lr * grad


class Momentum(Optimizer):
    """SGD with momentum (Paddle's ``Momentum``)::

        velocity = momentum * velocity + grad
        param    = param - lr * velocity                      (use_nesterov=False)
        param    = param - lr * (grad + momentum * velocity)  (use_nesterov=True)

    One state array per parameter (``velocity``), created as zeros on first use.
    """

    _accumulators = ("velocity",)
    _group_options = {"momentum": "_momentum"}

    def __init__(self, learning_rate=0.001, momentum: float = 0.9, parameters=None,
                 use_nesterov: bool = False, weight_decay=None, grad_clip=None,
                 name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._momentum = check_range("Momentum", "momentum", momentum, 0.0)
        self._use_nesterov = bool(use_nesterov)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        velocity = state["velocity"]
        velocity *= self._momentum
        velocity += grad
        if self._use_nesterov:
            param.data -= lr * (grad + self._momentum * velocity)
        else:
            param.data -= lr * velocity


__all__ = ["SGD", "Momentum"]
