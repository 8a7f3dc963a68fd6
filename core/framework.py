"""Facts about the framework itself, with Paddle's ``paddle.framework`` names: the mode
(``in_dynamic_mode``, ``disable_static``, ``enable_static``), whether GPUs can be used
(``is_compiled_with_cuda``) and the default float dtype (``get_default_dtype``).

core runs eagerly only: the dynamic graph is the one mode, so ``disable_static`` has nothing to
do and ``enable_static`` refuses. The default float dtype is float32 and fixed:
``set_default_dtype`` is not provided, because the default is not one setting in core (creation
ops, ``to_tensor``, the initializers and the layers each name float32), see docs/paddle.md.
"""
from __future__ import annotations

from core import backend

__all__ = ["disable_static", "enable_static", "get_default_dtype", "in_dynamic_mode",
           "is_compiled_with_cuda"]


def in_dynamic_mode() -> bool:
    """Paddle's ``in_dynamic_mode()``: True, always (core has only the dynamic graph)."""
    return True


def disable_static(place=None) -> None:
    """Paddle's ``disable_static(place=None)``: switch to the dynamic graph, which core always
    runs; nothing to do. ``place`` is accepted for Paddle's signature (use
    ``core.set_device`` to pick the device)."""
    del place


def enable_static() -> None:
    """Paddle's ``enable_static()``: core has no static graph, so this raises."""
    raise RuntimeError(
        "enable_static: core runs the dynamic graph only; static graphs (paddle.static.Program, "
        "Executor) are not supported. Remove the enable_static() call and run the model "
        "eagerly (core.Model and core.inference cover training and exported inference).")


def is_compiled_with_cuda() -> bool:
    """Paddle's ``is_compiled_with_cuda()``: True when cupy is installed and sees a GPU, i.e.
    when ``core.set_device("gpu")`` can succeed."""
    return backend.gpu_count() > 0


def get_default_dtype() -> str:
    """Paddle's ``get_default_dtype()``: the float dtype of tensors made from Python floats,
    of creation ops and of layers' parameters: ``"float32"`` in core, always."""
    return "float32"
