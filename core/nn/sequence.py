"""Pooling over the real steps of variable-length sequences, as a layer."""
from __future__ import annotations

import numpy as np

from core import backend
from core.arithmetic import multiply
from core.nn.functional.sequence import POOL_TYPES, sequence_pool
from core.nn.layer import Layer
from core.ops import sum as reduce_sum
from core.tensor import Tensor

POOLS = (*POOL_TYPES, "last")


class SequencePool(Layer):
    """One vector per sequence from [batch, T, ...] outputs, using each row's first
    ``sequence_length`` steps only (Paddle 1.x's ``sequence_pool``): ``pool_type`` is ``sum``,
    ``mean``, ``max`` or ``last`` (the output at each row's last real step). Without lengths
    every step counts."""

    def __init__(self, pool_type: str = "mean"):
        super().__init__()
        if pool_type not in POOLS:
            raise ValueError(f"SequencePool: pool_type must be one of {', '.join(POOLS)}, "
                             f"got {pool_type!r}.")
        self.pool_type = pool_type

    def forward(self, x: Tensor, sequence_length=None) -> Tensor:
        steps = x.shape[1]
        if sequence_length is None:  # fixed-length input: every step is real
            sequence_length = np.full(x.shape[0], steps, dtype=np.int64)
        if self.pool_type != "last":
            return sequence_pool(x, sequence_length, self.pool_type)
        # The last real step as a one-hot weighting over time: a product and a sum, both ops
        # with gradients, so no gather op is needed.
        lengths = backend.to_numpy(getattr(sequence_length, "data", sequence_length))
        pick = np.arange(steps)[None, :] == (np.asarray(lengths)[:, None] - 1)
        shape = pick.shape + (1,) * (x.ndim - 2)
        weights = Tensor(backend.asarray(pick.reshape(shape).astype(x.data.dtype)))
        return reduce_sum(multiply(x, weights), axis=1)
