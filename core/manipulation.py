"""Differentiable shape and selection functions with Paddle 2.x semantics.

``reshape`` understands Paddle's 0 (keep this dimension) and -1 (infer it); ``squeeze`` ignores
named axes whose size is not 1, as Paddle does; ``gather`` takes a 1-D index (or [M, 1]) and adds
up the gradients of repeated indices. ``where`` and the other search functions live in
``core.search``, as in Paddle.
"""
from __future__ import annotations

import math

from core import backend
from core.arithmetic import getitem
from core.ops import as_input, normalize_axes, normalize_axis
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["broadcast_to", "cast", "chunk", "concat", "diag", "expand", "expand_as", "flatten",
           "flip", "gather", "masked_fill", "reshape", "roll", "split", "squeeze", "stack", "tile",
           "transpose", "tril", "triu", "unbind", "unsqueeze"]


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


# ----- indexing along an axis, scatters and gathers (Paddle's paddle.tensor.manipulation) ------
from core.ops import sum as _sum  # noqa: E402 - trace's reduction (sum is Python's name here)


def _index_array(index, fn: str, arg: str = "index"):
    """An integer index as a backend array (Tensors, arrays and lists accepted)."""
    idx = index.data if isinstance(index, Tensor) else backend.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{fn}: '{arg}' must be an integer tensor, got dtype {idx.dtype}")
    return idx


def _in_range(idx, size: int, fn: str, arg: str, where: str, negative: bool):
    """``idx`` with negative values wrapped (when allowed), or a clear error naming ``arg``."""
    if not idx.size:
        return idx
    low, high = int(idx.min()), int(idx.max())
    least = -size if negative else 0
    if low < least or high >= size:
        allowed = f"{least}..{size - 1}" if size else "none (the axis is empty)"
        raise IndexError(f"{fn}: '{arg}' values must lie in {allowed} ({where}), got "
                         f"{low}..{high}")
    return idx % size if negative and low < 0 else idx


def _grid(idx, axis: int):
    """Index arrays selecting, for every position of ``idx``, element idx[...] along ``axis``
    and the same position along the other axes (numpy's take_along_axis indexing)."""
    xp = backend.array_module(idx)
    grid = [xp.arange(n).reshape([-1 if i == d else 1 for i in range(idx.ndim)])
            for d, n in enumerate(idx.shape)]
    grid[axis] = idx
    return tuple(grid)


def _last_writers(flat_ids):
    """A bool mask of the elements that are the last to target their position (later writes
    win, as Paddle's CPU kernels loop in order); deterministic on every backend, where a
    fancy assignment with repeated indices leaves the winner unspecified on a GPU."""
    xp = backend.array_module(flat_ids)
    flat_ids = flat_ids.reshape(-1)
    order = xp.argsort(flat_ids, kind="stable")
    ranked = flat_ids[order]
    last = xp.ones(ranked.shape, dtype=bool)
    last[:-1] = ranked[:-1] != ranked[1:]
    mask = xp.zeros(ranked.shape, dtype=bool)
    mask[order] = last
    return mask


def _along_axis_index(arr: Tensor, indices, axis, fn: str):
    """The checked ``indices`` array and the normalised ``axis`` of take/put_along_axis."""
    idx = _index_array(indices, fn, "indices")
    if arr.ndim == 0 or idx.ndim != arr.ndim:
        raise ValueError(f"{fn}: indices must have as many dimensions as arr ({arr.ndim}, at "
                         f"least 1), got shape {list(idx.shape)}")
    return idx, normalize_axis(axis, arr.ndim, fn)


