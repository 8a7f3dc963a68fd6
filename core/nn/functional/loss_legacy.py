"""Paddle's older loss helpers, still in ``paddle.nn.functional``: ``square_error_cost``,
``softmax_with_cross_entropy`` (the legacy op, which keeps the class axis) and ``label_smooth``.

Each is one fused op, or a thin layer over ``cross_entropy`` (``softmax_with_cross_entropy``
is ``cross_entropy(..., reduction="none")`` with the label's shape kept).
"""
from __future__ import annotations

from core import backend
from core.nn.functional.activation import softmax
from core.nn.functional.loss import cross_entropy
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

    return apply(out, (input, label), backward, "square_error_cost")


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

    return apply(out, parents, backward, "label_smooth")


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
