"""Layers that merge several inputs into one, for graphs written as data (residual and
multi-branch networks in a TOML spec, docs/models.md).

Paddle writes these merges as plain calls (``x + y``, ``paddle.concat``) inside ``forward``; a
network described as data needs them as layers. The names follow Keras (``Add``, ``Concat``,
``Multiply``) and ``paddle.matmul`` (``Matmul``), as Paddle has none. Each is one of core's
differentiable ops, so its gradient is the ops' gradient.
"""
from __future__ import annotations

from core.arithmetic import add, matmul, multiply
from core.manipulation import concat
from core.nn.layer import Layer
from core.tensor import Tensor


class Add(Layer):
    """The element-wise sum of its inputs (a residual connection: ``Add`` of a block's output and
    its shortcut). Inputs must have the same shape or broadcast."""

    def forward(self, *inputs: Tensor) -> Tensor:
        _need_two(self, inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = add(out, x)
        return out


class Multiply(Layer):
    """The element-wise product of its inputs (gating: a branch scales another)."""

    def forward(self, *inputs: Tensor) -> Tensor:
        _need_two(self, inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = multiply(out, x)
        return out


class Concat(Layer):
    """Its inputs joined along ``axis`` (default 1: the channels of NCHW, the features of
    [N, F]); every other axis must agree."""

    def __init__(self, axis: int = 1):
        super().__init__()
        self.axis = int(axis)

    def forward(self, *inputs: Tensor) -> Tensor:
        _need_two(self, inputs)
        return concat(list(inputs), axis=self.axis)


class Matmul(Layer):
    """The matrix product of its two inputs, ``alpha * matmul(x, y, transpose_x,
    transpose_y)`` (``paddle.matmul``'s arguments; batch axes broadcast): attention written as
    layers, ``scores = Matmul(q, k, transpose_y=true, alpha=1/sqrt(d))`` then
    ``Matmul(softmax(scores), v)``."""

    def __init__(self, transpose_x: bool = False, transpose_y: bool = False, alpha: float = 1.0):
        super().__init__()
        self.transpose_x, self.transpose_y = bool(transpose_x), bool(transpose_y)
        self.alpha = float(alpha)

    def forward(self, *inputs: Tensor) -> Tensor:
        if len(inputs) != 2:
            raise ValueError(f"Matmul multiplies exactly two inputs, got {len(inputs)}: name "
                             "them with inputs = [\"x\", \"y\"].")
        out = matmul(inputs[0], inputs[1], self.transpose_x, self.transpose_y)
        return out if self.alpha == 1.0 else multiply(out, self.alpha)

    def extra_repr(self) -> str:
        return (f"transpose_x={self.transpose_x}, transpose_y={self.transpose_y}, "
                f"alpha={self.alpha}")


def _need_two(layer: Layer, inputs) -> None:
    if len(inputs) < 2:
        raise ValueError(f"{type(layer).__name__} merges two or more inputs, got {len(inputs)}: "
                         "name them with inputs = [\"a\", \"b\"].")
