"""Element-wise losses with Paddle 3.x names, arguments and defaults, each one fused op.

``l1_loss``, ``smooth_l1_loss``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``,
``kl_div``, ``soft_margin_loss``, ``hinge_embedding_loss``, ``poisson_nll_loss`` and
``gaussian_nll_loss`` compute one loss per element of ``input`` (``label`` has the same shape;
``gaussian_nll_loss`` also broadcasts a last axis of size 1), then reduce: ``"mean"`` over
every element, ``"sum"``, or ``"none"`` (the input's shape); ``kl_div`` also takes
``"batchmean"`` (the sum divided by ``input.shape[0]``). A reduced loss is 0-D, as ``core.mean``
(docs/paddle.md). The backward of each is its closed-form derivative, computed once in the
forward pass, rather than a graph of small ops.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from core import autocast, backend
from core.higher_order import captured, needs, sum_to
from core.manipulation import reshape
from core.nn.functional.loss import check_reduction
from core.tensor import Tensor, apply, arrays_to_tensors, unbroadcast


def _same_shape(input: Tensor, label: Tensor, fn: str) -> None:  # noqa: A002
    if not isinstance(input, Tensor) or not isinstance(label, Tensor):
        raise TypeError(f"{fn}: input and label must be Tensors or numpy arrays, got "
                        f"{type(input).__name__} and {type(label).__name__}")
    if input.shape != label.shape:
        raise ValueError(f"{fn}: input of shape {input.shape} and label of shape {label.shape} "
                         "differ; they must have the same shape.")


def _finish(losses, grads, reduction: str, op: str, grad_fn=None) -> Tensor:
    """Reduce per-element ``losses``; ``grads`` pairs each parent with d loss / d parent (for a
    loss per row, d has the parent's trailing feature axis too). ``grad_fn`` (optional) is the
    tensor-level backward for create_graph, ``_reduced_grad`` of the same derivatives built
    of recorded ops."""
    xp = backend.array_module(losses)
    if reduction == "none":
        out, divisor = losses, 1
    else:
        out = xp.asarray(losses.sum())  # 0-D
        divisor = {"sum": 1, "mean": max(losses.size, 1)}.get(
            reduction, losses.shape[0] if losses.ndim else 1)  # batchmean: per sample
        out = out / losses.dtype.type(divisor) if divisor != 1 else out
    parents = tuple(t for t, _ in grads)

    def backward(g):
        scale = g if reduction == "none" else g.reshape(()) / divisor
        return tuple(None if t.stop_gradient or d is None else
                     unbroadcast((d * _trailing(scale, d)).astype(t.dtype, copy=False),
                                 t.data.shape)
                     for t, d in grads)

    return apply(out, parents, backward, op, grad_fn)


def _reduced_grad(out, g, derivs: list) -> tuple:
    """``_finish``'s backward on the create_graph path: ``derivs`` (one Tensor per parent, or
    None) are the element-wise derivatives as recorded ops; the reduction as ``backward``'s."""
    reduction, divisor = captured(out, "reduction", "divisor")
    scale = g if reduction == "none" else g.reshape([]) / divisor
    return tuple(None if not needs(t) or d is None else sum_to(d * scale, t.shape)
                 for t, d in zip(out._parents, derivs))


def _row_reduced_grad(out, g, derivs: list) -> tuple:
    """``_reduced_grad`` where a derivative may have a feature axis after the loss's axes (a
    loss per row: triplet_margin_loss, cosine_embedding_loss), as ``_trailing``."""
    reduction, divisor = captured(out, "reduction", "divisor")
    scale = g if reduction == "none" else g.reshape([]) / divisor

    def scaled(d):
        extra = d.ndim - scale.ndim
        return d * (scale.reshape(scale.shape + [1] * extra) if scale.ndim and extra > 0
                    else scale)

    return tuple(None if not needs(t) or d is None else sum_to(scaled(d), t.shape)
                 for t, d in zip(out._parents, derivs))


def _constant_grad(out, g):
    """The tensor-level backward of a piecewise-linear loss (the hinges): the derivatives the
    array backward keeps are constants, so the gradient is linear in g alone."""
    (grads,) = captured(out, "grads")
    return _row_reduced_grad(out, g, [None if d is None else Tensor(d) for _, d in grads])


