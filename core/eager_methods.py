"""Paddle's eager-mode Tensor methods that core/tensor.py does not define itself:
``retain_grads``, ``detach_``, ``apply`` / ``apply_``, ``is_contiguous`` / ``contiguous``,
and the DLPack exchange (``paddle.utils.dlpack``'s ``to_dlpack`` / ``from_dlpack``, which
Paddle 3 also exports at the top level, and ``Tensor.__dlpack__`` / ``__dlpack_device__``, so
that ``torch.from_dlpack(tensor)`` shares a tensor's memory).

Paddle defines them in C++ (eager_method.cc) or patches them on in
python/paddle/base/dygraph/tensor_patch_methods.py; here they are attached to Tensor on import,
as the op modules attach theirs (see the note at the end of core/ops.py).
"""
from __future__ import annotations

import ctypes

import numpy as np

from core import backend
from core.inplace import _check, _write
from core.tensor import Tensor

__all__ = ["apply", "apply_", "contiguous", "detach_", "from_dlpack", "is_contiguous",
           "retain_grads", "to_dlpack"]

_DLPACK_CPU = 1  # DLPack's device type of host memory (kDLCPU); 2 is a CUDA GPU


class _Retain:
    """The gradient hook ``retain_grads`` registers: it adds each gradient that reaches the
    tensor to its ``grad_data`` (as a leaf's is accumulated) and passes the gradient on."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor):
        self.tensor = tensor

    def __call__(self, grad):
        t = self.tensor
        # a copy: the same array flows on to the tensor's inputs, whose closures may reuse it
        t.grad_data = grad.copy() if t.grad_data is None else t.grad_data + grad
        return grad


def retain_grads(x: Tensor) -> None:
    """Paddle's ``Tensor.retain_grads()``: keep the gradient of a tensor computed in the graph
    (not a leaf), so that ``x.grad`` holds it after ``backward()``; later backward passes add
    to it, as they do to a leaf's. A leaf keeps its gradient anyway, and a tensor that needs
    none gets none: for both this does nothing. Calling it twice changes nothing either."""
    if not isinstance(x, Tensor):
        raise TypeError(f"retain_grads: x must be a Tensor, got {type(x).__name__}")
    if x.stop_gradient or x.is_leaf or any(isinstance(h, _Retain) for h in x._hooks or ()):
        return
    x.register_array_hook(_Retain(x))


def detach_(x: Tensor) -> Tensor:
    """Paddle's ``Tensor.detach_()``: x itself taken out of the graph: it becomes a leaf that
    needs no gradient (what ``detach()`` returns, without a new tensor); returns x."""
    x._parents, x._backward, x._op = (), None, None
    x.stop_gradient = True
    return x


def apply(x: Tensor, func) -> Tensor:
    """Paddle's ``Tensor.apply(func)``: ``func(x)`` for a tensor that needs no gradient (Paddle
    refuses one that does: the call is not recorded in the graph)."""
    if not callable(func):
        raise TypeError(f"Tensor.apply: func must be callable, got {func!r}")
    if not x.stop_gradient:
        raise RuntimeError("Tensor.apply: cannot apply a function to a tensor that needs a "
                           "gradient (stop_gradient=False); use x.detach().apply(func)")
    return func(x)


def apply_(x: Tensor, func) -> Tensor:
    """Paddle's ``Tensor.apply_(func)``: x's values replaced by ``func(x)``'s (same shape and
    dtype), for a tensor that needs no gradient; returns x."""
    if not callable(func):
        raise TypeError(f"Tensor.apply_: func must be callable, got {func!r}")
    if not x.stop_gradient:
        raise RuntimeError("Tensor.apply_: cannot apply a function in place to a tensor that "
                           "needs a gradient (stop_gradient=False)")
    _check(x, "apply_")
    out = func(x)
    if not isinstance(out, Tensor):
        raise TypeError(f"Tensor.apply_: func must return a Tensor, got {type(out).__name__}")
    values = out.data
    if backend.array_module(values) is not backend.array_module(x.data):
        values = backend.array_module(x.data).asarray(backend.to_numpy(values))
    return _write(x, values, "apply_")


def is_contiguous(x: Tensor) -> bool:
    """Paddle's ``Tensor.is_contiguous()``: core's tensors are whole arrays, so True except for
    a strided view (``as_strided``, ``view``) that does not lie in row-major order."""
    return bool(x.data.flags.c_contiguous)


def contiguous(x: Tensor) -> Tensor:
    """Paddle's ``Tensor.contiguous()``: x itself when ``is_contiguous()``, else x's values
    copied into row-major order (the same values; differentiable, as ``clone``)."""
    return x if is_contiguous(x) else x.clone()


for _method in (retain_grads, detach_, apply, apply_, is_contiguous, contiguous):
    setattr(Tensor, _method.__name__, _method)
del _method


# ----- DLPack: zero-copy exchange with torch, cupy, jax, numpy, ...

def to_dlpack(x: Tensor):
    """Paddle's ``to_dlpack(x)``: a DLPack capsule of x's values (the memory is shared, not
    copied, except for a read-only view such as ``expand``'s, whose values are copied), which
    ``from_dlpack`` here or another library's consumes once."""
    if not isinstance(x, Tensor):
        raise TypeError(f"to_dlpack: x must be a Tensor, got {type(x).__name__}")
    data = x.data
    if not getattr(getattr(data, "flags", None), "writeable", True):
        # A read-only array (a broadcast or expand view) cannot go into a legacy capsule, which
        # has no read-only flag; its values are exported as a copy instead.
        data = data.copy()
    return data.__dlpack__()


class _Capsule:
    """A DLPack capsule dressed as an array-API object, for numpy's ``from_dlpack``."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        del kwargs
        return self.capsule

    def __dlpack_device__(self):
        return (_DLPACK_CPU, 0)


def from_dlpack(dlpack) -> Tensor:
    """Paddle's ``from_dlpack(dlpack)``: a Tensor sharing the memory of ``dlpack``, an object
    with ``__dlpack__`` (a torch, cupy or numpy array, a Tensor) or a capsule from
    ``to_dlpack``. Host memory gives a numpy-backed tensor, GPU memory a cupy-backed one."""
    if hasattr(dlpack, "__dlpack__"):
        on_host = dlpack.__dlpack_device__()[0] == _DLPACK_CPU
        source = dlpack
    elif type(dlpack).__name__ == "PyCapsule":
        if _consumed(dlpack):
            raise ValueError("from_dlpack: this DLPack capsule was already consumed (a capsule "
                             "is read once); call to_dlpack again for another tensor")
        on_host, source = None, dlpack
    else:
        raise TypeError("from_dlpack: dlpack must be a DLPack capsule or an object with "
                        f"__dlpack__ (a torch / cupy / numpy array), got {type(dlpack).__name__}")
    if on_host is not False:
        try:
            return Tensor(np.from_dlpack(source if on_host else _Capsule(source)))
        except (BufferError, RuntimeError, TypeError, ValueError):
            if on_host:
                raise
    import cupy  # noqa: PLC0415 - GPU memory needs cupy, loaded only then

    return Tensor(cupy.from_dlpack(source))


def _consumed(capsule) -> bool:
    """Whether a capsule was read already: its consumer renames it from 'dltensor' (or
    'dltensor_versioned') to 'used_dltensor'. Without this check a second read fell through to
    the GPU path and failed there with an unrelated error (no cupy, or a bad pointer)."""
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype, is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
    return not (is_valid(capsule, b"dltensor") or is_valid(capsule, b"dltensor_versioned"))


def _dlpack(x: Tensor, stream=None, **kwargs):
    """``Tensor.__dlpack__``: x's values, shared. Paddle refuses a tensor that needs a
    gradient; core exports its values (the graph stays behind, as with ``numpy()``), because
    ``torch.tensor(t)`` and ``torch.as_tensor(t)`` read any tensor through this method."""
    return x.data.__dlpack__() if stream is None and not kwargs else x.data.__dlpack__(
        stream=stream, **kwargs)


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = lambda x: x.data.__dlpack_device__()
