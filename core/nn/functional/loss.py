"""Loss functions: ``cross_entropy``, ``nll_loss`` and ``mse_loss`` (Paddle's), each one fused op.

``cross_entropy`` runs every training step, so it computes the log-softmax once (shifted by the
row maximum) and its backward is ``(softmax - onehot) * scale`` written straight into one array,
instead of a graph of a dozen small ops. A reduced loss is 0-D (shape []), as in Paddle 3.x and as
``core.mean``/``core.sum``: one rule across core (docs/paddle.md).
"""
from __future__ import annotations

from core import autocast, backend
from core.higher_order import captured, linear_grad, needs
from core.nn.functional.activation import softmax
from core.tensor import Tensor, apply, arrays_to_tensors

_REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction: str, fn: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{fn}: reduction={reduction!r} is not supported; "
                         f"use one of {_REDUCTIONS}.")


def cross_entropy(input: Tensor, label: Tensor, weight: Tensor | None = None,  # noqa: A002
                  ignore_index: int = -100, reduction: str = "mean", soft_label: bool = False,
                  axis: int = -1, use_softmax: bool = True, label_smoothing: float = 0.0,
                  name: str | None = None) -> Tensor:
    """Softmax cross entropy between logits ``input`` and ``label`` (Paddle's semantics).

    Hard labels are integers shaped like ``input`` without ``axis`` ([N] for [N, C] logits) or
    with ``axis`` of size 1 ([N, 1]); rows whose label is ``ignore_index`` contribute nothing and
    ``"mean"`` divides by the number of other rows (by the sum of their class ``weight`` when
    given). Soft labels (``soft_label=True``) are probabilities shaped like ``input``. With
    ``use_softmax=False`` the input is taken to be probabilities already. ``reduction="none"``
    returns one loss per row, shaped like a hard label.

    ``label_smoothing`` (eps, in [0, 1)) trains against the target ``(1 - eps) * one_hot +
    eps / C`` (soft labels: ``(1 - eps) * label + eps / C``). With class ``weight`` a hard
    row's loss is ``-(sum_c target[c] * log p[c]) * sum_c target[c] * weight[c]`` and
    ``"mean"`` divides by the summed ``sum_c target[c] * weight[c]`` of the counted rows, as
    Paddle 3.3.1 (which smooths into a soft label); torch weights inside the sum instead.

    Two deliberate differences from Paddle 3.3.1 (docs/paddle.md): with ignored rows and no
    ``weight``, ``"mean"`` divides by the counted rows (torch's rule: the mean over the samples
    that count), where Paddle divides by all rows; and a row's loss is exact, where Paddle clips
    the shifted logits at -64 before its softmax, so its losses stop near 64.
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        input, label, weight = autocast.cast_inputs("cross_entropy", input, label, weight)
    check_reduction(reduction, "cross_entropy")
    x = input.data
    if x.ndim < 1 or not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"cross_entropy: axis={axis!r} is not valid for an input of shape "
                         f"{input.shape}; use an integer in [{-x.ndim}, {x.ndim - 1}].")
    axis %= x.ndim
    xp = backend.array_module(x)
    num_classes = x.shape[axis]
    moved = xp.moveaxis(x, axis, -1) if axis != x.ndim - 1 else x
    rows = moved.reshape(-1, num_classes)
    if weight is not None and tuple(weight.data.shape) != (num_classes,):
        raise ValueError(f"cross_entropy: weight of shape {weight.shape} does not fit "
                         f"{num_classes} classes; it must be one weight per class, "
                         f"[{num_classes}].")
    if label_smoothing:  # the default 0.0 skips all of this (every training step)
        check_smoothing(label_smoothing)
        if soft_label:
            label = label * (1.0 - label_smoothing) + label_smoothing / num_classes
    if soft_label:
        return _soft_cross_entropy(input, label, weight, reduction, axis, use_softmax, rows)
    labels, out_shape = _hard_labels(input, label, axis, num_classes)
    valid = _check_label_values(labels, num_classes, ignore_index, label._value_range)
    safe = labels if valid is None else xp.where(valid, labels, 0)
    if label_smoothing:
        return _smoothed_cross_entropy(input, rows, safe, valid, weight, label_smoothing,
                                       reduction, use_softmax, out_shape, axis, moved.shape)
    index = xp.arange(rows.shape[0])

    if use_softmax:  # one fused kernel on a GPU (backend_kernels), plain numpy on the host
        nll, probs = backend.kernels(rows).softmax_xent(rows, safe)
    else:
        picked = rows[index, safe]
        if valid is not None:  # an ignored row's stand-in class may have probability 0
            picked = xp.where(valid, picked, 1)
        nll = -xp.log(picked)

    row_weight = None if valid is None else valid.astype(x.dtype)
    if weight is not None:
        class_weight = weight.data.astype(x.dtype, copy=False)[safe]
        row_weight = class_weight if row_weight is None else class_weight * row_weight
    losses = nll if row_weight is None else nll * row_weight
    denom = _mean_denominator(row_weight, rows.shape[0])
    out = _reduce(losses, reduction, denom, out_shape)

    def backward(g):
        coef = _row_coefficients(g, reduction, denom, row_weight, rows.shape[0], x.dtype)
        if use_softmax:
            grad = backend.kernels(probs).softmax_xent_grad(probs, safe, coef)
        else:
            grad = xp.zeros_like(rows)
            grad[index, safe] = -coef / picked
        return (_restore(grad, moved.shape, axis, xp),)

    def grad_fn(out, g):  # (softmax - one_hot) * coefficient per row, with Tensors
        coef = g.reshape([-1]) if reduction == "none" else \
            g.reshape([1]) / denom if reduction == "mean" else g.reshape([1])
        if row_weight is not None:
            coef = coef * Tensor(row_weight)
        perm = [i for i in range(x.ndim) if i != axis] + [axis]
        logits = input.transpose(perm).reshape([-1, num_classes])
        one_hot = Tensor(xp.eye(num_classes, dtype=x.dtype)[safe])
        if use_softmax:
            grad = (softmax(logits, axis=-1) - one_hot) * coef.unsqueeze(-1)
        else:  # -coefficient / p at the label; an ignored row (coefficient 0) divides by 1
            chosen = (logits * one_hot).sum(axis=-1)
            if valid is not None:
                kept = Tensor(valid.astype(x.dtype))
                chosen = chosen * kept + (1 - kept)
            grad = -one_hot * (coef / chosen).unsqueeze(-1)
        return (grad.reshape(list(moved.shape)).transpose([perm.index(i) for i in range(x.ndim)]),)

    return apply(out, (input,), backward, "cross_entropy", grad_fn)


def check_smoothing(label_smoothing) -> None:
    if (isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float))
            or not 0.0 <= label_smoothing < 1.0):
        raise ValueError(f"cross_entropy: label_smoothing={label_smoothing!r} must be a "
                         "number in [0, 1) (0 means no smoothing).")


def _smoothed_cross_entropy(input: Tensor, rows, safe, valid, weight, eps: float,
                            reduction: str, use_softmax: bool, out_shape, axis: int,
                            moved_shape) -> Tensor:
    """Hard labels with label smoothing: ``-sum_c target[c] * log p[c]`` per row, where
    ``target`` is the smoothed one-hot times the class weights, zero on ignored rows."""
    xp = backend.array_module(rows)
    n, num_classes = rows.shape
    target = xp.full(rows.shape, eps / num_classes, dtype=rows.dtype)
    target[xp.arange(n), safe] += 1.0 - eps
    # Paddle smooths into a soft label: with class weights a row's loss -sum_c target[c] *
    # log p[c] is scaled by the target's expected weight sum_c target[c] * weight[c], and
    # "mean" divides by the sum of those (Paddle's soft-label rule; torch weights inside the sum)
    row_weight = None if valid is None else valid.astype(rows.dtype)
    if weight is not None:
        expected = target @ weight.data.astype(rows.dtype, copy=False)
        row_weight = expected if row_weight is None else expected * row_weight
    if row_weight is not None:
        target *= row_weight[:, None]
    if use_softmax:
        shifted = rows - rows.max(axis=1, keepdims=True)
        logp = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
    else:  # log only where the target counts: an ignored row may hold probability 0
        probs = xp.where(target != 0, rows, 1)
        logp = xp.log(probs)
    losses = -(target * logp).sum(axis=1)
    denom = _mean_denominator(row_weight, n)
    out = _reduce(losses, reduction, denom, out_shape)

    def backward(g):
        coef = _row_coefficients(g, reduction, denom, None, n, rows.dtype)[:, None]
        if use_softmax:
            grad = (xp.exp(logp) * target.sum(axis=1, keepdims=True) - target) * coef
        else:
            grad = -target / probs * coef
        return (_restore(grad, moved_shape, axis, xp),)

    return apply(out, (input,), backward, "cross_entropy", _smoothed_cross_entropy_grad)


def _smoothed_cross_entropy_grad(out, g):
    """The smoothed hard-label backward with recorded ops (create_graph); the smoothed,
    weighted target is a constant, as on the first-order path."""
    target, use_softmax, reduction, denom, axis, moved_shape = captured(
        out, "target", "use_softmax", "reduction", "denom", "axis", "moved_shape")
    rows = out._parents[0].moveaxis(axis, -1).reshape([-1, moved_shape[-1]])
    coef = (g.reshape([-1, 1]) if reduction == "none"
            else g.reshape([]) / denom if reduction == "mean" else g.reshape([]))
    goal = Tensor(target)
    if use_softmax:
        grad = (softmax(rows, axis=-1) * goal.sum(axis=1, keepdim=True) - goal) * coef
    else:  # log only where the target counts, as the forward: elsewhere the row stands in as 1
        counts = Tensor((target != 0).astype(target.dtype))
        grad = -goal / (rows * counts + (1 - counts)) * coef
    return (grad.reshape(list(moved_shape)).moveaxis(-1, axis),)


def _hard_labels(input: Tensor, label: Tensor, axis: int, num_classes: int):
    """Flat integer labels and the shape of an unreduced loss (the label's shape)."""
    lab = label.data
    if lab.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy: label has dtype {lab.dtype}, but hard labels must be "
                        "integers (int64); pass soft_label=True for probability labels.")
    shape = list(input.shape)
    without = shape[:axis] + shape[axis + 1:]
    with_one = shape[:axis] + [1] + shape[axis + 1:]
    if list(lab.shape) == with_one:
        lab = lab.reshape(without)
    elif list(lab.shape) != without:
        raise ValueError(f"cross_entropy: label of shape {label.shape} does not fit input of "
                         f"shape {input.shape} with axis={axis}; the label must have shape "
                         f"{without} or {with_one} ({num_classes} classes).")
    return lab.reshape(-1), tuple(label.data.shape)


