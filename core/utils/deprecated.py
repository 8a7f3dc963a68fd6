"""``paddle.utils.deprecated``: mark an API as deprecated."""
from __future__ import annotations

import functools
import inspect
import warnings


class VisibleDeprecationWarning(UserWarning):
    """Paddle's: a UserWarning, because Python shows DeprecationWarning only in ``__main__``."""


def _numbers(version: str) -> list[int]:
    found = [int(part) for part in version.split(".") if part.isdigit()]
    return found + [0] * (4 - len(found))


def deprecated(update_to: str = "", since: str = "", reason: str = "", level: int = 0):
    """Paddle's ``deprecated(update_to="", since="", reason="", level=0)``: a decorator that
    puts a deprecation notice at the top of the function's (or class's) docstring and, with
    ``level=1``, warns (``VisibleDeprecationWarning``) on every call once the installed version
    has reached ``since`` (always when ``since`` is empty); ``level=2`` makes every call raise a
    RuntimeError; ``level=0`` only notes it in the docstring. ``update_to`` names the API to use
    instead: Paddle requires it to start with ``paddle.``; here ``core.`` is accepted too."""
    for name, value in (("update_to", update_to), ("since", since), ("reason", reason)):
        if not isinstance(value, str):
            raise TypeError(f"deprecated: {name}={value!r} must be a str.")
    if isinstance(level, bool) or level not in (0, 1, 2):
        raise ValueError(f"deprecated: level={level!r} must be 0 (docstring only), 1 (warn) "
                         "or 2 (raise).")
    target = update_to.strip()
    if target and not target.startswith(("paddle.", "core.")):
        raise ValueError(f"deprecated: update_to={update_to!r} must name the new API from the "
                         "package down ('paddle.xxx' or 'core.xxx').")

    def decorator(func):
        message = f'API "{func.__module__}.{func.__name__}" is deprecated'
        message += f" since {since.strip()}" if since.strip() else ""
        message += ", and will be removed in future versions."
        message += f' Please use "{target}" instead.' if target else ""
        message += f"\n    Reason: {reason.strip()}" if reason.strip() else ""
        if func.__doc__:
            func.__doc__ = f"\n\nWarning:\n    {message}\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{func.__module__}.{func.__name__}" has been '
                                   "deprecated.")
            if _reached(since):
                warnings.warn(message, category=VisibleDeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator


def _reached(since: str) -> bool:
    """Whether the installed version is ``since`` or later (a local build always is)."""
    from core import version  # noqa: PLC0415 - reads package metadata: only when warning

    current = version.full_version
    return not since.strip() or not version.istaged or _numbers(current) >= _numbers(since)


__all__ = ["VisibleDeprecationWarning", "deprecated"]
