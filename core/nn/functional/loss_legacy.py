"""Paddle's older loss helpers, still in ``paddle.nn.functional``: ``square_error_cost``,
``softmax_with_cross_entropy`` (the legacy op, which keeps the class axis) and ``label_smooth``.

Each is one fused op, or a thin layer over ``cross_entropy`` (``softmax_with_cross_entropy``
is ``cross_entropy(..., reduction="none")`` with the label's shape kept).
"""
from __future__ import annotations

import functools

from core import backend
from core.higher_order import captured, needs, sum_to
from core.nn.functional.activation import softmax
from core.nn.functional.loss import _bounds, cross_entropy
from core.tensor import Tensor, apply, arrays_to_tensors, unbroadcast


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:  # noqa: A002 - Paddle's name
    """``(input - label)^2`` element by element, unreduced (Paddle's ``square_error_cost(input,
    label)``); the two broadcast. Both get gradients (``2 (input - label)`` and its negative)."""
    input, label = arrays_to_tensors(input, label)  # numpy batches too, as the other losses
    diff = input.data - label.data
    out = diff * diff

    def backward(g):
        grad = g * diff
        grad *= 2
        return (None if input.stop_gradient else unbroadcast(grad, input.data.shape),
                None if label.stop_gradient else unbroadcast(-grad, label.data.shape))

    return apply(out, (input, label), backward, "square_error_cost", _square_error_grad)


def _square_error_grad(out, g):  # the tensor-level backward (create_graph): 2 (input - label)
    x, y = out._parents
    d = 2 * (x - y) * g
    return (sum_to(d, x.shape) if needs(x) else None, sum_to(-d, y.shape) if needs(y) else None)


def label_smooth(label: Tensor, prior_dist: Tensor | None = None, epsilon: float = 0.1,
                 name: str | None = None) -> Tensor:
    """``(1 - epsilon) * label + epsilon * prior_dist`` (Paddle's ``label_smooth(label,
    prior_dist=None, epsilon=0.1, name=None)``): ``label`` holds one-hot (or soft) labels with
    the classes on the last axis; without ``prior_dist`` the prior is uniform, ``1 / C``.
    ``prior_dist`` ([1, C] in Paddle's examples) broadcasts against ``label``."""
    del name
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
            or not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"label_smooth: epsilon must be a number in [0, 1], got {epsilon!r}")
    lab = label.data
    backend.array_module(lab)  # a numpy label: the clear TypeError of functional ops
    if lab.dtype.kind != "f":
        raise TypeError(f"label_smooth: label must be floating (one-hot or soft labels), got "
                        f"{lab.dtype}; make one-hot labels with F.one_hot(label, num_classes)")
    keep = lab.dtype.type(1.0 - epsilon)
    out = lab * keep
    if prior_dist is None:
        out += lab.dtype.type(epsilon / lab.shape[-1])
        parents = (label,)
    else:
        prior = prior_dist.data.astype(lab.dtype, copy=False)
        out = out + prior * lab.dtype.type(epsilon)
        parents = (label, prior_dist)

    def backward(g):
        grads = [None if label.stop_gradient else unbroadcast(g * keep, lab.shape)]
        if prior_dist is not None:
            grads.append(None if prior_dist.stop_gradient else unbroadcast(
                g * lab.dtype.type(epsilon), prior_dist.data.shape).astype(
                    prior_dist.dtype, copy=False))
        return tuple(grads)

    return apply(out, parents, backward, "label_smooth", _label_smooth_grad)


def _label_smooth_grad(out, g):  # the tensor-level backward (create_graph): linear in both
    keep, epsilon = captured(out, "keep", "epsilon")
    label, *prior = out._parents
    grads = [g * float(keep) if needs(label) else None]
    if prior:
        grads.append(sum_to(g * epsilon, prior[0].shape) if needs(prior[0]) else None)
    return tuple(grads)


def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1):
    """Softmax cross entropy per row, Paddle's legacy ``softmax_with_cross_entropy(logits,
    label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
    return_softmax=False, axis=-1)``: the loss has the logits' shape with ``axis`` of size 1
    (a hard label without that axis, e.g. [N] for [N, C] logits, gets it added; rows whose
    label is ``ignore_index`` have loss 0). With ``return_softmax`` it returns ``(loss,
    softmax(logits, axis))``.

    It is ``cross_entropy(..., reduction="none")``: the log-softmax is always the stable,
    exact one, so ``numeric_stable_mode`` has no effect and losses are not capped near 64 as
    Paddle's kernel caps them (docs/paddle.md). The softmax returned is differentiable (Paddle's
    passes no gradient back through it).
    """
    del numeric_stable_mode  # always stable
    logits, label = arrays_to_tensors(logits, label)  # numpy batches too
    if not isinstance(axis, int) or not -logits.ndim <= axis < logits.ndim:
        raise ValueError(f"softmax_with_cross_entropy: axis={axis!r} is out of range for "
                         f"logits of shape {logits.shape}")
    axis %= logits.ndim
    if not soft_label and label.ndim == logits.ndim - 1:
        shape = list(label.shape)
        shape.insert(axis, 1)
        bounds = label._value_range
        label = Tensor(label.data.reshape(shape))
        label._value_range = bounds  # a known label range spares a GPU read (cross_entropy)
    elif label.ndim != logits.ndim:
        raise ValueError(f"softmax_with_cross_entropy: label of shape {label.shape} does not fit "
                         f"logits of shape {logits.shape}: it must have the logits' rank, or "
                         "one less (hard labels without the class axis)")
    loss = cross_entropy(logits, label, ignore_index=ignore_index, reduction="none",
                         soft_label=soft_label, axis=axis)
    return (loss, softmax(logits, axis)) if return_softmax else loss


