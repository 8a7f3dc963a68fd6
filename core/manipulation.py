"""Differentiable shape and selection functions with Paddle 2.x semantics.

``reshape`` understands Paddle's 0 (keep this dimension) and -1 (infer it); ``squeeze`` ignores
named axes whose size is not 1, as Paddle does; ``gather`` takes a 1-D index (or [M, 1]) and adds
up the gradients of repeated indices. ``diagonal`` / ``trace`` read the diagonal across two axes,
``t`` and ``moveaxis`` are transposes, and ``diff`` takes differences along an axis. ``where``
and the other search functions live in ``core.search``, as in Paddle; ``take_along_axis``,
the scatters, ``gather_nd``, ``repeat_interleave`` and ``slice`` in ``core.indexing``.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.arithmetic import getitem, subtract
from core.higher_order import captured, linear_grad, sum_to
from core.ops import as_input, normalize_axes, normalize_axis
from core.ops import sum as _sum  # trace's reduction (sum is Python's name here)
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["broadcast_to", "cast", "chunk", "concat", "diag", "expand", "expand_as", "flatten",
           "flip", "gather", "masked_fill", "reshape", "roll", "split", "squeeze", "stack", "tile",
           "transpose", "tril", "triu", "unbind", "unsqueeze", "unstack", "shape", "rank"]


def _ints(values, fn: str, arg: str) -> list[int]:
    if type(values) in (list, tuple) and all(type(v) is int for v in values):
        return list(values)  # the usual case, checked in one pass (this runs once per op)
    if isinstance(values, Tensor):
        values = values.tolist()
    values = [values] if isinstance(values, int) or hasattr(values, "__index__") else values
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{fn}: '{arg}' must be an int or a list/tuple of ints, got {values!r}")
    out = []
    for v in values:
        v = v.item() if isinstance(v, Tensor) else v
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{fn}: '{arg}' must contain ints, got {v!r} in {list(values)}")
        out.append(int(v))
    return out


def _resolve_shape(shape: list[int], source: tuple) -> tuple:
    """Paddle's rules: 0 copies the input's dimension at that position, one -1 is inferred."""
    if min(shape, default=1) > 0 and math.prod(shape) == math.prod(source):
        return tuple(shape)  # every dimension given (the usual case: one pass, no rules)
    dims = []
    for i, n in enumerate(shape):
        if n == 0:
            if i >= len(source):
                raise ValueError(f"reshape: shape {shape} has 0 at position {i}, but the input "
                                 f"has only {len(source)} dimensions to copy from")
            n = source[i]
        elif n < -1:
            raise ValueError(f"reshape: shape {shape} has {n}; dimensions must be positive, "
                             "0 (keep the input's) or -1 (infer)")
        dims.append(n)
    if dims.count(-1) > 1:
        raise ValueError(f"reshape: shape {shape} has more than one -1; only one can be inferred")
    size, known = math.prod(source), math.prod(n for n in dims if n != -1)
    if -1 in dims:
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot infer -1 in {shape} for an input of shape "
                             f"{list(source)} ({size} elements)")
        dims[dims.index(-1)] = size // known
    elif known != size:
        raise ValueError(f"reshape: shape {shape} has {known} elements but the input of shape "
                         f"{list(source)} has {size}")
    return tuple(dims)


def _reshaped(x: Tensor, dims: tuple, op: str) -> Tensor:
    source = x.data.shape
    return apply(x.data.reshape(dims), (x,), lambda g: (g.reshape(source),), op, _reshaped_grad)


def _reshaped_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    return (g.reshape(out._parents[0].shape),)


def reshape(x, shape, name=None) -> Tensor:
    """``x`` with a new shape; 0 keeps the input's dimension there and one -1 is inferred."""
    x = as_input(x, "reshape")
    return _reshaped(x, _resolve_shape(_ints(shape, "reshape", "shape"), x.data.shape), "reshape")


def flatten(x, start_axis: int = 0, stop_axis: int = -1, name=None) -> Tensor:
    """Merge the dimensions start_axis..stop_axis (inclusive) into one; 0-D becomes [1]."""
    x = as_input(x, "flatten")
    shape = x.data.shape
    if not shape:
        return _reshaped(x, (1,), "flatten")
    start = normalize_axis(start_axis, len(shape), "flatten")
    stop = normalize_axis(stop_axis, len(shape), "flatten")
    if start > stop:
        raise ValueError(f"flatten: start_axis ({start_axis}) must not come after stop_axis "
                         f"({stop_axis}) for a {len(shape)}-D tensor")
    dims = shape[:start] + (math.prod(shape[start:stop + 1]),) + shape[stop + 1:]
    return _reshaped(x, dims, "flatten")


def squeeze(x, axis=None, name=None) -> Tensor:
    """Drop size-1 dimensions: all of them, or those named by ``axis`` (others are kept)."""
    x = as_input(x, "squeeze")
    shape = x.data.shape
    named = normalize_axes(axis, len(shape), "squeeze")
    dims = tuple(n for i, n in enumerate(shape) if not (n == 1 and i in named))
    return _reshaped(x, dims, "squeeze")


def unsqueeze(x, axis, name=None) -> Tensor:
    """Insert size-1 dimensions at ``axis`` (an int or a list, inserted one after another)."""
    x = as_input(x, "unsqueeze")
    dims = list(x.data.shape)
    for a in _ints(axis, "unsqueeze", "axis"):
        dims.insert(normalize_axis(a, len(dims) + 1, "unsqueeze"), 1)
    return _reshaped(x, tuple(dims), "unsqueeze")


def transpose(x, perm, name=None) -> Tensor:
    """Permute the dimensions: output dimension i is input dimension perm[i]."""
    x = as_input(x, "transpose")
    ndim = x.ndim
    perm = _ints(perm, "transpose", "perm")
    if sorted(perm) != list(range(ndim)):  # negative axes, or a mistake
        perm = [normalize_axis(p, ndim, "transpose") for p in perm]
    if sorted(perm) != list(range(ndim)):
        raise ValueError(f"transpose: perm {perm} must be a permutation of 0..{ndim - 1} "
                         f"for a {ndim}-D tensor")
    inverse = [perm.index(i) for i in range(ndim)]
    return apply(x.data.transpose(perm), (x,), lambda g: (g.transpose(inverse),), "transpose",
                 _transpose_grad)


def _transpose_grad(out, g):
    (inverse,) = captured(out, "inverse")
    return (g.transpose(inverse),)


