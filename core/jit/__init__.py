"""``core.jit``: Paddle's ``paddle.jit`` (``to_static``, ``save``, ``load``,
``TranslatedLayer``) for a library that runs eagerly only.

``to_static`` compiles nothing: a decorated function or Layer runs as written, with the same
results, and checks its inputs against ``input_spec`` as Paddle does. ``save`` writes
``path.pdmodel`` (the layer without its tensors, and the specs) and ``path.pdiparams`` (its
weights); ``load`` gives back a ``TranslatedLayer`` that runs the saved layer's forward. The
files are core's own, not Paddle's static programs; see docs/paddle.md, "core.jit".
"""
from __future__ import annotations

from core.jit.saving import ModelFileError, load, save
from core.jit.static_function import (
    StaticFunction,
    enable_to_static,
    ignore_module,
    not_to_static,
    set_code_level,
    set_verbosity,
    to_static,
)
from core.jit.translated_layer import TranslatedLayer

__all__ = ["ModelFileError", "StaticFunction", "TranslatedLayer", "enable_to_static",
           "ignore_module", "load", "not_to_static", "save", "set_code_level", "set_verbosity",
           "to_static"]
