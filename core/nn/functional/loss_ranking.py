"""Margin and ranking losses with Paddle 3.x names, arguments and defaults, each one fused op.

``margin_ranking_loss`` compares two scores per element; ``cosine_embedding_loss``,
``triplet_margin_loss``, ``multi_label_soft_margin_loss`` and ``multi_margin_loss`` give one
loss per row (the last axis holds the features or classes). Each then reduces as the element-wise
losses do (core.nn.functional.loss_elementwise): ``"mean"`` over the losses, ``"sum"``, or
``"none"``, a reduced loss being 0-D. The backward of each is its closed-form derivative,
computed in the forward pass from arrays it already has, rather than a graph of small ops.
"""
from __future__ import annotations

import functools
import math

from core import backend
from core.nn.functional.distance import norm_grad, pairwise_distance
from core.nn.functional.loss import _bounds, check_reduction
from core.nn.functional.loss_elementwise import (
    _constant_grad,
    _finish,
    _row_reduced_grad,
    _same_shape,
    _weight_tensor,
    _weighted,
)
from core.tensor import Tensor, arrays_to_tensors


def _number(fn: str, name: str, value, low: float | None = None, high: float | None = None,
            low_open: bool = False) -> float:
    """``value`` as a float in [low, high] ((low, high] with ``low_open``), or an error that
    names the argument, the value and what is allowed."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{fn}: {name}={value!r} must be a finite number.")
    too_low = low is not None and (value <= low if low_open else value < low)
    if too_low or (high is not None and value > high):
        lo = "" if low is None else ("> " if low_open else ">= ") + f"{low}"
        hi = "" if high is None else f"<= {high}"
        allowed = " and ".join(bound for bound in (lo, hi) if bound)
        raise ValueError(f"{fn}: {name}={value!r} must be {allowed}.")
    return float(value)


def _tensors(fn: str, **tensors) -> None:
    for what, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: {what} must be a Tensor or a numpy array, got "
                            f"{type(t).__name__}")


def margin_ranking_loss(input: Tensor, other: Tensor, label: Tensor,  # noqa: A002
                        margin: float = 0.0, reduction: str = "mean",
                        name: str | None = None) -> Tensor:
    """``max(0, -label * (input - other) + margin)`` per element (Paddle's
    ``margin_ranking_loss(input, other, label, margin=0.0, reduction='mean', name=None)``):
    label 1 asks ``input`` to rank above ``other`` by ``margin``, -1 below. The three tensors
    broadcast against each other; all three take gradients where the hinge is active.
    """
    del name
    input, other, label = arrays_to_tensors(input, other, label)  # numpy batches too
    check_reduction(reduction, "margin_ranking_loss")
    _tensors("margin_ranking_loss", input=input, other=other, label=label)
    margin = _number("margin_ranking_loss", "margin", margin)
    x = input.data
    y = label.data.astype(x.dtype, copy=False)
    xp = backend.array_module(x)
    diff = x - other.data
    z = margin - y * diff
    active = (z > 0).astype(x.dtype)
    dx = -y * active
    grads = [(input, dx), (other, -dx)]
    if label.data.dtype.kind == "f":
        grads.append((label, -diff * active))
    return _finish(xp.maximum(z, 0), grads, reduction, "margin_ranking_loss", functools.partial(
        _margin_ranking_grad, active=active,
        label=None if label.data.dtype.kind == "f" else Tensor(y)))


def _margin_ranking_grad(out, g, active, label=None):
    """margin_ranking_loss's tensor-level backward (create_graph): where the hinge is active
    (a constant mask), -label, label and -(input - other)."""
    x, other = out._parents[:2]
    y = out._parents[2] if label is None else label
    on = Tensor(active)
    return _row_reduced_grad(out, g, [-y * on, y * on, -(x - other) * on])


_COSINE_EPS = 1e-11  # added to each squared norm: Paddle writes 10e-12 (torch adds 1e-12)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, label: Tensor, margin: float = 0,
                          reduction: str = "mean", name: str | None = None) -> Tensor:
    """Paddle's ``cosine_embedding_loss(input1, input2, label, margin=0, reduction='mean',
    name=None)``: with ``cos`` the cosine similarity of each row pair (last axis),::

        1 - cos                     where label == 1
        max(0, cos - margin)        where label == -1

    (0 for any other label). ``input1`` and ``input2`` are [N, M] (or [M], one pair) and
    ``label`` is [N] (or [1]); ``margin`` must be in [-1, 1]. As Paddle, each squared norm gets
    1e-11 added before the square root (torch adds 1e-12).
    """
    del name
    input1, input2, label = arrays_to_tensors(input1, input2, label)  # numpy batches too
    check_reduction(reduction, "cosine_embedding_loss")
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, label=label)
    margin = _number("cosine_embedding_loss", "margin", margin, -1.0, 1.0)
    if input1.shape != input2.shape or input1.ndim not in (1, 2):
        raise ValueError(f"cosine_embedding_loss: input1 of shape {input1.shape} and input2 of "
                         f"shape {input2.shape} must have the same shape, [N, M] or [M].")
    rows = input1.shape[0] if input1.ndim == 2 else 1
    if label.shape != [rows]:
        raise ValueError(f"cosine_embedding_loss: label of shape {label.shape} must be 1-D with "
                         f"one entry per row of the inputs: [{rows}].")
    a, b = input1.data, input2.data.astype(input1.dtype, copy=False)
    xp = backend.array_module(a)
    if a.ndim == 1:  # one pair: a row of a one-row batch (the gradients fold back by shape)
        a, b = a[None], b[None]
    dot = (a * b).sum(axis=-1)
    sq1 = (a * a).sum(axis=-1) + _COSINE_EPS
    sq2 = (b * b).sum(axis=-1) + _COSINE_EPS
    norms = xp.sqrt(sq1 * sq2)
    cos = dot / norms
    y = label.data
    positive = y == 1
    hinge = (y == -1) & (cos - margin > 0)
    losses = (xp.where(positive, 1 - cos, 0) + xp.where(hinge, cos - margin, 0)).astype(a.dtype)
    dcos = (hinge.astype(a.dtype) - positive.astype(a.dtype))[:, None]
    cos, norms = cos[:, None], norms[:, None]
    grads = [(input1, dcos * (b / norms - cos * a / sq1[:, None])),
             (input2, dcos * (a / norms - cos * b / sq2[:, None]))]
    return _finish(losses, grads, reduction, "cosine_embedding_loss",
                   functools.partial(_cosine_embedding_grad, dcos=dcos))


def _cosine_embedding_grad(out, g, dcos):
    """cosine_embedding_loss's tensor-level backward: the cosine's gradients recomputed as
    recorded ops, times d loss / d cos (-1, 1 on an active hinge, or 0: a constant)."""
    a, b = (t if t.ndim == 2 else t.reshape([1, -1]) for t in out._parents)
    b = b if b.dtype == a.dtype else b.astype(a.dtype)
    sq1 = (a * a).sum(axis=-1, keepdim=True) + _COSINE_EPS
    sq2 = (b * b).sum(axis=-1, keepdim=True) + _COSINE_EPS
    norms = (sq1 * sq2).sqrt()
    cos = (a * b).sum(axis=-1, keepdim=True) / norms
    d = Tensor(dcos)
    return _row_reduced_grad(out, g, [d * (b / norms - cos * a / sq1),
                                      d * (a / norms - cos * b / sq2)])


def _p_norm(xp, v, p: float):
    """``||v||_p`` along the last axis and its gradient with respect to ``v`` (0 where the norm
    is 0, as torch's norm)."""
    if p == 2:
        norm = xp.sqrt((v * v).sum(axis=-1))
        grad = v / xp.where(norm > 0, norm, 1)[..., None]
    elif p == 1:
        norm, grad = abs(v).sum(axis=-1), xp.sign(v)
    else:
        magnitude = abs(v)
        norm = ((magnitude ** p).sum(axis=-1)) ** (1.0 / p)
        safe = xp.where(norm > 0, norm, 1)[..., None]
        grad = xp.sign(v) * (magnitude / safe) ** (p - 1)
    return norm, grad


def triplet_margin_loss(input: Tensor, positive: Tensor, negative: Tensor,  # noqa: A002
                        margin: float = 1.0, p: float = 2.0, epsilon: float = 1e-6,
                        swap: bool = False, reduction: str = "mean",
                        name: str | None = None) -> Tensor:
    """Paddle's ``triplet_margin_loss(input, positive, negative, margin=1.0, p=2.0,
    epsilon=1e-6, swap=False, reduction='mean', name=None)``, one loss per row::

        max(d(input, positive) - d(input, negative) + margin, 0)

    with the distance ``d(a, b) = ||a - b + epsilon||_p`` along the last axis (torch's
    ``pairwise_distance``). ``swap=True`` uses ``min(d(input, negative), d(positive,
    negative))`` as the negative distance. The three inputs share one shape [N, M] (or [M]);
    ``margin`` must be >= 0 (Paddle's check) and ``p`` > 0. All three take gradients.
    """
    del name
    input, positive, negative = arrays_to_tensors(input, positive, negative)
    fn = "triplet_margin_loss"
    check_reduction(reduction, fn)
    _tensors(fn, input=input, positive=positive, negative=negative)
    margin = _number(fn, "margin", margin, 0.0)
    p = _number(fn, "p", p, 0.0, low_open=True)
    epsilon = _number(fn, "epsilon", epsilon)
    if not input.shape == positive.shape == negative.shape or input.ndim == 0:
        raise ValueError(f"{fn}: input {input.shape}, positive {positive.shape} and negative "
                         f"{negative.shape} must have one shape, [N, M] or [M].")
    a, pos, neg = input.data, positive.data, negative.data
    xp = backend.array_module(a)
    d_pos, g_pos = _p_norm(xp, a - pos + epsilon, p)
    d_neg, g_neg = _p_norm(xp, a - neg + epsilon, p)
    if swap:
        d_swap, g_swap = _p_norm(xp, pos - neg + epsilon, p)
        use_swap = d_swap < d_neg
        d_neg = xp.where(use_swap, d_swap, d_neg)
        g_neg, g_swap = g_neg * ~use_swap[..., None], g_swap * use_swap[..., None]
    z = d_pos - d_neg + margin
    active = (z > 0).astype(a.dtype)[..., None]
    g_pos, g_neg = g_pos * active, g_neg * active
    d_positive, d_negative = -g_pos, g_neg
    if swap:
        g_swap = g_swap * active
        d_positive, d_negative = d_positive - g_swap, d_negative + g_swap
    grads = [(input, g_pos - g_neg), (positive, d_positive), (negative, d_negative)]
    masks = (active, use_swap[..., None].astype(a.dtype)) if swap else (active, None)
    return _finish(xp.maximum(z, 0), grads, reduction, fn, functools.partial(
        _triplet_grad, p=p, epsilon=epsilon, masks=masks))


def _triplet_grad(out, g, p: float, epsilon: float, masks):
    """triplet_margin_loss's tensor-level backward: the norms' gradients (``norm_grad``) of
    the recomputed differences; the active hinge and the swap choice are constant masks."""
    a, pos, neg = out._parents
    active, use_swap = (None if m is None else Tensor(m) for m in masks)
    g_pos = norm_grad(a - pos + epsilon, p) * active
    g_neg = norm_grad(a - neg + epsilon, p) * active
    d_positive, d_negative = -g_pos, g_neg
    if use_swap is not None:
        g_swap = norm_grad(pos - neg + epsilon, p) * active * use_swap
        g_neg = g_neg * (1 - use_swap)
        d_positive, d_negative = -g_pos - g_swap, g_neg + g_swap
    return _row_reduced_grad(out, g, [g_pos - g_neg, d_positive, d_negative])


def multi_label_soft_margin_loss(input: Tensor, label: Tensor,  # noqa: A002
                                 weight: Tensor | None = None, reduction: str = "mean",
                                 name: str | None = None) -> Tensor:
    """Paddle's ``multi_label_soft_margin_loss(input, label, weight=None, reduction='mean',
    name=None)``: per row (classes on the last axis), the mean over the C classes of::

        -weight * (label * log(sigmoid(input)) + (1 - label) * log(sigmoid(-input)))

    with 0/1 labels of the input's shape and an optional ``weight`` that broadcasts to it (one
    per class, [C]). Each term is computed as ``softplus(-input) + (1 - label) * input`` with a
    stable softplus, so large logits stay finite; d/d input = weight * (sigmoid(input) - label)
    / C. The unreduced loss has one value per row.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    fn = "multi_label_soft_margin_loss"
    check_reduction(reduction, fn)
    _same_shape(input, label, fn)
    if input.ndim == 0:
        raise ValueError(f"{fn}: input must have a class axis (its last), got a 0-D input.")
    x = input.data
    y = label.data.astype(x.dtype, copy=False)
    xp = backend.array_module(x)
    e = xp.exp(-abs(x))
    per_class = xp.log1p(e) + xp.maximum(-x, 0) + (1 - y) * x  # softplus(-x) + (1 - y) x
    sigmoid = xp.where(x >= 0, 1, e) / (1 + e)
    derivs = [sigmoid - y, -x if label.data.dtype.kind == "f" else None]
    per_class, (dx, dy) = _weighted(per_class, derivs, weight, fn)
    classes = x.shape[-1]
    losses = per_class.sum(axis=-1) / per_class.dtype.type(max(classes, 1))
    grads = [(input, dx / classes)] + ([(label, dy / classes)] if dy is not None else [])
    return _finish(losses, grads, reduction, fn, functools.partial(
        _multi_label_soft_margin_grad, weight=weight,
        label=None if dy is not None else Tensor(y)))


def _multi_label_soft_margin_grad(out, g, weight=None, label=None):
    """multi_label_soft_margin_loss's tensor-level backward: weight * (sigmoid(input) - label)
    and -weight * input, over C (the weight a constant, as in the array backward)."""
    x = out._parents[0]
    y = out._parents[1] if label is None else label
    w = _weight_tensor(weight, x.dtype) / x.shape[-1]
    return _row_reduced_grad(out, g, [(x.sigmoid() - y) * w, -x * w])


def multi_margin_loss(input: Tensor, label: Tensor, p: int = 1, margin: float = 1.0,  # noqa: A002
                      weight: Tensor | None = None, reduction: str = "mean",
                      name: str | None = None) -> Tensor:
    """Paddle's multi-class hinge loss ``multi_margin_loss(input, label, p=1, margin=1.0,
    weight=None, reduction='mean', name=None)``: for scores ``input`` [N, C] and integer labels
    [N] (or [N, 1]), per row::

        sum over j != label of max(0, w * (margin - input[label] + input[j])) ** p  /  C

    times ``w = weight[label]`` (one weight per class, [C]; 1 without), outside the power: what
    Paddle 3.3.1 computes and torch too (Paddle's docstring puts it inside, ``max(0, w * (...))
    ** p``, which differs for ``p=2``). ``p`` is a positive integer (Paddle's ``int``; torch
    takes 1 or 2).
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    fn = "multi_margin_loss"
    check_reduction(reduction, fn)
    _tensors(fn, input=input, label=label)
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"{fn}: p={p!r} must be a positive integer (1 or 2 as a rule).")
    margin = _number(fn, "margin", margin)
    x, lab = input.data, label.data
    if x.ndim != 2 or lab.dtype.kind not in "iu" or lab.size != x.shape[0] or lab.ndim not in (
            1, 2) or lab.shape[0] != x.shape[0]:
        raise ValueError(f"{fn}: input must be [N, C] and label integers of shape [N] or "
                         f"[N, 1]; got input {input.shape} and label {label.shape} "
                         f"({lab.dtype}).")
    rows, classes = x.shape
    lab = lab.reshape(-1)
    _check_classes(lab, classes, label._value_range, fn)
    xp = backend.array_module(x)
    index = xp.arange(rows)
    z = margin - x[index, lab][:, None] + x  # [N, C]; the label's own column is not counted
    if weight is not None:
        _tensors(fn, weight=weight)
        if weight.shape != [classes]:
            raise ValueError(f"{fn}: weight of shape {weight.shape} must be [{classes}], one "
                             "weight per class.")
        w = weight.data.astype(x.dtype, copy=False)[lab][:, None]
    hinge = xp.maximum(z, 0)
    hinge[index, lab] = 0
    powered = hinge ** p if p > 1 else hinge
    if weight is not None:  # outside the power, as Paddle 3.3.1 computes (and torch)
        powered = powered * w
    losses = powered.sum(axis=1) / x.dtype.type(classes)
    slope = (z > 0).astype(x.dtype) if p == 1 else p * hinge ** (p - 1)
    slope[index, lab] = 0
    if weight is not None:
        slope = slope * w
    dx = slope / x.dtype.type(classes)
    dx[index, lab] = -dx.sum(axis=1)
    # create_graph: with p = 1 the loss is piecewise linear (constant derivatives); a higher
    # p recomputes its hinges from the recorded input
    return _finish(losses, [(input, dx)], reduction, fn, _constant_grad if p == 1 else
                   functools.partial(_multi_margin_grad, label=lab, margin=margin, p=p,
                                     weight=None if weight is None else w))


