"""The running thread's ``paddle.amp.auto_cast`` state, and the input cast the listed ops
call before they compute (``cast_inputs``).

``core.amp.auto_cast`` pushes a state here. The ops of Paddle's amp lists that core wires
(matmul, linear, einsum, the convolutions; softmax, log_softmax, the losses, the norms,
exp, log, sum, mean, pow, square, cumsum) start with::

    if autocast.active:
        x, y = autocast.cast_inputs("matmul", x, y)

so that while no ``auto_cast`` is active anywhere an op pays one attribute check. Inside
one, a white-listed op gets its float32 inputs (activations, weights and bias alike) in the
amp dtype and so computes in it (float16 GEMMs and convolutions: tensor cores on a GPU); a
black-listed op gets its float16 inputs in float32 before it computes (an exp or a softmax
that would overflow float16 does not). The cast is differentiable: a float32 weight gets its
gradient in float32. ``active`` counts the contexts entered over all threads; the state
itself is per thread, so a thread outside any ``auto_cast`` runs its ops unchanged.

This module imports only ``core.tensor``, so that every op module can import it.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from core.tensor import Tensor, apply

active = 0  # auto_cast contexts entered and not yet left, over all threads: the ops' check
_local = threading.local()
_lock = threading.Lock()
_FLOAT32 = "float32"


@dataclass(frozen=True)
class AmpState:
    """One ``auto_cast`` context: its level, its dtype, the core op names it casts down
    (``white``) and up (``black``), and what the other wired ops get: "keep" (O1: their
    inputs as they come, numpy's promotion), "low" (O2: the amp dtype) or "float32" (OD)."""

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
    global active
    previous = current()
    _local.state = state
    with _lock:
        active += 1
    return previous


def pop(previous: AmpState | None) -> None:
    """Leave the context ``push`` entered: ``previous`` is this thread's state again."""
    global active
    _local.state = previous
    with _lock:
        active -= 1  # back to 0: the ops' check fails again, with nothing behind it


def cast_inputs(op: str, *tensors) -> tuple:
    """``tensors`` as the op ``op`` (a core op name) computes from them under this thread's
    ``auto_cast``: float32 ones in the amp dtype for a white-listed op (for every wired op
    at O2, black-listed ones excepted), float16 ones in float32 for a black-listed op (for
    every op but the white-listed ones at OD). float64, integer and complex tensors, None
    and Python numbers pass unchanged; so does everything outside an ``auto_cast``."""
    state = getattr(_local, "state", None)
    if state is None:
        return tensors
    if op in state.white:
        target = state.dtype
    elif op in state.black:
        target = _FLOAT32
    elif state.rest == "keep":
        return tensors
    else:
        target = state.dtype if state.rest == "low" else _FLOAT32
    return tuple(_cast(t, target) for t in tensors)


def _cast(t, target: str):
    """``t`` in ``target`` when it is a floating tensor that amp moves: float32 down to the
    amp dtype, or a narrower float up to float32."""
    dtype = getattr(t, "dtype", None)
    if not isinstance(t, Tensor) or dtype.kind != "f":
        return t
    moves = dtype.itemsize < 4 if target == _FLOAT32 else dtype == _FLOAT32  # float64 stays
    if not moves:
        return t
    return apply(t.data.astype(target), (t,),
                 lambda g: (g.astype(dtype, copy=False),), "amp_cast")
