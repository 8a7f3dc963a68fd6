"""``paddle.nn.PairwiseDistance`` over ``functional.distance``."""
from __future__ import annotations

from core.nn.functional import distance as F
from core.nn.layer import Layer
from core.tensor import Tensor


class PairwiseDistance(Layer):
    """``||x - y + epsilon||_p`` along the last axis, Paddle's ``PairwiseDistance(p=2.0,
    epsilon=1e-6, keepdim=False, name=None)``; ``forward(x, y)`` with [N, D] (or [D]) inputs
    gives [N] ([N, 1] with ``keepdim``). See ``F.pairwise_distance``."""

    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                 name: str | None = None):
        super().__init__(name)
        self.p = F.check_norm_order("PairwiseDistance", p)
        self.epsilon, self.keepdim = epsilon, keepdim

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self) -> str:
        return f"p={self.p}, epsilon={self.epsilon}, keepdim={self.keepdim}"
