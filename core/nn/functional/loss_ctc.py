"""Connectionist temporal classification: Paddle's ``ctc_loss`` (warp-ctc's semantics).

``ctc_loss`` takes UNNORMALISED logits laid out time-major, ``[max_logit_length, batch,
num_classes + 1]``, as Paddle's warp-ctc kernel does: the softmax over the classes is part of the
loss (Paddle calls the argument ``log_probs``, but its docs and kernel apply the softmax inside;
torch's ``ctc_loss`` takes log-probabilities instead, so torch equals this on ``log_softmax``'d
inputs). The forward pass is the alpha recursion of Graves et al. (2006) in log space, vectorised
over the batch and the label positions with the array module, looping over time only; the
backward pass runs the beta recursion and turns the alpha-beta posteriors into the exact gradient
``softmax - occupancy`` with respect to the logits. Under ``grad(create_graph=True)`` both
recursions run again with recorded ops (``_ctc_grad``), so that the occupancy is differentiated
too and derivatives of every order are exact.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.higher_order import captured
from core.indexing import take_along_axis
from core.manipulation import concat, stack
from core.nn.functional.activation import log_softmax
from core.nn.functional.loss import check_reduction
from core.search import where
from core.tensor import Tensor, apply, arrays_to_tensors

__all__ = ["ctc_loss"]


def ctc_loss(log_probs: Tensor, labels: Tensor, input_lengths: Tensor, label_lengths: Tensor,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False,
             zero_infinity: bool = False, *, name: str | None = None) -> Tensor:
    """CTC loss (``paddle.nn.functional.ctc_loss(log_probs, labels, input_lengths,
    label_lengths, blank=0, reduction='mean', norm_by_times=False, zero_infinity=False)``;
    core adds a keyword-only ``name=None`` as its other functionals take).

    ``log_probs`` [max_logit_length, batch, num_classes + 1] holds unnormalised logits (the
    softmax is applied here, as warp-ctc does); ``labels`` [batch, max_label_length] the padded
    targets (any integer dtype; entries past a sample's length are ignored);
    ``input_lengths`` and ``label_lengths`` [batch] the lengths of each sample. ``blank`` is
    the blank class, in [0, num_classes + 1). ``reduction``: ``"none"`` gives the loss of each
    sample ([batch]), ``"sum"`` their sum, ``"mean"`` (Paddle's rule) the mean over the batch of
    each loss divided by its label length. ``norm_by_times`` divides each sample's GRADIENT by
    its input length, leaving the loss as it is (Paddle's warpctc_grad kernel). A sample whose
    labels cannot fit in its frames gets a loss of 0 and no gradient, as warp-ctc gives it;
    that is the only way a sample's loss could be infinite, so ``zero_infinity`` (Paddle 3.x:
    infinite per-sample losses become 0) gives the same result either way.
    """
    del name
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"ctc_loss: zero_infinity must be True or False, got {zero_infinity!r}")
    log_probs, labels, input_lengths, label_lengths = arrays_to_tensors(
        log_probs, labels, input_lengths, label_lengths)  # numpy batches too
    check_reduction(reduction, "ctc_loss")
    x, lab, t_len, l_len = _checked(log_probs, labels, input_lengths, label_lengths, blank)
    xp = backend.array_module(x)
    steps = int(t_len.max())
    lp = _log_softmax(xp, x[:steps])
    ext = _extended(xp, lab, l_len, blank)
    skip = _skips(xp, ext, blank)
    dev_t = xp.asarray(t_len)
    emit = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (steps,) + ext.shape), axis=2)
    alpha = _alphas(xp, emit, skip, dev_t)
    ends = xp.asarray(np.stack([2 * l_len, np.maximum(2 * l_len - 1, 0)], axis=1))
    last = xp.take_along_axis(alpha[-1], ends, axis=1)
    last[:, 1] = xp.where(xp.asarray(l_len) > 0, last[:, 1], -xp.inf)  # no label: one end
    loglik = _logsumexp(xp, last[:, 0], last[:, 1])
    feasible = xp.isfinite(loglik)  # labels longer than the frames allow: warp-ctc's 0
    losses = xp.where(feasible, -loglik, 0).astype(x.dtype, copy=False)
    out, scale = _reduced(xp, losses, l_len, reduction)
    if norm_by_times:
        scale = scale / xp.asarray(t_len, dtype=x.dtype)

    def backward(g):
        per_sample = scale * (g if reduction == "none" else g.reshape(()))
        beta = _betas(xp, emit, skip, dev_t, ends)
        grad = _logit_grad(xp, lp, alpha, beta, loglik, ext, feasible, dev_t)
        with np.errstate(invalid="ignore"):  # 0 * inf: "mean" over an empty label, as Paddle
            grad *= per_sample.astype(grad.dtype, copy=False)[None, :, None]
        if steps < x.shape[0]:  # frames past every input length get no gradient
            grad = xp.concatenate([grad, xp.zeros((x.shape[0] - steps,) + grad.shape[1:],
                                                  dtype=grad.dtype)])
        return (grad,)

    return apply(out, (log_probs,), backward, "ctc_loss", _ctc_grad)


# ----- checks ----------------------------------------------------------------------------------

def _checked(log_probs, labels, input_lengths, label_lengths, blank):
    """The arrays (lengths on the host) after checking shapes, dtypes and values."""
    for what, t in (("log_probs", log_probs), ("labels", labels),
                    ("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if not isinstance(t, Tensor):
            raise TypeError(f"ctc_loss: {what} must be a Tensor or a numpy array, got "
                            f"{type(t).__name__}")
    x = log_probs.data
    if x.ndim != 3 or x.dtype.kind != "f":
        raise ValueError(f"ctc_loss: log_probs must be a 3-D floating tensor [max_logit_length, "
                         f"batch, num_classes + 1], got shape {log_probs.shape} of {x.dtype}")
    steps, batch, classes = x.shape
    if labels.ndim != 2 or labels.shape[0] != batch or labels.dtype.kind not in "iu":
        raise ValueError(f"ctc_loss: labels must be an integer tensor of shape [batch, "
                         f"max_label_length] with batch={batch}, got shape {labels.shape} of "
                         f"{labels.dtype}")
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)) \
            or not 0 <= blank < classes:
        raise ValueError(f"ctc_loss: blank={blank!r} must be an int in [0, {classes}) "
                         f"(num_classes + 1 = {classes}).")
    t_len = _lengths(input_lengths, "input_lengths", batch, 1, steps)
    l_len = _lengths(label_lengths, "label_lengths", batch, 0, labels.shape[1])
    lab = labels.data
    used = lab[:, :int(l_len.max())] if batch else lab[:, :0]
    if used.size:
        xp = backend.array_module(lab)
        inside = xp.arange(used.shape[1])[None, :] < xp.asarray(l_len)[:, None]
        bad = inside & ((used < 0) | (used >= classes) | (used == blank))
        if bool(bad.any()):
            value = int(backend.to_numpy(used[bad])[0])
            raise ValueError(f"ctc_loss: label value {value} is not allowed; labels must be in "
                             f"[0, {classes}) and differ from blank ({blank}).")
    return x, lab, t_len, l_len


def _lengths(t: Tensor, what: str, batch: int, low: int, high: int) -> np.ndarray:
    """A [batch] (or [batch, 1]) integer tensor of lengths in [low, high], as host int64 [batch].
    Paddle's kernel reads the lengths as a flat buffer, so its OCR tutorial's [batch, 1] lengths
    (``paddle.full([BATCH_SIZE, 1], ...)``) work there; they do here."""
    if t.shape not in ([batch], [batch, 1]) or t.dtype.kind not in "iu":
        raise ValueError(f"ctc_loss: {what} must be an integer tensor of shape [{batch}] (or "
                         f"[{batch}, 1]), got shape {t.shape} of {t.dtype}")
    host = backend.to_numpy(t.data).astype(np.int64).reshape(batch)
    if batch and (host.min() < low or host.max() > high):
        bad = host[(host < low) | (host > high)][0]
        raise ValueError(f"ctc_loss: {what} holds {int(bad)}; each must be in [{low}, {high}].")
    return host


# ----- the recursions ----------------------------------------------------------------------

def _log_softmax(xp, x):
    shifted = x - x.max(axis=2, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=2, keepdims=True))


def _extended(xp, lab, l_len: np.ndarray, blank: int):
    """[batch, 2 * max_label_length + 1]: blank, l1, blank, l2, ..., blank (past a sample's own
    length, blanks: those positions are never reached from its start)."""
    width = int(l_len.max()) if l_len.size else 0
    used = lab[:, :width].astype(np.int64, copy=False)
    inside = xp.arange(width)[None, :] < xp.asarray(l_len)[:, None]
    ext = xp.full((lab.shape[0], 2 * width + 1), blank, dtype=np.int64)
    ext[:, 1::2] = xp.where(inside, used, blank)
    return ext


def _skips(xp, ext, blank: int):
    """Where a path may jump two positions (s - 2 -> s): onto a label that differs from the
    label two back (a repeated label needs the blank between)."""
    skip = xp.zeros(ext.shape, dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return skip


def _logsumexp(xp, *terms):
    """log(sum(exp(terms))), element-wise and stable; -inf where every term is -inf."""
    top = terms[0]
    for term in terms[1:]:
        top = xp.maximum(top, term)
    safe = xp.where(xp.isfinite(top), top, 0)
    total = sum(xp.exp(term - safe) for term in terms)
    with np.errstate(divide="ignore"):  # log(0) = -inf: no path
        return xp.log(total) + safe


def _shifted(xp, a, by: int):
    """``a`` moved ``by`` positions along the last axis (right for by > 0), -inf filled."""
    out = xp.full(a.shape, -xp.inf, dtype=a.dtype)
    if by > 0:
        out[:, by:] = a[:, :-by]
    else:
        out[:, :by] = a[:, -by:]
    return out


def _alphas(xp, emit, skip, t_len):
    """log alpha[t, b, s]: the log-probability of the paths over frames 0..t that end at
    position s, emissions included. Past a sample's last frame the values stay those of its
    last frame, so alpha[-1] holds every sample's final ones."""
    alpha = xp.full(emit.shape, -xp.inf, dtype=emit.dtype)
    alpha[0, :, :2] = emit[0, :, :2]
    for t in range(1, emit.shape[0]):
        prev = alpha[t - 1]
        came = _logsumexp(xp, prev, _shifted(xp, prev, 1),
                          xp.where(skip, _shifted(xp, prev, 2), -xp.inf))
        alpha[t] = xp.where((t < t_len)[:, None], came + emit[t], prev)
    return alpha


def _betas(xp, emit, skip, t_len, ends):
    """log beta[t, b, s]: the log-probability of frames t+1..T_b-1 given position s at frame t
    (emission at t excluded), -inf at and past a sample's length."""
    steps, batch, width = emit.shape
    start = xp.full((batch, width), -xp.inf, dtype=emit.dtype)
    rows = xp.arange(batch)
    start[rows, ends[:, 0]] = 0
    start[rows, ends[:, 1]] = 0  # the same position as ends[:, 0] for an empty label
    skip_from = xp.zeros(skip.shape, dtype=bool)  # may a path jump from s to s + 2
    skip_from[:, :-2] = skip[:, 2:]
    beta = xp.full(emit.shape, -xp.inf, dtype=emit.dtype)
    beta[-1] = xp.where((t_len == steps)[:, None], start, -xp.inf)
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + emit[t + 1]
        went = _logsumexp(xp, nxt, _shifted(xp, nxt, -1),
                          xp.where(skip_from, _shifted(xp, nxt, -2), -xp.inf))
        last = (t == t_len - 1)[:, None]
        beta[t] = xp.where(last, start, xp.where((t < t_len - 1)[:, None], went, -xp.inf))
    return beta


def _logit_grad(xp, lp, alpha, beta, loglik, ext, feasible, t_len):
    """d(-loglik) / d logits: softmax minus the posterior occupancy of each class, per frame,
    zero past a sample's length and for infeasible samples."""
    steps, batch, classes = lp.shape
    with np.errstate(invalid="ignore"):  # -inf - -inf for infeasible samples, masked below
        occ = xp.exp(alpha + beta - xp.where(feasible, loglik, 0)[None, :, None])
    # Scatter-add every (t, b, s) into class ext[b, s] with one bincount: exact, vectorised.
    index = (xp.arange(steps * batch).reshape(steps, batch, 1) * classes + ext[None])
    per_class = xp.bincount(index.ravel(), weights=occ.ravel().astype(np.float64),
                            minlength=steps * batch * classes)
    grad = xp.exp(lp) - per_class.reshape(lp.shape).astype(lp.dtype, copy=False)
    live = (xp.arange(steps)[:, None] < t_len[None, :]) & feasible[None, :]
    return xp.where(live[:, :, None], grad, 0).astype(lp.dtype, copy=False)


def _reduced(xp, losses, l_len: np.ndarray, reduction: str):
    """(the reduced loss, d reduced / d each sample's loss)."""
    batch = losses.shape[0]
    if reduction == "none":
        return losses, xp.ones(batch, dtype=losses.dtype)
    if reduction == "sum":
        return xp.asarray(losses.sum()), xp.ones(batch, dtype=losses.dtype)
    # Paddle: mean(loss / label_lengths); a zero label length divides by zero as Paddle's does.
    with np.errstate(divide="ignore", invalid="ignore"):
        per = 1.0 / (xp.asarray(l_len, dtype=losses.dtype) * batch)
        return xp.asarray((losses * per).sum()).astype(losses.dtype, copy=False), per


# ----- the recorded backward (create_graph) --------------------------------------------------

def _ctc_grad(out, g):
    """ctc_loss's backward with recorded ops: the array backward's ``softmax - occupancy``
    with the alpha and beta recursions redone on Tensors from the recorded log-softmax, so the
    occupancy (a posterior of the logits) is differentiated as well. Impossible states hold a
    large finite negative log-probability (``_impossible``) instead of -inf: exp gives the
    same 0 for them, and no -inf - -inf makes a NaN in a gradient that is masked out anyway."""
    ext, skip, t_len, ends, feasible, scale, steps, reduction = captured(
        out, "ext", "skip", "dev_t", "ends", "feasible", "scale", "steps", "reduction")
    (x,) = out._parents
    a = x.data
    xp = backend.array_module(a)
    lp = log_softmax(x[:steps], axis=2)
    emit = take_along_axis(lp, xp.broadcast_to(ext[None], (steps,) + ext.shape), axis=2)
    never = _constant(xp, _impossible(a.dtype), a.dtype)
    alpha = _tensor_alphas(xp, emit, skip, t_len, never)
    beta = _tensor_betas(xp, emit, skip, t_len, ends, never)
    last = take_along_axis(alpha[steps - 1], ends, axis=1)
    # an empty label (ends[:, 0] == 0) has its one end only, as the forward's
    loglik = _tensor_logsumexp(last[:, 0], where(ends[:, 0] > 0, last[:, 1], never))
    loglik = where(feasible, loglik, _constant(xp, 0, a.dtype))
    occupancy = (alpha + beta - loglik.unsqueeze(0).unsqueeze(-1)).exp()
    # per class: the occupancies of the positions that emit it, [batch, steps, S] @ [S, C]
    hot = (ext[:, :, None] == xp.arange(a.shape[2])).astype(a.dtype)
    per_class = (occupancy.transpose([1, 0, 2]) @ Tensor(hot)).transpose([1, 0, 2])
    live = (xp.arange(steps)[:, None] < t_len[None, :]) & feasible[None, :]
    per_sample = Tensor(scale) * (g if reduction == "none" else g.reshape([]))
    grad = (lp.exp() - per_class) * Tensor(live[:, :, None].astype(a.dtype)) \
        * per_sample.astype(a.dtype).reshape([1, -1, 1])
    if steps < a.shape[0]:  # frames past every input length get no gradient
        grad = concat([grad, Tensor(xp.zeros((a.shape[0] - steps,) + a.shape[1:],
                                             dtype=a.dtype))])
    return (grad,)


def _impossible(dtype) -> float:
    """The log-probability of an impossible state on the recorded path: an eighth of the
    dtype's largest magnitude, so that a sum of two (alpha + beta) and a few log-terms stays
    finite, and exp of it is 0."""
    return -float(np.finfo(dtype).max) / 8


def _constant(xp, value, dtype) -> Tensor:
    return Tensor(xp.asarray(value, dtype=dtype))


def _tensor_logsumexp(*terms) -> Tensor:
    """log(sum(exp(terms))) of Tensors, shifted by their maximum as a constant (the value,
    and so every derivative, is the same for any shift)."""
    xp = backend.array_module(terms[0].data)
    top = terms[0].data
    for term in terms[1:]:
        top = xp.maximum(top, term.data)
    top = Tensor(top)
    total = (terms[0] - top).exp()
    for term in terms[1:]:
        total = total + (term - top).exp()
    return total.log() + top


def _tensor_shifted(a: Tensor, by: int, never: Tensor) -> Tensor:
    """``_shifted`` with recorded ops: ``a`` [batch, S] moved ``by`` positions along S,
    filled with the impossible log-probability."""
    batch, width = a.shape
    moved = min(abs(by), width)  # S is 1 when every label is empty
    fill = never.broadcast_to([batch, moved])
    if moved == width:
        return fill
    return concat([fill, a[:, :width - moved]], axis=1) if by > 0 else \
        concat([a[:, moved:], fill], axis=1)


def _tensor_alphas(xp, emit: Tensor, skip, t_len, never: Tensor) -> Tensor:
    """``_alphas`` with recorded ops, [steps, batch, S]."""
    steps, _, width = emit.shape
    alpha = where(xp.arange(width)[None, :] < 2, emit[0], never)
    alphas = [alpha]
    for t in range(1, steps):
        came = _tensor_logsumexp(alpha, _tensor_shifted(alpha, 1, never),
                                 where(skip, _tensor_shifted(alpha, 2, never), never))
        alpha = where((t < t_len)[:, None], came + emit[t], alpha)
        alphas.append(alpha)
    return stack(alphas)


def _tensor_betas(xp, emit: Tensor, skip, t_len, ends, never: Tensor) -> Tensor:
    """``_betas`` with recorded ops, [steps, batch, S]: the start (0 at a sample's ends at its
    last frame) is a constant."""
    steps, batch, width = emit.shape
    never_value = _impossible(emit.data.dtype)
    start = xp.full((batch, width), never_value, dtype=emit.data.dtype)
    rows = xp.arange(batch)
    start[rows, ends[:, 0]] = 0
    start[rows, ends[:, 1]] = 0
    skip_from = xp.zeros(skip.shape, dtype=bool)
    skip_from[:, :-2] = skip[:, 2:]
    beta = Tensor(xp.where((t_len == steps)[:, None], start, never_value).astype(start.dtype))
    betas = [beta]
    for t in range(steps - 2, -1, -1):
        nxt = beta + emit[t + 1]
        went = _tensor_logsumexp(nxt, _tensor_shifted(nxt, -1, never),
                                 where(skip_from, _tensor_shifted(nxt, -2, never), never))
        beta = where((t == t_len - 1)[:, None], Tensor(start),
                     where((t < t_len - 1)[:, None], went, never))
        betas.append(beta)
    return stack(betas[::-1])
