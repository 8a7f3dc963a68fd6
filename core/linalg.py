"""Products with Paddle's ``paddle.tensor.linalg`` names: ``dot``, ``mm`` and ``bmm``.

``mm`` and ``bmm`` check their shapes (naming them) and run ``matmul``, so they share its
threaded kernel and its backward; ``dot`` is a row-wise product and sum.
"""
from __future__ import annotations

from core import backend
from core.arithmetic import matmul
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["bmm", "dot", "mm"]


def dot(x, y, name: str | None = None) -> Tensor:
    """The inner product of two 1-D tensors (a 0-D tensor), or of each row of two 2-D
    tensors of shape [N, M] (a tensor of shape [N])."""
    del name
    x, y = as_input(x, "dot"), as_input(y, "dot", "y")
    a, b = x.data, y.data
    if a.shape != b.shape or a.ndim not in (1, 2):
        raise ValueError(f"dot: x and y must be 1-D or 2-D tensors of the same shape, got "
                         f"{x.shape} and {y.shape}")
    xp = backend.array_module(a)
    out = xp.asarray((a * b).sum(axis=-1))

    def backward(g):
        g = g[..., None]
        return (None if x.stop_gradient else g * b, None if y.stop_gradient else g * a)

    return apply(out, (x, y), backward, "dot")


def mm(input, mat2, name: str | None = None) -> Tensor:  # noqa: A002 - Paddle's argument name
    """The matrix product of ``input`` and ``mat2`` (``matmul`` without its transposes;
    batch dimensions broadcast)."""
    del name
    x, y = as_input(input, "mm", "input"), as_input(mat2, "mm", "mat2")
    inner_x = x.data.shape[-1] if x.ndim else None
    inner_y = y.data.shape[-2] if y.ndim >= 2 else (y.data.shape[0] if y.ndim else None)
    if inner_x is None or inner_y is None or inner_x != inner_y:
        raise ValueError(f"mm: cannot multiply input of shape {x.shape} by mat2 of shape "
                         f"{y.shape}: input's last dimension must equal mat2's second to last")
    return matmul(x, y)


def bmm(x, y, name: str | None = None) -> Tensor:
    """Batched matrix product of 3-D tensors [B, N, K] and [B, K, M] -> [B, N, M]."""
    del name
    x, y = as_input(x, "bmm"), as_input(y, "bmm", "y")
    sx, sy = x.data.shape, y.data.shape
    if len(sx) != 3 or len(sy) != 3 or sx[0] != sy[0] or sx[2] != sy[1]:
        raise ValueError(f"bmm: x and y must be 3-D, [B, N, K] and [B, K, M], got {x.shape} "
                         f"and {y.shape}")
    return matmul(x, y)


Tensor.dot, Tensor.mm, Tensor.bmm = dot, mm, bmm  # see the note at the end of core/ops.py
