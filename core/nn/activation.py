"""Activation layers: thin wrappers over ``core.nn.functional`` (Paddle 2.x names)."""
from __future__ import annotations

from core.nn.functional import activation as F
from core.nn.layer import Layer
from core.tensor import Tensor


class ReLU(Layer):
    """max(x, 0)."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Sigmoid(Layer):
    """1 / (1 + exp(-x))."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Layer):
    """Hyperbolic tangent."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Softmax(Layer):
    """Softmax along ``axis`` (the last one by default)."""

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__(name)
        self.axis = axis

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"axis={self.axis}"


class LogSoftmax(Layer):
    """log(softmax(x)) along ``axis``, computed stably."""

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__(name)
        self.axis = axis

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"axis={self.axis}"
