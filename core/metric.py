"""Streaming metrics (``paddle.metric``) and the ``accuracy`` function.

``accuracy`` returns a 0-D float32 Tensor (core's one rule for reduced values, as Paddle 3.x's
0-D reductions: docs/paddle.md); ``Accuracy`` keeps running top-k counts across batches;
``Precision``, ``Recall`` (binary, probabilities rounded at 0.5) and ``Auc`` (Paddle's bucketed
ROC area) keep counts too. Metrics never record a graph.
"""
from __future__ import annotations

import numbers

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

    def compute(self, pred, label, *args) -> Tensor:
        """Paddle's ``compute(pred, label, *args)``: ``args`` (further labels ``paddle.Model``
        passes when the loss takes several, e.g. a padding mask) are ignored, as in Paddle.
        [N, maxk] float32: 1 where the i-th best class is the label. A floating label is
        cast to int64 first (truncated toward zero): Paddle compares ``pred == label``, which
        casts the right side to the int64 indices' dtype (its movielens tutorial scores float
        ratings in [0, 1] so). A one-hot (or soft) label [N, num_classes] stands for its
        argmax, as in Paddle's ``compute``. Scores [N, d0, ..., num_classes] (a class per
        position, as in tagging) take labels [N, d0, ..., 1] or [N, d0, ...] (or one-hot) and
        give [N, d0, ..., maxk], each position counting as a sample in ``update``."""
        scores, label = _raw(pred), _raw(label)
        lead = tuple(scores.shape[:-1])
        if label.ndim >= 2 and label.shape[-1] != 1 and tuple(label.shape) != lead:
            label = label.argmax(axis=-1)
        elif label.dtype.kind == "f":
            label = label.astype("int64")
        if scores.ndim <= 2:
            return Tensor(_topk_hits(scores, label, self.maxk, "Accuracy").astype("float32"))
        if tuple(label.shape) not in (lead, lead + (1,)):
            raise ValueError(f"Accuracy: label must be of shape {list(lead) + [1]} or "
                             f"{list(lead)} (or one-hot) to match pred of shape "
                             f"{list(scores.shape)}; got shape {list(label.shape)}.")
        rows = scores.reshape(-1, scores.shape[-1])
        hits = _topk_hits(rows, label.reshape(rows.shape[0]), self.maxk, "Accuracy")
        return Tensor(hits.reshape(lead + (self.maxk,)).astype("float32"))

    def update(self, correct, label=None):
        if label is not None:
            correct = self.compute(correct, label)
        hits = backend.to_numpy(_raw(correct))
        hits = hits.reshape(-1, hits.shape[-1])  # every position of [N, d0, ..., k] a sample
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


def _host_array(value, owner: str, what: str) -> np.ndarray:
    """``value`` (a Tensor or an array, numpy or cupy) as a numpy array; anything else is an
    error, as Paddle's metrics take "a numpy ndarray or Tensor"."""
    if isinstance(value, Tensor):
        return np.asarray(backend.to_numpy(value.data))
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return np.asarray(backend.to_numpy(value))
    raise ValueError(f"{owner}.update: {what} must be a numpy array or a Tensor, got "
                     f"{type(value).__name__}.")


def _binary_pairs(preds, labels, owner: str) -> tuple[np.ndarray, np.ndarray]:
    """Flat predicted classes (probabilities rounded half up, as Paddle's ``floor(p + 0.5)``)
    and labels, one per sample."""
    preds, labels = _host_array(preds, owner, "preds"), _host_array(labels, owner, "labels")
    n = labels.shape[0] if labels.ndim else 0
    if labels.shape not in ((n,), (n, 1)) or preds.shape not in ((n,), (n, 1)):
        raise ValueError(f"{owner}.update: preds and labels must be [N] or [N, 1] (one "
                         f"probability and one 0/1 label per sample), got shapes "
                         f"{list(preds.shape)} and {list(labels.shape)}.")
    if n and not (np.all(preds >= 0) and np.all(preds <= 1)):  # NaN fails both
        raise ValueError(f"{owner}.update: preds must be probabilities in [0, 1]; got values "
                         f"from {float(np.nanmin(preds))} to {float(np.nanmax(preds))}"
                         f"{' and NaN' if np.isnan(preds).any() else ''}.")
    return np.floor(preds.reshape(n) + 0.5).astype(np.int64), labels.reshape(n)