def take_along_axis(arr, indices, axis: int, broadcast: bool = True) -> Tensor:
    """out[..., i, ...] = arr[..., indices[..., i, ...], ...] along ``axis`` (numpy's
    take_along_axis). With ``broadcast`` (Paddle's default) ``indices`` is broadcast to arr's
    shape except along ``axis`` (and arr to indices' where indices is larger); without it,
    indices may be smaller than arr on the other axes, which selects their leading part.
    Negative indices count from the end. The gradient adds up at repeated indices."""
    arr = as_input(arr, "take_along_axis", "arr")
    idx, axis = _along_axis_index(arr, indices, axis, "take_along_axis")
    given = list(idx.shape)
    xp = backend.array_module(arr.data)
    if broadcast:
        if all(n <= m for n, m in zip(idx.shape, arr.data.shape)):
            target = tuple(idx.shape[i] if i == axis else m for i, m in enumerate(arr.shape))
        else:
            target = tuple(idx.shape)
        try:
            idx = xp.broadcast_to(idx, target)
            source = tuple(arr.shape[i] if i == axis else n for i, n in enumerate(target))
            arr = arr if tuple(arr.shape) == source else broadcast_to(arr, list(source))
        except ValueError:
            raise ValueError(f"take_along_axis: indices of shape {given} do not "
                             f"broadcast with arr of shape {arr.shape} (except along axis "
                             f"{axis})") from None
    elif any(n > m for i, (n, m) in enumerate(zip(idx.shape, arr.shape)) if i != axis):
        raise ValueError(f"take_along_axis: with broadcast=False, indices of shape "
                         f"{list(idx.shape)} must not be larger than arr of shape {arr.shape} "
                         f"except along axis {axis}")
    idx = _in_range(idx, arr.shape[axis], "take_along_axis", "indices",
                    f"axis {axis} of arr of shape {arr.shape}", negative=True)
    where = _grid(idx, axis)
    shape = arr.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        xp.add.at(full, where, g)  # repeated indices add up
        return (full,)

    return apply(arr.data[where], (arr,), backward, "take_along_axis")


_PUT_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amax", "amin")


def put_along_axis(arr, indices, values, axis: int, reduce: str = "assign",
                   include_self: bool = True, broadcast: bool = True) -> Tensor:
    """A copy of ``arr`` with ``values`` put at ``indices`` along ``axis`` (the inverse of
    take_along_axis), combined by ``reduce``: 'assign' (the last write wins), 'add',
    'mul'/'multiply', 'mean', 'amax', 'amin'. ``include_self=False`` leaves arr's own value
    out of the reduction at the targeted places. With ``broadcast`` (Paddle's default)
    indices are broadcast to arr's shape except along ``axis``, and values to the indices'
    shape. Differentiable in arr and a Tensor ``values`` (amax/amin: split among ties)."""
    arr = as_input(arr, "put_along_axis", "arr")
    if reduce not in _PUT_REDUCES:
        raise ValueError(f"put_along_axis: reduce must be one of {list(_PUT_REDUCES)}, got "
                         f"{reduce!r}")
    idx, axis = _along_axis_index(arr, indices, axis, "put_along_axis")
    given = list(idx.shape)
    xp = backend.array_module(arr.data)
    if broadcast and all(n <= m for n, m in zip(idx.shape, arr.data.shape)):
        target = tuple(idx.shape[i] if i == axis else m for i, m in enumerate(arr.shape))
        try:
            idx = xp.broadcast_to(idx, target)
        except ValueError:
            raise ValueError(f"put_along_axis: indices of shape {given} do not "
                             f"broadcast to arr's shape {arr.shape} except along axis "
                             f"{axis}") from None
    elif any(n > m for i, (n, m) in enumerate(zip(idx.shape, arr.shape)) if i != axis):
        raise ValueError(f"put_along_axis: indices of shape {list(idx.shape)} must not be "
                         f"larger than arr of shape {arr.shape} except along axis {axis}")
    idx = _in_range(idx, arr.shape[axis], "put_along_axis", "indices",
                    f"axis {axis} of arr of shape {arr.shape}", negative=True)
    if isinstance(values, Tensor):
        vals = values
    elif isinstance(values, (bool, int, float)) or hasattr(values, "dtype"):
        vals = Tensor(xp.asarray(values, dtype=arr.dtype))
    else:
        raise TypeError(f"put_along_axis: values must be a number or a Tensor, got {values!r}")
    v = vals.data.astype(arr.dtype, copy=False)
    try:
        if broadcast or v.ndim == 0:
            v = xp.broadcast_to(v, idx.shape)
        else:  # values at least as large as indices: their leading part is used
            v = v[tuple(slice(0, n) for n in idx.shape)]
            if v.shape != idx.shape:
                raise ValueError
    except ValueError:
        raise ValueError(f"put_along_axis: values of shape {list(vals.shape)} do not match "
                         f"indices of shape {list(idx.shape)}") from None
    where = _grid(idx, axis)
    return _put(arr, vals, v, where, reduce, bool(include_self), "put_along_axis")


