"""Paddle 2.5+'s ``paddle.autograd.jacobian`` and ``hessian``: lazily evaluated Jacobian and
Hessian objects that index and slice like tensors.

A ``Jacobian`` of ``ys`` ([M] or 0-D) with respect to ``xs`` ([N] or 0-D) is an [M, N] matrix
(``batch_axis=0``: [B, M] and [B, N] give [B, M, N]); its row i, the gradient of ys[i], is
computed with ``core.grad`` the first time an index needs it and kept. Rows are taken with
``create_graph=True`` where every op on the way has a tensor-level backward, so the result can
be differentiated again (PINN losses on derivatives), as Paddle's; elsewhere with
``create_graph=False``, so first derivatives work through every op (docs/paddle.md).
"""
from __future__ import annotations

import operator

from core.manipulation import stack
from core.tensor import Tensor, grad


class Jacobian:
    """Paddle's ``paddle.autograd.Jacobian``: what ``jacobian`` returns. ``J.shape`` is the
    matrix's shape; ``J[:]`` the whole matrix as a Tensor, ``J[i, :]`` a row, ``J[:, j]`` a
    column, ``J[i, j]`` one entry (batched: ``J[:, i, :]`` and so on); integers and slices
    (and ``...``) index it. Only the rows an index needs are computed, once each. Other
    attributes and arithmetic go to the whole matrix (``J.numpy()``, ``J * 2``)."""

    def __init__(self, ys: Tensor, xs: Tensor, is_batched: bool = False):
        for arg, value in (("ys", ys), ("xs", xs)):
            _check_tensor(value, arg, is_batched)
        self.is_batched = is_batched
        self._xs = xs
        if is_batched:
            if ys.shape[0] != xs.shape[0]:
                raise ValueError(f"jacobian: with batch_axis=0, ys and xs must have the same "
                                 f"batch size (axis 0), got ys {ys.shape} and xs {xs.shape}")
            batch = xs.shape[0]
            self._ys = ys.reshape([batch, -1])
            self._inner = [batch, self._ys.shape[1], xs.size // batch if batch else 0]
            self._present = [True, ys.ndim == 2, xs.ndim == 2]
            self._axis = 1
        else:
            self._ys = ys.reshape([-1])
            self._inner = [self._ys.shape[0], xs.size]
            self._present = [ys.ndim == 1, xs.ndim == 1]
            self._axis = 0
        self.shape = [n for n, shown in zip(self._inner, self._present) if shown]
        self._rows: dict[int, Tensor] = {}
        self._graph: bool | None = None  # None: create_graph while the ops allow it

    def __getitem__(self, index) -> Tensor:
        if not self.shape:
            raise IndexError("a Jacobian of 0-D ys and xs is 0-D and cannot be indexed (as "
                             "Paddle's); J.numpy() or J + 0 give its value")
        wanted = iter(_standard_index(index, self.shape))
        inner = [next(wanted) if shown else 0 for shown in self._present]
        lazy = inner[self._axis]
        if isinstance(lazy, int):
            block = self._row(lazy)
            rest = inner[:self._axis] + inner[self._axis + 1:]
        else:
            rows = range(self._inner[self._axis])[lazy]
            block = self._rows_stacked(list(rows))
            rest = inner[:self._axis] + [slice(None)] + inner[self._axis + 1:]
        return block[tuple(rest)]

    def _rows_stacked(self, rows: list) -> Tensor:
        if rows:
            return stack([self._row(r) for r in rows], axis=self._axis)
        shape = list(self._inner)
        shape[self._axis] = 0
        return Tensor(self._xs.data.reshape(-1)[:0].reshape(shape))  # no row selected

    def _row(self, i: int) -> Tensor:
        """Row i: the gradient of ys[i] (batched: ys[:, i]) with respect to xs, flattened."""
        if i not in self._rows:
            y = self._ys[:, i] if self.is_batched else self._ys[i]
            flat = [self._inner[0], self._inner[2]] if self.is_batched else [self._inner[1]]
            g = None if y.stop_gradient else self._gradient(y)
            if g is None:  # ys[i] does not depend on xs: a row of zeros, as Paddle's
                g = Tensor(self._xs.data.reshape(-1) * 0)
            self._rows[i] = g.reshape(flat)
        return self._rows[i]

    def _gradient(self, y: Tensor) -> Tensor | None:
        if self._graph is not False:
            try:
                return grad(y, self._xs, create_graph=True, allow_unused=True)[0]
            except NotImplementedError:
                if self._graph:
                    raise
                self._graph = False  # an op without a tensor-level backward: first order only
        return grad(y, self._xs, retain_graph=True, allow_unused=True)[0]

    def _evaluate_all(self) -> Tensor:
        return self[:] if self.shape else self._row(0).reshape([])

    def __getattr__(self, name: str):
        if name.startswith("_"):  # not set yet (copy, pickle): no evaluation
            raise AttributeError(name)
        return getattr(self._evaluate_all(), name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape}, rows computed={len(self._rows)})"

    __hash__ = object.__hash__  # comparisons below give Tensors, as Paddle's


def _binary(op, reflected: bool = False):
    def method(self, other):
        lhs = self._evaluate_all()
        rhs = other._evaluate_all() if isinstance(other, Jacobian) else other
        return op(rhs, lhs) if reflected else op(lhs, rhs)
    return method


