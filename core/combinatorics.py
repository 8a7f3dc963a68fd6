"""Combinatorial constructions from 1-D tensors with Paddle 3's names: ``cartesian_prod`` (every
tuple taking one element from each tensor) and ``combinations`` (every r-element choice from one
tensor, as Python's itertools).

Both gather elements of their inputs by index (core's differentiable ``getitem`` / ``meshgrid``),
so gradients flow back to the chosen elements, adding up where an element is chosen many times.
"""
from __future__ import annotations

import itertools

import numpy as np

from core import backend
from core.arithmetic import getitem
from core.creation import meshgrid
from core.manipulation import reshape, stack
from core.ops import as_input
from core.tensor import Tensor

__all__ = ["cartesian_prod", "combinations"]


def cartesian_prod(x, name: str | None = None) -> Tensor:
    """Paddle's ``cartesian_prod(x)``: for a list of 1-D tensors of one dtype, the
    ``[n_1 * n_2 * ..., len(x)]`` tensor whose rows are every tuple taking one element from
    each, in the order of nested loops (the last tensor varies fastest). A list of one tensor
    gives that tensor itself."""
    del name
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"cartesian_prod: x must be a non-empty list or tuple of 1-D Tensors, "
                        f"got {type(x).__name__}")
    for i, t in enumerate(x):
        t = as_input(t, "cartesian_prod", f"x[{i}]")
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod: x[{i}] must be 1-D, got shape {t.shape}")
    dtypes = {t.dtype for t in x}
    if len(dtypes) > 1:
        raise TypeError(f"cartesian_prod: every tensor in x must have the same dtype, got "
                        f"{sorted(str(d) for d in dtypes)}")
    if len(x) == 1:
        return x[0]
    columns = [reshape(grid, [-1]) for grid in meshgrid(*x)]
    return stack(columns, axis=1)


def combinations(x, r: int = 2, with_replacement: bool = False,
                 name: str | None = None) -> Tensor:
    """Paddle's ``combinations(x, r=2, with_replacement=False)``: the ``[count, r]`` tensor
    of every choice of ``r`` elements of the 1-D tensor ``x``, in the order of Python's
    ``itertools.combinations`` (``combinations_with_replacement`` when ``with_replacement``).
    ``r=0`` gives an empty tensor of shape [0]; more elements than ``x`` has (without
    replacement) one of shape [0, r]."""
    del name
    x = as_input(x, "combinations")
    if x.ndim != 1:
        raise ValueError(f"combinations: x must be 1-D, got shape {x.shape}")
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 0:
        raise ValueError(f"combinations: r must be an int >= 0, got {r!r}")
    choose = (itertools.combinations_with_replacement if with_replacement
              else itertools.combinations)
    picks = np.array(list(choose(range(x.data.shape[0]), int(r))), dtype=np.int64)
    picks = picks.reshape((-1,) if r == 0 else (-1, int(r)))  # r=0: shape [0], as torch
    return getitem(x, backend.array_module(x.data).asarray(picks))


Tensor.combinations = combinations  # see the note on Tensor methods at the end of core/ops.py