def _check_label_values(labels, num_classes: int, ignore_index: int, known=None,
                        fn: str = "cross_entropy"):
    """The mask of non-ignored rows (None when every row counts); raise on labels out of range.

    ``known`` is a (min, max) bound of the labels read on the host before their upload
    (``Tensor._value_range``, set by ``to_tensor``). When it proves every label a class, no
    device read is needed: on a GPU that read would be a second host synchronisation per
    training step. Anything else (no bound, or a bound that allows a bad label) takes the exact
    path below, which reads the device and raises on a label that really is out of range.
    """
    if labels.size == 0:
        return None
    if known is not None and 0 <= known[0] and known[1] < num_classes:
        return labels != ignore_index if known[0] <= ignore_index <= known[1] else None
    lo, hi = _bounds(labels)
    valid, kept = None, labels
    if lo <= ignore_index <= hi:
        valid = labels != ignore_index
        kept = labels[valid]
        if kept.size == 0:
            return valid
        lo, hi = _bounds(kept)
    if lo < 0 or hi >= num_classes:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{fn}: label value {bad} is out of range for {num_classes} "
                         f"classes; labels must be in [0, {num_classes - 1}] or equal "
                         f"ignore_index ({ignore_index}).")
    return valid


def _bounds(labels) -> tuple[int, int]:
    """(min, max) of ``labels`` read back in one transfer (one GPU sync, not two)."""
    xp = backend.array_module(labels)
    lo, hi = backend.to_numpy(xp.stack([labels.min(), labels.max()])).tolist()
    return int(lo), int(hi)