def _check_tensors(fn: str, **tensors) -> None:
    for what, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: {what} must be a Tensor or a numpy array, got "
                            f"{type(t).__name__}")


def _check_epsilon(fn: str, epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
            or not 0.0 <= epsilon < float("inf"):
        raise ValueError(f"{fn}: epsilon={epsilon!r} must be a finite number >= 0.")
    return float(epsilon)


def dice_loss(input: Tensor, label: Tensor, epsilon: float = 1e-5,  # noqa: A002
              name: str | None = None) -> Tensor:
    """Paddle's ``dice_loss(input, label, epsilon=1e-5, name=None)`` for segmentation:
    ``input`` [N, ..., C] holds class probabilities (a softmax over the last axis) and
    ``label`` [N, ..., 1] integer classes. With ``onehot`` the labels' one-hot form and sums
    over every axis but the batch's::

        mean over n of  1 - 2 * sum(input * onehot) / (sum(input) + sum(onehot) + epsilon)

    A 0-D result; ``input`` takes the gradient.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    fn = "dice_loss"
    _check_tensors(fn, input=input, label=label)
    epsilon = _check_epsilon(fn, epsilon)
    if input.ndim < 2 or label.ndim != input.ndim or label.shape[-1] != 1 \
            or label.shape[:-1] != input.shape[:-1] or input.dtype.kind != "f" \
            or label.data.dtype.kind not in "iu" or input.size == 0:
        raise ValueError(f"{fn}: input must be floating [N, ..., C] and label integers [N, ..., "
                         f"1] with the same leading axes, neither empty; got input "
                         f"{input.shape} ({input.dtype}) and label {label.shape} "
                         f"({label.data.dtype}).")
    x = input.data
    xp = backend.array_module(x)
    classes = x.shape[-1]
    lab = label.data[..., 0]
    lo, hi = _bounds(lab)
    if lo < 0 or hi >= classes:
        raise ValueError(f"{fn}: label value {lo if lo < 0 else hi} is out of range for "
                         f"{classes} classes; labels must be in [0, {classes - 1}].")
    onehot = (lab[..., None] == xp.arange(classes)).astype(x.dtype)
    axes = tuple(range(1, x.ndim))
    intersection = (x * onehot).sum(axis=axes)
    denominator = x.sum(axis=axes) + onehot.sum(axis=axes) + x.dtype.type(epsilon)
    rows = x.shape[0]
    out = xp.asarray((1 - 2 * intersection / denominator).mean())
    expand = (slice(None),) + (None,) * (x.ndim - 1)

    def backward(g):
        # d score_n / d x = -2 (onehot * denominator - intersection) / denominator^2
        scale = g.reshape(()) * -2 / (rows * denominator * denominator)
        return ((onehot * denominator[expand] - intersection[expand]) * scale[expand],)

    return apply(out, (input,), backward, fn, functools.partial(_dice_grad, epsilon=epsilon))


def _dice_grad(out, g, epsilon: float):
    """dice_loss's tensor-level backward (create_graph): the array backward's formula, with
    the intersection and the denominator recomputed as recorded ops (the one-hot a constant)."""
    (onehot,) = captured(out, "onehot")
    x = out._parents[0]
    axes, rows = list(range(1, x.ndim)), x.shape[0]
    shape = [rows] + [1] * (x.ndim - 1)
    hot = Tensor(onehot)
    intersection = (x * hot).sum(axis=axes).reshape(shape)
    denominator = (x.sum(axis=axes) + Tensor(onehot.sum(axis=tuple(axes)) + epsilon)).reshape(
        shape)
    scale = g.reshape([]) * (-2.0 / rows) / (denominator * denominator)
    return ((hot * denominator - intersection) * scale,)


def log_loss(input: Tensor, label: Tensor, epsilon: float = 1e-4,  # noqa: A002
             name: str | None = None) -> Tensor:
    """Paddle's negative log loss ``log_loss(input, label, epsilon=1e-4, name=None)``, element
    by element and unreduced::

        -label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon)

    for probabilities ``input`` and labels of the same shape ([N, 1] in Paddle's examples).
    Both take gradients.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    fn = "log_loss"
    _check_tensors(fn, input=input, label=label)
    epsilon = _check_epsilon(fn, epsilon)
    if input.shape != label.shape or input.dtype.kind != "f":
        raise ValueError(f"{fn}: input ({input.shape}, {input.dtype}) must be floating and "
                         f"label ({label.shape}) of the same shape.")
    x = input.data
    y = label.data.astype(x.dtype, copy=False)
    xp = backend.array_module(x)
    eps = x.dtype.type(epsilon)
    low, high = x + eps, 1 - x + eps
    log_low, log_high = xp.log(low), xp.log(high)
    out = -y * log_low - (1 - y) * log_high

    def backward(g):
        return (None if input.stop_gradient else g * ((1 - y) / high - y / low),
                None if label.stop_gradient or label.dtype.kind != "f" else
                (g * (log_high - log_low)).astype(label.dtype, copy=False))

    return apply(out, (input, label), backward, fn, functools.partial(_log_loss_grad, eps=eps))


def _log_loss_grad(out, g, eps):  # the tensor-level backward (create_graph): core.tensor.apply
    x, label = out._parents
    y = label if label.dtype == x.dtype else label.astype(x.dtype)
    low, high = x + eps, 1 - x + eps
    return (g * ((1 - y) / high - y / low) if needs(x) else None,
            g * (high.log() - low.log()) if needs(label) and label.dtype.kind == "f" else None)


def npair_loss(anchor: Tensor, positive: Tensor, labels: Tensor,
               l2_reg: float = 0.002) -> Tensor:
    """Paddle's N-pair loss ``npair_loss(anchor, positive, labels, l2_reg=0.002)`` for
    embeddings ``anchor`` and ``positive`` [N, D] and ``labels`` [N] (any dtype). With ``T`` the
    row-normalised matrix of label equality (T[i, j] = [l_i == l_j] / #{k: l_k == l_i})::

        l2_reg * 0.25 * (mean_i |anchor_i|^2 + mean_i |positive_i|^2)
          + mean_i of  -sum_j T[i, j] * log_softmax(anchor @ positive.T)[i, j]

    (Paddle writes the second term as the mean over j of sum_i T[i, j] * ce_i, the same
    number since T's rows sum to 1.) A 0-D result; both embeddings take gradients.
    """
    anchor, positive, labels = arrays_to_tensors(anchor, positive, labels)
    fn = "npair_loss"
    _check_tensors(fn, anchor=anchor, positive=positive, labels=labels)
    if isinstance(l2_reg, bool) or not isinstance(l2_reg, (int, float)):
        raise ValueError(f"{fn}: l2_reg={l2_reg!r} must be a number.")
    if anchor.ndim != 2 or positive.shape != anchor.shape or anchor.size == 0 \
            or anchor.dtype.kind != "f" or labels.size != anchor.shape[0]:
        raise ValueError(f"{fn}: anchor and positive must be floating [N, D] of one shape, not "
                         f"empty, and labels hold N values; got anchor {anchor.shape}, positive "
                         f"{positive.shape} and labels {labels.shape}.")
    a, p = anchor.data, positive.data.astype(anchor.dtype, copy=False)
    xp = backend.array_module(a)
    rows = a.shape[0]
    lab = labels.data.reshape(-1)
    same = (lab[:, None] == lab[None, :]).astype(a.dtype)
    targets = same / same.sum(axis=1, keepdims=True)
    reg = a.dtype.type(0.25 * l2_reg)
    l2 = reg * ((a * a).sum() + (p * p).sum()) / rows
    scores = a @ p.T
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_probs = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
    ce = -(targets * log_probs).sum() / rows
    out = xp.asarray(l2 + ce)

    def backward(g):
        g = g.reshape(())
        d_scores = (xp.exp(log_probs) - targets) * (g / rows)  # T's rows sum to 1
        shrink = 2 * reg * g / rows
        return (None if anchor.stop_gradient else d_scores @ p + shrink * a,
                None if positive.stop_gradient else
                (d_scores.T @ a + shrink * p).astype(positive.dtype, copy=False))

    return apply(out, (anchor, positive), backward, fn, _npair_grad)


def _npair_grad(out, g):
    """npair_loss's backward with recorded ops (create_graph): the scores' softmax recomputed,
    the label targets a constant, as the array backward."""
    targets, reg, rows = captured(out, "targets", "reg", "rows")
    a, p = out._parents
    ps = p if p.dtype == a.dtype else p.astype(a.dtype)
    g = g.reshape([])
    d_scores = (softmax(a @ ps.transpose([1, 0]), axis=1) - Tensor(targets)) * (g / rows)
    shrink = g * (2 * float(reg) / rows)
    return (d_scores @ ps + shrink * a if needs(a) else None,
            d_scores.transpose([1, 0]) @ a + shrink * ps if needs(p) else None)