def _tensor_list(xs, fn: str) -> list[Tensor]:
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"{fn}: 'x' must be a non-empty list or tuple of Tensors")
    return [as_input(t, fn, f"x[{i}]") for i, t in enumerate(xs)]


def concat(x, axis: int = 0, name=None) -> Tensor:
    """Join tensors along an existing axis; every other dimension must match."""
    xs = _tensor_list(x, "concat")
    axis = normalize_axis(axis, xs[0].ndim, "concat")
    shapes = [t.data.shape for t in xs]
    others = {s[:axis] + s[axis + 1:] for s in shapes}
    if len(others) > 1 or any(len(s) != len(shapes[0]) for s in shapes):
        raise ValueError(f"concat: shapes {[list(s) for s in shapes]} must match except on "
                         f"axis {axis}")
    out = backend.array_module(xs[0].data).concatenate([t.data for t in xs], axis=axis)
    bounds = [0]
    for s in shapes:
        bounds.append(bounds[-1] + s[axis])

    def backward(g):
        lead = (slice(None),) * axis
        return tuple(None if t.stop_gradient else g[lead + (slice(lo, hi),)].astype(t.dtype)
                     for t, lo, hi in zip(xs, bounds, bounds[1:]))

    def grad_fn(_out, g):
        lead = (slice(None),) * axis
        return tuple(None if t.stop_gradient else g[lead + (slice(lo, hi),)]
                     for t, lo, hi in zip(xs, bounds, bounds[1:]))

    return apply(out, tuple(xs), backward, "concat", grad_fn)


def stack(x, axis: int = 0, name=None) -> Tensor:
    """Join equally shaped tensors along a new axis."""
    xs = _tensor_list(x, "stack")
    shapes = {t.data.shape for t in xs}
    if len(shapes) > 1:
        raise ValueError(f"stack: every tensor must have the same shape, got "
                         f"{[t.shape for t in xs]}")
    axis = normalize_axis(axis, xs[0].ndim + 1, "stack")
    out = backend.array_module(xs[0].data).stack([t.data for t in xs], axis=axis)

    def backward(g):
        lead = (slice(None),) * axis
        return tuple(None if t.stop_gradient else g[lead + (i,)].astype(t.dtype)
                     for i, t in enumerate(xs))

    def grad_fn(_out, g):
        lead = (slice(None),) * axis
        return tuple(None if t.stop_gradient else g[lead + (i,)] for i, t in enumerate(xs))

    return apply(out, tuple(xs), backward, "stack", grad_fn)


def split(x, num_or_sections, axis: int = 0, name=None) -> list[Tensor]:
    """Split into ``num_or_sections`` equal parts, or parts of the listed sizes (one may be -1)."""
    x = as_input(x, "split")
    axis = normalize_axis(axis, x.ndim, "split")
    size = x.data.shape[axis]
    if isinstance(num_or_sections, int) and not isinstance(num_or_sections, bool):
        if num_or_sections <= 0 or size % num_or_sections:
            raise ValueError(f"split: cannot split axis {axis} of size {size} into "
                             f"{num_or_sections} equal parts")
        sections = [size // num_or_sections] * num_or_sections
    else:
        sections = _ints(num_or_sections, "split", "num_or_sections")
        known = sum(s for s in sections if s != -1)
        if sections.count(-1) > 1 or any(s < -1 for s in sections) or known > size or (
                -1 not in sections and known != size):
            raise ValueError(f"split: sections {sections} do not divide axis {axis} of size "
                             f"{size} (non-negative sizes, at most one -1, summing to {size})")
        sections = [size - known if s == -1 else s for s in sections]
    lead, start, parts = (slice(None),) * axis, 0, []
    for n in sections:
        parts.append(getitem(x, lead + (slice(start, start + n),)))
        start += n
    return parts


def gather(x, index, axis=None, name=None) -> Tensor:
    """Paddle's ``gather(x, index, axis=None, name=None)``: rows of ``x`` along ``axis``
    (default 0) picked by a 1-D (or [M, 1]) integer index; a 0-D index picks one row and drops
    ``axis``, as paddlepaddle 3.3.1."""
    x = as_input(x, "gather")
    axis = normalize_axis(0 if axis is None else axis, x.ndim, "gather")
    xp = backend.array_module(x.data)
    idx = index.data if isinstance(index, Tensor) else backend.asarray(index)
    if idx.ndim == 0 and idx.dtype.kind in "iu":
        return squeeze(gather(x, Tensor(idx.reshape(1)), axis), axis)
    if idx.ndim == 2 and idx.shape[1] == 1:
        idx = idx.reshape(-1)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise ValueError(f"gather: index must be a 1-D (or [M, 1]) integer tensor, got shape "
                         f"{list(idx.shape)} and dtype {idx.dtype}")
    size = x.data.shape[axis]
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= size):
        raise ValueError(f"gather: index values must lie in 0..{size - 1} (axis {axis} of shape "
                         f"{x.shape}), got {int(idx.min())}..{int(idx.max())}")
    shape, lead = x.data.shape, (slice(None),) * axis

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        backend.add_at(full, lead + (idx,), g)  # repeated indices add up
        return (full,)

    return apply(xp.take(x.data, idx, axis=axis), (x,), backward, "gather", _taken_grad)


def _taken_grad(out, g):  # gather's and index_select's (create_graph): the picked slices' sum
    lead, idx = captured(out, "lead", "idx")
    return (linear_grad(apply, g, out._backward, lambda h: h[lead + (idx,)], f"{out._op}_grad"),)


def chunk(x, chunks: int, axis: int = 0, name: str | None = None) -> list[Tensor]:
    """``chunks`` equal parts of ``x`` along ``axis`` (``split`` with a count, as Paddle)."""
    del name
    return split(x, chunks, axis)


def expand(x, shape, name: str | None = None) -> Tensor:
    """``x`` broadcast to ``shape`` (-1 keeps a dimension; new dimensions go in front)."""
    del name
    return _expand(x, shape, "expand")


def broadcast_to(x, shape, name: str | None = None) -> Tensor:
    """``x`` broadcast to ``shape``, as ``expand`` (-1 keeps a dimension)."""
    del name
    return _expand(x, shape, "broadcast_to")


def expand_as(x, y, name: str | None = None) -> Tensor:
    """``x`` broadcast to the shape of ``y``; ``y`` only gives the shape (no gradient)."""
    del name
    return _expand(x, as_input(y, "expand_as", "y").data.shape, "expand_as")