def _put(arr: Tensor, vals: Tensor, v, where, reduce: str, include_self: bool, fn: str):
    """The reductions of put_along_axis (and scatter): ``v`` (already shaped like the index
    arrays in ``where``) combined into a copy of ``arr`` at ``where``."""
    a = arr.data
    xp = backend.array_module(a)
    flat = xp.ravel_multi_index(tuple(xp.broadcast_to(w, v.shape) for w in where), a.shape)
    targeted = xp.zeros(a.size, dtype=bool)
    targeted[flat.reshape(-1)] = True
    targeted = targeted.reshape(a.shape)
    out = a.copy()
    count = None
    if reduce == "assign":
        last = _last_writers(flat).reshape(v.shape)
        out[tuple(xp.broadcast_to(w, v.shape)[last] for w in where)] = v[last]
    elif reduce in ("add", "mean"):
        if not include_self:
            out[targeted] = 0
        xp.add.at(out, where, v)
        if reduce == "mean":
            count = xp.zeros(a.shape, dtype=a.dtype)
            xp.add.at(count, where, 1)
            count = count + (1 if include_self else 0)
            count = xp.where(targeted, count, 1)
            out = out / count if a.dtype.kind == "f" else out // count
    elif reduce in ("mul", "multiply"):
        if not include_self:
            out[targeted] = 1
        _multiply_at(out, flat, v)
    else:  # amax / amin
        if not include_self:
            start = xp.finfo(a.dtype) if a.dtype.kind == "f" else xp.iinfo(a.dtype)
            out[targeted] = start.min if reduce == "amax" else start.max
        (xp.maximum if reduce == "amax" else xp.minimum).at(out, where, v)

    def backward(g):
        ga = gv = None
        keep = g if include_self else xp.where(targeted, 0 * g, g)
        if reduce == "assign":
            ga = xp.where(targeted, 0 * g, g)
            gv = g[where] * last
        elif reduce == "add":
            ga, gv = keep, g[where]
        elif reduce == "mean":
            ga, gv = keep / count, (g / count)[where]
        elif reduce in ("mul", "multiply"):
            ga, gv = _multiply_grads(a, out, flat, v, g, targeted, include_self)
        else:
            ga, gv = _extreme_grads(a, out, where, v, g, targeted, include_self)
        if not vals.stop_gradient:
            gv = unbroadcast(gv, vals.data.shape) if gv.shape != vals.data.shape else gv
            if gv.shape != vals.data.shape:  # broadcast=False used values' leading part
                full = xp.zeros(vals.data.shape, dtype=gv.dtype)
                full[tuple(slice(0, n) for n in gv.shape)] = gv
                gv = full
            gv = gv.astype(vals.dtype, copy=False)
        return (None if arr.stop_gradient else ga.astype(a.dtype, copy=False),
                None if vals.stop_gradient else gv)

    return apply(out, (arr, vals), backward, fn)


def _rounds(flat_ids):
    """For each element, how many earlier elements target the same position (its round): the
    elements of one round target distinct positions, so a round is one fancy assignment."""
    xp = backend.array_module(flat_ids)
    ids = flat_ids.reshape(-1)
    order = xp.argsort(ids, kind="stable")
    ranked = ids[order]
    starts = xp.ones(ranked.shape, dtype=bool)
    starts[1:] = ranked[1:] != ranked[:-1]
    run = xp.cumsum(starts) - 1  # which run of equal ids each sorted element is in
    first = xp.flatnonzero(starts)[run]
    rank = xp.empty(ranked.shape, dtype="int64")
    rank[order] = xp.arange(ranked.size) - first
    return rank


def _multiply_at(out, flat, v) -> None:
    """out.flat[flat] *= v with repeated positions multiplied in turn (one round at a time;
    cupy has no multiply.at)."""
    flat, v = flat.reshape(-1), v.reshape(-1)
    rank = _rounds(flat)
    view = out.reshape(-1)  # out is a fresh contiguous array: a view
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        pick = rank == r
        view[flat[pick]] = view[flat[pick]] * v[pick]


