"""Element-wise losses with Paddle 3.x names, arguments and defaults, each one fused op.

``l1_loss``, ``smooth_l1_loss``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``
and ``kl_div`` compute one loss per element of ``input`` (``label`` has the same shape), then
reduce: ``"mean"`` over every element, ``"sum"``, or ``"none"`` (the input's shape); ``kl_div``
also takes ``"batchmean"`` (the sum divided by ``input.shape[0]``). A reduced loss is 0-D, as
``core.mean`` (docs/paddle.md). The backward of each is its closed-form derivative, computed
once in the forward pass, rather than a graph of small ops.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.nn.functional.loss import check_reduction
from core.tensor import Tensor, apply, arrays_to_tensors, unbroadcast


def _same_shape(input: Tensor, label: Tensor, fn: str) -> None:  # noqa: A002
    if not isinstance(input, Tensor) or not isinstance(label, Tensor):
        raise TypeError(f"{fn}: input and label must be Tensors or numpy arrays, got "
                        f"{type(input).__name__} and {type(label).__name__}")
    if input.shape != label.shape:
        raise ValueError(f"{fn}: input of shape {input.shape} and label of shape {label.shape} "
                         "differ; they must have the same shape.")


def _finish(losses, grads, reduction: str, op: str) -> Tensor:
    """Reduce per-element ``losses``; ``grads`` pairs each parent with d loss / d parent."""
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
                     unbroadcast((d * scale).astype(t.dtype, copy=False), t.data.shape)
                     for t, d in grads)

    return apply(out, parents, backward, op)


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
    return _finish(abs(diff), [(input, sign), (label, -sign)], reduction, "l1_loss")


def smooth_l1_loss(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
                   delta: float = 1.0, name: str | None = None) -> Tensor:
    """Paddle's smooth L1 (the Huber loss) with threshold ``delta``, per element of z = x - y::

        0.5 * z ** 2                    where |z| < delta
        delta * (|z| - 0.5 * delta)     elsewhere

    (torch's ``huber_loss(delta=delta)``; torch's ``smooth_l1_loss(beta)`` divides by beta.)
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "smooth_l1_loss")
    _same_shape(input, label, "smooth_l1_loss")
    if not delta > 0:
        raise ValueError(f"smooth_l1_loss: delta must be > 0, got {delta!r}")
    xp = backend.array_module(input.data)
    z = input.data - label.data
    inside = abs(z) < delta
    losses = xp.where(inside, 0.5 * z * z, delta * (abs(z) - 0.5 * delta))
    dz = xp.where(inside, z, delta * xp.sign(z))
    return _finish(losses, [(input, dz), (label, -dz)], reduction, "smooth_l1_loss")


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
    with np.errstate(divide="ignore"):  # log(0) = -inf, then clamped
        log_x, log_1mx = xp.maximum(xp.log(x), -100.0), xp.maximum(xp.log(1 - x), -100.0)
    losses = -(y * log_x + (1 - y) * log_1mx)
    dx = (x - y) / xp.maximum(x * (1 - x), 1e-12)
    losses, (dx, dy) = _weighted(losses, [dx, log_1mx - log_x], weight, "binary_cross_entropy")
    return _finish(losses, [(input, dx), (label, dy)], reduction, "binary_cross_entropy")


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
                   "binary_cross_entropy_with_logits")


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
    return _finish(losses, [(input, dx), (label, dy)], reduction, "kl_div")


__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "l1_loss",
           "smooth_l1_loss"]