def _mean_denominator(row_weight, n_rows: int) -> float:
    """What "mean" divides by: the summed weight of the counted rows (never 0)."""
    total = float(n_rows) if row_weight is None else float(row_weight.sum())
    return total if total != 0 else 1.0


def _reduce(losses, reduction: str, denom: float, out_shape):
    if reduction == "none":
        return losses.reshape(out_shape)
    total = backend.array_module(losses).asarray(losses.sum())  # 0-D, never a numpy scalar
    return total / losses.dtype.type(denom) if reduction == "mean" else total


def _row_coefficients(g, reduction: str, denom: float, row_weight, n_rows: int, dtype):
    """d loss / d (row's negative log-likelihood), one value per row."""
    if reduction == "none":
        coef = g.reshape(-1).astype(dtype, copy=False)
        return coef if row_weight is None else coef * row_weight
    scale = g.reshape(()) / denom if reduction == "mean" else g.reshape(())
    if row_weight is None:
        return backend.array_module(g).full(n_rows, scale, dtype=dtype)
    return (row_weight * scale).astype(dtype, copy=False)


def _restore(grad_rows, moved_shape, axis: int, xp):
    grad = grad_rows.reshape(moved_shape)
    return grad if axis == len(moved_shape) - 1 else xp.moveaxis(grad, -1, axis)


