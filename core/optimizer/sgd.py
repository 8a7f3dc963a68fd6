"""Plain SGD, SGD with (Nesterov) momentum and ASGD (stochastic average gradient), with Paddle's
arguments and formulas."""
from __future__ import annotations

import numbers

from core.optimizer.optimizer import Optimizer, check_range


class SGD(Optimizer):
    """Stochastic gradient descent: ``param = param - lr * grad``.

    ``grad`` already includes the regularization term (``weight_decay``), as in Paddle.
    ``multi_precision=True`` keeps float32 master weights for float16 parameters (the base's
    docstring), as every rule here that takes Paddle's argument.
    """

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._set_multi_precision(multi_precision)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        param.data -= lr * grad


class Momentum(Optimizer):
    """SGD with momentum (Paddle's ``Momentum``)::

        velocity = momentum * velocity + grad
        param    = param - lr * velocity                      (use_nesterov=False)
        param    = param - lr * (grad + momentum * velocity)  (use_nesterov=True)

    One state array per parameter (``velocity``), created as zeros on first use. Paddle 3.3.1's
    ``use_multi_tensor`` (a fused kernel, the same numbers) has no effect; ``rescale_grad`` other
    than 1.0 (Paddle's kernel scales the raw gradient before the decay) is not implemented and
    raises.
    """

    _accumulators = ("velocity",)
    _group_options = {"momentum": "_momentum"}

    def __init__(self, learning_rate=0.001, momentum: float = 0.9, parameters=None,
                 use_nesterov: bool = False, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name: str | None = None):
        del use_multi_tensor  # no effect here (see the docstring)
        if rescale_grad != 1.0:
            raise NotImplementedError(f"Momentum: rescale_grad={rescale_grad!r} is not "
                                      "implemented in core; only 1.0 is (scale the loss instead)")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._set_multi_precision(multi_precision)
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


class ASGD(Optimizer):
    """ASGD as Paddle defines it: the stochastic *average* gradient (Schmidt, Le Roux & Bach),
    which steps along the mean of the last ``batch_num`` gradients::

        i     = (t - 1) % batch_num       (t: this parameter's step, from 1)
        d     = d - y_i + grad
        y_i   = grad
        param = param - lr * d / min(t, batch_num)

    Set ``batch_num`` to the batches in an epoch, so that ``y_i`` is the gradient last seen on
    batch i (the data must then come in the same order each epoch). It keeps ``batch_num + 1``
    arrays the size of each parameter (``d`` and ``y_0`` ... ``y_{batch_num-1}``): lower it where
    memory is tight, as Paddle advises. ``weight_decay`` (L2/L1) is added to the gradient first,
    so it enters the average too (as in Paddle's kernel). Not torch's ASGD, which averages the
    iterates.
    """

    def __init__(self, learning_rate=0.001, batch_num: int = 1, parameters=None,
                 weight_decay=None, grad_clip=None, multi_precision: bool = False,
                 name: str | None = None):
        if isinstance(batch_num, bool) or not isinstance(batch_num, numbers.Integral) \
                or batch_num < 1:
            raise ValueError("ASGD: batch_num must be an integer >= 1 (the batches in an "
                             f"epoch), got {batch_num!r}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._set_multi_precision(multi_precision)
        self._batch_num = int(batch_num)
        self._init_groups()

    def _accumulators_for(self, param) -> tuple[str, ...]:
        del param
        return ("d", *(f"y_{i}" for i in range(self._batch_num)))

    def _update(self, param, grad, state, lr):
        t, n = state["step"], self._batch_num
        d, y = state["d"], state[f"y_{(t - 1) % n}"]
        d -= y
        d += grad
        y[...] = grad
        param.data -= (lr / min(t, n)) * d


__all__ = ["ASGD", "SGD", "Momentum"]
