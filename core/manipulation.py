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

from core import backend
from core.arithmetic import getitem, subtract
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
    return apply(x.data.reshape(dims), (x,), lambda g: (g.reshape(source),), op)


def reshape(x, shape) -> Tensor:
    """``x`` with a new shape; 0 keeps the input's dimension there and one -1 is inferred."""
    x = as_input(x, "reshape")
    return _reshaped(x, _resolve_shape(_ints(shape, "reshape", "shape"), x.data.shape), "reshape")


def flatten(x, start_axis: int = 0, stop_axis: int = -1) -> Tensor:
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


def squeeze(x, axis=None) -> Tensor:
    """Drop size-1 dimensions: all of them, or those named by ``axis`` (others are kept)."""
    x = as_input(x, "squeeze")
    shape = x.data.shape
    named = normalize_axes(axis, len(shape), "squeeze")
    dims = tuple(n for i, n in enumerate(shape) if not (n == 1 and i in named))
    return _reshaped(x, dims, "squeeze")


def unsqueeze(x, axis) -> Tensor:
    """Insert size-1 dimensions at ``axis`` (an int or a list, inserted one after another)."""
    x = as_input(x, "unsqueeze")
    dims = list(x.data.shape)
    for a in _ints(axis, "unsqueeze", "axis"):
        dims.insert(normalize_axis(a, len(dims) + 1, "unsqueeze"), 1)
    return _reshaped(x, tuple(dims), "unsqueeze")


def transpose(x, perm) -> Tensor:
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
    return apply(x.data.transpose(perm), (x,), lambda g: (g.transpose(inverse),), "transpose")


def _tensor_list(xs, fn: str) -> list[Tensor]:
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"{fn}: 'x' must be a non-empty list or tuple of Tensors")
    return [as_input(t, fn, f"x[{i}]") for i, t in enumerate(xs)]


def concat(x, axis: int = 0) -> Tensor:
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

    return apply(out, tuple(xs), backward, "concat")


def stack(x, axis: int = 0) -> Tensor:
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

    return apply(out, tuple(xs), backward, "stack")


def split(x, num_or_sections, axis: int = 0) -> list[Tensor]:
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


def gather(x, index, axis=None) -> Tensor:
    """Rows of ``x`` along ``axis`` (default 0) picked by a 1-D (or [M, 1]) integer index."""
    x = as_input(x, "gather")
    axis = normalize_axis(0 if axis is None else axis, x.ndim, "gather")
    xp = backend.array_module(x.data)
    idx = index.data if isinstance(index, Tensor) else backend.asarray(index)
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
        xp.add.at(full, lead + (idx,), g)  # repeated indices add up
        return (full,)

    return apply(xp.take(x.data, idx, axis=axis), (x,), backward, "gather")


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
    return apply(xp.broadcast_to(x.data, target), (x,), lambda g: (unbroadcast(g, source),), fn)


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

    return apply(xp.tile(x.data, reps), (x,), backward, "tile")


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
    return apply(keep(x.data, k), (x,), lambda g: (keep(g, k),), fn)


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

    return apply(out, (x,), backward, "diagonal")


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None) -> Tensor:
    """The sum of the ``offset`` diagonal of the planes spanned by ``axis1`` and ``axis2``."""
    del name
    return _sum(diagonal(x, offset, axis1, axis2), axis=-1)


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
    """Paddle's ``shape(input)``: the shape as a 1-D int32 Tensor (``Tensor.shape`` is the
    list)."""
    x = as_input(input, "shape", "input")
    return Tensor(backend.array_module(x.data).asarray(x.data.shape, dtype="int32"))


def rank(input) -> Tensor:  # noqa: A002 - Paddle's argument name
    """Paddle's ``rank(input)``: the number of dimensions as a 0-D int32 Tensor."""
    x = as_input(input, "rank", "input")
    return Tensor(backend.array_module(x.data).asarray(x.data.ndim, dtype="int32"))