def _soft_cross_entropy(input: Tensor, label: Tensor, weight, reduction: str, axis: int,
                        use_softmax: bool, rows) -> Tensor:
    """-sum(label * log p) per row, for probability labels shaped like the input."""
    x, lab = input.data, label.data
    if list(lab.shape) != input.shape or lab.dtype.kind != "f":
        raise ValueError(f"cross_entropy: with soft_label=True the label must be floating "
                         f"probabilities of the input's shape {input.shape}; got shape "
                         f"{label.shape} and dtype {lab.dtype}.")
    xp = backend.array_module(x)
    lab_rows = (xp.moveaxis(lab, axis, -1) if axis != x.ndim - 1 else lab).reshape(rows.shape)
    if use_softmax:
        shifted = rows - rows.max(axis=1, keepdims=True)
        logp = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
    else:
        logp = xp.log(rows)
    losses = -(lab_rows * logp).sum(axis=1)
    row_weight = None if weight is None else lab_rows @ weight.data.astype(x.dtype, copy=False)
    if row_weight is not None:
        losses = losses * row_weight
    denom = _mean_denominator(row_weight, rows.shape[0])
    out_shape = list(input.shape)
    out_shape[axis] = 1
    out = _reduce(losses, reduction, denom, tuple(out_shape))
    moved_shape = xp.moveaxis(x, axis, -1).shape

    def backward(g):
        coef = _row_coefficients(g, reduction, denom, row_weight, rows.shape[0], x.dtype)[:, None]
        gx = gl = None
        if not input.stop_gradient:
            if use_softmax:
                gx = (xp.exp(logp) * lab_rows.sum(axis=1, keepdims=True) - lab_rows) * coef
            else:
                gx = -lab_rows / rows * coef
            gx = _restore(gx, moved_shape, axis, xp)
        if not label.stop_gradient:
            gl = _restore(-logp * coef, moved_shape, axis, xp)
        return gx, gl

    return apply(out, (input, label), backward, "cross_entropy", _soft_cross_entropy_grad)


def _soft_cross_entropy_grad(out, g):
    """The array backward with recorded ops (create_graph); the per-row weights (the label's
    weighted sum) are constants there too, as on the first-order path."""
    use_softmax, reduction, denom, row_weight, rows, axis = captured(
        out, "use_softmax", "reduction", "denom", "row_weight", "rows", "axis")
    x, lab = (t.moveaxis(axis, -1).reshape(list(rows.shape)) for t in out._parents)
    weights = 1 if row_weight is None else Tensor(row_weight)
    coef = (g.reshape([-1]) if reduction == "none"
            else g.reshape([]) / denom if reduction == "mean" else g.reshape([]))
    coef = (coef * weights).unsqueeze(-1) if reduction == "none" or row_weight is not None \
        else coef
    logp = x - x.logsumexp(axis=1, keepdim=True) if use_softmax else x.log()
    gx = gl = None
    if needs(out._parents[0]):
        gx = (logp.exp() * lab.sum(axis=1, keepdim=True) - lab) * coef if use_softmax \
            else -(lab / x) * coef
        gx = gx.reshape(_moved(out._parents[0].shape, axis)).moveaxis(-1, axis)
    if needs(out._parents[1]):
        gl = (-(logp * coef)).reshape(_moved(out._parents[1].shape, axis)).moveaxis(-1, axis)
    return gx, gl


def _moved(shape, axis: int) -> list:
    """``shape`` with ``axis`` moved last (where the rows' classes are)."""
    shape = list(shape)
    return shape[:axis] + shape[axis + 1:] + [shape[axis]]


