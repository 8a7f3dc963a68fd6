"""Classification accuracy: ``accuracy`` (a function) and ``Accuracy`` (a streaming metric).

Names follow ``paddle.metric``; ``accuracy`` returns a 0-D float32 Tensor (core's one rule for
reduced values, as Paddle 3.x's 0-D reductions: docs/paddle.md);
``Accuracy`` keeps running top-k counts across batches. Metrics never record a graph.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.tensor import Tensor


def _raw(value):
    return value.data if isinstance(value, Tensor) else backend.asarray(value)


def _topk_hits(input, label, k: int, fn: str):
    """[N, k] booleans: whether the i-th best-scored class of each row is the label."""
    scores, labels = _raw(input), _raw(label)
    if scores.ndim != 2:
        raise ValueError(f"{fn}: input must be [N, num_classes] scores, got shape "
                         f"{list(scores.shape)}.")
    n, num_classes = scores.shape
    if labels.shape not in ((n,), (n, 1)) or labels.dtype.kind not in "iu":
        raise ValueError(f"{fn}: label must be integers of shape [{n}] or [{n}, 1] to match "
                         f"input of shape {[n, num_classes]}; got shape {list(labels.shape)} "
                         f"and dtype {labels.dtype}.")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= num_classes:
        raise ValueError(f"{fn}: k={k!r} must be an integer in [1, {num_classes}] "
                         f"(the number of classes).")
    xp = backend.array_module(scores)
    if k == 1:
        best = scores.argmax(axis=1)[:, None]  # the first maximum on ties, as argsort's order
    else:
        best = xp.argsort(-scores, axis=1, kind="stable")[:, :k]
    return best == labels.reshape(n, 1)


def accuracy(input, label, k: int = 1, correct: Tensor | None = None,  # noqa: A002
             total: Tensor | None = None, name: str | None = None) -> Tensor:
    """Fraction of rows whose label is among the ``k`` highest scores: a 0-D float32 Tensor.

    ``correct`` and ``total``, when given, receive the counts (int32, 0-D).
    """
    del name
    hits = _topk_hits(input, label, k, "accuracy")
    xp = backend.array_module(hits)
    n = hits.shape[0]
    n_correct = hits.any(axis=1).sum()
    if correct is not None:
        correct.data = xp.asarray(n_correct, dtype="int32")
    if total is not None:
        total.data = xp.asarray(n, dtype="int32")
    return Tensor(xp.asarray(n_correct / max(n, 1), dtype="float32"))


class Metric:
    """Base class of streaming metrics (``paddle.metric.Metric``), as ``core.Model`` drives
    them: per batch ``update(*compute(*outputs, *labels))``, where ``compute``'s Tensors arrive
    as numpy arrays; ``accumulate()`` over the batches since ``reset()``; ``name()`` labels
    the value in logs. Subclasses define ``name``, ``reset``, ``update`` and ``accumulate``;
    ``compute`` passes its inputs on unchanged unless overridden."""

    def compute(self, *args):
        return args

    def name(self):
        raise NotImplementedError(f"{type(self).__name__} must define name()")

    def reset(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define reset()")

    def update(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def accumulate(self):
        raise NotImplementedError(f"{type(self).__name__} must define accumulate()")


class Accuracy(Metric):
    """Streaming top-k accuracy (``paddle.metric.Accuracy``).

    ``update(pred, label)`` adds a batch (or ``update(correct)`` with the output of
    ``compute(pred, label)``, Paddle's two-step form) and returns the batch's accuracy;
    ``accumulate()`` returns the accuracy over all batches since ``reset()``: a float, or a list
    of floats when several ``topk`` values are tracked.
    """

    def __init__(self, topk=(1,), name: str | None = None):
        topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not topk or any(isinstance(k, bool) or not isinstance(k, int) or k < 1
                           for k in topk):
            raise ValueError(f"Accuracy: topk={topk!r} must be positive integers, e.g. (1, 5).")
        self.topk, self.maxk = topk, max(topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in topk] if len(topk) > 1 else [base]
        self.reset()

    def compute(self, pred, label) -> Tensor:
        """[N, maxk] float32: 1 where the i-th best class is the label."""
        hits = _topk_hits(pred, label, self.maxk, "Accuracy")
        return Tensor(hits.astype("float32"))

    def update(self, correct, label=None):
        if label is not None:
            correct = self.compute(correct, label)
        hits = backend.to_numpy(_raw(correct))
        batch = []
        for i, k in enumerate(self.topk):
            n_correct = float(hits[:, :k].sum())
            self.total[i] += n_correct
            self.count[i] += hits.shape[0]
            batch.append(n_correct / hits.shape[0] if hits.shape[0] else 0.0)
        return batch[0] if len(batch) == 1 else batch

    def accumulate(self):
        values = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return values[0] if len(values) == 1 else values

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def name(self) -> list[str]:
        return self._name
