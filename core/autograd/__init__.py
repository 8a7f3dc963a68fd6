"""Paddle's ``paddle.autograd``: custom ops (``PyLayer``, ``PyLayerContext``), ``backward`` from
several tensors, lazily evaluated ``jacobian`` / ``hessian``, ``saved_tensors_hooks``, and the
gradient functions and switches Paddle re-exports there (``grad``, ``no_grad``,
``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``: core.tensor's own)."""
from core.autograd.backward_mode import backward
from core.autograd.functional import Hessian, Jacobian, hessian, jacobian
from core.autograd.hooks import saved_tensors_hooks
from core.autograd.py_layer import PyLayer, PyLayerContext
from core.tensor import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = [
    "jacobian", "hessian", "backward", "PyLayer", "PyLayerContext", "saved_tensors_hooks",
    "Jacobian", "Hessian", "grad", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled",
]