def _weight_tensor(weight, dtype):
    """``weight`` (a Tensor, array or None) as a constant Tensor of the loss's dtype: the
    array backward does not differentiate it either."""
    if weight is None:
        return 1
    w = weight.data if isinstance(weight, Tensor) else backend.asarray(weight)
    return Tensor(w.astype(dtype, copy=False))


def _trailing(scale, d):
    """``scale`` (one value per loss) shaped to multiply ``d``: a loss per row of features
    (triplet_margin_loss, cosine_embedding_loss) has derivatives with the feature axis too."""
    extra = d.ndim - scale.ndim
    return scale.reshape(scale.shape + (1,) * extra) if scale.ndim and extra > 0 else scale


def _weighted(losses, derivs, weight, fn: str):
    """Multiply per-element losses and derivatives by a ``weight`` broadcast to them."""
    if weight is None:
        return losses, derivs
    w = weight.data if isinstance(weight, Tensor) else backend.asarray(weight)
    try:
        backend.array_module(losses).broadcast_to(w, losses.shape)
    except ValueError:
        raise ValueError(f"{fn}: weight of shape {list(w.shape)} does not broadcast to the "
                         f"loss of shape {list(losses.shape)}") from None
    w = w.astype(losses.dtype, copy=False)
    return losses * w, [None if d is None else d * w for d in derivs]


def l1_loss(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
            name: str | None = None) -> Tensor:
    """Absolute error ``|input - label|`` (``paddle.nn.functional.l1_loss``); gradient 0 at 0."""
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "l1_loss")
    _same_shape(input, label, "l1_loss")
    diff = input.data - label.data
    sign = backend.array_module(diff).sign(diff)
    return _finish(abs(diff), [(input, sign), (label, -sign)], reduction, "l1_loss",
                   _l1_grad)


def _l1_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    x, y = out._parents
    return _reduced_grad(out, g, _opposite((x - y).sign()))


def _opposite(d) -> list:
    """The derivatives of a loss of ``input - label``: ``d`` and ``-d``."""
    return [d, -d]


def smooth_l1_loss(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
                   delta: float = 1.0, is_huber: bool = True, name: str | None = None) -> Tensor:
    """Paddle's ``smooth_l1_loss(input, label, reduction='mean', delta=1.0, is_huber=True,
    name=None)``: the Huber loss with threshold ``delta``, per element of z = x - y::

        0.5 * z ** 2                    where |z| < delta
        delta * (|z| - 0.5 * delta)     elsewhere

    (torch's ``huber_loss(delta=delta)``); ``is_huber=False`` divides it by ``delta``, which is
    torch's ``smooth_l1_loss(beta=delta)``.
    """
    del name
    if not isinstance(is_huber, bool):
        raise TypeError(f"smooth_l1_loss: is_huber must be True or False, got {is_huber!r}")
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "smooth_l1_loss")
    _same_shape(input, label, "smooth_l1_loss")
    if not delta > 0:
        raise ValueError(f"smooth_l1_loss: delta must be > 0, got {delta!r}")
    xp = backend.array_module(input.data)
    z = input.data - label.data
    inside = abs(z) < delta
    scale = 1.0 if is_huber else 1.0 / delta
    losses = xp.where(inside, 0.5 * z * z, delta * (abs(z) - 0.5 * delta)) * scale
    dz = xp.where(inside, z, delta * xp.sign(z)) * scale
    return _finish(losses, [(input, dz), (label, -dz)], reduction, "smooth_l1_loss",
                   functools.partial(_smooth_l1_grad, delta=delta, scale=scale))


def _smooth_l1_grad(out, g, delta: float, scale: float = 1.0):  # z clipped to [-delta, delta]
    x, y = out._parents
    return _reduced_grad(out, g, _opposite((x - y).clip(-delta, delta) * scale))