def _expand(x, shape, fn: str) -> Tensor:
    x = as_input(x, fn)
    dims, source = _ints(shape, fn, "shape"), x.data.shape
    lead = len(dims) - len(source)
    if lead < 0:
        raise ValueError(f"{fn}: shape {dims} has fewer dimensions than x of shape {x.shape}")
    target = tuple(source[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(dims))
    bad = [i for i, n in enumerate(target) if n < 0 or i >= lead and source[i - lead] not in
           (1, n)]
    if bad:
        raise ValueError(f"{fn}: cannot expand x of shape {x.shape} to {dims}: a dimension "
                         "must be 1 or already equal (-1 keeps it only where x has it)")
    xp = backend.array_module(x.data)
    return apply(xp.broadcast_to(x.data, target), (x,), lambda g: (unbroadcast(g, source),), fn,
                 _expand_grad)


def _expand_grad(out, g):
    return (sum_to(g, out._parents[0].shape),)


def tile(x, repeat_times, name: str | None = None) -> Tensor:
    """``x`` repeated ``repeat_times[i]`` times along each dimension i (as ``numpy.tile``)."""
    del name
    x = as_input(x, "tile")
    reps = _ints(repeat_times, "tile", "repeat_times")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repeat_times {reps} must be non-negative")
    ndim = max(len(reps), x.ndim)
    reps = [1] * (ndim - len(reps)) + reps
    source = x.data.shape
    padded = (1,) * (ndim - x.ndim) + source
    xp = backend.array_module(x.data)

    def backward(g):
        # Output dimension i is reps[i] blocks of padded[i]: sum over the blocks.
        split_dims = [n for pair in zip(reps, padded) for n in pair]
        summed = g.reshape(split_dims).sum(axis=tuple(range(0, 2 * ndim, 2)))
        return (summed.reshape(source),)

    return apply(xp.tile(x.data, reps), (x,), backward, "tile", _tile_grad)


def _tile_grad(out, g):  # the same block sums, recorded
    reps, padded, ndim, source = captured(out, "reps", "padded", "ndim", "source")
    split_dims = [n for pair in zip(reps, padded) for n in pair]
    return (g.reshape(split_dims).sum(axis=list(range(0, 2 * ndim, 2))).reshape(list(source)),)


def cast(x, dtype) -> Tensor:
    """``x`` converted to ``dtype``. Differentiable between floating types (the gradient is
    cast back); a cast to or from an integer or bool type carries no gradient, as in Paddle."""
    x = as_input(x, "cast")
    out = x.data.astype(dtype)
    source = x.data.dtype
    if source.kind != "f" or out.dtype.kind != "f":
        return Tensor(out)
    return apply(out, (x,), lambda g: (g.astype(source),), "cast")


def flip(x, axis, name: str | None = None) -> Tensor:
    """``x`` with the order of its elements reversed along ``axis`` (an int or a list)."""
    del name
    x = as_input(x, "flip")
    axes = normalize_axes(_ints(axis, "flip", "axis"), x.ndim, "flip")
    xp = backend.array_module(x.data)
    return apply(xp.flip(x.data, axes), (x,), lambda g: (xp.flip(g, axes),), "flip")


def roll(x, shifts, axis=None, name: str | None = None) -> Tensor:
    """``x`` rotated by ``shifts`` places along ``axis`` (an int or a list, one shift each);
    with ``axis=None`` the flattened tensor is rolled and the shape restored."""
    del name
    x = as_input(x, "roll")
    steps = _ints(shifts, "roll", "shifts")
    xp = backend.array_module(x.data)
    if axis is None:
        if len(steps) != 1:
            raise ValueError(f"roll: with axis=None, shifts must be one int, got {steps}")
        shape = x.data.shape

        def backward(g):
            return (xp.roll(g.reshape(-1), -steps[0]).reshape(shape),)

        return apply(xp.roll(x.data.reshape(-1), steps[0]).reshape(shape), (x,), backward, "roll")
    axes = [normalize_axis(a, x.ndim, "roll") for a in _ints(axis, "roll", "axis")]
    if len(axes) != len(steps):
        raise ValueError(f"roll: shifts {steps} and axis {axes} must have the same length")
    back = [-s for s in steps]
    return apply(xp.roll(x.data, steps, axes), (x,), lambda g: (xp.roll(g, back, axes),), "roll")


def unbind(input, axis: int = 0) -> list[Tensor]:  # noqa: A002 - Paddle's argument name
    """The slices of ``input`` along ``axis``, each without that axis, each differentiable."""
    x = as_input(input, "unbind", "input")
    axis = normalize_axis(axis, x.ndim, "unbind")
    lead = (slice(None),) * axis
    return [getitem(x, lead + (i,)) for i in range(x.data.shape[axis])]


def _triangle(x, diagonal, fn: str) -> Tensor:
    x = as_input(x, fn)
    if x.ndim < 2:
        raise ValueError(f"{fn}: x must have at least 2 dimensions, got shape {x.shape}")
    if isinstance(diagonal, bool) or not hasattr(diagonal, "__index__"):
        raise TypeError(f"{fn}: diagonal must be an int, got {diagonal!r}")
    k = int(diagonal)
    xp = backend.array_module(x.data)
    keep = getattr(xp, fn)
    return apply(keep(x.data, k), (x,), lambda g: (keep(g, k),), fn, _triangle_grad)


def _triangle_grad(out, g):  # create_graph: the same triangle of g (tril or triu), recorded
    (k,) = captured(out, "k")
    return (_triangle(g, k, out._op),)


def tril(x, diagonal: int = 0, name: str | None = None) -> Tensor:
    """The lower triangle of the last two dimensions (on and below ``diagonal``); zeros above."""
    del name
    return _triangle(x, diagonal, "tril")


def triu(x, diagonal: int = 0, name: str | None = None) -> Tensor:
    """The upper triangle of the last two dimensions (on and above ``diagonal``); zeros below."""
    del name
    return _triangle(x, diagonal, "triu")


def masked_fill(x, mask, value, name: str | None = None) -> Tensor:
    """``x`` with ``value`` where the bool ``mask`` (broadcast) is true. A Tensor ``value``
    (one element) receives the summed gradient of the filled positions."""
    del name
    x = as_input(x, "masked_fill")
    m = as_input(mask, "masked_fill", "mask").data
    if m.dtype.kind != "b":
        raise TypeError(f"masked_fill: mask must be a bool tensor, got dtype {m.dtype}")
    xp = backend.array_module(x.data)
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"masked_fill: a Tensor value must have one element, got shape "
                             f"{value.shape}")
        fill, parents = value.data.reshape(()).astype(x.dtype), (x, value)
    elif isinstance(value, (bool, int, float)) or hasattr(value, "dtype"):
        fill, parents = xp.asarray(value, dtype=x.dtype), (x,)
    else:
        raise TypeError(f"masked_fill: value must be a number or a Tensor, got {value!r}")
    try:
        out = xp.where(m, fill, x.data)
    except ValueError:
        raise ValueError(f"masked_fill: mask of shape {list(m.shape)} does not broadcast with "
                         f"x of shape {x.shape}") from None
    shape, zero = x.data.shape, xp.zeros((), dtype=out.dtype)

    def backward(g):
        gx = unbroadcast(xp.where(m, zero, g), shape)
        if len(parents) == 1 or value.stop_gradient:
            return gx, None
        gv = xp.where(m, g, zero).sum().reshape(value.data.shape).astype(value.dtype)
        return gx, gv

    return apply(out, parents, backward, "masked_fill")


