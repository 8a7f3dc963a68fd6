"""Adaptive softmax (Grave et al., 2017), Paddle's ``adaptive_log_softmax_with_loss``.

Frequent classes (below ``cutoffs[0]``) sit in a head softmax together with one entry per tail
cluster; the rarer classes of cluster ``i`` get a second softmax over a low-rank projection,
computed only for the samples whose label falls in that cluster. The log-probability of a tail
class is ``head_logprob[cluster entry] + cluster_logprob[class]``. The sample routing is done on
the host (labels are integers); everything that carries a gradient is a differentiable op.
"""
from __future__ import annotations

import numpy as np

import core
from core import backend
from core.nn.functional.activation import log_softmax
from core.tensor import Tensor, arrays_to_tensors

__all__ = ["adaptive_log_prob", "adaptive_log_softmax_with_loss", "check_cutoffs"]


def check_cutoffs(fn: str, cutoffs, n_classes: int | None = None) -> list[int]:
    """``cutoffs`` as a list of increasing positive ints (below ``n_classes`` when given)."""
    values = list(cutoffs) if isinstance(cutoffs, (list, tuple)) else None
    if not values or any(isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c <= 0
                         for c in values) or sorted(set(values)) != values \
            or (n_classes is not None and values[-1] >= n_classes):
        limit = "" if n_classes is None else f", each below n_classes={n_classes}"
        raise ValueError(f"{fn}: cutoffs={cutoffs!r} must be a non-empty list of increasing "
                         f"positive ints{limit}")
    return [int(c) for c in values]


def adaptive_log_softmax_with_loss(input: Tensor, label: Tensor, head_weight: Tensor,  # noqa: A002
                                   tail_weights, cutoffs, head_bias: Tensor | None = None,
                                   name: str | None = None):
    """Adaptive log-softmax (``paddle.nn.functional.adaptive_log_softmax_with_loss(input,
    label, head_weight, tail_weights, cutoffs, head_bias=None, name=None)``); returns
    ``(output, loss)``.

    ``input`` [N, in_features] (or [in_features] with a 0-D label); ``label`` [N] classes in
    [0, n_classes); ``cutoffs`` the increasing class boundaries ENDING with n_classes (as
    ``AdaptiveLogSoftmaxWithLoss`` passes them); ``head_weight`` [in_features, cutoffs[0] +
    n_clusters] (input @ head_weight, Paddle's layout, not torch's transposed Linear weight);
    ``tail_weights[i]`` the pair [in_features, hidden_i] and [hidden_i, cutoffs[i+1] -
    cutoffs[i]] of cluster i. ``output[n]`` is the log-probability of ``label[n]``::

        head = log_softmax(input @ head_weight + head_bias)
        output = head[label]                                      (label < cutoffs[0])
        output = head[cutoffs[0] + i] + log_softmax(input @ W1_i @ W2_i)[label - cutoffs[i]]

    and ``loss = mean(-output)``.
    """
    del name
    fn = "adaptive_log_softmax_with_loss"
    input, label, head_weight = arrays_to_tensors(input, label, head_weight)  # noqa: A001
    bounds = check_cutoffs(fn, cutoffs)
    batched = label.ndim > 0
    if batched and (input.ndim != 2 or label.ndim != 1 or input.shape[0] != label.shape[0]):
        raise ValueError(f"{fn}: input must be [N, in_features] and label [N], got shapes "
                         f"{input.shape} and {label.shape}")
    if not batched and input.ndim != 1:
        raise ValueError(f"{fn}: a 0-D label needs a 1-D input, got shape {input.shape}")
    if not batched:
        input, label = core.unsqueeze(input, 0), core.unsqueeze(label, 0)  # noqa: A001
    if input.dtype.kind != "f" or label.dtype.kind not in "iu":
        raise ValueError(f"{fn}: input must be floating and label integer, got {input.dtype} "
                         f"and {label.dtype}")
    shortlist, clusters = bounds[0], len(bounds) - 1
    features = input.shape[1]
    if tuple(head_weight.shape) != (features, shortlist + clusters):
        raise ValueError(f"{fn}: head_weight must be [{features}, {shortlist + clusters}] "
                         f"(in_features, cutoffs[0] + clusters), got {head_weight.shape}")
    if len(tail_weights) != clusters:
        raise ValueError(f"{fn}: tail_weights has {len(tail_weights)} entries, one per cluster "
                         f"({clusters}) is needed")
    host = backend.to_numpy(label.data).astype(np.int64)
    if host.size and (host.min() < 0 or host.max() >= bounds[-1]):
        bad = host[(host < 0) | (host >= bounds[-1])][0]
        raise ValueError(f"{fn}: label value {int(bad)} is outside [0, n_classes={bounds[-1]})")
    xp = backend.array_module(input.data)
    head = core.matmul(input, head_weight)
    if head_bias is not None:
        head = head + head_bias
    cluster = np.searchsorted(np.asarray(bounds), host, side="right")  # 0: the head
    entry = np.where(cluster == 0, host, shortlist + cluster - 1)
    output = core.take_along_axis(log_softmax(head, axis=1),
                                  Tensor(xp.asarray(entry[:, None])), axis=1).squeeze(1)
    pieces, rows_in_order = [], []
    for i in range(1, clusters + 1):
        rows = np.flatnonzero(cluster == i)
        if not rows.size:
            continue
        first, second = tail_weights[i - 1]
        sub = core.index_select(input, Tensor(xp.asarray(rows)), axis=0)
        logp = log_softmax(core.matmul(core.matmul(sub, first), second), axis=1)
        local = Tensor(xp.asarray((host[rows] - bounds[i - 1])[:, None]))
        pieces.append(core.take_along_axis(logp, local, axis=1).squeeze(1))
        rows_in_order.append(rows)
    if pieces:  # scatter the tail terms back to their rows: concatenate, then un-permute
        head_rows = np.flatnonzero(cluster == 0)
        pieces.append(Tensor(xp.zeros(head_rows.size, dtype=input.dtype)))
        order = np.concatenate(rows_in_order + [head_rows])
        tail = core.index_select(core.concat(pieces), Tensor(xp.asarray(np.argsort(order))))
        output = output + tail
    loss = core.mean(-output)
    return (output if batched else output.squeeze(0)), loss


def adaptive_log_prob(input: Tensor, head_weight: Tensor, tail_weights, shortlist: int,  # noqa: A002
                      head_bias: Tensor | None = None) -> Tensor:
    """[N, n_classes] log-probabilities of every class under the adaptive softmax (what
    ``AdaptiveLogSoftmaxWithLoss.log_prob`` returns): the head's shortlist columns, then each
    cluster's log-softmax plus its head entry."""
    head = core.matmul(input, head_weight)
    if head_bias is not None:
        head = head + head_bias
    head_lp = log_softmax(head, axis=1)
    parts = [head_lp[:, :shortlist]]
    for i, (first, second) in enumerate(tail_weights):
        cluster = log_softmax(core.matmul(core.matmul(input, first), second), axis=1)
        parts.append(cluster + head_lp[:, shortlist + i:shortlist + i + 1])
    return core.concat(parts, axis=1)


def argmax_rows(scores: Tensor) -> Tensor:
    """The int64 column of each row's largest score (``predict``)."""
    return core.argmax(scores, axis=1)