def binary_cross_entropy(input: Tensor, label: Tensor, weight: Tensor | None = None,  # noqa: A002
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """``-weight * (label * log(input) + (1 - label) * log(1 - input))`` for probabilities.

    As Paddle's (and torch's) kernel: each log is clamped at -100, so a probability of exactly
    0 or 1 gives a finite loss, and the gradient divides by ``max(input * (1 - input), 1e-12)``.
    ``weight`` rescales each element (broadcast to the input's shape).
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "binary_cross_entropy")
    _same_shape(input, label, "binary_cross_entropy")
    x, y = input.data, label.data
    xp = backend.array_module(x)
    _check_probabilities(xp, x)
    with np.errstate(divide="ignore"):  # log(0) = -inf, then clamped
        log_x, log_1mx = xp.maximum(xp.log(x), -100.0), xp.maximum(xp.log(1 - x), -100.0)
    losses = -(y * log_x + (1 - y) * log_1mx)
    dx = (x - y) / xp.maximum(x * (1 - x), 1e-12)
    losses, (dx, dy) = _weighted(losses, [dx, log_1mx - log_x], weight, "binary_cross_entropy")
    return _finish(losses, [(input, dx), (label, dy)], reduction, "binary_cross_entropy",
                   _bce_grad if weight is None else functools.partial(_bce_grad, weight=weight))


def _check_probabilities(xp, x) -> None:
    """Paddle's kernel refuses inputs outside [0, 1] (they have no log(1 - x)); one reduction
    and a scalar read, so no per-element host copy on a GPU."""
    if x.size and not bool(((x >= 0) & (x <= 1)).all()):
        low, high = float(xp.nanmin(x)), float(xp.nanmax(x))
        raise ValueError(f"binary_cross_entropy: input must hold probabilities in [0, 1], got "
                         f"values in [{low}, {high}]")


def _bce_grad(out, g, weight=None):
    """binary_cross_entropy's backward from its derivatives as recorded ops, clamped as the
    forward clamps (the module-level function, or a partial: no closure per call)."""
    x, y = out._parents
    w = _weight_tensor(weight, x.dtype)
    logs = [p.log().clip(min=-100.0) for p in (x, 1 - x)]
    return _reduced_grad(out, g, [(x - y) / (x * (1 - x)).clip(min=1e-12) * w,
                                  (logs[1] - logs[0]) * w])


def binary_cross_entropy_with_logits(logit: Tensor, label: Tensor, weight: Tensor | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None,
                                     name: str | None = None) -> Tensor:
    """Sigmoid then binary cross entropy, in one numerically stable formula::

        loss = weight * ((1 - label) * logit + (1 + (pos_weight - 1) * label) * softplus(-logit))

    with ``softplus(-x) = log(1 + exp(-|x|)) + max(-x, 0)``. ``pos_weight`` (one per class,
    broadcast along the last axis) weighs the positive term; ``weight`` rescales each element.
    """
    del name
    logit, label = arrays_to_tensors(logit, label)  # numpy batches too
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        logit, label, weight, pos_weight = autocast.cast_inputs(
            "binary_cross_entropy_with_logits", logit, label, weight, pos_weight)
    check_reduction(reduction, "binary_cross_entropy_with_logits")
    _same_shape(logit, label, "binary_cross_entropy_with_logits")
    x, y = logit.data, label.data
    xp = backend.array_module(x)
    e = xp.exp(-abs(x))
    softplus = xp.log1p(e) + xp.maximum(-x, 0)  # log(1 + exp(-x)), stable for any x
    sigmoid_neg = xp.where(x >= 0, e, 1) / (1 + e)  # sigmoid(-x), stable for any x
    if pos_weight is None:
        lw, dlw = 1, 0
    else:
        pw = (pos_weight.data if isinstance(pos_weight, Tensor) else backend.asarray(pos_weight))
        pw = pw.astype(x.dtype, copy=False)
        lw, dlw = 1 + (pw - 1) * y, pw - 1
    losses = (1 - y) * x + lw * softplus
    dx, dy = (1 - y) - lw * sigmoid_neg, -x + dlw * softplus
    losses, (dx, dy) = _weighted(losses, [dx, dy], weight, "binary_cross_entropy_with_logits")
    return _finish(losses, [(logit, dx), (label, dy)], reduction,
                   "binary_cross_entropy_with_logits",
                   _bce_logits_grad if weight is None and pos_weight is None else
                   functools.partial(_bce_logits_grad, weight=weight, pos_weight=pos_weight))


def _bce_logits_grad(out, g, weight=None, pos_weight=None):
    """binary_cross_entropy_with_logits's backward from its derivatives as recorded ops
    (pos_weight and weight constants, as in the array backward)."""
    x, y = out._parents
    softplus = (-x.abs()).exp().log1p() + (-x).clip(min=0.0)  # softplus(-x), stable
    lw, dlw = 1, 0
    if pos_weight is not None:
        dlw = _weight_tensor(pos_weight, x.dtype) - 1
        lw = 1 + dlw * y
    w = _weight_tensor(weight, x.dtype)
    return _reduced_grad(out, g, [((1 - y) - lw * (-x).sigmoid()) * w,
                                  (dlw * softplus - x) * w])


def kl_div(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
           log_target: bool = False, name: str | None = None) -> Tensor:
    """Kullback-Leibler divergence with ``input`` log-probabilities, as Paddle's ``kl_div``::

        label * (log(label) - input)            (0 where label <= 0)
        exp(label) * (label - input)            (log_target=True: label holds log-probabilities)

    ``reduction`` is ``"mean"`` (over every element, Paddle's default), ``"batchmean"`` (the sum
    over ``input.shape[0]``: the true KL divergence per sample), ``"sum"`` or ``"none"``.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    if reduction not in ("mean", "batchmean", "sum", "none"):
        raise ValueError(f"kl_div: reduction={reduction!r} is not supported; use one of "
                         "('mean', 'batchmean', 'sum', 'none').")
    _same_shape(input, label, "kl_div")
    x, y = input.data, label.data
    xp = backend.array_module(x)
    if log_target:
        p = xp.exp(y)
        losses, dx, dy = p * (y - x), -p, p * (y - x + 1)
    else:
        positive = y > 0
        log_y = xp.log(xp.where(positive, y, 1))
        losses = xp.where(positive, y * (log_y - x), 0)
        dx, dy = xp.where(positive, -y, 0), xp.where(positive, log_y - x + 1, 0)
    return _finish(losses, [(input, dx), (label, dy)], reduction, "kl_div",
                   _kl_div_log_target_grad if log_target else _kl_div_grad)


def _kl_div_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    """Zero where label <= 0, as the array backward; there the label is replaced by 1 (a
    constant), so log(label) stays finite and nothing flows back from those elements."""
    x, y = out._parents
    positive = Tensor((y.data > 0).astype(x.data.dtype))
    safe = y * positive + (1 - positive)
    return _reduced_grad(out, g, [-(y * positive), (safe.log() - x + 1) * positive])


def _kl_div_log_target_grad(out, g):
    x, y = out._parents
    p = y.exp()
    return _reduced_grad(out, g, [-p, p * (y - x + 1)])


def _softplus_and_sigmoid(xp, z):
    """``log(1 + exp(z))`` and ``sigmoid(z)``, both stable for any z (one exp)."""
    e = xp.exp(-abs(z))
    softplus = xp.log1p(e) + xp.maximum(z, 0)
    return softplus, xp.where(z >= 0, 1, e) / (1 + e)


def _float_label(label: Tensor, like):
    """The label's values in the input's dtype, and the label again if it can take a gradient
    (a float label may; integer labels, as Paddle allows, are constants)."""
    y = label.data.astype(like.dtype, copy=False)
    return y, (label if label.data.dtype.kind == "f" else None)


def soft_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
                     name: str | None = None) -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-label * input))`` with labels 1 or -1 (Paddle's
    ``soft_margin_loss(input, label, reduction='mean', name=None)``), per element.

    Computed as the stable softplus of ``z = -label * input`` (Paddle evaluates the formula as
    written, which overflows to inf for z above ~88 in float32); d/dz = sigmoid(z).
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "soft_margin_loss")
    _same_shape(input, label, "soft_margin_loss")
    x = input.data
    y, label_parent = _float_label(label, x)
    losses, sig = _softplus_and_sigmoid(backend.array_module(x), -y * x)
    grads = [(input, -y * sig)] + ([(label_parent, -x * sig)] if label_parent is not None else [])
    return _finish(losses, grads, reduction, "soft_margin_loss",
                   _soft_margin_grad if label_parent is not None else
                   functools.partial(_soft_margin_grad, label=Tensor(y)))


