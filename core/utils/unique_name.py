"""``paddle.utils.unique_name``: names made unique by a counter per key.

``generate("fc")`` gives ``fc_0``, ``fc_1``, ... (Paddle's ``UniqueNameGenerator``); ``guard()``
starts fresh counters for the block it wraps, then restores the old ones. Layers and parameters
are named from the same counters, as in Paddle: the second ``Linear`` is ``linear_1`` and its
weight ``linear_1.w_0``, so a model built inside a guard gets the same names every time, the
names Paddle gives the same model built in the same order.

The generator itself lives in core.tensor (parameters are named when they are made, and
core.tensor is below core.utils); this module is Paddle's interface to it.
"""
from __future__ import annotations

import contextlib

from core import tensor as _tensor
from core.tensor import UniqueNameGenerator


def generate(key: str) -> str:
    """Paddle's ``unique_name.generate(key)``: ``key_0``, ``key_1``, ... in the current
    generator (a fresh one inside each ``guard()``)."""
    return _tensor.unique_name(key)


def switch(new_generator: UniqueNameGenerator | None = None) -> UniqueNameGenerator:
    """Paddle's ``unique_name.switch(new_generator=None)``: make ``new_generator`` (a fresh
    one when None) the current generator and return the previous one."""
    if new_generator is not None and not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.switch: new_generator={new_generator!r} must be a "
                        "UniqueNameGenerator or None.")
    old = _tensor.name_generator
    _tensor.name_generator = new_generator or UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Paddle's ``unique_name.guard(new_generator=None)``: inside the block names (layers',
    parameters', ``generate``'s) come from ``new_generator`` (a ``UniqueNameGenerator``; a str
    or bytes is the prefix of a fresh one; None a fresh one); the old counters are restored
    after it."""
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    if new_generator is not None and not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.guard: new_generator={new_generator!r} must be a str, "
                        "bytes, a UniqueNameGenerator or None.")
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)


__all__ = ["UniqueNameGenerator", "generate", "guard", "switch"]
