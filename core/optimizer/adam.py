"""Adam and AdamW (decoupled weight decay), with Paddle 2.x's arguments and formulas."""
from __future__ import annotations

import numbers

from core import backend
from core.backend_kernels import adam_factors
from core.optimizer.optimizer import Optimizer, check_range


class Adam(Optimizer):
    """Adam (Kingma & Ba), as Paddle's kernel computes it, with t the parameter's step count::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad ** 2
        lr_t    = lr * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        param   = param - lr_t * moment1 / (sqrt(moment2) + epsilon * sqrt(1 - beta2 ** t))

    which equals ``lr * m_hat / (sqrt(v_hat) + epsilon)`` with bias-corrected moments. Two state
    arrays per parameter (``moment1``, ``moment2``); the bias-correction powers come from the step
    counter (a Python int), so no device array is read back. ``weight_decay`` (L2/L1) is added to
    the gradient first; for decay decoupled from the gradient use ``AdamW``. ``lazy_mode`` only
    changes Paddle's update of sparse (SelectedRows) gradients; every gradient here is dense, so
    it is accepted for compatibility and has no effect.
    """

    _accumulators = ("moment1", "moment2")

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 lazy_mode: bool = False, name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        owner = type(self).__name__
        self._beta1 = check_range(owner, "beta1", beta1, 0.0, 1.0)
        self._beta2 = check_range(owner, "beta2", beta2, 0.0, 1.0)
        self._epsilon = check_range(owner, "epsilon", epsilon, 0.0)
        self._lazy_mode = bool(lazy_mode)

    def _update(self, param, grad, state, lr):
        self._adam(param.data, grad, state, lr)

    def _adam(self, data, grad, state, lr) -> None:
        b1, b2 = self._beta1, self._beta2
        eps, step = adam_factors(lr, b1, b2, self._epsilon, state["step"])
        # One fused kernel per parameter on a GPU; numpy's in-place ufuncs on the host.
        backend.kernels(data).adam(data, grad, state["moment1"], state["moment2"], b1, b2, eps,
                                   step)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as Paddle's ``AdamW``::

        lr    = lr * lr_ratio(param)                 (when lr_ratio is given)
        param = param - lr * weight_decay * param    (when apply_decay_param_fun(name) is True)
        then the Adam update above with lr.

    ``weight_decay`` is a float coefficient (default 0.01) that never enters the gradient or the
    moments; a parameter's own ``regularizer`` still adds to its gradient, as in Paddle.
    ``apply_decay_param_fun(name) -> bool`` chooses the parameters that decay (all by default).
    """

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay: float = 0.01,
                 lr_ratio=None, apply_decay_param_fun=None, grad_clip=None,
                 lazy_mode: bool = False, name: str | None = None):
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
            raise TypeError("AdamW: weight_decay must be a float coefficient of the decoupled "
                            f"decay, got {type(weight_decay).__name__}; for L2/L1 added to the "
                            "gradient use Adam(weight_decay=L2Decay(...))")
        for arg, value in (("lr_ratio", lr_ratio), ("apply_decay_param_fun",
                                                    apply_decay_param_fun)):
            if value is not None and not callable(value):
                raise TypeError(f"AdamW: {arg} must be None or callable, got "
                                f"{type(value).__name__}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, name)
        self._coeff = check_range("AdamW", "weight_decay", weight_decay, 0.0)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun

    def _update(self, param, grad, state, lr):
        if self._lr_ratio is not None:
            lr = lr * float(self._lr_ratio(param))
        decays = self._apply_decay_param_fun is None or self._apply_decay_param_fun(param.name)
        if decays and self._coeff:
            param.data *= 1.0 - lr * self._coeff
        self._adam(param.data, grad, state, lr)


__all__ = ["Adam", "AdamW"]