def diag(x, offset: int = 0, padding_value=0, name: str | None = None) -> Tensor:
    """A 1-D ``x`` as the ``offset`` diagonal of a square matrix (``padding_value``
    elsewhere), or the ``offset`` diagonal of a 2-D ``x`` as a 1-D tensor."""
    del name
    x = as_input(x, "diag")
    if isinstance(offset, bool) or not hasattr(offset, "__index__"):
        raise TypeError(f"diag: offset must be an int, got {offset!r}")
    k = int(offset)
    xp = backend.array_module(x.data)
    a = x.data
    if a.ndim == 1:
        n = a.shape[0]
        rows, cols = xp.arange(n) + max(-k, 0), xp.arange(n) + max(k, 0)
        out = xp.full((n + abs(k),) * 2, padding_value, dtype=a.dtype)
        out[rows, cols] = a
        return apply(out, (x,), lambda g: (g[rows, cols],), "diag")
    if a.ndim != 2:
        raise ValueError(f"diag: x must be 1-D or 2-D, got shape {x.shape}")
    out = xp.diagonal(a, k).copy()
    n = out.shape[0]
    rows, cols = xp.arange(n) + max(-k, 0), xp.arange(n) + max(k, 0)

    def backward(g):
        full = xp.zeros(a.shape, dtype=g.dtype)
        full[rows, cols] = g
        return (full,)

    return apply(out, (x,), backward, "diag")


for _name, _fn in {
    "reshape": reshape, "flatten": flatten, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "transpose": transpose, "split": split, "gather": gather, "chunk": chunk, "expand": expand,
    "tile": tile, "cast": cast, "broadcast_to": broadcast_to, "expand_as": expand_as,
    "flip": flip, "roll": roll, "unbind": unbind, "tril": tril, "triu": triu,
    "masked_fill": masked_fill,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn
# Paddle's Tensor.T reverses every dimension (for a 2-D tensor: the matrix transpose).
Tensor.T = property(lambda self: transpose(self, list(range(self.ndim))[::-1]))


# ----- diagonals, transposes and differences along an axis --------------------------------------

def _int_arg(value, fn: str, arg: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{fn}: {arg} must be an int, got {value!r}")
    return int(value)


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1,
             name: str | None = None) -> Tensor:
    """The ``offset`` diagonals of the 2-D planes spanned by ``axis1`` and ``axis2``: those two
    axes are removed and the diagonal becomes the last axis (numpy's ``diagonal``)."""
    del name
    x = as_input(x, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal: x must have at least 2 dimensions, got shape {x.shape}")
    k = _int_arg(offset, "diagonal", "offset")
    a1 = normalize_axis(axis1, x.ndim, "diagonal")
    a2 = normalize_axis(axis2, x.ndim, "diagonal")
    if a1 == a2:
        raise ValueError(f"diagonal: axis1 and axis2 must differ, both are {a1}")
    xp = backend.array_module(x.data)
    out = xp.diagonal(x.data, k, a1, a2).copy()
    n = out.shape[-1]
    rows, cols = xp.arange(n) + max(-k, 0), xp.arange(n) + max(k, 0)
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        xp.moveaxis(full, (a1, a2), (-2, -1))[..., rows, cols] = g  # a view: writes into full
        return (full,)

    def grad_fn(_out, g):  # create_graph: linear, so its Jacobian is the diagonal itself
        return (linear_grad(apply, g, backward, lambda h: diagonal(h, k, a1, a2),
                            "diagonal_grad"),)

    return apply(out, (x,), backward, "diagonal", grad_fn)


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None) -> Tensor:
    """The sum of the ``offset`` diagonal of the planes spanned by ``axis1`` and ``axis2``, in
    x's dtype (paddlepaddle 3.3.1: an int32 trace stays int32, where sum gives int64)."""
    del name
    d = diagonal(x, offset, axis1, axis2)
    return _sum(d, axis=-1, dtype=d.dtype if d.dtype.kind in "iu" else None)


def t(input, name: str | None = None) -> Tensor:  # noqa: A002 - Paddle's argument name
    """The transpose of a 2-D tensor; a 0-D or 1-D tensor is returned as it is, as Paddle."""
    del name
    x = as_input(input, "t", "input")
    if x.ndim > 2:
        raise ValueError(f"t: input must have at most 2 dimensions, got shape {x.shape} "
                         "(use transpose for more)")
    return x if x.ndim < 2 else transpose(x, [1, 0])


def moveaxis(x, source, destination, name: str | None = None) -> Tensor:
    """``x`` with the axes ``source`` (an int or a list) moved to ``destination``; the others
    keep their order."""
    del name
    x = as_input(x, "moveaxis")
    src = [normalize_axis(a, x.ndim, "moveaxis") for a in _ints(source, "moveaxis", "source")]
    dst = [normalize_axis(a, x.ndim, "moveaxis")
           for a in _ints(destination, "moveaxis", "destination")]
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {src} and destination {dst} must have the same "
                         "length")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis: source {src} and destination {dst} must not repeat an axis")
    rest = [i for i in range(x.ndim) if i not in src]
    perm = [0] * x.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    free = iter(rest)
    perm = [p if i in dst else next(free) for i, p in enumerate(perm)]
    return transpose(x, perm)


