"""RNN transducer loss (Graves, 2012): Paddle's ``rnnt_loss`` (warp-transducer's semantics).

``input`` [B, T_max, U_max + 1, D] holds the joint network's outputs: for frame t having
emitted u labels, a score over D classes, one of them ``blank``. A path through the lattice
moves from (t, u) to (t + 1, u) by emitting blank or to (t, u + 1) by emitting label u + 1,
from (0, 0) to (T - 1, U), then emits a final blank. The loss of a sample is ``-log P(y | x)``,
the log of the sum over every path of its probability.

The log-softmax over D is taken here, as warp-transducer's GPU kernel (which Paddle runs on a
GPU) and torchaudio do; Paddle's CPU kernel (warp-transducer's CPU path) skips it and reads
``input`` as log-probabilities (Paddle's docstring example prints a NEGATIVE loss of raw
scores). log-softmax is idempotent, so on log-probabilities (``F.log_softmax`` output, what
Paddle's docs ask for) the loss is the same on both and here. See docs/paddle.md.

The forward pass is the alpha recursion in log space and the backward the beta recursion,
both one step per anti-diagonal ``t + u = n`` of the lattice, each step vectorised over the
batch and the diagonal: T + U - 1 Python steps per call, whatever the batch.

``fastemit_lambda`` is FastEmit (Yu et al., 2021) as warp-transducer implements it: the loss
is unchanged, and the gradient with respect to each label emission's log-probability is scaled
by ``1 + fastemit_lambda`` before it goes through the log-softmax (blank's is not), which pushes
the model to emit labels earlier. So only ``fastemit_lambda=0`` gives the exact gradient of
the loss; Paddle's default is 0.001.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.nn.functional.loss import check_reduction
from core.tensor import Tensor, apply, arrays_to_tensors

__all__ = ["rnnt_loss"]


def rnnt_loss(input: Tensor, label: Tensor, input_lengths: Tensor,  # noqa: A002 - Paddle's
              label_lengths: Tensor, blank: int = 0, fastemit_lambda: float = 0.001,
              reduction: str = "mean", name: str | None = None) -> Tensor:
    """RNN-T loss (``paddle.nn.functional.rnnt_loss(input, label, input_lengths,
    label_lengths, blank=0, fastemit_lambda=0.001, reduction='mean', name=None)``).

    ``input`` [B, T_max, U_max + 1, D]: scores (log-softmax is applied over D, see the module
    docstring); ``label`` [B, U_max] integer labels (entries past a sample's length are
    ignored); ``input_lengths`` [B] frames per sample, in [1, T_max]; ``label_lengths`` [B]
    labels per sample, in [0, U_max]. ``blank`` in [0, D). The loss of sample b is
    ``-log sum over paths of prod p(step)``, through the lattice of ``alpha(t, u) =
    logaddexp(alpha(t-1, u) + log p_blank(t-1, u), alpha(t, u-1) + log p_{y_u}(t, u-1))`` and
    ``loss_b = -(alpha(T_b - 1, U_b) + log p_blank(T_b - 1, U_b))``. ``reduction``: ``"none"``
    gives [B], ``"sum"`` their sum, ``"mean"`` the sum divided by B (Paddle's rule: not by the
    label lengths). ``fastemit_lambda`` (>= 0) scales the gradient of the label emissions by
    ``1 + fastemit_lambda`` (FastEmit); the loss itself does not change.
    """
    del name
    input, label, input_lengths, label_lengths = arrays_to_tensors(  # noqa: A001
        input, label, input_lengths, label_lengths)
    check_reduction(reduction, "rnnt_loss")
    x, lab, t_len, l_len = _checked(input, label, input_lengths, label_lengths, blank)
    lam = check_fastemit_lambda(fastemit_lambda, "rnnt_loss")
    xp = backend.array_module(x)
    batch, steps, width, classes = x.shape
    lp = _log_softmax(xp, x)
    lat = _Lattice(xp, lp, lab, t_len, l_len, blank)
    alpha = lat.alphas()
    rows = xp.arange(batch)
    last_t, last_u = xp.asarray(t_len - 1), xp.asarray(l_len)
    loglik = alpha[rows, last_t, last_u] + lat.blank[rows, last_t, last_u]
    losses = (-loglik).astype(x.dtype, copy=False)
    if reduction == "none":
        out, scale = losses, None
    else:
        scale = 1.0 / batch if reduction == "mean" else 1.0
        out = xp.asarray(losses.sum() * scale).astype(x.dtype, copy=False)

    def backward(g):
        per_sample = g if scale is None else xp.broadcast_to(g.reshape(1) * scale, (batch,))
        beta = lat.betas()
        g_blank, g_emit = lat.log_prob_grads(alpha, beta, loglik, lam)
        grad = -xp.exp(lp) * (g_blank + g_emit)[..., None]  # through the log-softmax
        grad[..., blank] += g_blank
        index = lat.labels[:, None, :, None]
        column = xp.take_along_axis(grad[:, :, :width - 1], index, axis=3)
        xp.put_along_axis(grad[:, :, :width - 1], index, column + g_emit[:, :, :-1, None],
                          axis=3)
        return (grad * per_sample.astype(x.dtype, copy=False)[:, None, None, None],)

    return apply(out, (input,), backward, "rnnt_loss")


# ----- checks ----------------------------------------------------------------------------------

def _checked(input, label, input_lengths, label_lengths, blank):  # noqa: A002
    """The arrays (lengths on the host) after checking shapes, dtypes and values."""
    for what, t in (("input", input), ("label", label), ("input_lengths", input_lengths),
                    ("label_lengths", label_lengths)):
        if not isinstance(t, Tensor):
            raise TypeError(f"rnnt_loss: {what} must be a Tensor or a numpy array, got "
                            f"{type(t).__name__}")
    x = input.data
    if x.ndim != 4 or x.dtype.kind != "f" or 0 in x.shape:
        raise ValueError(f"rnnt_loss: input must be a non-empty 4-D floating tensor [B, T_max, "
                         f"U_max + 1, D], got shape {input.shape} of {x.dtype}")
    batch, steps, width, classes = x.shape
    if label.ndim != 2 or label.dtype.kind not in "iu" or label.shape != [batch, width - 1]:
        raise ValueError(f"rnnt_loss: label must be an integer tensor of shape [B, U_max] = "
                         f"[{batch}, {width - 1}] (input's third axis is U_max + 1 = {width}), "
                         f"got shape {label.shape} of {label.dtype}")
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)) \
            or not 0 <= blank < classes:
        raise ValueError(f"rnnt_loss: blank={blank!r} must be an int in [0, {classes}) (D, "
                         "input's last axis).")
    t_len = _lengths(input_lengths, "input_lengths", batch, 1, steps)
    l_len = _lengths(label_lengths, "label_lengths", batch, 0, width - 1)
    lab = label.data
    if lab.shape[1]:
        xp = backend.array_module(lab)
        inside = xp.arange(lab.shape[1])[None, :] < xp.asarray(l_len)[:, None]
        bad = inside & ((lab < 0) | (lab >= classes))
        if bool(bad.any()):
            value = int(backend.to_numpy(lab[bad])[0])
            raise ValueError(f"rnnt_loss: label value {value} is outside [0, {classes}) (D, "
                             "input's last axis).")
    return x, lab, t_len, l_len


def _lengths(t: Tensor, what: str, batch: int, low: int, high: int) -> np.ndarray:
    """A [batch] integer tensor of lengths in [low, high], as host int64."""
    if t.ndim != 1 or t.shape[0] != batch or t.dtype.kind not in "iu":
        raise ValueError(f"rnnt_loss: {what} must be an integer tensor of shape [{batch}], got "
                         f"shape {t.shape} of {t.dtype}")
    host = backend.to_numpy(t.data).astype(np.int64)
    if host.min() < low or host.max() > high:
        bad = host[(host < low) | (host > high)][0]
        raise ValueError(f"rnnt_loss: {what} holds {int(bad)}; each must be in [{low}, {high}].")
    return host


def check_fastemit_lambda(value, op: str) -> float:
    """``fastemit_lambda`` as a float, a finite number >= 0 (RNNTLoss checks it at
    construction). warp-transducer's GPU kernel ignores a negative value and its CPU kernel
    would use it, so core refuses one rather than pick."""
    value = value.item() if isinstance(value, Tensor) else value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
            or not math.isfinite(value) or value < 0:
        raise ValueError(f"{op}: fastemit_lambda={value!r} must be a finite number >= 0 "
                         "(0 gives the exact gradient of the loss)")
    return float(value)


# ----- the lattice -----------------------------------------------------------------------------

def _log_softmax(xp, x):
    shifted = x - x.max(axis=3, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=3, keepdims=True))


class _Lattice:
    """The transitions of every sample's lattice, padded to [B, T_max, U_max + 1]: ``up``
    (log-prob of blank, (t, u) -> (t + 1, u)) and ``right`` (of label u + 1, (t, u) -> (t, u +
    1)), -inf where the move leaves the sample's own T_b x (U_b + 1) grid, so that padded cells
    are never reached and both recursions run on the whole padded grid."""

    def __init__(self, xp, lp, lab, t_len: np.ndarray, l_len: np.ndarray, blank: int):
        batch, steps, width, _ = lp.shape
        self.xp, self.shape = xp, (batch, steps, width)
        used = xp.arange(width - 1)[None, :] < xp.asarray(l_len)[:, None]
        self.labels = xp.where(used, lab, blank).astype(np.int64)  # padding reads blank's
        self.blank = lp[..., blank]
        emit = xp.full((batch, steps, width), -xp.inf, dtype=lp.dtype)
        emit[:, :, :-1] = xp.take_along_axis(lp[:, :, :-1], self.labels[:, None, :, None],
                                             axis=3)[..., 0]
        t = xp.arange(steps)[None, :, None]
        u = xp.arange(width)[None, None, :]
        t_end, u_end = xp.asarray(t_len)[:, None, None], xp.asarray(l_len)[:, None, None]
        self.up = xp.where((t < t_end - 1) & (u <= u_end), self.blank, -xp.inf)
        self.right = xp.where((t < t_end) & (u < u_end), emit, -xp.inf)
        self.end = (t == t_end - 1) & (u == u_end)  # each sample's last cell

    def _diagonal(self, n: int):
        """The (t, u) cells with t + u = n, as device index arrays."""
        _, steps, width = self.shape
        t = np.arange(max(0, n - width + 1), min(n, steps - 1) + 1)
        return self.xp.asarray(t), self.xp.asarray(n - t)

    def alphas(self):
        """log alpha[b, t, u]: the log-probability of reaching (t, u), in a grid padded with a
        -inf row and column in front so that (t - 1, u) and (t, u - 1) always exist."""
        xp = self.xp
        batch, steps, width = self.shape
        a = xp.full((batch, steps + 1, width + 1), -xp.inf, dtype=self.blank.dtype)
        a[:, 1, 1] = 0
        up = xp.pad(self.up, ((0, 0), (1, 0), (1, 0)), constant_values=-np.inf)
        right = xp.pad(self.right, ((0, 0), (1, 0), (1, 0)), constant_values=-np.inf)
        for n in range(1, steps + width - 1):
            t, u = self._diagonal(n)
            t, u = t + 1, u + 1
            a[:, t, u] = xp.logaddexp(a[:, t - 1, u] + up[:, t - 1, u],
                                      a[:, t, u - 1] + right[:, t, u - 1])
        return a[:, 1:, 1:]

    def betas(self):
        """log beta[b, t, u]: the log-probability of finishing from (t, u), the final blank
        included (warp-transducer's convention), padded with a -inf row and column behind."""
        xp = self.xp
        batch, steps, width = self.shape
        b = xp.full((batch, steps + 1, width + 1), -xp.inf, dtype=self.blank.dtype)
        b[:, :steps, :width] = xp.where(self.end, self.blank, -xp.inf)
        for n in range(steps + width - 2, -1, -1):
            t, u = self._diagonal(n)
            went = xp.logaddexp(b[:, t + 1, u] + self.up[:, t, u],
                                b[:, t, u + 1] + self.right[:, t, u])
            b[:, t, u] = xp.where(self.end[:, t, u], b[:, t, u], went)
        return b

    def log_prob_grads(self, alpha, beta, loglik, lam: float):
        """d loss / d log p_blank and d loss / d log p_label at each cell, the latter times
        ``1 + lam`` (FastEmit); zero outside each sample's grid."""
        xp = self.xp
        steps, width = self.shape[1:]
        ll = loglik[:, None, None]
        g_blank = -xp.exp(alpha + self.up + beta[:, 1:steps + 1, :width] - ll)
        # The final blank: exp of -inf off each sample's last cell (alpha - ll of other cells
        # can be large, and exp of it would overflow before a where dropped it).
        g_blank = g_blank - xp.exp(xp.where(self.end, alpha + self.blank - ll, -xp.inf))
        g_emit = -(1.0 + lam) * xp.exp(alpha + self.right + beta[:, :steps, 1:width + 1] - ll)
        return g_blank, g_emit.astype(g_blank.dtype, copy=False)
