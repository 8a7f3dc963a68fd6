"""Matrix and vector products with Paddle's names: ``dot``, ``mm``, ``bmm``, ``multi_dot``,
``cross``, ``outer``, ``inner`` and ``kron``.

``mm`` and ``bmm`` check their shapes (naming them) and run ``matmul``, so they share its
threaded kernel and its backward; ``dot`` is a row-wise product and sum. ``multi_dot``,
``outer`` and ``inner`` are built from ``matmul`` and ``reshape``, which carry the gradients;
``cross`` and ``kron`` have their own backward. ``kron``, ``addmm`` and ``tensordot`` are here
with the other products but are not re-exported by ``core.linalg``: they are ``core.kron``,
``core.addmm`` and ``core.tensordot``, as in Paddle.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core import ops as _ops  # sum (for vecdot): Python's name in this module
from core.arithmetic import add, conj_if_complex, matmul, scale
from core.higher_order import captured, closed_over, needs, zero_grad
from core.linalg._common import _xp
from core.manipulation import reshape, transpose
from core.ops import as_input, normalize_axis
from core.tensor import Tensor, apply

__all__ = ["addmm", "bmm", "cross", "dot", "inner", "kron", "mm", "multi_dot", "outer",
           "tensordot"]


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
    products = a * b
    # numpy's sum widens small ints to int64; Paddle keeps the operands' dtype (int32 stays)
    keep = products.dtype if products.dtype.kind in "iu" else None
    out = xp.asarray(products.sum(axis=-1, dtype=keep))

    def backward(g):
        g = g[..., None]
        return (None if x.stop_gradient else g * conj_if_complex(b),
                None if y.stop_gradient else g * conj_if_complex(a))

    return apply(out, (x, y), backward, "dot", _dot_grad)


def _dot_grad(out, g):  # create_graph: g * y and g * x per row, recorded (real values)
    x, y = out._parents
    g = g.unsqueeze(-1)
    return (g * y if needs(x) else None, g * x if needs(y) else None)


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


def multi_dot(x, name: str | None = None) -> Tensor:
    """The chained matrix product x[0] @ x[1] @ ... (the first may be 1-D, a row; the last
    1-D, a column), multiplied in the cheapest order (dynamic programming on the shapes)."""
    del name
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or len(x) < 2:
        raise TypeError("multi_dot: x must be a list or tuple of at least two Tensors")
    mats = [as_input(t, "multi_dot", f"x[{i}]") for i, t in enumerate(x)]
    first_vec, last_vec = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vec:
        mats[0] = reshape(mats[0], [1, -1])
    if last_vec:
        mats[-1] = reshape(mats[-1], [-1, 1])
    for i, m in enumerate(mats):
        if m.ndim != 2:
            raise ValueError(f"multi_dot: x[{i}] must be 2-D (the first and last may be 1-D), "
                             f"got shape {m.shape}")
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ValueError(f"multi_dot: x[{i}] of shape {mats[i].shape} cannot multiply "
                             f"x[{i + 1}] of shape {mats[i + 1].shape}")
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    n = len(mats)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def chain(i, j):
        if i == j:
            return mats[i]
        return matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))

    out = chain(0, n - 1)
    if first_vec and last_vec:
        return reshape(out, [])
    if first_vec or last_vec:
        return reshape(out, [-1])
    return out


# ----- cross, outer, inner and Kronecker products (paddle.cross / outer / inner / kron) ---------

def cross(x, y, axis: int = 9, name: str | None = None) -> Tensor:
    """The 3-D cross product of x and y (same shape) along ``axis``. Paddle's default
    ``axis=9`` means the first axis of size 3 (not the last, as torch.linalg.cross). Gradients:
    gx = y x g, gy = g x x."""
    del name
    x, y = as_input(x, "cross"), as_input(y, "cross", "y")
    if x.data.shape != y.data.shape:
        raise ValueError(f"cross: x and y must have the same shape, got {x.shape} and {y.shape}")
    if axis == 9:
        found = [i for i, n in enumerate(x.data.shape) if n == 3]
        if not found:
            raise ValueError(f"cross: with the default axis (9: the first axis of size 3), x "
                             f"must have an axis of size 3, got shape {x.shape}")
        axis = found[0]
    else:
        axis = normalize_axis(axis, x.ndim, "cross")
        if x.data.shape[axis] != 3:
            raise ValueError(f"cross: axis {axis} of x must have size 3, got shape {x.shape}")
    xp = _xp(x.data)

    def product(u, v):
        return xp.cross(u, v, axis=axis)

    return apply(product(x.data, y.data), (x, y),
                 lambda g: (product(y.data, g), product(g, x.data)), "cross", _cross_grad)


def _cross_grad(out, g):  # create_graph: gx = y x g and gy = g x x, as recorded crosses
    (product,) = captured(out, "product")
    (axis,) = closed_over(product, "axis")
    x, y = out._parents
    return (cross(y, g, axis) if needs(x) else None, cross(g, x, axis) if needs(y) else None)


def outer(x, y, name: str | None = None) -> Tensor:
    """The outer product x_i y_j of x and y, both flattened first: shape [x.size, y.size]."""
    del name
    x, y = as_input(x, "outer"), as_input(y, "outer", "y")
    return matmul(reshape(x, [-1, 1]), reshape(y, [1, -1]))


def inner(x, y, name: str | None = None) -> Tensor:
    """The sum of products over the last axis of x and of y: shape x.shape[:-1] +
    y.shape[:-1] (a product of two scalars for 0-D inputs)."""
    del name
    x, y = as_input(x, "inner"), as_input(y, "inner", "y")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"inner: the last dimensions of x {x.shape} and y {y.shape} must match")
    out = matmul(reshape(x, [-1, x.shape[-1]]), reshape(y, [-1, y.shape[-1]]), transpose_y=True)
    return reshape(out, x.shape[:-1] + y.shape[:-1])


def kron(x, y, name: str | None = None) -> Tensor:
    """The Kronecker product: block (i, j, ...) of the result is x[i, j, ...] * y (the
    shorter shape padded with leading 1s). Gradients: sums over the blocks."""
    del name
    x, y = as_input(x, "kron"), as_input(y, "kron", "y")
    xp = backend.array_module(x.data)
    nd = max(x.ndim, y.ndim)
    a = x.data.reshape((1,) * (nd - x.ndim) + x.data.shape)
    b = y.data.reshape((1,) * (nd - y.ndim) + y.data.shape)
    # out viewed as [a0, b0, a1, b1, ...] is the outer product of a and b, interleaved
    inter = [n for pair in zip(a.shape, b.shape) for n in pair]
    a_ax = tuple(range(0, 2 * nd, 2))
    b_ax = tuple(range(1, 2 * nd, 2))
    a_view = xp.expand_dims(a, b_ax)
    b_view = xp.expand_dims(b, a_ax)
    out = (a_view * b_view).reshape(tuple(p * q for p, q in zip(a.shape, b.shape)))

    def backward(g):
        g = g.reshape(inter)
        ga = None if x.stop_gradient else \
            (g * conj_if_complex(b_view)).sum(axis=b_ax).reshape(x.data.shape)
        gb = None if y.stop_gradient else \
            (g * conj_if_complex(a_view)).sum(axis=a_ax).reshape(y.data.shape)
        return ga, gb

    return apply(out, (x, y), backward, "kron", _kron_grad)


def _kron_grad(out, g):  # create_graph: the block sums of the array backward, recorded (real)
    inter, a_view, b_view, a_ax, b_ax = captured(out, "inter", "a_view", "b_view", "a_ax",
                                                 "b_ax")
    x, y = out._parents
    g = g.reshape(inter)
    return ((g * y.reshape(list(b_view.shape))).sum(axis=list(b_ax)).reshape(x.shape)
            if needs(x) else None,
            (g * x.reshape(list(a_view.shape))).sum(axis=list(a_ax)).reshape(y.shape)
            if needs(y) else None)


Tensor.dot, Tensor.mm, Tensor.bmm = dot, mm, bmm  # see the note at the end of core/ops.py
Tensor.cross, Tensor.outer, Tensor.inner, Tensor.kron = cross, outer, inner, kron


def addmm(input, x, y, beta: float = 1.0, alpha: float = 1.0,  # noqa: A002 - Paddle's name
          name: str | None = None) -> Tensor:
    """Paddle's ``addmm(input, x, y, beta=1.0, alpha=1.0)``: ``beta * input + alpha * (x @ y)``
    for 2-D ``x`` [M, K] and ``y`` [K, N]; ``input`` broadcasts to [M, N]. Differentiable in
    all three (built from ``matmul``, ``scale`` and ``add``). With ``beta == 0`` the values of
    ``input`` are not read (NaN or Inf there does not reach the output; its gradient is 0):
    Paddle's kernel is one GEMM with ``beta``, and BLAS ignores C when beta is 0."""
    del name
    input, x, y = (as_input(t, "addmm", arg) for t, arg in ((input, "input"), (x, "x"), (y, "y")))
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        raise ValueError(f"addmm: x and y must be 2-D with x's columns equal to y's rows, got "
                         f"shapes {x.shape} and {y.shape}")
    product = matmul(x, y)
    try:
        np.broadcast_shapes(input.data.shape, product.data.shape)  # shapes only: any device
    except ValueError:
        raise ValueError(f"addmm: input of shape {input.shape} does not broadcast to the "
                         f"product's shape {product.shape}") from None
    scaled = _unread(input) if beta == 0 else scale(input, beta)
    return add(scaled, scale(product, alpha))