class _TruePositiveRate(Metric):
    """True positives over a class of samples, counted over the batches since ``reset()``:
    ``tp`` and the other count of the denominator (``fp`` for Precision, ``fn`` for Recall)."""

    _miss = ""  # the name of the denominator's other count
    _by_label = False  # the class: samples labelled positive (else: predicted positive)

    def __init__(self, name: str, *args, **kwargs):
        del args, kwargs  # Paddle passes them on to Metric, which takes none
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        predicted, labels = _binary_pairs(preds, labels, type(self).__name__)
        counted = (labels == 1) if self._by_label else (predicted == 1)
        hits = int(np.count_nonzero(counted & (predicted == labels)))
        self.tp += hits
        setattr(self, self._miss, getattr(self, self._miss) + int(np.count_nonzero(counted))
                - hits)

    def reset(self) -> None:
        self.tp = 0
        setattr(self, self._miss, 0)

    def accumulate(self) -> float:
        total = self.tp + getattr(self, self._miss)
        return float(self.tp) / total if total else 0.0

    def name(self) -> str:
        return self._name


class Precision(_TruePositiveRate):
    """Precision of binary classification (``paddle.metric.Precision``): true positives over
    predicted positives, accumulated over the batches since ``reset()``.

    ``update(preds, labels)``: ``preds`` are probabilities of the positive class ([N] or
    [N, 1]; 0.5 and above count as positive), ``labels`` 0 or 1. ``accumulate()`` is 0.0
    before any positive prediction."""

    _miss = "fp"

    def __init__(self, name: str = "precision", *args, **kwargs):
        super().__init__(name, *args, **kwargs)


class Recall(_TruePositiveRate):
    """Recall of binary classification (``paddle.metric.Recall``): true positives over actual
    positives, accumulated over the batches since ``reset()``. ``update(preds, labels)`` as
    ``Precision``; ``accumulate()`` is 0.0 before any positive label."""

    _miss, _by_label = "fn", True

    def __init__(self, name: str = "recall", *args, **kwargs):
        super().__init__(name, *args, **kwargs)


class Auc(Metric):
    """Area under the ROC curve (``paddle.metric.Auc``), from bucketed counts as Paddle's.

    ``update(preds, labels)``: ``preds`` are [N, 2] class probabilities (column 1: the
    positive class), ``labels`` [N] or [N, 1], non-zero for positive. Sample ``i`` falls in
    bucket ``int(preds[i, 1] * num_thresholds)``; ``accumulate()`` sums the trapezoids from
    the highest bucket down, so ties inside a bucket count half and the value agrees with the
    exact AUC to about ``1 / num_thresholds``. 0.0 until both classes were seen. Only
    ``curve='ROC'``: Paddle accepts ``'PR'`` but computes the ROC area all the same."""

    def __init__(self, curve: str = "ROC", num_thresholds: int = 4095, name: str = "auc",
                 *args, **kwargs):
        del args, kwargs
        if curve != "ROC":
            raise ValueError(f"Auc: curve={curve!r} is not supported; only 'ROC' (Paddle "
                             "computes the ROC area for any curve).")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, numbers.Integral) \
                or num_thresholds < 1:
            raise ValueError(f"Auc: num_thresholds must be an int >= 1, got {num_thresholds!r}.")
        self._curve, self._num_thresholds, self._name = curve, int(num_thresholds), name
        self.reset()

    def update(self, preds, labels) -> None:
        preds, labels = _host_array(preds, "Auc", "preds"), _host_array(labels, "Auc", "labels")
        n = labels.shape[0] if labels.ndim else 0
        if preds.ndim != 2 or preds.shape[0] != n or preds.shape[1] < 2 \
                or labels.shape not in ((n,), (n, 1)):
            raise ValueError(f"Auc.update: preds must be [N, 2] class probabilities (column 1 "
                             f"the positive class; stack [1 - p, p] for a sigmoid output) and "
                             f"labels [N] or [N, 1]; got shapes {list(preds.shape)} and "
                             f"{list(labels.shape)}.")
        bins = (preds[:, 1].astype(np.float64) * self._num_thresholds).astype(np.int64)
        if n and (bins.min() < 0 or bins.max() > self._num_thresholds):
            raise ValueError("Auc.update: preds[:, 1] must be probabilities in [0, 1], got "
                             f"values from {float(preds[:, 1].min())} to "
                             f"{float(preds[:, 1].max())}.")
        positive = labels.reshape(n) != 0
        size = self._num_thresholds + 1
        self._stat_pos += np.bincount(bins[positive], minlength=size)
        self._stat_neg += np.bincount(bins[~positive], minlength=size)

    def accumulate(self) -> float:
        # From the highest bucket down: each bucket adds a trapezoid of width (its negatives)
        # between the positives counted before it and after it.
        pos = np.cumsum(self._stat_pos[::-1])
        neg = np.cumsum(self._stat_neg[::-1])
        pos_prev = np.concatenate(([0.0], pos[:-1]))
        area = float(np.sum(self._stat_neg[::-1] * (pos + pos_prev) / 2.0))
        tot_pos, tot_neg = float(pos[-1]), float(neg[-1])
        return area / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self) -> None:
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self) -> str:
        return self._name
