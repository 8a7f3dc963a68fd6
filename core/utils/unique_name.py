"""``paddle.utils.unique_name``: names made unique by a counter per key.

``generate("fc")`` gives ``fc_0``, ``fc_1``, ... (Paddle's ``UniqueNameGenerator``); ``guard()``
starts fresh counters for the block it wraps, then restores the old ones. Parameters are named
by core's own counter (``param_0``, ``param_1``, ... in ``core.tensor``); ``guard()`` restarts
that counter too, so a model built inside a guard gets the same parameter names every time, as
a Paddle model built inside ``unique_name.guard()`` does.
"""
from __future__ import annotations

import collections
import contextlib
import itertools

from core import tensor as _tensor


class UniqueNameGenerator:
    """Paddle's ``UniqueNameGenerator(prefix=None)``: ``generator(key)`` is
    ``prefix + key + "_" + n``, ``n`` counting the calls with that key from 0."""

    def __init__(self, prefix: str | None = None):
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError(f"UniqueNameGenerator: prefix={prefix!r} must be a str or None.")
        self.ids = collections.defaultdict(int)
        self.prefix = prefix or ""

    def __call__(self, key: str) -> str:
        if not isinstance(key, str):
            raise TypeError(f"unique_name.generate: key={key!r} must be a str.")
        count = self.ids[key]
        self.ids[key] += 1
        return f"{self.prefix}{key}_{count}"


_generator = UniqueNameGenerator()


def generate(key: str) -> str:
    """Paddle's ``unique_name.generate(key)``: ``key_0``, ``key_1``, ... in the current
    generator (a fresh one inside each ``guard()``)."""
    return _generator(key)


def switch(new_generator: UniqueNameGenerator | None = None) -> UniqueNameGenerator:
    """Paddle's ``unique_name.switch(new_generator=None)``: make ``new_generator`` (a fresh
    one when None) the current generator and return the previous one."""
    global _generator
    if new_generator is not None and not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.switch: new_generator={new_generator!r} must be a "
                        "UniqueNameGenerator or None.")
    old, _generator = _generator, new_generator or UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Paddle's ``unique_name.guard(new_generator=None)``: inside the block names come from
    ``new_generator`` (a ``UniqueNameGenerator``; a str or bytes is the prefix of a fresh one;
    None a fresh one) and parameter names count from ``param_0`` again; both are restored
    after it."""
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    if new_generator is not None and not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.guard: new_generator={new_generator!r} must be a str, "
                        "bytes, a UniqueNameGenerator or None.")
    old = switch(new_generator)
    old_names, _tensor._names = _tensor._names, itertools.count()
    try:
        yield
    finally:
        switch(old)
        _tensor._names = old_names


__all__ = ["UniqueNameGenerator", "generate", "guard", "switch"]
