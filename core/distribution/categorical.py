"""``Categorical`` (Paddle's ``paddle.distribution.Categorical``), with Paddle's semantics:

* ``probs(value)`` / ``log_prob(value)`` normalise ``logits`` by their sum (``logits /
  logits.sum(-1)``), so they read ``logits`` as unnormalised probabilities (non-negative);
* ``sample``, ``entropy`` and ``kl_divergence`` use ``softmax(logits)``;
* ``kl_divergence`` keeps the category axis (shape ``batch_shape + [1]``), ``entropy`` does not.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.distribution.distribution import Distribution, host, params, sample_shape
from core.indexing import take_along_axis
from core.manipulation import gather
from core.nn.functional import log_softmax, softmax
from core.tensor import Tensor

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Paddle's ``Categorical(logits, name=None)``: K categories along the last axis of
    ``logits`` (at least 1-D); batch_shape is ``logits.shape[:-1]``. Samples are int64."""

    def __init__(self, logits, name: str | None = None):
        self.name = name or "Categorical"
        self.logits, = params("Categorical", logits=logits)
        if self.logits.ndim < 1:
            raise ValueError("Categorical: 'logits' must be at least 1-D (the last axis holds "
                             "the categories), got a 0-D value")
        self.dtype = self.logits.dtype
        self._prob = self.logits / self.logits.sum(-1, keepdim=True)
        super().__init__(batch_shape=tuple(self.logits.shape[:-1]))

    def sample(self, shape=()) -> Tensor:
        """int64 category indices of shape ``shape + batch_shape``, drawn with
        ``softmax(logits)``."""
        shape = sample_shape(shape, f"{self.name}.sample")
        logits = host(self.logits).astype(np.float64)
        rows = logits.reshape(-1, logits.shape[-1])
        rows = np.exp(rows - rows.max(-1, keepdims=True))
        cdf = np.cumsum(rows, -1)
        u = backend.rng().random((int(np.prod(shape)), rows.shape[0], 1)) * cdf[:, -1:]
        picks = np.minimum((cdf < u).sum(-1), rows.shape[1] - 1)
        return Tensor(backend.asarray(picks.reshape(shape + self.batch_shape).astype(np.int64)))

    def probs(self, value) -> Tensor:
        """``logits / logits.sum(-1)`` at the category indices ``value``. With a batch of
        distributions, a 1-D ``value`` is looked up in every distribution; a higher-D one
        along the last axis (take_along_axis), as Paddle."""
        index = _index(value, f"{self.name}.probs")
        if self._prob.ndim == 1:
            return gather(self._prob, index.reshape([-1])).reshape(list(index.shape))
        if index.ndim == 1:
            index = index.reshape([1] * (self._prob.ndim - 1) + [-1])
        return take_along_axis(self._prob, index, axis=-1)

    def prob(self, value) -> Tensor:
        return self.probs(value)

    def log_prob(self, value) -> Tensor:
        """``log(probs(value))``."""
        return self.probs(value).log()

    def entropy(self) -> Tensor:
        """``-sum(softmax(logits) * log_softmax(logits))`` over the categories."""
        return -(softmax(self.logits, -1) * log_softmax(self.logits, -1)).sum(-1)


def _index(value, fn: str) -> Tensor:
    if isinstance(value, Tensor):
        if value.dtype.kind not in "iu":
            raise TypeError(f"{fn}: 'value' must hold integer category indices, got dtype "
                            f"{value.dtype}")
        return value
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{fn}: 'value' must hold integer category indices, got {value!r}")
    return Tensor(backend.asarray(array.astype(np.int64)))
