"""The auto_cast state of the running thread, and the hook ``core.tensor.apply`` calls.

``core.tensor.apply`` is the one place every differentiable op's result goes through. While
no ``auto_cast`` is active anywhere, ``core.tensor._amp_hook`` is None and an op pays one
module-level check; an active context installs ``recast`` there (a count of active contexts
over all threads decides when to take it away again), and ``recast`` reads this thread's
state, so that a thread outside any ``auto_cast`` is unaffected by another inside one.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from core import tensor as _tensor

_local = threading.local()
_lock = threading.Lock()
_EXPLICIT_CASTS = frozenset({"cast", "astype"})  # a cast the user wrote is kept, even at O2
_active = 0  # auto_cast contexts entered and not yet left, over all threads


@dataclass(frozen=True)
class AmpState:
    """One ``auto_cast`` context: its level, its dtype, the core op names it recasts, and
    what happens to the other ops' results: "keep" (O1), "low" (O2: the amp dtype, explicit
    casts excepted) or "float32" (OD)."""

    level: str
    dtype: str
    white: frozenset
    black: frozenset
    rest: str


def current() -> AmpState | None:
    """The innermost enabled ``auto_cast`` of this thread, or None."""
    return getattr(_local, "state", None)


def current_dtype() -> str | None:
    state = current()
    return None if state is None else state.dtype


def push(state: AmpState | None) -> AmpState | None:
    """Make ``state`` this thread's (None: amp off inside, as ``auto_cast(False)``); returns
    the state to restore with ``pop``."""
    global _active
    previous = current()
    _local.state = state
    with _lock:
        _active += 1
        _tensor._amp_hook = recast
    return previous


def pop(previous: AmpState | None) -> None:
    global _active
    _local.state = previous
    with _lock:
        _active -= 1
        if _active == 0:
            _tensor._amp_hook = None  # back to one check per op, with nothing behind it


def recast(out_data, backward, op):
    """An op's result and backward under this thread's auto_cast: a white-listed op's
    float32 result in the amp dtype (its gradient is handed back in float32, the dtype its
    backward computes in), a black-listed op's low-precision result in float32; any other
    op by the state's ``rest``."""
    state = current()
    dtype = getattr(out_data, "dtype", None)
    if state is None or op is None or dtype is None or dtype.kind != "f":
        return out_data, backward
    if op in state.white:
        to_low, to_float32 = dtype == "float32", False
    elif op in state.black:
        to_low, to_float32 = False, True
    elif state.rest == "keep" or op in _EXPLICIT_CASTS:
        return out_data, backward
    else:  # O2's "low" or OD's "float32"
        to_low = state.rest == "low" and dtype == "float32"
        to_float32 = state.rest == "float32"
    if to_low:
        return out_data.astype(state.dtype), \
            lambda grad: backward(grad.astype(dtype, copy=False))
    if to_float32 and dtype.itemsize < 4:
        return out_data.astype("float32"), backward
    return out_data, backward