def _soft_margin_grad(out, g, label=None):  # d/dz softplus(z) = sigmoid(z), z = -label * input
    x, y = out._parents[0], out._parents[1] if label is None else label
    s = (-y * x).sigmoid()
    return _reduced_grad(out, g, [-y * s, -x * s])


def hinge_embedding_loss(input: Tensor, label: Tensor, margin: float = 1.0,  # noqa: A002
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """Paddle's ``hinge_embedding_loss(input, label, margin=1.0, reduction='mean', name=None)``,
    per element, for labels 1 or -1::

        input                       where label == 1
        max(0, margin - input)      where label == -1

    An element whose label is neither contributes 0, as in Paddle (torch counts it in both
    terms). The label only selects: it takes no gradient.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "hinge_embedding_loss")
    _same_shape(input, label, "hinge_embedding_loss")
    x, y = input.data, label.data
    xp = backend.array_module(x)
    positive, negative = y == 1, y == -1
    gap = margin - x
    hinge = negative & (gap > 0)
    losses = xp.where(positive, x, 0) + xp.where(hinge, gap, 0)
    dx = positive.astype(x.dtype) - hinge.astype(x.dtype)
    return _finish(losses.astype(x.dtype, copy=False), [(input, dx)], reduction,
                   "hinge_embedding_loss", _constant_grad)


def _positive_epsilon(epsilon, fn: str) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon > 0:
        raise ValueError(f"{fn}: epsilon={epsilon!r} must be a number > 0.")
    return float(epsilon)


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def poisson_nll_loss(input: Tensor, label: Tensor, log_input: bool = True,  # noqa: A002
                     full: bool = False, epsilon: float = 1e-8, reduction: str = "mean",
                     name: str | None = None) -> Tensor:
    """Poisson negative log-likelihood of ``label`` (counts) under the rate ``input`` (Paddle's
    ``poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8,
    reduction='mean', name=None)``), per element::

        exp(input) - label * input                  log_input=True (input is the log-rate)
        input - label * log(input + epsilon)        log_input=False

    ``full=True`` adds Stirling's approximation of log(label!),
    ``label * log(label) - label + 0.5 * log(2 pi label)``, where label > 1 (0 elsewhere).
    ``epsilon`` must be > 0. Both ``input`` and a float ``label`` take gradients.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "poisson_nll_loss")
    _same_shape(input, label, "poisson_nll_loss")
    epsilon = _positive_epsilon(epsilon, "poisson_nll_loss")
    x = input.data
    y, label_parent = _float_label(label, x)
    xp = backend.array_module(x)
    if log_input:
        rate = xp.exp(x)
        losses, dx, dy = rate - y * x, rate - y, -x
    else:
        log_rate = xp.log(x + epsilon)
        losses, dx, dy = x - y * log_rate, 1 - y / (x + epsilon), -log_rate
    if full:
        counted = y > 1
        safe = xp.where(counted, y, 1)  # log of labels <= 1 would be -inf or NaN, then unused
        log_y = xp.log(safe)
        stirling = (safe + 0.5) * log_y - safe + _HALF_LOG_2PI
        losses = losses + xp.where(counted, stirling, 0)
        dy = dy + xp.where(counted, log_y + 0.5 / safe, 0)
    grads = [(input, dx)] + ([(label_parent, dy)] if label_parent is not None else [])
    return _finish(losses, grads, reduction, "poisson_nll_loss", functools.partial(
        _poisson_nll_grad, log_input=log_input, full=full, epsilon=epsilon,
        label=None if label_parent is not None else Tensor(y)))