def nll_loss(input: Tensor, label: Tensor, weight: Tensor | None = None,  # noqa: A002
             ignore_index: int = -100, reduction: str = "mean",
             name: str | None = None) -> Tensor:
    """Negative log-likelihood of ``label`` under log-probabilities ``input`` (Paddle's).

    ``input`` is [N, C] or [N, C, d1, ...] (classes on axis 1, e.g. a ``log_softmax`` output),
    ``label`` integers of shape [N] or [N, d1, ...]; with a 2-D input also [N, 1] (Paddle's
    kernel checks only the batch size there, and its PointNet tutorial passes [N, 1] labels;
    ``"none"`` still gives [N]). Each counted element contributes
    ``-weight[label] * input[label]``; ``"mean"`` divides by the summed weight of the elements
    whose label is not ``ignore_index`` (as ``cross_entropy``).
    """
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        input, weight = autocast.cast_inputs("nll_loss", input, weight)
    check_reduction(reduction, "nll_loss")
    x, lab = input.data, label.data
    if x.ndim == 2 and lab.shape == (x.shape[0], 1):
        lab = lab.reshape(x.shape[0])
    if x.ndim < 2 or lab.dtype.kind not in "iu" or list(lab.shape) != [x.shape[0]] + list(
            x.shape[2:]):
        raise ValueError(f"nll_loss: input must be [N, C, ...] and label integers of shape "
                         f"[N, ...] without the class axis; got input {input.shape} and label "
                         f"{label.shape} ({lab.dtype}).")
    xp = backend.array_module(x)
    num_classes = x.shape[1]
    if weight is not None and tuple(weight.data.shape) != (num_classes,):
        raise ValueError(f"nll_loss: weight of shape {weight.shape} must be [{num_classes}].")
    moved = xp.moveaxis(x, 1, -1)
    rows, labels = moved.reshape(-1, num_classes), lab.reshape(-1)
    valid = _check_label_values(labels, num_classes, ignore_index, label._value_range, "nll_loss")
    safe = labels if valid is None else xp.where(valid, labels, 0)
    index = xp.arange(rows.shape[0])
    row_weight = None if valid is None else valid.astype(x.dtype)
    if weight is not None:
        class_weight = weight.data.astype(x.dtype, copy=False)[safe]
        row_weight = class_weight if row_weight is None else class_weight * row_weight
    losses = -rows[index, safe]
    losses = losses if row_weight is None else losses * row_weight
    denom = _mean_denominator(row_weight, rows.shape[0])
    out = _reduce(losses, reduction, denom, tuple(lab.shape))

    def backward(g):
        coef = _row_coefficients(g, reduction, denom, row_weight, rows.shape[0], x.dtype)
        grad = xp.zeros_like(rows)
        grad[index, safe] = -coef
        return (xp.moveaxis(grad.reshape(moved.shape), -1, 1),)

    def grad_fn(_out, g):  # create_graph: linear in input, so its Jacobian is the loss itself
        return (linear_grad(apply, g, backward, lambda h: nll_loss(
            h, label, weight, ignore_index, reduction), "nll_loss_grad"),)

    return apply(out, (input,), backward, "nll_loss", grad_fn)


def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean",  # noqa: A002
             name: str | None = None) -> Tensor:
    """Mean squared error (input - label)^2, reduced by ``reduction``; shapes must match."""
    del name
    input, label = arrays_to_tensors(input, label)  # numpy batches too
    check_reduction(reduction, "mse_loss")
    if input.shape != label.shape:
        raise ValueError(f"mse_loss: input of shape {input.shape} and label of shape "
                         f"{label.shape} differ; they must have the same shape (reshape the "
                         "label, e.g. [N] versus [N, 1], rather than rely on broadcasting).")
    diff = input.data - label.data
    squared = diff * diff
    n = max(diff.size, 1)
    if reduction == "none":
        out = squared
    else:
        out = backend.array_module(squared).asarray(squared.sum())  # 0-D
        if reduction == "mean":
            out = out / out.dtype.type(n)

    def backward(g):
        coef = 2 * g if reduction == "none" else 2 * g.reshape(()) / (n if reduction == "mean"
                                                                      else 1)
        grad = diff * coef
        return (grad if not input.stop_gradient else None,
                -grad if not label.stop_gradient else None)

    def grad_fn(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
        coef = g * 2 if reduction == "none" else g * (2 / (n if reduction == "mean" else 1))
        grad = (input - label) * coef
        return (grad if needs(input) else None, -grad if needs(label) else None)

    return apply(out, (input, label), backward, "mse_loss", grad_fn)