def diff(x, n: int = 1, axis: int = -1, prepend=None, append=None,
         name: str | None = None) -> Tensor:
    """The n-th forward difference ``out[i] = x[i + 1] - x[i]`` along ``axis``, applied ``n``
    times, after ``prepend`` / ``append`` (Tensors) are joined to x along that axis. Built from
    concat, slicing and subtract, which carry the gradients."""
    del name
    x = as_input(x, "diff")
    n = _int_arg(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension, got a 0-D tensor")
    axis = normalize_axis(axis, x.ndim, "diff")
    parts = [as_input(prepend, "diff", "prepend")] if prepend is not None else []
    parts.append(x)
    if append is not None:
        parts.append(as_input(append, "diff", "append"))
    out = concat(parts, axis) if len(parts) > 1 else x
    lead = (slice(None),) * axis
    for _ in range(n):
        if out.data.shape[axis] == 0:
            break
        out = subtract(getitem(out, lead + (slice(1, None),)),
                       getitem(out, lead + (slice(None, -1),)))
    return out


__all__ += ["diagonal", "diff", "moveaxis", "t", "trace"]

for _name, _fn in {
    "diagonal": diagonal, "trace": trace, "t": t, "moveaxis": moveaxis, "diff": diff,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


def unstack(x, axis: int = 0, num: int | None = None) -> list[Tensor]:
    """Paddle's ``unstack(x, axis=0, num=None)``: the slices of ``x`` along ``axis``, each
    without that axis and differentiable (``unbind``). ``num``, if given, must equal the size
    of that axis, as Paddle checks."""
    x = as_input(x, "unstack")
    axis = normalize_axis(axis, x.ndim, "unstack")
    size = x.data.shape[axis]
    if num is not None and (isinstance(num, bool) or not hasattr(num, "__index__")
                            or int(num) != size):
        raise ValueError(f"unstack: num={num!r} must be None or the size of axis {axis}, "
                         f"which is {size} for shape {x.shape}")
    return unbind(x, axis)


def shape(input) -> Tensor:  # noqa: A002 - Paddle's argument name
    """Paddle's ``shape(input)``: the shape as a 1-D int64 Tensor, as Paddle 3.3.1 returns
    (``Tensor.shape`` is the list)."""
    x = as_input(input, "shape", "input")
    return Tensor(backend.array_module(x.data).asarray(x.data.shape, dtype="int64"))


def rank(input) -> Tensor:  # noqa: A002 - Paddle's argument name
    """Paddle's ``rank(input)``: the number of dimensions as a 0-D int32 Tensor."""
    x = as_input(input, "rank", "input")
    return Tensor(backend.array_module(x.data).asarray(x.data.ndim, dtype="int32"))


# ----- Paddle 3.x shape functions: rot90, atleast_nd, tensor_split and the h/v/d variants, the
# stacks, view / view_as, unflatten, as_strided, unfold, diag_embed, diagflat, block_diag,
# broadcast_tensors / broadcast_shape. Most are compositions of the ops above, which carry the
# gradients; the rest record their own backward.

def rot90(x, k: int = 1, axes=(0, 1), name: str | None = None) -> Tensor:
    """Paddle's ``rot90(x, k=1, axes=[0, 1])``: ``x`` rotated by 90 degrees ``k`` times in the
    plane of ``axes``, from the first axis towards the second (numpy's ``rot90``)."""
    del name
    x = as_input(x, "rot90")
    k = _int_arg(k, "rot90", "k")
    pair = _ints(axes, "rot90", "axes")
    if len(pair) != 2:
        raise ValueError(f"rot90: axes must name two axes, got {pair}")
    if x.ndim < 2:
        raise ValueError(f"rot90: x must have at least 2 dimensions, got shape {x.shape}")
    a0, a1 = (normalize_axis(a, x.ndim, "rot90") for a in pair)
    if a0 == a1:
        raise ValueError(f"rot90: axes must be two different axes, got {pair}")
    k %= 4
    if k == 0:
        return apply(x.data.copy(), (x,), lambda g: (g,), "rot90")
    if k == 2:
        return flip(x, [a0, a1])
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = a1, a0
    return transpose(flip(x, a1), perm) if k == 1 else flip(transpose(x, perm), a1)


def _at_least(inputs: tuple, ndim: int, fn: str):
    """atleast_1d/2d/3d: each input with size-1 dimensions added as numpy's atleast_nd does;
    one Tensor for one input, else a list."""
    if not inputs:
        raise TypeError(f"{fn}: give at least one Tensor")
    outs = []
    for i, x in enumerate(inputs):
        x = as_input(x, fn, f"inputs[{i}]")
        shape = tuple(x.data.shape)
        if len(shape) < ndim:
            if ndim == 3 and len(shape) == 2:
                shape = shape + (1,)
            elif ndim == 3 and len(shape) == 1:
                shape = (1,) + shape + (1,)
            else:
                shape = (1,) * (ndim - len(shape)) + shape
            x = _reshaped(x, shape, fn)
        outs.append(x)
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs, name: str | None = None):
    """Paddle's ``atleast_1d(*inputs)``: 0-D tensors become [1]; others are returned as they
    are. One Tensor for one input, else a list."""
    del name
    return _at_least(inputs, 1, "atleast_1d")


def atleast_2d(*inputs, name: str | None = None):
    """Paddle's ``atleast_2d(*inputs)``: 0-D becomes [1, 1] and [n] becomes [1, n]."""
    del name
    return _at_least(inputs, 2, "atleast_2d")


def atleast_3d(*inputs, name: str | None = None):
    """Paddle's ``atleast_3d(*inputs)``: 0-D becomes [1, 1, 1], [n] becomes [1, n, 1] and
    [m, n] becomes [m, n, 1] (numpy's rule)."""
    del name
    return _at_least(inputs, 3, "atleast_3d")


def tensor_split(x, num_or_indices, axis: int = 0, name: str | None = None) -> list[Tensor]:
    """Paddle's ``tensor_split(x, num_or_indices, axis=0)``: an int n gives n parts, the first
    ``size % n`` of them one longer (numpy's ``array_split``); a list of indices splits before
    each index (negative ones count from the end; parts may be empty)."""
    del name
    x = as_input(x, "tensor_split")
    if x.ndim == 0:
        raise ValueError("tensor_split: x must have at least one dimension, got a 0-D tensor")
    axis = normalize_axis(axis, x.ndim, "tensor_split")
    size = x.data.shape[axis]
    if isinstance(num_or_indices, int) and not isinstance(num_or_indices, bool):
        n = num_or_indices
        if n <= 0:
            raise ValueError(f"tensor_split: num_or_indices must be a positive int or a list of "
                             f"indices, got {n}")
        sizes = [size // n + 1] * (size % n) + [size // n] * (n - size % n)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        if not isinstance(num_or_indices, (list, tuple)):
            raise TypeError(f"tensor_split: num_or_indices must be an int or a list/tuple of "
                            f"ints, got {num_or_indices!r}")
        cuts = [i + size if i < 0 else i for i in _ints(num_or_indices, "tensor_split",
                                                         "num_or_indices")]
        bounds = [0] + [min(max(c, 0), size) for c in cuts] + [size]
    lead = (slice(None),) * axis
    return [getitem(x, lead + (slice(lo, max(lo, hi)),)) for lo, hi in zip(bounds, bounds[1:])]


def hsplit(x, num_or_indices, name: str | None = None) -> list[Tensor]:
    """Paddle's ``hsplit(x, num_or_indices)``: ``tensor_split`` along axis 1 (axis 0 for a
    1-D x)."""
    del name
    x = as_input(x, "hsplit")
    if x.ndim < 1:
        raise ValueError("hsplit: x must have at least 1 dimension, got a 0-D tensor")
    return tensor_split(x, num_or_indices, 1 if x.ndim > 1 else 0)


def vsplit(x, num_or_indices, name: str | None = None) -> list[Tensor]:
    """Paddle's ``vsplit(x, num_or_indices)``: ``tensor_split`` along axis 0 (x at least
    2-D)."""
    del name
    return _split_along(x, num_or_indices, 0, 2, "vsplit")


def dsplit(x, num_or_indices, name: str | None = None) -> list[Tensor]:
    """Paddle's ``dsplit(x, num_or_indices)``: ``tensor_split`` along axis 2 (x at least
    3-D)."""
    del name
    return _split_along(x, num_or_indices, 2, 3, "dsplit")


def _split_along(x, num_or_indices, axis: int, min_dims: int, fn: str) -> list[Tensor]:
    """``tensor_split`` along ``axis`` of an x with at least ``min_dims`` dimensions."""
    x = as_input(x, fn)
    if x.ndim < min_dims:
        raise ValueError(f"{fn}: x must have at least {min_dims} dimensions, got shape "
                         f"{x.shape}")
    return tensor_split(x, num_or_indices, axis)


def _as_list(x, fn: str) -> list:
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{fn}: 'x' must be a non-empty list or tuple of Tensors")
    return list(x)


def hstack(x, name: str | None = None) -> Tensor:
    """Paddle's ``hstack(x)``: the tensors (made at least 1-D) joined along axis 1, or along
    axis 0 when they are 1-D."""
    del name
    xs = _at_least(tuple(_as_list(x, "hstack")), 1, "hstack")
    xs = [xs] if isinstance(xs, Tensor) else xs
    return concat(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(x, name: str | None = None) -> Tensor:
    """Paddle's ``vstack(x)`` (alias ``row_stack``): the tensors (made at least 2-D, [n] as
    [1, n]) joined along axis 0."""
    del name
    xs = _at_least(tuple(_as_list(x, "vstack")), 2, "vstack")
    return concat([xs] if isinstance(xs, Tensor) else xs, 0)


def dstack(x, name: str | None = None) -> Tensor:
    """Paddle's ``dstack(x)``: the tensors (made at least 3-D as ``atleast_3d``) joined along
    axis 2."""
    del name
    xs = _at_least(tuple(_as_list(x, "dstack")), 3, "dstack")
    return concat([xs] if isinstance(xs, Tensor) else xs, 2)


def column_stack(x, name: str | None = None) -> Tensor:
    """Paddle's ``column_stack(x)``: 0-D and 1-D tensors become columns ([n] -> [n, 1]), the
    rest stay; all are joined along axis 1."""
    del name
    cols = []
    for i, t in enumerate(_as_list(x, "column_stack")):
        t = as_input(t, "column_stack", f"x[{i}]")
        cols.append(_reshaped(t, (t.size, 1), "column_stack") if t.ndim < 2 else t)
    return concat(cols, 1)


def row_stack(x, name: str | None = None) -> Tensor:
    """Paddle's ``row_stack(x)``: ``vstack``."""
    del name
    return vstack(x)


def view(x, shape_or_dtype, name: str | None = None) -> Tensor:
    """Paddle's ``view(x, shape_or_dtype)``: with a shape (a list; 0 and -1 as ``reshape``),
    ``x`` reshaped; with a dtype, the same bytes read as that dtype (the last dimension scales
    by the ratio of the item sizes; no gradient, as a bit cast has none)."""
    del name
    x = as_input(x, "view")
    if isinstance(shape_or_dtype, (list, tuple, Tensor)):
        return reshape(x, shape_or_dtype)
    try:
        dtype = np.dtype(shape_or_dtype)
    except TypeError:
        raise TypeError(f"view: shape_or_dtype must be a list of ints or a dtype, got "
                        f"{shape_or_dtype!r}") from None
    a = x.data if x.data.flags.c_contiguous else x.data.copy()
    try:
        return Tensor(a.view(dtype))
    except ValueError:
        raise ValueError(f"view: cannot read x of shape {x.shape} and dtype {x.dtype} as "
                         f"{dtype}: the last dimension's bytes must divide by its item "
                         "size") from None


def view_as(x, other, name: str | None = None) -> Tensor:
    """Paddle's ``view_as(x, other)``: ``x`` reshaped to ``other``'s shape."""
    del name
    return reshape(as_input(x, "view_as"), as_input(other, "view_as", "other").shape)


def unflatten(x, axis: int, shape, name: str | None = None) -> Tensor:
    """Paddle's ``unflatten(x, axis, shape)``: dimension ``axis`` split into ``shape`` (its
    product must be that dimension; one -1 is inferred)."""
    del name
    x = as_input(x, "unflatten")
    if x.ndim == 0:
        raise ValueError("unflatten: x must have at least one dimension, got a 0-D tensor")
    axis = normalize_axis(axis, x.ndim, "unflatten")
    dims = _ints(shape, "unflatten", "shape")
    if not dims:
        raise ValueError("unflatten: shape must not be empty")
    size = x.data.shape[axis]
    if dims.count(-1) > 1 or any(n < -1 for n in dims):
        raise ValueError(f"unflatten: shape={dims} may hold one -1 and otherwise sizes >= 0")
    known = math.prod(n for n in dims if n != -1)
    if -1 in dims:
        if known == 0 or size % known:
            raise ValueError(f"unflatten: cannot infer -1 in shape={dims} for axis {axis} of "
                             f"size {size} (x has shape {x.shape})")
        dims[dims.index(-1)] = size // known
    elif known != size:
        raise ValueError(f"unflatten: shape={dims} has {known} elements but axis {axis} of x "
                         f"(shape {x.shape}) has {size}")
    source = x.data.shape
    return _reshaped(x, source[:axis] + tuple(dims) + source[axis + 1:], "unflatten")


def _flat_take(x: Tensor, flat_idx, op: str) -> Tensor:
    """The elements of x (as a flat array) at the integer array ``flat_idx``, which gives the
    output's shape; repeated positions add up in backward."""
    xp = backend.array_module(x.data)
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(math.prod(shape), dtype=g.dtype)
        backend.add_at(full, flat_idx.reshape(-1), g.reshape(-1))
        return (full.reshape(shape),)

    return apply(x.data.reshape(-1)[flat_idx], (x,), backward, op)


def as_strided(x, shape, stride, offset: int = 0, name: str | None = None) -> Tensor:
    """Paddle's ``as_strided(x, shape, stride, offset=0)``: the elements of contiguous ``x`` at
    ``offset + sum(i_k * stride[k])`` (strides in elements) for each index i of ``shape``.
    A copy here, not a view (docs/paddle.md); positions read twice get both gradients."""
    del name
    x = as_input(x, "as_strided")
    dims, steps = _ints(shape, "as_strided", "shape"), _ints(stride, "as_strided", "stride")
    offset = _int_arg(offset, "as_strided", "offset")
    if len(dims) != len(steps):
        raise ValueError(f"as_strided: shape {dims} and stride {steps} must have the same length")
    if any(n < 0 for n in dims) or any(s < 0 for s in steps) or offset < 0:
        raise ValueError(f"as_strided: shape {dims}, stride {steps} and offset {offset} must be "
                         "non-negative")
    xp = backend.array_module(x.data)
    flat = xp.full(tuple(dims), offset, dtype="int64")
    for d, (n, s) in enumerate(zip(dims, steps)):
        flat = flat + (xp.arange(n, dtype="int64") * s).reshape(
            [-1 if i == d else 1 for i in range(len(dims))])
    last = offset + sum((n - 1) * s for n, s in zip(dims, steps)) if all(dims) else -1
    if last >= x.size:
        raise ValueError(f"as_strided: shape {dims}, stride {steps} and offset {offset} reach "
                         f"element {last}, but x has {x.size} elements")
    return _flat_take(x, flat, "as_strided")


def unfold(x, axis: int, size: int, step: int, name: str | None = None) -> Tensor:
    """Paddle's ``unfold(x, axis, size, step)`` (``Tensor.unfold``; not
    ``nn.functional.unfold``): the windows of ``size`` elements, ``step`` apart, along ``axis``.
    That axis becomes the window count ``(n - size) // step + 1`` and a last axis of ``size``
    is added."""
    del name
    x = as_input(x, "unfold")
    size, step = _int_arg(size, "unfold", "size"), _int_arg(step, "unfold", "step")
    if x.ndim == 0:
        x = _reshaped(x, (1,), "unfold")
    axis = normalize_axis(axis, x.ndim, "unfold")
    n = x.data.shape[axis]
    if not 0 <= size <= n:
        raise ValueError(f"unfold: size must be in [0, {n}] (axis {axis} of shape {x.shape}), "
                         f"got {size}")
    if step <= 0:
        raise ValueError(f"unfold: step must be positive, got {step}")
    xp = backend.array_module(x.data)
    count = (n - size) // step + 1
    windows = xp.arange(count)[:, None] * step + xp.arange(size)[None, :]  # [count, size]
    moved = moveaxis(x, axis, -1)  # [..., n]
    lead = moved.data.shape[:-1]
    rows = xp.arange(math.prod(lead)).reshape(lead + (1, 1)) * n
    out = _flat_take(moved, rows + windows, "unfold")  # [..., count, size]
    return moveaxis(out, -2, axis)


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1,  # noqa: A002
               name: str | None = None) -> Tensor:
    """Paddle's ``diag_embed(input, offset=0, dim1=-2, dim2=-1)``: the last dimension of
    ``input`` becomes the ``offset`` diagonal of new 2-D planes on output dimensions ``dim1``
    and ``dim2`` (zeros elsewhere); the output has one dimension more than ``input``."""
    del name
    x = as_input(input, "diag_embed", "input")
    if x.ndim == 0:
        raise ValueError("diag_embed: input must have at least 1 dimension, got a 0-D tensor")
    k = _int_arg(offset, "diag_embed", "offset")
    d1 = normalize_axis(dim1, x.ndim + 1, "diag_embed")
    d2 = normalize_axis(dim2, x.ndim + 1, "diag_embed")
    if d1 == d2:
        raise ValueError(f"diag_embed: dim1 and dim2 must differ, both are {d1}")
    xp = backend.array_module(x.data)
    a = x.data
    n = a.shape[-1]
    m = n + abs(k)
    rows, cols = xp.arange(n) + max(-k, 0), xp.arange(n) + max(k, 0)
    planes = xp.zeros(a.shape[:-1] + (m, m), dtype=a.dtype)
    planes[..., rows, cols] = a
    out = xp.moveaxis(planes, (-2, -1), (d1, d2))

    def backward(g):
        return (xp.moveaxis(g, (d1, d2), (-2, -1))[..., rows, cols],)

    return apply(out, (x,), backward, "diag_embed")


def diagflat(x, offset: int = 0, name: str | None = None) -> Tensor:
    """Paddle's ``diagflat(x, offset=0)``: ``x`` flattened, as the ``offset`` diagonal of a
    square matrix."""
    del name
    x = as_input(x, "diagflat")
    return diag(_reshaped(x, (x.size,), "diagflat"), offset)


def block_diag(inputs, name: str | None = None) -> Tensor:
    """Paddle's ``block_diag(inputs)``: the 0-D, 1-D ([n] as [1, n]) or 2-D tensors as blocks
    down the diagonal of one matrix, zeros elsewhere."""
    del name
    blocks = []
    for i, t in enumerate(_as_list(inputs, "block_diag")):
        t = as_input(t, "block_diag", f"inputs[{i}]")
        if t.ndim > 2:
            raise ValueError(f"block_diag: inputs[{i}] must be at most 2-D, got shape {t.shape}")
        blocks.append(t)
    shapes = [(1, 1) if b.ndim == 0 else (1, b.shape[0]) if b.ndim == 1 else tuple(b.shape)
              for b in blocks]
    xp = backend.array_module(blocks[0].data)
    dtype = xp.result_type(*[b.data for b in blocks])
    out = xp.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype=dtype)
    places, r, c = [], 0, 0
    for b, (h, w) in zip(blocks, shapes):
        places.append((slice(r, r + h), slice(c, c + w)))
        out[places[-1]] = b.data.reshape(h, w)
        r, c = r + h, c + w

    def backward(g):
        return tuple(None if b.stop_gradient else g[p].reshape(b.data.shape).astype(b.dtype)
                     for b, p in zip(blocks, places))

    return apply(out, tuple(blocks), backward, "block_diag")


def broadcast_shape(x_shape, y_shape) -> list[int]:
    """Paddle's ``broadcast_shape(x_shape, y_shape)``: the shape two tensors of these shapes
    broadcast to (numpy's rules), as a list."""
    a, b = _ints(x_shape, "broadcast_shape", "x_shape"), _ints(y_shape, "broadcast_shape",
                                                               "y_shape")
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        m = a[-i] if i <= len(a) else 1
        n = b[-i] if i <= len(b) else 1
        if m != n and 1 not in (m, n):
            raise ValueError(f"broadcast_shape: shapes {a} and {b} do not broadcast (dimension "
                             f"{-i}: {m} vs {n})")
        out.append(n if m == 1 else m)
    return out[::-1]


def broadcast_tensors(input, name: str | None = None) -> list[Tensor]:  # noqa: A002
    """Paddle's ``broadcast_tensors(input)``: the tensors of the list, each broadcast to their
    common shape."""
    del name
    xs = [as_input(t, "broadcast_tensors", f"input[{i}]")
          for i, t in enumerate(_as_list(input, "broadcast_tensors"))]
    target: list[int] = []
    for t in xs:
        target = broadcast_shape(target, t.shape)
    return [t if t.shape == target else broadcast_to(t, target) for t in xs]


__all__ += ["as_strided", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag",
            "broadcast_shape", "broadcast_tensors", "column_stack", "diag_embed", "diagflat",
            "dsplit", "dstack", "hsplit", "hstack", "rot90", "row_stack", "tensor_split",
            "unflatten", "unfold", "view", "view_as", "vsplit", "vstack"]

for _name, _fn in {
    "rot90": rot90, "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "view": view, "view_as": view_as, "unflatten": unflatten, "as_strided": as_strided,
    "unfold": unfold, "diag_embed": diag_embed, "diagflat": diagflat, "diag": diag,
    "unstack": unstack, "reverse": flip, "rank": rank,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


# ----- blocks: crop (cut one out), reduce_as (sum broadcast copies back to a target's shape) ---

def _int_per_axis(values, fn: str, arg: str, ndim: int) -> list[int]:
    """A list/tuple of ints (or 0-D Tensors) or a 1-D int Tensor, one per dimension of x."""
    if isinstance(values, Tensor):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{fn}: {arg} must be a list, tuple or 1-D Tensor of ints, got "
                        f"{values!r}")
    values = [v.item() if isinstance(v, Tensor) else v for v in values]
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in values):
        raise TypeError(f"{fn}: {arg} must hold ints, got {values}")
    if len(values) != ndim:
        raise ValueError(f"{fn}: {arg} needs one value per dimension of x ({ndim}), got "
                         f"{values}")
    return [int(v) for v in values]