def _unread(t: Tensor) -> Tensor:
    """``0 * t`` as BLAS takes it when beta is 0: zeros of ``t``'s shape and dtype even where
    ``t`` holds NaN or Inf (numpy's 0 * NaN is NaN), and a zero gradient to ``t``."""
    xp = _xp(t.data)
    return apply(xp.zeros_like(t.data), (t,), lambda g: (xp.zeros_like(g),), "addmm",
                 zero_grad)


def tensordot(x, y, axes=2, name: str | None = None) -> Tensor:
    """Paddle's ``tensordot(x, y, axes=2)``: the sum of products over paired axes. ``axes``:
    an int n (x's last n axes with y's first n), one list of axes used for both, or
    ``[x_axes, y_axes]`` (the shorter completed from the longer, as Paddle; further lists
    ignored); a Tensor is read as a list. Paired axes must have equal sizes. Differentiable
    (a transpose, a reshape and ``matmul``)."""
    del name
    x, y = as_input(x, "tensordot"), as_input(y, "tensordot", "y")
    x_axes, y_axes = _contraction_axes(axes, x.ndim, y.ndim)
    for i, j in zip(x_axes, y_axes):
        if x.shape[i] != y.shape[j]:
            raise ValueError(f"tensordot: x's axis {i} (size {x.shape[i]}) and y's axis {j} "
                             f"(size {y.shape[j]}) are paired but differ in size; shapes "
                             f"{x.shape} and {y.shape}")
    x_free = [i for i in range(x.ndim) if i not in x_axes]
    y_free = [j for j in range(y.ndim) if j not in y_axes]
    inner_size = math.prod(x.shape[i] for i in x_axes)
    a = reshape(transpose(x, x_free + x_axes), [-1 if x_free else 1, inner_size])
    b = reshape(transpose(y, y_axes + y_free), [inner_size, -1 if y_free else 1])
    return reshape(matmul(a, b), [x.shape[i] for i in x_free] + [y.shape[j] for j in y_free])


