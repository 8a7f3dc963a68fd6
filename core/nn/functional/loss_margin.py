"""Margin-based softmax for face recognition (ArcFace, CosFace, SphereFace), Paddle's
``margin_cross_entropy``, and the class-centre sampling of PartialFC, ``class_center_sample``.

Both run in one process here (Paddle's ``group`` splits the classes over GPUs; with one rank it
is what is computed here). ``margin_cross_entropy`` is built from differentiable ops, so its
gradient is the one Paddle's kernel writes out by hand: ``(softmax - onehot) * scale``, times
``m1 * sin(m1 * acos(x) + m2) / sqrt(1 - x^2)`` at the target logit when there is an angular
margin.
"""
from __future__ import annotations

import numpy as np

import core
from core import backend
from core.nn.functional.activation import log_softmax, softmax
from core.tensor import Tensor, arrays_to_tensors

__all__ = ["class_center_sample", "margin_cross_entropy"]


def _number(fn: str, what: str, value, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) \
            or (positive and value <= 0):
        kind = "a positive number" if positive else "a finite number"
        raise ValueError(f"{fn}: {what}={value!r} must be {kind}")
    return float(value)


def _labels(fn: str, label: Tensor, n: int, classes: int) -> np.ndarray:
    """Host int64 labels [n] of a [n] or [n, 1] integer tensor, each in [0, classes)."""
    if label.dtype.kind not in "iu" or label.size != n or label.ndim not in (1, 2) \
            or (label.ndim == 2 and label.shape[1] != 1):
        raise ValueError(f"{fn}: label must be an integer tensor of shape [{n}] or [{n}, 1], "
                         f"got shape {label.shape} of {label.dtype}")
    host = backend.to_numpy(label.data).reshape(n).astype(np.int64)
    if n and (host.min() < 0 or host.max() >= classes):
        bad = host[(host < 0) | (host >= classes)][0]
        raise ValueError(f"{fn}: label value {int(bad)} is outside [0, {classes})")
    return host


def margin_cross_entropy(logits: Tensor, label: Tensor, margin1: float = 1.0,
                         margin2: float = 0.5, margin3: float = 0.0, scale: float = 64.0,
                         group=None, return_softmax: bool = False,
                         reduction: str | None = "mean"):
    """Additive/multiplicative angular margin loss (``paddle.nn.functional.
    margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0,
    group=None, return_softmax=False, reduction='mean')``).

    ``logits`` [N, C] are cosines (normalised features times normalised class centres);
    ``label`` [N] or [N, 1]. The target logit becomes ``cos(margin1 * theta + margin2) -
    margin3`` with ``theta = acos(logit)`` (ArcFace: m1=1, m2=0.5; CosFace: m3 > 0;
    SphereFace: m1 > 1), every logit is multiplied by ``scale`` and softmax cross entropy
    follows::

        loss[i] = -log softmax(scale * modified[i])[label[i]]

    ``reduction``: 'mean' (default) or 'sum' give a scalar, None or 'none' the [N, 1] losses.
    With ``return_softmax`` it returns ``(loss, softmax)``, the [N, C] softmax of the scaled,
    modified logits. ``group`` must be None (or False): one process holds every class here.
    """
    fn = "margin_cross_entropy"
    if group not in (None, False):
        raise ValueError(f"{fn}: group={group!r} is not supported; the classes are not split "
                         "over processes here, pass group=None")
    if reduction not in ("mean", "sum", "none", None):
        raise ValueError(f"{fn}: reduction={reduction!r} is not supported; use 'mean', 'sum', "
                         "'none' or None")
    m1, m2, m3 = (_number(fn, w, v) for w, v in
                  (("margin1", margin1), ("margin2", margin2), ("margin3", margin3)))
    s = _number(fn, "scale", scale, positive=True)
    logits, label = arrays_to_tensors(logits, label)
    if logits.ndim != 2 or logits.dtype.kind != "f":
        raise ValueError(f"{fn}: logits must be a 2-D floating tensor [N, C], got shape "
                         f"{logits.shape} of {logits.dtype}")
    n, classes = logits.shape
    host = _labels(fn, label, n, classes)
    xp = backend.array_module(logits.data)
    index = Tensor(xp.asarray(host.reshape(n, 1)))
    target = core.take_along_axis(logits, index, axis=1)  # [N, 1] cos(theta) of the true class
    modified = target
    if m1 != 1.0 or m2 != 0.0:  # Paddle skips acos (and its infinite slope at +-1) otherwise
        modified = core.cos(core.acos(target) * m1 + m2)
    if m3 != 0.0:
        modified = modified - m3
    onehot = xp.zeros((n, classes), dtype=logits.dtype)
    onehot[xp.arange(n), xp.asarray(host)] = 1
    scaled = (logits + Tensor(onehot) * (modified - target)) * s
    loss = -core.take_along_axis(log_softmax(scaled, axis=1), index, axis=1)  # [N, 1]
    if reduction == "mean":
        loss = core.mean(loss)
    elif reduction == "sum":
        loss = core.sum(loss)
    return (loss, softmax(scaled, axis=1)) if return_softmax else loss


def class_center_sample(label: Tensor, num_classes: int, num_samples: int, group=None):
    """Sample class centres for PartialFC (``paddle.nn.functional.class_center_sample(label,
    num_classes, num_samples, group=None)``); returns ``(remapped_label,
    sampled_class_center)``.

    Every class present in ``label`` (a 1-D integer tensor of values in [0, num_classes)) is
    kept, in ascending order; if there are fewer than ``num_samples``, distinct negative
    classes drawn at random (``core.seed``'s generator) follow, unordered, up to
    ``num_samples``. ``remapped_label[i]`` is the position of ``label[i]`` among the sampled
    centres, so ``margin_cross_entropy(logits[:, sampled_class_center], remapped_label)``
    trains on the sample. No gradient (integers), as in Paddle.
    """
    fn = "class_center_sample"
    if group not in (None, False):
        raise ValueError(f"{fn}: group={group!r} is not supported; pass group=None (one "
                         "process holds every class)")
    for what, value in (("num_classes", num_classes), ("num_samples", num_samples)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{fn}: {what}={value!r} must be a positive int")
    if num_samples > num_classes:
        raise ValueError(f"{fn}: num_samples={num_samples} must be at most "
                         f"num_classes={num_classes}")
    (label,) = arrays_to_tensors(label)
    if label.ndim != 1:
        raise ValueError(f"{fn}: label must be 1-D, got shape {label.shape}")
    host = _labels(fn, label, label.shape[0], num_classes)
    positive = np.unique(host)  # ascending, as Paddle's std::set
    sampled = positive
    if positive.size < num_samples:
        negatives = np.setdiff1d(np.arange(num_classes), positive, assume_unique=True)
        drawn = backend.rng().choice(negatives, num_samples - positive.size, replace=False)
        sampled = np.concatenate([positive, drawn])
    xp = backend.array_module(label.data)
    dtype = label.dtype
    remapped = np.searchsorted(positive, host).astype(dtype)
    return (Tensor(xp.asarray(remapped), stop_gradient=True),
            Tensor(xp.asarray(sampled.astype(dtype)), stop_gradient=True))