def _multiply_grads(a, out, flat, v, g, targeted, include_self):
    """Gradients of a product put: d out / d arr = prod(values there) (where arr is included);
    each value's is g * arr * the product of the other values there, computed without dividing
    by a zero (products of the non-zero values and a count of the zeros)."""
    xp = backend.array_module(a)
    shape = v.shape
    ids, vv = flat.reshape(-1), v.reshape(-1)
    nonzero = xp.where(vv == 0, xp.ones((), dtype=vv.dtype), vv)
    prod_nz = xp.ones(a.size, dtype=a.dtype)
    _multiply_at(prod_nz, ids, nonzero)
    zeros = xp.zeros(a.size, dtype="int64")
    xp.add.at(zeros, ids, (vv == 0).astype("int64"))
    prod_all = xp.where(zeros == 0, prod_nz, 0).reshape(a.shape)
    gflat = g.reshape(-1)
    ga = xp.where(targeted, g * prod_all, g) if include_self else xp.where(targeted, 0 * g, g)
    base = a.reshape(-1)[ids] if include_self else xp.ones(ids.shape, dtype=a.dtype)
    others = xp.where(vv == 0, xp.where(zeros[ids] == 1, prod_nz[ids], 0),
                      xp.where(zeros[ids] == 0, prod_nz[ids] / nonzero, 0))
    gv = (gflat[ids] * base * others).reshape(shape)
    del out
    return ga, gv


def _extreme_grads(a, out, where, v, g, targeted, include_self):
    """amax/amin put: the gradient at each position is split evenly among the candidates
    (arr's own value where included, and the values put there) equal to the result."""
    xp = backend.array_module(a)
    own = (a == out) & targeted if include_self else xp.zeros(a.shape, dtype=bool)
    hit_v = v == out[where]
    ties = own.astype(g.dtype)
    xp.add.at(ties, where, hit_v.astype(g.dtype))
    share = g / xp.where(ties > 0, ties, 1)
    ga = xp.where(targeted, xp.where(own, share, 0 * g), g)
    gv = xp.where(hit_v, share[where], 0)
    return ga, gv


def scatter(x, index, updates, overwrite: bool = True, name: str | None = None) -> Tensor:
    """A copy of ``x`` with rows ``index`` (1-D integer tensor) along axis 0 taken from
    ``updates`` (shape [len(index)] + x.shape[1:]). ``overwrite=True``: each row is replaced,
    the last update wins where an index repeats. ``overwrite=False``: the indexed rows are
    zeroed first, then every update is added (repeats add up), as Paddle. The gradient of x is
    zero at the indexed rows; each update gets the gradient of the row it reached (a row's
    overwritten updates get zero)."""
    del name
    x = as_input(x, "scatter")
    updates = as_input(updates, "scatter", "updates")
    idx = _index_array(index, "scatter")
    if idx.ndim == 2 and idx.shape[1] == 1:
        idx = idx.reshape(-1)
    if idx.ndim > 1:
        raise ValueError(f"scatter: index must be a 1-D integer tensor (or 0-D), got shape "
                         f"{list(idx.shape)}")
    idx = idx.reshape(-1)
    if x.ndim == 0:
        raise ValueError("scatter: x must have at least one dimension, got a 0-D tensor")
    want = (idx.shape[0],) + x.data.shape[1:]
    if tuple(updates.data.shape) != want:
        raise ValueError(f"scatter: updates must have shape {list(want)} ([len(index)] + "
                         f"x.shape[1:]), got {updates.shape}")
    idx = _in_range(idx, x.data.shape[0], "scatter", "index", f"axis 0 of x of shape "
                    f"{x.shape}", negative=False)
    xp = backend.array_module(x.data)
    where = (idx.reshape((-1,) + (1,) * (x.ndim - 1)),) + tuple(
        xp.arange(n).reshape([-1 if i == d else 1 for i in range(x.ndim)])
        for d, n in enumerate(x.data.shape) if d > 0)
    v = updates.data.astype(x.dtype, copy=False)
    return _put(x, updates, v, where, "assign" if overwrite else "add", False, "scatter")