def _poisson_nll_grad(out, g, log_input: bool, full: bool, epsilon: float, label=None):
    """poisson_nll_loss's backward as recorded ops; Stirling's term (full) as the array
    backward: its label derivative where label > 1, the label elsewhere replaced by 1."""
    x, y = out._parents[0], out._parents[1] if label is None else label
    if log_input:
        dx, dy = x.exp() - y, -x
    else:
        dx, dy = 1 - y / (x + epsilon), -(x + epsilon).log()
    if full:
        counted = Tensor((y.data > 1).astype(x.data.dtype))
        safe = y * counted + (1 - counted)
        dy = dy + (safe.log() + 0.5 / safe) * counted
    return _reduced_grad(out, g, [dx, dy])


def gaussian_nll_loss(input: Tensor, label: Tensor, variance: Tensor,  # noqa: A002
                      full: bool = False, epsilon: float = 1e-6, reduction: str = "mean",
                      name: str | None = None) -> Tensor:
    """Gaussian negative log-likelihood of ``label`` under mean ``input`` and ``variance``
    (Paddle's ``gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6,
    reduction='mean', name=None)``), per element::

        0.5 * (log(max(variance, epsilon)) + (input - label)^2 / max(variance, epsilon))

    plus ``0.5 * log(2 pi)`` with ``full=True``. ``label`` has the input's shape or its last
    axis of size 1; ``variance`` too, or the input's shape without the last axis (one variance
    per row). A negative variance raises (Paddle's check). Where the variance is below
    ``epsilon`` the loss uses ``epsilon`` and the variance's gradient is the one at
    ``epsilon``, passed straight through (torch's rule: the clamp is for stability and does not
    stop the variance from learning).
    """
    del name
    input, label, variance = arrays_to_tensors(input, label, variance)  # numpy batches too
    check_reduction(reduction, "gaussian_nll_loss")
    epsilon = _positive_epsilon(epsilon, "gaussian_nll_loss")
    for t, what in ((input, "input"), (label, "label"), (variance, "variance")):
        if not isinstance(t, Tensor):
            raise TypeError(f"gaussian_nll_loss: {what} must be a Tensor or a numpy array, got "
                            f"{type(t).__name__}")
    shape = input.shape
    if variance.shape != shape and variance.shape == shape[:-1]:
        variance = reshape(variance, variance.shape + [1])  # homoscedastic rows: differentiable
    for t, what in ((label, "label"), (variance, "variance")):
        if t.shape != shape and not (t.ndim == len(shape) and t.shape[:-1] == shape[:-1]
                                     and t.shape[-1:] == [1]):
            rows = " or the input's shape without the last axis" if what == "variance" else ""
            raise ValueError(f"gaussian_nll_loss: {what} of shape {t.shape} does not fit the "
                             f"input of shape {shape}; use the input's shape, the input's shape "
                             f"with the last axis of size 1{rows}.")
    x, y, v = input.data, label.data.astype(input.dtype, copy=False), variance.data
    xp = backend.array_module(x)
    if bool((v < 0).any()):
        raise ValueError("gaussian_nll_loss: variance has negative entries; variances must be "
                         ">= 0.")
    v = xp.maximum(v, epsilon).astype(x.dtype, copy=False)
    diff = x - y
    scaled = diff / v
    losses = 0.5 * (xp.log(v) + diff * scaled)
    if full:
        losses = losses + _HALF_LOG_2PI
    grads = [(input, scaled), (label, -scaled), (variance, 0.5 * (1 - diff * scaled) / v)]
    return _finish(losses, grads, reduction, "gaussian_nll_loss",
                   functools.partial(_gaussian_nll_grad, epsilon=epsilon))


