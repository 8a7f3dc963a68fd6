"""Paddle's ``paddle.autograd.saved_tensors_hooks``: a pack hook applied to tensors when they are
saved for backward and an unpack hook applied when backward reads them back.

Core's built-in ops keep what their backward needs as arrays inside closures, not as saved
tensors, so the hooks see only the tensors a ``PyLayer`` saves with
``PyLayerContext.save_for_backward`` (docs/paddle.md, "paddle.autograd").
"""
from __future__ import annotations

import threading

_state = threading.local()


def current_hooks() -> tuple | None:
    """The (pack_hook, unpack_hook) pair in force on this thread, or None."""
    return getattr(_state, "hooks", None)


class saved_tensors_hooks:  # noqa: N801 - Paddle's name
    """Paddle's ``paddle.autograd.saved_tensors_hooks(pack_hook, unpack_hook)``: a context
    manager. Inside it, each Tensor a PyLayer saves with ``ctx.save_for_backward`` is replaced
    by ``pack_hook(tensor)`` (anything: a numpy copy, a file name), and ``ctx.saved_tensor()``
    gives back ``unpack_hook(packed)``, which must return a Tensor of the same values. The
    unpack hook is the one in force when the tensors were saved. Nested contexts restore the
    outer pair on exit (Paddle's exit clears the hooks altogether)."""

    def __init__(self, pack_hook, unpack_hook):
        for arg, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"saved_tensors_hooks: {arg} must be callable, got {hook!r}")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook
        self._previous: list = []  # a stack: the same object may be entered again inside itself

    def __enter__(self) -> None:
        self._previous.append(current_hooks())
        _state.hooks = (self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc) -> bool:
        _state.hooks = self._previous.pop()
        return False