def _multi_margin_grad(out, g, label, margin: float, p: int, weight=None):
    """multi_margin_loss's tensor-level backward for p >= 2 (create_graph): the hinges
    recomputed from the recorded input, ``p hinge^(p - 1) w / C`` for each other class and
    minus their sum for the label's own. Where a hinge is active (z > 0, strict as the mask of
    p = 1 and relu's) is a constant mask: at z = 0 its slope and curvature are 0."""
    x = out._parents[0]
    xp = backend.array_module(x.data)
    classes = x.data.shape[1]
    hot = (xp.arange(classes)[None, :] == label[:, None]).astype(x.data.dtype)
    z = margin - (x * Tensor(hot)).sum(axis=1, keepdim=True) + x
    hinge = z * Tensor(((z.data > 0) & (hot == 0)).astype(x.data.dtype))
    slope = hinge * p if p == 2 else hinge ** (p - 1) * p
    slope = slope * (_weight_tensor(weight, x.dtype) / classes)
    return _row_reduced_grad(out, g, [slope - Tensor(hot) * slope.sum(axis=1, keepdim=True)])


def _check_classes(labels, classes: int, known, fn: str) -> None:
    """Raise on a label outside [0, classes): from the host-side bound ``to_tensor`` recorded
    when there is one (no device read), else from the labels themselves (one read)."""
    if labels.size == 0:
        return
    lo, hi = known if known is not None else _bounds(labels)
    if lo < 0 or hi >= classes:
        if known is not None:  # a loose bound: read the labels themselves before raising
            lo, hi = _bounds(labels)
            if lo >= 0 and hi < classes:
                return
        bad = lo if lo < 0 else hi
        raise ValueError(f"{fn}: label value {bad} is out of range for {classes} classes; "
                         f"labels must be in [0, {classes - 1}].")