def _nd_index(x: Tensor, index, fn: str):
    """gather_nd / scatter_nd_add's index [..., k] (k <= x.ndim) as a tuple of k arrays."""
    idx = _index_array(index, fn)
    if idx.ndim == 0 or idx.shape[-1] > x.ndim:
        raise ValueError(f"{fn}: index must have shape [..., k] with k <= x.ndim ({x.ndim}), "
                         f"got {list(idx.shape)}")
    parts = []
    for d in range(idx.shape[-1]):
        parts.append(_in_range(idx[..., d], x.data.shape[d], fn, "index",
                               f"axis {d} of x of shape {x.shape}", negative=False))
    return tuple(parts), idx.shape[:-1] + x.data.shape[idx.shape[-1]:]


def gather_nd(x, index, name: str | None = None) -> Tensor:
    """Slices of ``x`` at the k-dimensional points of ``index`` [..., k]: the output has shape
    index.shape[:-1] + x.shape[k:]. Repeated points add up in the gradient."""
    del name
    x = as_input(x, "gather_nd")
    where, _ = _nd_index(x, index, "gather_nd")
    xp = backend.array_module(x.data)
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        xp.add.at(full, where, g)
        return (full,)

    return apply(x.data[where], (x,), backward, "gather_nd")


def scatter_nd_add(x, index, updates, name: str | None = None) -> Tensor:
    """A copy of ``x`` with ``updates`` (shape index.shape[:-1] + x.shape[k:]) added at the
    k-dimensional points of ``index`` [..., k]; repeated points add up. Gradients: x gets g,
    each update the gradient at its point."""
    del name
    x = as_input(x, "scatter_nd_add")
    updates = as_input(updates, "scatter_nd_add", "updates")
    where, want = _nd_index(x, index, "scatter_nd_add")
    if tuple(updates.data.shape) != tuple(want):
        raise ValueError(f"scatter_nd_add: updates must have shape {list(want)} "
                         f"(index.shape[:-1] + x.shape[k:]), got {updates.shape}")
    xp = backend.array_module(x.data)
    out = x.data.copy()
    xp.add.at(out, where, updates.data.astype(x.dtype, copy=False))
    return apply(out, (x, updates), lambda g: (g, g[where].astype(updates.dtype)),
                 "scatter_nd_add")


def repeat_interleave(x, repeats, axis=None, name: str | None = None) -> Tensor:
    """Each element (axis=None: of the flattened x) or slice along ``axis`` repeated
    ``repeats`` times: an int, or a 1-D integer Tensor with one count per slice. The gradient
    of each element is the sum over its copies."""
    del name
    x = as_input(x, "repeat_interleave")
    xp = backend.array_module(x.data)
    a = x.data.reshape(-1) if axis is None else x.data
    axis = 0 if axis is None else normalize_axis(axis, x.ndim, "repeat_interleave")
    size = a.shape[axis]
    if isinstance(repeats, Tensor) or hasattr(repeats, "shape"):
        counts = _index_array(repeats, "repeat_interleave", "repeats").reshape(-1)
        if counts.size == 1:
            counts = xp.broadcast_to(counts, (size,))
        elif counts.size != size:
            raise ValueError(f"repeat_interleave: repeats must have one count per slice "
                             f"({size} along axis {axis}), got {counts.size}")
    elif isinstance(repeats, int) and not isinstance(repeats, bool):
        counts = xp.full((size,), repeats, dtype="int64")
    else:
        raise TypeError(f"repeat_interleave: repeats must be an int or an integer Tensor, got "
                        f"{repeats!r}")
    if counts.size and int(counts.min()) < 0:
        raise ValueError(f"repeat_interleave: repeats must be non-negative, got "
                         f"{int(counts.min())}")
    source = xp.repeat(xp.arange(size), counts)
    lead = (slice(None),) * axis
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(a.shape, dtype=g.dtype)
        xp.add.at(full, lead + (source,), g)
        return (full.reshape(shape),)

    return apply(xp.take(a, source, axis=axis), (x,), backward, "repeat_interleave")


# ----- diagonals, transposes, copies and slices ---------------------------------------------

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


def clone(x, name: str | None = None) -> Tensor:
    """A copy of ``x`` that stays in the graph (the gradient passes through unchanged)."""
    del name
    return as_input(x, "clone").clone()