for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow), ("matmul", operator.matmul)):
    setattr(Jacobian, f"__{_name}__", _binary(_op))
    setattr(Jacobian, f"__r{_name}__", _binary(_op, reflected=True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Jacobian, f"__{_name}__", _binary(getattr(operator, _name)))
Jacobian.__neg__ = lambda self: -self._evaluate_all()


class Hessian(Jacobian):
    """Paddle's ``paddle.autograd.Hessian``: what ``hessian`` returns, the Jacobian of the
    gradient of a scalar ``ys``; indexed and evaluated like ``Jacobian``."""


def _check_tensor(value, arg: str, is_batched: bool) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"jacobian: {arg} must be a Tensor or a tuple/list of Tensors, got "
                        f"{type(value).__name__}")
    allowed = (1, 2) if is_batched else (0, 1)
    if value.ndim not in allowed:
        raise ValueError(
            f"jacobian: {arg} must be {allowed[0]}-D or {allowed[1]}-D with batch_axis="
            f"{0 if is_batched else None}, got shape {value.shape} (flatten it first, as in "
            "Paddle)")


def _standard_index(index, shape: list) -> list:
    """``index`` as one int or slice per axis of ``shape`` (``...`` expanded, negative ints
    made positive); anything else is refused, as Paddle's Jacobian does."""
    index = list(index) if isinstance(index, tuple) else [index]
    if index.count(Ellipsis) > 1:
        raise IndexError("a Jacobian index can hold at most one '...'")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index[at:at + 1] = [slice(None)] * (len(shape) - len(index) + 1)
    if len(index) > len(shape):
        raise IndexError(f"too many indices for a Jacobian of shape {shape}: {len(index)}")
    index += [slice(None)] * (len(shape) - len(index))
    standard = []
    for axis, (i, n) in enumerate(zip(index, shape)):
        if isinstance(i, slice):
            standard.append(i)
        elif isinstance(i, int) and not isinstance(i, bool):
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of range for axis {axis} of a Jacobian of "
                                 f"shape {shape}")
            standard.append(i % n)
        else:
            raise TypeError(f"a Jacobian is indexed with ints, slices and '...', got {i!r} "
                            f"for axis {axis}")
    return standard


def _check_batch_axis(batch_axis, fn: str) -> bool:
    if batch_axis is not None and (isinstance(batch_axis, bool) or batch_axis != 0):
        raise ValueError(f"{fn}: batch_axis must be None or 0 (as Paddle), got {batch_axis!r}")
    return batch_axis is not None


def _is_sequence(value) -> bool:
    return isinstance(value, (list, tuple))


def jacobian(ys, xs, batch_axis=None):
    """Paddle's ``paddle.autograd.jacobian(ys, xs, batch_axis=None)``: the Jacobian of ``ys``
    with respect to ``xs`` as a lazily evaluated ``Jacobian`` (index it: ``J[:]``).

    ``batch_axis=None``: ys and xs are 0-D or 1-D, [M] and [N] give [M, N]. ``batch_axis=0``:
    they are 1-D or 2-D with the batch first, [B, M] and [B, N] give the per-sample Jacobians
    [B, M, N] (each sample's outputs must depend on its own inputs only). A tuple of ys and/or
    xs gives a tuple of Jacobians (nested, ys outer, when both are tuples)."""
    batched = _check_batch_axis(batch_axis, "jacobian")
    if _is_sequence(ys) and _is_sequence(xs):
        return tuple(tuple(Jacobian(y, x, batched) for x in xs) for y in ys)
    if _is_sequence(ys):
        return tuple(Jacobian(y, xs, batched) for y in ys)
    if _is_sequence(xs):
        return tuple(Jacobian(ys, x, batched) for x in xs)
    return Jacobian(ys, xs, batched)


def hessian(ys, xs, batch_axis=None):
    """Paddle's ``paddle.autograd.hessian(ys, xs, batch_axis=None)``: the Hessian of a scalar
    ``ys`` (one element; ``batch_axis=0``: one per sample, shape [B] or [B, 1]) with respect to
    ``xs`` as a lazily evaluated ``Hessian``: [N] gives [N, N], batched [B, N] gives
    [B, N, N]. A tuple of xs gives nested tuples, ``H[i][j]`` for xs[i] and xs[j]. The first
    gradient is taken with ``create_graph=True``, so every op between ys and xs must have a
    tensor-level backward (``core.higher_order.SUPPORTED_OPS``)."""
    batched = _check_batch_axis(batch_axis, "hessian")
    if not isinstance(ys, Tensor):
        raise TypeError(f"hessian: ys must be a Tensor, got {type(ys).__name__}")
    if not batched and ys.size != 1:
        raise ValueError(f"hessian: ys must hold one element with batch_axis=None, got shape "
                         f"{ys.shape}")
    if batched and (ys.ndim not in (1, 2) or ys.size != ys.shape[0]):
        raise ValueError(f"hessian: with batch_axis=0, ys must hold one element per sample "
                         f"(shape [B] or [B, 1]), got shape {ys.shape}")
    xs_list = list(xs) if _is_sequence(xs) else [xs]
    for x in xs_list:
        _check_tensor(x, "xs", batched)
    ys = ys.reshape([-1] if batched else [])
    grads = _first_gradients(ys, xs_list)
    if not _is_sequence(xs):
        return Hessian(grads[0], xs, batched)
    return tuple(tuple(Hessian(g, x, batched) for x in xs_list) for g in grads)


def _first_gradients(ys: Tensor, xs: list) -> list:
    """The gradients of ys (summed over a batch) with respect to each of xs, with a graph;
    zeros (constants) for those ys does not depend on."""
    found = [None] * len(xs) if ys.stop_gradient else grad(ys, xs, create_graph=True,
                                                           allow_unused=True)
    return [Tensor(x.data * 0) if g is None else g for g, x in zip(found, xs)]