def multi_label_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
                            name: str | None = None) -> Tensor:
    """Paddle's multi-class, multi-label hinge loss ``multi_label_margin_loss(input, label,
    reduction='mean', name=None)`` (torch's ``multilabel_margin_loss``). ``input`` is [N, C]
    (or [C]) and ``label`` integers of the same shape: each row lists its target classes and
    ends at the first negative entry (-1 pads). Per row, with T its targets::

        sum over j in T, k not in T of max(0, 1 - (input[j] - input[k]))  /  C

    (a target listed twice counts twice, as in Paddle's and torch's kernels). The unreduced loss
    has one value per row.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    fn = "multi_label_margin_loss"
    check_reduction(reduction, fn)
    _tensors(fn, input=input, label=label)
    if input.ndim not in (1, 2) or label.shape != input.shape or \
            label.data.dtype.kind not in "iu" or input.dtype.kind != "f":
        raise ValueError(f"{fn}: input must be floating, [N, C] or [C], and label integers of "
                         f"the same shape; got input {input.shape} ({input.dtype}) and label "
                         f"{label.shape} ({label.data.dtype}).")
    x, lab = input.data, label.data
    if x.ndim == 1:  # one row: a one-row batch (the gradient folds back by shape)
        x, lab = x[None], lab[None]
    classes = x.shape[1]
    xp = backend.array_module(x)
    # A row's targets stop at its first negative entry (every entry after it is ignored).
    valid = xp.cumprod((lab >= 0).astype(xp.int32), axis=1).astype(bool)  # [N, J]
    safe = xp.where(valid, lab, 0)
    largest = int(backend.to_numpy(safe.max())) if lab.size else 0  # one read
    if largest >= classes:
        raise ValueError(f"{fn}: label value {largest} is out of range for {classes} classes; "
                         f"targets must be in [0, {classes - 1}], padded with -1.")
    # hits[n, j, c]: target j of row n is class c; [N, C, C] booleans, as small as the input's
    # square (rows rarely have many classes).
    hits = (safe[:, :, None] == xp.arange(classes)) & valid[:, :, None]
    is_target = hits.any(axis=1)  # [N, C]
    picked = xp.take_along_axis(x, safe, axis=1)  # [N, J]
    z = 1 - picked[:, :, None] + x[:, None, :]  # [N, J, K]
    active = (valid[:, :, None] & ~is_target[:, None, :] & (z > 0)).astype(x.dtype)
    losses = (z * active).sum(axis=(1, 2)) / x.dtype.type(classes)
    # d/d input[k] = sum_j active[j, k]; d/d input[target j] -= sum_k active[j, k]
    dx = active.sum(axis=1) - (active.sum(axis=2)[:, :, None] * hits).sum(axis=1)
    dx = dx / x.dtype.type(classes)
    if input.ndim == 1:
        losses, dx = losses[0], dx[0]
    return _finish(losses, [(input, dx)], reduction, fn, _constant_grad)  # piecewise linear


def triplet_margin_with_distance_loss(input: Tensor, positive: Tensor,  # noqa: A002
                                      negative: Tensor, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean", name: str | None = None) -> Tensor:
    """Paddle's ``triplet_margin_with_distance_loss(input, positive, negative,
    distance_function=None, margin=1.0, swap=False, reduction='mean', name=None)``, one loss
    per triplet::

        max(d(input, positive) - d(input, negative) + margin, 0)

    ``d`` is ``distance_function`` (any function of two Tensors built from core's
    differentiable ops, returning one distance per row), by default Paddle's
    ``PairwiseDistance(2)``: ``||a - b + 1e-6||_2`` along the last axis. ``swap=True`` uses
    ``min(d(input, negative), d(positive, negative))`` as the negative distance. ``margin``
    must be >= 0, and, as Paddle checks, every distance must be > 0 (a distance function that
    gives 0 or less is a mistake; this reads the distances back once). The three inputs share
    one shape; all take gradients through ``d``.
    """
    del name
    import core  # noqa: PLC0415 - core imports this package while it initialises

    input, positive, negative = arrays_to_tensors(input, positive, negative)
    fn = "triplet_margin_with_distance_loss"
    check_reduction(reduction, fn)
    _tensors(fn, input=input, positive=positive, negative=negative)
    margin = _number(fn, "margin", margin, 0.0)
    if not input.shape == positive.shape == negative.shape:
        raise ValueError(f"{fn}: input {input.shape}, positive {positive.shape} and negative "
                         f"{negative.shape} must have one shape.")
    if distance_function is None:
        distance_function = pairwise_distance  # p=2, epsilon=1e-6: PairwiseDistance(2)
    elif not callable(distance_function):
        raise TypeError(f"{fn}: distance_function={distance_function!r} must be a callable "
                        "of two Tensors (or None for the 2-norm distance).")
    d_pos = distance_function(input, positive)
    d_neg = distance_function(input, negative)
    if swap:
        d_neg = core.minimum(d_neg, distance_function(positive, negative))
    for what, d in (("positive", d_pos), ("negative", d_neg)):
        if not isinstance(d, Tensor):
            raise TypeError(f"{fn}: distance_function must return a Tensor, got "
                            f"{type(d).__name__} for the {what} distance.")
    xp = backend.array_module(d_pos.data)
    smallest = float(backend.to_numpy(xp.minimum(d_pos.data.min(), d_neg.data.min()))) \
        if d_pos.size and d_neg.size else 1.0
    if not smallest > 0:
        raise ValueError(f"{fn}: the positive and negative distances must be > 0, but "
                         f"distance_function gave {smallest}; check the distance function.")
    losses = core.clip(d_pos - d_neg + margin, min=0.0)
    if reduction == "mean":
        return core.mean(losses)
    return core.sum(losses) if reduction == "sum" else losses


__all__ = ["cosine_embedding_loss", "margin_ranking_loss", "multi_label_margin_loss",
           "multi_label_soft_margin_loss", "multi_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]