def _contraction_axes(axes, x_ndim: int, y_ndim: int) -> tuple[list[int], list[int]]:
    """tensordot's ``axes`` as two equally long lists of non-negative axes."""
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, bool) or not isinstance(axes, (int, list, tuple)):
        raise TypeError(f"tensordot: axes must be an int, a list/tuple or a Tensor, got {axes!r}")
    if isinstance(axes, int):
        if not 0 <= axes <= min(x_ndim, y_ndim):
            raise ValueError(f"tensordot: axes={axes} must be in 0..{min(x_ndim, y_ndim)} for "
                             f"{x_ndim}-D x and {y_ndim}-D y")
        return list(range(x_ndim - axes, x_ndim)), list(range(axes))
    axes = [a.tolist() if isinstance(a, Tensor) else a for a in axes]
    if all(isinstance(a, int) for a in axes):
        first, second = list(axes), list(axes)
    else:
        if not all(isinstance(a, (list, tuple)) for a in axes):
            raise TypeError(f"tensordot: axes {axes!r} mixes ints and lists")
        first = list(axes[0]) if axes else []
        second = list(axes[1]) if len(axes) > 1 else list(first)
    longer = first if len(first) >= len(second) else second
    first, second = first + longer[len(first):], second + longer[len(second):]
    x_axes = [normalize_axis(a, x_ndim, "tensordot") for a in first]
    y_axes = [normalize_axis(a, y_ndim, "tensordot") for a in second]
    if len(set(x_axes)) != len(x_axes) or len(set(y_axes)) != len(y_axes):
        raise ValueError(f"tensordot: axes {axes!r} name an axis twice")
    return x_axes, y_axes