def crop(x, shape=None, offsets=None, name: str | None = None) -> Tensor:
    """Paddle's ``crop(x, shape=None, offsets=None)``: the block of ``x`` that starts at
    ``offsets`` (zeros when None) and has ``shape`` (x's shape when None; -1 in a dimension
    takes everything from the offset on). The gradient flows back into the block."""
    del name
    x = as_input(x, "crop")
    dims = tuple(x.data.shape)
    starts = [0] * x.ndim if offsets is None else _int_per_axis(offsets, "crop", "offsets", x.ndim)
    sizes = list(dims) if shape is None else _int_per_axis(shape, "crop", "shape", x.ndim)
    index = []
    for axis, (start, size, dim) in enumerate(zip(starts, sizes, dims)):
        size = dim - start if size == -1 else size
        if start < 0 or size < 0 or start + size > dim:
            raise ValueError(f"crop: offset {start} and size {size} in dimension {axis} do not "
                             f"fit x's size {dim} there (offsets must be >= 0, sizes >= 0 or "
                             "-1, offset + size <= size of x)")
        index.append(slice(start, start + size))
    return getitem(x, tuple(index))


def reduce_as(x, target, name: str | None = None) -> Tensor:
    """Paddle's ``reduce_as(x, target)``: ``x`` summed over the dimensions that broadcasting
    ``target`` to x's shape would repeat (the leading extra ones, and those where target has
    size 1), so the result has target's shape. bool and int32 sum to int64, as Paddle. The
    gradient is the output's broadcast back to x's shape."""
    del name
    x, target = as_input(x, "reduce_as"), as_input(target, "reduce_as", "target")
    dims, goal = tuple(x.data.shape), tuple(target.data.shape)
    extra = len(dims) - len(goal)
    if extra < 0 or any(t not in (d, 1) for d, t in zip(dims[extra:], goal)):
        raise ValueError(f"reduce_as: target's shape {target.shape} must broadcast to x's "
                         f"shape {x.shape} (x must have at least as many dimensions)")
    kept = tuple(extra + i for i, (d, t) in enumerate(zip(dims[extra:], goal)) if t == 1 != d)
    a = x.data.astype(np.int64) if x.dtype in (np.bool_, np.int32) else x.data
    out = a.sum(axis=tuple(range(extra)) + kept, keepdims=True).reshape(goal)
    xp = backend.array_module(x.data)
    return apply(out, (x,), lambda g: (xp.broadcast_to(g, dims),), "reduce_as")


__all__ += ["crop", "reduce_as"]

for _fn in (crop, reduce_as):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