def assign(x, output=None) -> Tensor:
    """A copy of ``x`` (a Tensor, a numpy array, a list or a number) as a new Tensor; a Tensor
    ``x`` keeps its gradient path. With ``output`` the values are written into that Tensor
    (same shape) and it is returned: an in-place write, which records no gradient."""
    if isinstance(x, Tensor):
        out = x.clone()
    else:
        try:
            array = backend.asarray(x)
        except (TypeError, ValueError):
            raise TypeError(f"assign: x must be a Tensor, an array, a list or a number, got "
                            f"{type(x).__name__}") from None
        if array.dtype == "float64" and not hasattr(x, "dtype"):
            array = array.astype("float32")  # Python floats become float32, as to_tensor
        out = Tensor(array.copy())
    if output is None:
        return out
    if not isinstance(output, Tensor):
        raise TypeError(f"assign: output must be a Tensor or None, got {type(output).__name__}")
    if tuple(output.shape) != tuple(out.shape):
        raise ValueError(f"assign: output has shape {output.shape}, x has {out.shape}")
    output.set_value(out.data.astype(output.dtype, copy=False))
    return output


def _slices(x: Tensor, axes, starts, ends, strides, fn: str) -> tuple:
    axes = [normalize_axis(a, x.ndim, fn) for a in _ints(axes, fn, "axes")]
    starts, ends = _ints(starts, fn, "starts"), _ints(ends, fn, "ends")
    steps = [1] * len(axes) if strides is None else _ints(strides, fn, "strides")
    if not len(axes) == len(starts) == len(ends) == len(steps):
        raise ValueError(f"{fn}: axes {axes}, starts {starts}, ends {ends}"
                         + ("" if strides is None else f", strides {steps}")
                         + " must have the same length")
    if 0 in steps:
        raise ValueError(f"{fn}: strides must not contain 0, got {steps}")
    index = [slice(None)] * x.ndim
    for a, lo, hi, step in zip(axes, starts, ends, steps):
        index[a] = slice(lo, hi, step)  # Python's clamping is Paddle's
    return tuple(index)


def _slice(input, axes, starts, ends) -> Tensor:  # noqa: A002 - Paddle's argument name
    """Paddle's ``slice`` (exported as ``core.slice``; named ``_slice`` here because this module
    uses Python's ``slice`` throughout): ``input[starts[i]:ends[i]]`` along each of ``axes``;
    negative starts/ends count from the end and out-of-range ones are clamped to the axis, as
    Paddle."""
    x = as_input(input, "slice", "input")
    return getitem(x, _slices(x, axes, starts, ends, None, "slice"))


def strided_slice(x, axes, starts, ends, strides, name: str | None = None) -> Tensor:
    """``x[starts[i]:ends[i]:strides[i]]`` along each of ``axes`` (Python's slicing; a negative
    stride walks backwards)."""
    del name
    x = as_input(x, "strided_slice")
    return getitem(x, _slices(x, axes, starts, ends, strides, "strided_slice"))


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
        ga = None if x.stop_gradient else (g * b_view).sum(axis=b_ax).reshape(x.data.shape)
        gb = None if y.stop_gradient else (g * a_view).sum(axis=a_ax).reshape(y.data.shape)
        return ga, gb

    return apply(out, (x, y), backward, "kron")


def diff(x, n: int = 1, axis: int = -1, prepend=None, append=None,
         name: str | None = None) -> Tensor:
    """The n-th forward difference ``out[i] = x[i + 1] - x[i]`` along ``axis``, applied ``n``
    times, after ``prepend`` / ``append`` (Tensors) are joined to x along that axis. Built from
    concat, slicing and subtract, which carry the gradients."""
    del name
    from core.arithmetic import subtract  # noqa: PLC0415 - only diff needs it

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


_slice.__name__ = _slice.__qualname__ = "slice"

__all__ += ["assign", "clone", "diagonal", "diff", "gather_nd", "kron", "moveaxis",
            "put_along_axis", "repeat_interleave", "scatter", "scatter_nd_add",
            "strided_slice", "t", "take_along_axis", "trace"]

for _name, _fn in {
    "take_along_axis": take_along_axis, "put_along_axis": put_along_axis, "scatter": scatter,
    "gather_nd": gather_nd, "scatter_nd_add": scatter_nd_add,
    "repeat_interleave": repeat_interleave, "diagonal": diagonal, "trace": trace, "t": t,
    "moveaxis": moveaxis, "kron": kron, "diff": diff, "strided_slice": strided_slice,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn
