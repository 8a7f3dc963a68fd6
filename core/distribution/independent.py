"""``Independent`` (Paddle's ``paddle.distribution.Independent``)."""
from __future__ import annotations

from core.distribution.distribution import Distribution
from core.tensor import Tensor

__all__ = ["Independent"]


def sum_rightmost(value: Tensor, n: int) -> Tensor:
    """``value`` summed over its last ``n`` axes."""
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Independent(Distribution):
    """Paddle's ``Independent(base, reinterpreted_batch_rank)``: the last
    ``reinterpreted_batch_rank`` batch axes of ``base`` become event axes, so ``log_prob`` and
    ``entropy`` sum over them (e.g. a diagonal Gaussian from a batch of Normals)."""

    def __init__(self, base, reinterpreted_batch_rank: int):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: 'base' must be a Distribution, got "
                            f"{type(base).__name__}")
        rank = len(base.batch_shape)
        n = reinterpreted_batch_rank
        if isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= rank:
            raise ValueError(f"Independent: 'reinterpreted_batch_rank' must be an int in "
                             f"1..{rank} (base's batch_shape is {list(base.batch_shape)}), "
                             f"got {n!r}")
        self._base, self._reinterpreted_batch_rank = base, n
        shape = base.batch_shape + base.event_shape
        cut = rank - n
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self) -> Tensor:
        return self._base.mean

    @property
    def variance(self) -> Tensor:
        return self._base.variance

    def sample(self, shape=()) -> Tensor:
        return self._base.sample(shape)

    def rsample(self, shape=()) -> Tensor:
        return self._base.rsample(shape)

    def log_prob(self, value) -> Tensor:
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self) -> Tensor:
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