def mv(x, vec, name: str | None = None) -> Tensor:
    """Paddle's ``mv(x, vec)``: the product of the 2-D matrix ``x`` [m, n] and the 1-D vector
    ``vec`` [n], a vector [m] (``matmul``, which carries the gradients)."""
    del name
    x, vec = as_input(x, "mv"), as_input(vec, "mv", "vec")
    if x.ndim != 2 or vec.ndim != 1 or x.shape[1] != vec.shape[0]:
        raise ValueError(f"mv: x must be [m, n] and vec [n], got shapes {x.shape} and "
                         f"{vec.shape}")
    return matmul(x, vec)


__all__ += ["mv"]
Tensor.mv, Tensor.tensordot, Tensor.addmm = mv, tensordot, addmm


def vecdot(x, y, axis: int = -1, name: str | None = None) -> Tensor:
    """Paddle's ``linalg.vecdot(x, y, axis=-1)``: the dot product of x and y (broadcast) along
    ``axis`` (for complex x, of conj(x)), which is dropped from the shape. Built from multiply
    and sum, which carry the gradients."""
    del name
    x, y = as_input(x, "vecdot"), as_input(y, "vecdot", "y")
    try:
        shape = np.broadcast_shapes(x.data.shape, y.data.shape)  # shapes only: any device
    except ValueError:
        raise ValueError(f"vecdot: x of shape {x.shape} and y of shape {y.shape} do not "
                         "broadcast") from None
    axis = normalize_axis(axis, len(shape), "vecdot")
    if x.data.dtype.kind == "c":
        x = apply(x.data.conj(), (x,), lambda g: (g.conj(),), "conj")
    return _ops.sum(x * y, axis=axis)


def matrix_transpose(x, name: str | None = None) -> Tensor:
    """Paddle's ``linalg.matrix_transpose(x)``: x [..., m, n] with its last two axes swapped,
    [..., n, m] (a differentiable transpose)."""
    del name
    x = as_input(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions [..., m, n], got "
                         f"shape {x.shape}")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


__all__ += ["matrix_transpose", "vecdot"]
Tensor.vecdot, Tensor.matrix_transpose = vecdot, matrix_transpose
Tensor.mT = property(matrix_transpose, doc="Paddle 3's ``Tensor.mT``: ``matrix_transpose(x)``.")
