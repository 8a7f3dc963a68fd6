"""What the modules of ``core.linalg`` share: the array module of an array, and the backward of
a forward-only op (one that raises an error naming the op)."""
from __future__ import annotations

from core import backend


def _xp(a):
    return backend.array_module(a)


def _no_backward(fn: str, why: str):
    def backward(g):
        raise RuntimeError(f"{fn}: no gradient is implemented for this op ({why}); detach its "
                           "input, or compute what you need from ops that have one")
    return backward