def _gaussian_nll_grad(out, g, epsilon: float):
    """gaussian_nll_loss's backward as recorded ops; the variance clamped at epsilon with its
    derivative passed straight through, as the array backward."""
    x, y, v = out._parents
    y = y if y.dtype == x.dtype else y.astype(x.dtype)
    v = v + Tensor(backend.array_module(v.data).maximum(v.data, epsilon).astype(x.dtype) - v.data)
    scaled = (x - y) / v
    return _reduced_grad(out, g, [scaled, -scaled, 0.5 * (1 - (x - y) * scaled) / v])


__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "gaussian_nll_loss",
           "hinge_embedding_loss", "kl_div", "l1_loss", "poisson_nll_loss", "smooth_l1_loss",
           "soft_margin_loss"]


def sigmoid_focal_loss(logit: Tensor, label: Tensor, normalizer: Tensor | None = None,
                       alpha: float = 0.25, gamma: float = 2.0, reduction: str = "sum",
                       name: str | None = None) -> Tensor:
    """The focal loss of RetinaNet on logits (``paddle.nn.functional.sigmoid_focal_loss(logit,
    label, normalizer=None, alpha=0.25, gamma=2.0, reduction='sum', name=None)``), per
    element, with p = sigmoid(logit)::

        alpha_t * (1 - p_t) ** gamma * bce_with_logits(logit, label)
        p_t = p * label + (1 - p) * (1 - label)
        alpha_t = alpha * label + (1 - alpha) * (1 - label)

    then divided by ``normalizer`` (a one-element tensor, e.g. the number of positives) when
    given, then reduced; Paddle's default reduction is ``"sum"``. Unlike torchvision's, alpha
    always weighs (Paddle has no "alpha < 0: no weighting"). Differentiable in logit, label and
    normalizer, with the closed-form derivatives computed in the forward pass.
    """
    del name
    logit, label = arrays_to_tensors(logit, label)  # numpy batches too
    check_reduction(reduction, "sigmoid_focal_loss")
    _same_shape(logit, label, "sigmoid_focal_loss")
    for what, value in (("alpha", alpha), ("gamma", gamma)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise ValueError(f"sigmoid_focal_loss: {what}={value!r} must be a finite number.")
    x = logit.data
    xp = backend.array_module(x)
    y = label.data.astype(x.dtype, copy=False)
    e = xp.exp(-abs(x))
    p = xp.where(x >= 0, 1, e) / (1 + e)  # sigmoid(x), stable for any x
    ce = (1 - y) * x + xp.log1p(e) + xp.maximum(-x, 0)  # bce_with_logits, stable
    q = 1 - (p * y + (1 - p) * (1 - y))  # 1 - p_t
    alpha_t = alpha * y + (1 - alpha) * (1 - y)
    m = q ** gamma
    dm_dq = gamma * q ** (gamma - 1) if gamma else xp.zeros_like(q)  # gamma 0: m == 1
    dq_dx, dq_dy = -p * (1 - p) * (2 * y - 1), 1 - 2 * p
    losses = alpha_t * m * ce
    dx = alpha_t * (dm_dq * dq_dx * ce + m * (p - y))
    dy = (2 * alpha - 1) * m * ce + alpha_t * (dm_dq * dq_dy * ce - m * x)
    grads = [(logit, dx), (label, dy)]
    if normalizer is not None:
        normalizer = _one_value(normalizer, "sigmoid_focal_loss", "normalizer")
        n = normalizer.data.astype(x.dtype, copy=False)
        losses, dx, dy = losses / n, dx / n, dy / n
        grads = [(logit, dx), (label, dy), (normalizer, -losses / n)]
    return _finish(losses, grads, reduction, "sigmoid_focal_loss",
                   functools.partial(_focal_grad, alpha=alpha, gamma=gamma))


def _focal_grad(out, g, alpha: float, gamma: float):
    """sigmoid_focal_loss's backward: the forward's closed-form derivatives as recorded ops."""
    x, y = out._parents[:2]
    y = y if y.dtype == x.dtype else y.astype(x.dtype)
    p = x.sigmoid()
    ce = (1 - y) * x + (-x.abs()).exp().log1p() + (-x).clip(min=0.0)
    q = 1 - (p * y + (1 - p) * (1 - y))
    alpha_t = alpha * y + (1 - alpha) * (1 - y)
    m = q ** gamma if gamma else 1
    dm_dq = gamma * q ** (gamma - 1) if gamma else 0
    dq_dx, dq_dy = -p * (1 - p) * (2 * y - 1), 1 - 2 * p
    derivs = [alpha_t * (dm_dq * dq_dx * ce + m * (p - y)),
              (2 * alpha - 1) * m * ce + alpha_t * (dm_dq * dq_dy * ce - m * x)]
    if len(out._parents) == 3:  # the normalizer n: every term over n, and its own -loss / n
        n = out._parents[2].reshape([])
        derivs = [d / n for d in derivs] + [-(alpha_t * m * ce) / (n * n)]
    return _reduced_grad(out, g, derivs)


def _one_value(value, fn: str, what: str) -> Tensor:
    """``value`` (a Tensor or numpy array) checked to hold one value in at most one axis."""
    (value,) = arrays_to_tensors(value)
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}: {what} must be a Tensor or a numpy array, got "
                        f"{type(value).__name__}")
    if value.ndim > 1 or value.size != 1:
        raise ValueError(f"{fn}: {what} must hold one value (shape [] or [1]), got shape "
                         f"{value.shape}")
    return value


__all__ += ["sigmoid_focal_loss"]
