"""Adam, AdamW (decoupled weight decay), Adamax, Lamb, NAdam and RAdam, with Paddle 3.3.1's
arguments and formulas."""
from __future__ import annotations

import math
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
    it is accepted for compatibility and has no effect. ``multi_precision=True`` keeps float32
    master weights and moments for float16 parameters (``Optimizer``'s docstring).
    ``use_multi_tensor`` (Paddle's fused multi-tensor kernel, the same numbers) has no effect:
    core updates all dense parameters in one call per backend anyway. ``amsgrad=True`` is not
    implemented and raises, as AdamW's.
    """

    _accumulators = ("moment1", "moment2")
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                      "lazy_mode": "_lazy_mode"}

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, amsgrad: bool = False, name: str | None = None):
        del use_multi_tensor  # no effect here (see the docstring)
        if amsgrad:
            raise NotImplementedError(f"{type(self).__name__}: amsgrad=True is not implemented "
                                      "in core")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._set_multi_precision(multi_precision)
        _set_moment_rates(self, beta1, beta2, epsilon)
        self._lazy_mode = bool(lazy_mode)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        backend.kernels(param.data).adam(*self._adam_args(param, grad, state, lr))

    def _update_all(self, updates: list) -> None:
        """Every dense parameter in one call per backend: on the host, the blocks of all the
        parameters are split over core's threads together (``HostKernels.adam_many``)."""
        by_kernels: dict = {}  # a kernel set -> the arguments of its parameters
        for param, grad, state, lr in updates:
            by_kernels.setdefault(backend.kernels(param.data), []).append(
                self._adam_args(param, grad, state, lr))
        for kernels, args in by_kernels.items():
            kernels.adam_many(args)

    def _adam_args(self, param, grad, state, lr) -> tuple:
        """The arguments of the backend's ``adam`` for one parameter (after ``_prepare``)."""
        lr = self._prepare(param, lr)
        b1, b2 = self._beta1, self._beta2
        eps, step = adam_factors(lr, b1, b2, self._epsilon, state["step"])
        return param.data, grad, state["moment1"], state["moment2"], b1, b2, eps, step

    def _prepare(self, param, lr: float) -> float:
        """What comes before the Adam rule for ``param``; returns the learning rate to use
        (AdamW: its lr ratio and decoupled decay)."""
        del param
        return lr


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as Paddle's ``AdamW``::

        lr    = lr * lr_ratio(param)                 (when lr_ratio is given)
        param = param - lr * weight_decay * param    (when apply_decay_param_fun(name) is True)
        then the Adam update above with lr.

    ``weight_decay`` is a float coefficient (default 0.01) that never enters the gradient or the
    moments; a parameter's own ``regularizer`` still adds to its gradient, as in Paddle.
    ``apply_decay_param_fun(name) -> bool`` chooses the parameters that decay (all by default).

    The arguments are in Paddle 3.3.1's order, so positional calls written for Paddle work.
    ``multi_precision=True`` keeps float32 master weights (and float32 moments) for float16
    parameters, as Adam's. ``use_lowprecision_moment`` is accepted and has no effect: without
    master weights the moments have the parameter's own dtype (what it asks for), with them
    float32. ``amsgrad=True``
    is not implemented and raises. In a parameter group, ``weight_decay`` is that group's
    decoupled-decay coefficient (as Paddle's AdamW), not a regularizer.
    """

    _group_options = {**Adam._group_options, "weight_decay": "_coeff"}
    _group_decay_is_regularizer = False

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay: float = 0.01,
                 use_lowprecision_moment: bool = False, lr_ratio=None,
                 apply_decay_param_fun=None, grad_clip=None, lazy_mode: bool = False,
                 multi_precision: bool = False, amsgrad: bool = False, name: str | None = None):
        del use_lowprecision_moment  # no effect here (see the docstring)
        if amsgrad:
            raise NotImplementedError("AdamW: amsgrad=True is not implemented in core")
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
            raise TypeError("AdamW: weight_decay must be a float coefficient of the decoupled "
                            f"decay, got {type(weight_decay).__name__}; for L2/L1 added to the "
                            "gradient use Adam(weight_decay=L2Decay(...))")
        for arg, value in (("lr_ratio", lr_ratio), ("apply_decay_param_fun",
                                                    apply_decay_param_fun)):
            if value is not None and not callable(value):
                raise TypeError(f"AdamW: {arg} must be None or callable, got "
                                f"{type(value).__name__}")
        # Set before Adam.__init__, whose _init_groups reads them as the groups' defaults.
        self._coeff = check_range("AdamW", "weight_decay", weight_decay, 0.0)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, name=name)

    def _prepare(self, param, lr: float) -> float:
        if self._lr_ratio is not None:
            lr = lr * float(self._lr_ratio(param))
        decays = self._apply_decay_param_fun is None or self._apply_decay_param_fun(param.name)
        if decays and self._coeff:
            param.data *= 1.0 - lr * self._coeff
        return lr


class Adamax(Optimizer):
    """Adamax (Kingma & Ba's infinity-norm Adam), as Paddle's kernel computes it::

        moment   = beta1 * moment + (1 - beta1) * grad
        inf_norm = max(beta2 * inf_norm + epsilon, |grad|)
        param    = param - lr / (1 - beta1 ** t) * moment / inf_norm

    (torch adds epsilon to ``|grad|`` instead: the two differ by about epsilon.) ``weight_decay``
    (L2/L1) is added to the gradient first.
    """

    _accumulators = ("moment", "inf_norm")
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        _set_moment_rates(self, beta1, beta2, epsilon)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        b1 = self._beta1
        moment, inf_norm = state["moment"], state["inf_norm"]
        moment *= b1
        moment += (1.0 - b1) * grad
        inf_norm *= self._beta2
        inf_norm += self._epsilon
        xp = backend.array_module(inf_norm)
        xp.maximum(inf_norm, abs(grad), out=inf_norm)
        param.data -= (lr / (1.0 - b1 ** state["step"])) * moment / inf_norm


class Lamb(Optimizer):
    """LAMB (You et al.), layer-wise adaptive Adam, as Paddle's ``Lamb`` kernel::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad ** 2
        r       = (moment1 / (1 - beta1 ** t)) / (sqrt(moment2 / (1 - beta2 ** t)) + epsilon)
                  + wd * param
        ratio   = ||param|| / ||r||    (1 when either norm is 0, or when wd = 0 and not
                                        always_adapt)
        param   = param - lr * ratio * r

    with ``wd = lamb_weight_decay``, or 0 for a parameter where
    ``exclude_from_weight_decay_fn(param)`` is True. The norms are over the whole parameter, so
    a row-sparse gradient (``Embedding(sparse=True)``) gets the lazy rule on its touched rows
    with the norms of those rows. ``multi_precision=True`` keeps float32 master weights for
    float16 parameters.
    """

    _accumulators = ("moment1", "moment2")
    _elementwise = False  # the trust ratio's norms span the whole (touched) parameter
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                      "lamb_weight_decay": "_decay",
                      "exclude_from_weight_decay_fn": "_exclude"}

    def __init__(self, learning_rate=0.001, lamb_weight_decay: float = 0.01, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision: bool = False,
                 always_adapt: bool = False, name: str | None = None):
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._set_multi_precision(multi_precision)
        self._decay = check_range("Lamb", "lamb_weight_decay", lamb_weight_decay, 0.0)
        _set_moment_rates(self, beta1, beta2, epsilon)
        if exclude_from_weight_decay_fn is not None and not callable(
                exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be None or callable on a "
                            f"parameter, got {type(exclude_from_weight_decay_fn).__name__}")
        self._exclude = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        b1, b2, t = self._beta1, self._beta2, state["step"]
        m, v = _update_moments(state, grad, b1, b2)
        xp = backend.array_module(m)
        data = param.data
        decay = 0.0 if self._exclude is not None and self._exclude(param) else self._decay
        r = (m / (1.0 - b1 ** t)) / (xp.sqrt(v / (1.0 - b2 ** t)) + self._epsilon)
        if decay:
            r += decay * data
        ratio = 1.0
        if decay > 0 or self._always_adapt:
            # One transfer for both norms (a single host read on a GPU).
            p_norm, r_norm = backend.to_numpy(xp.stack([xp.linalg.norm(data.ravel()),
                                                        xp.linalg.norm(r.ravel())])).tolist()
            ratio = p_norm / r_norm if p_norm > 0 and r_norm > 0 else 1.0
        data -= (lr * ratio) * r


class NAdam(Optimizer):
    """NAdam (Dozat): Adam with Nesterov momentum, as Paddle's ``nadam`` kernel (and torch's
    NAdam)::

        mu_t      = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next   = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        prod_t    = mu_1 * ... * mu_t
        moment1   = beta1 * moment1 + (1 - beta1) * grad
        moment2   = beta2 * moment2 + (1 - beta2) * grad ** 2
        m_hat     = mu_next * moment1 / (1 - prod_t * mu_next)
                    + (1 - mu_t) * grad / (1 - prod_t)
        param     = param - lr * m_hat / (sqrt(moment2 / (1 - beta2 ** t)) + epsilon)

    Two state arrays per parameter and one number, the running product ``mu_product`` (it has
    no closed form in t, so it is carried, as Paddle carries it). ``weight_decay`` (L2/L1) is
    added to the gradient first.
    """

    _accumulators = ("moment1", "moment2")
    _scalars = {"mu_product": 1.0}
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                      "momentum_decay": "_momentum_decay"}

    def __init__(self, learning_rate=0.002, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, momentum_decay: float = 0.004, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        _set_moment_rates(self, beta1, beta2, epsilon)
        self._momentum_decay = check_range("NAdam", "momentum_decay", momentum_decay, 0.0)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        b1, b2, t = self._beta1, self._beta2, state["step"]
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * self._momentum_decay))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * self._momentum_decay))
        product = state["mu_product"] = state["mu_product"] * mu
        m, v = _update_moments(state, grad, b1, b2)
        xp = backend.array_module(v)
        denom = xp.sqrt(v / (1.0 - b2 ** t))
        denom += self._epsilon
        step = (mu_next / (1.0 - product * mu_next)) * m
        step += ((1.0 - mu) / (1.0 - product)) * grad
        step /= denom
        step *= lr
        param.data -= step


class RAdam(Optimizer):
    """RAdam (Liu et al.): Adam whose adaptive step is switched on, and rectified, once the
    variance of its adaptive rate is tractable, as Paddle's ``radam`` kernel (and torch's)::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad ** 2
        m_hat   = moment1 / (1 - beta1 ** t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t   = rho_inf - 2 t beta2 ** t / (1 - beta2 ** t)
        if rho_t > 5:
            r     = sqrt((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4) (rho_inf - 2) rho_t))
            param = param - lr * m_hat * r * sqrt(1 - beta2 ** t) / (sqrt(moment2) + epsilon)
        else:
            param = param - lr * m_hat                     (plain momentum SGD)

    Paddle carries ``t beta2 ** t / (1 - beta2 ** t)`` as a running value; here it comes from
    t directly (the same number). ``weight_decay`` (L2/L1) is added to the gradient first.
    """

    _accumulators = ("moment1", "moment2")
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        _set_moment_rates(self, beta1, beta2, epsilon)
        self._init_groups()

    def _update(self, param, grad, state, lr):
        b1, b2, t = self._beta1, self._beta2, state["step"]
        m, v = _update_moments(state, grad, b1, b2)
        step_size = lr / (1.0 - b1 ** t)
        rho_inf = 2.0 / (1.0 - b2) - 1.0
        b2_t = b2 ** t
        rho_t = rho_inf - 2.0 * t * b2_t / (1.0 - b2_t)
        if rho_t <= 5.0:
            param.data -= step_size * m
            return
        rect = math.sqrt((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
                         / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
        xp = backend.array_module(v)
        denom = xp.sqrt(v)
        denom += self._epsilon
        param.data -= (step_size * rect * math.sqrt(1.0 - b2_t)) * m / denom


def _set_moment_rates(opt: Optimizer, beta1, beta2, epsilon) -> None:
    """The Adam family's ``beta1``, ``beta2`` in [0, 1) and ``epsilon`` >= 0, checked."""
    owner = type(opt).__name__
    opt._beta1 = check_range(owner, "beta1", beta1, 0.0, 1.0)
    opt._beta2 = check_range(owner, "beta2", beta2, 0.0, 1.0)
    opt._epsilon = check_range(owner, "epsilon", epsilon, 0.0)


def _update_moments(state: dict, grad, beta1: float, beta2: float):
    """``moment1 = b1 m1 + (1 - b1) g`` and ``moment2 = b2 m2 + (1 - b2) g^2`` in place."""
    m, v = state["moment1"], state["moment2"]
    m *= beta1
    m += (1.0 - beta1) * grad
    v *= beta2
    v += (1.0 - beta2) * (grad * grad)
    return m, v


__all__ = ["Adam", "AdamW", "Adamax", "Lamb", "NAdam", "RAdam"]
