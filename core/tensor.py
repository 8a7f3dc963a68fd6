"""Tensor, Parameter and the op constructor ``apply``.

An op makes its output with ``apply(out_data, parents, backward)``: ``backward(grad)`` receives the
gradient of the output (a raw array) and returns one gradient per parent (``None`` where a parent
needs none). ``Tensor.backward`` sorts the graph iteratively and deterministically (no recursion
limit, no set order), runs each node's closure once, and accumulates gradients into the leaves'
``grad_data``. The graph is freed after a backward pass unless ``retain_graph=True``.

Names follow PaddlePaddle 2.x: ``stop_gradient`` (True means no gradient), ``to_tensor``,
``no_grad``, ``clear_grad``.
"""
from __future__ import annotations

import contextlib
import itertools
import threading

import numpy as np

from core import backend
from core.autograd import run_backward

_state = threading.local()
_names = itertools.count()


def is_grad_enabled() -> bool:
    return getattr(_state, "grad_enabled", True)


class no_grad(contextlib.ContextDecorator):  # noqa: N801 - Paddle's name
    """Context manager and decorator: ops inside record no graph (inference, updates)."""

    def __enter__(self):
        self._previous = is_grad_enabled()
        _state.grad_enabled = False
        return self

    def __exit__(self, *exc):
        _state.grad_enabled = self._previous
        return False

    def _recreate_cm(self):
        # As a decorator, each call needs its own saved state: a shared instance would make a
        # recursive decorated function leave grad disabled after its outermost call returns.
        return type(self)()


class _HookHandle:
    def __init__(self, hooks: list, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Tensor:
    """An n-dimensional array on the current device, with an optional gradient."""

    __array_priority__ = 1000  # numpy scalars and arrays defer to our operators
    # _value_range: (lo, hi) with every value of an integer tensor in [lo, hi], read on the
    # host by to_tensor before the upload; None when unknown. cross_entropy's label check uses
    # it instead of a device read (a host sync on a GPU). set_value clears it; writing into
    # ``.data`` in place does not (make a new tensor with to_tensor instead).
    __slots__ = ("data", "grad_data", "stop_gradient", "name", "_parents", "_backward",
                 "_hooks", "_op", "_value_range", "__weakref__")

    def __init__(self, data, stop_gradient: bool = True, name: str | None = None):
        self.data = data
        self.grad_data = None
        self.stop_gradient = stop_gradient
        self.name = name
        self._parents: tuple = ()
        self._backward = None
        self._hooks: list | None = None
        self._op: str | None = None
        self._value_range: tuple[int, int] | None = None

    # ----- array facts -------------------------------------------------------------------
    @property
    def shape(self) -> list[int]:
        return list(self.data.shape)

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def size(self) -> int:
        return int(self.data.size)

    @property
    def place(self) -> str:
        return "cpu" if isinstance(self.data, np.ndarray) else backend.get_device()

    @property
    def is_leaf(self) -> bool:
        return self._backward is None

    def numpy(self) -> np.ndarray:
        """A copy of the values as a numpy array, as Paddle's: later steps do not change it, and
        writing to it does not change the tensor (``tensor.data`` is the live array)."""
        values = backend.to_numpy(self.data)
        return values.copy() if values is self.data else values  # a GPU's to_numpy copies

    def item(self):
        return backend.to_numpy(self.data).item()

    def tolist(self):
        return backend.to_numpy(self.data).tolist()

    def __len__(self) -> int:
        return self.data.shape[0]

    def __repr__(self) -> str:
        return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {self.numpy()!r})")

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        return bool(self.item())

    __hash__ = object.__hash__

    # ----- gradients ---------------------------------------------------------------------
    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient as a Tensor (``None`` before a backward pass)."""
        return None if self.grad_data is None else Tensor(self.grad_data)

    def gradient(self) -> np.ndarray | None:
        """The accumulated gradient as a numpy array (Paddle's ``Tensor.gradient()``)."""
        return None if self.grad_data is None else backend.to_numpy(self.grad_data)

    def clear_grad(self) -> None:
        self.grad_data = None

    clear_gradient = clear_grad

    def register_hook(self, hook):
        """Call ``hook(grad: Tensor) -> Tensor | None`` on this tensor's gradient in backward.

        A returned tensor replaces the gradient that flows on. Returns a handle with ``remove()``.
        """

        def on_array(grad):
            out = hook(Tensor(grad))
            return grad if out is None else (out.data if isinstance(out, Tensor) else out)

        return self.register_array_hook(on_array)

    def register_array_hook(self, hook):
        """Like ``register_hook`` but ``hook`` maps a raw backend array to a raw array (fast)."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return _HookHandle(self._hooks, hook)

    def detach(self) -> Tensor:
        return Tensor(self.data, stop_gradient=True)

    def clone(self) -> Tensor:
        return apply(self.data.copy(), (self,), lambda g: (g,), "clone")

    def astype(self, dtype) -> Tensor:
        source = self.dtype
        return apply(self.data.astype(dtype), (self,), lambda g: (g.astype(source),), "astype")

    cast = astype

    def set_value(self, value) -> None:
        """Overwrite the values in place (shape must match): used to load weights."""
        value = value.data if isinstance(value, Tensor) else backend.asarray(value)
        if tuple(value.shape) != tuple(self.data.shape):
            raise ValueError(f"set_value: shape {list(value.shape)} does not match "
                             f"the tensor's shape {self.shape}")
        self.data[...] = value
        self._value_range = None  # the recorded bounds no longer hold

    def backward(self, grad_tensor=None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf that does not stop gradients."""
        if self.stop_gradient:
            raise RuntimeError(
                "backward() called on a tensor with stop_gradient=True: nothing it depends on "
                "requires a gradient (are the parameters trainable, and is grad enabled?)")
        if grad_tensor is None:
            seed = backend.array_module(self.data).ones_like(self.data)
        else:
            seed = grad_tensor.data if isinstance(grad_tensor, Tensor) else grad_tensor
        run_backward(self, seed, retain_graph)


def apply(out_data, parents: tuple, backward, op: str | None = None) -> Tensor:
    """Wrap an op's output; record the graph only when some parent needs a gradient."""
    if isinstance(out_data, np.generic):
        out_data = np.asarray(out_data)  # numpy returns scalars for 0-D math; keep arrays
    out = Tensor(out_data)
    if getattr(_state, "grad_enabled", True):
        try:  # free unless it raises: this runs once per op
            for parent in parents:  # a loop, not any(<generator>)
                if not parent.stop_gradient:
                    out.stop_gradient = False
                    out._parents, out._backward, out._op = parents, backward, op
                    break
        except AttributeError:
            if all(isinstance(parent, Tensor) for parent in parents):
                raise
            raise backend.NotATensorError(f"{op or 'an op'}: {backend.NOT_A_TENSOR}") from None
    return out


class Parameter(Tensor):
    """A trainable leaf tensor owned by a Layer (Paddle's ``EagerParamBase``)."""

    __slots__ = ("trainable", "regularizer", "need_clip", "optimize_attr")

    def __init__(self, data, name: str | None = None, trainable: bool = True,
                 regularizer=None, need_clip: bool = True, learning_rate: float = 1.0):
        super().__init__(data, stop_gradient=not trainable,
                         name=name or f"param_{next(_names)}")
        self.trainable = trainable
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.optimize_attr = {"learning_rate": learning_rate}

    def __repr__(self) -> str:
        return f"Parameter {self.name}, " + super().__repr__()


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """Paddle's ``to_tensor``: floats default to float32, ints to int64, arrays keep dtype."""
    del place  # tensors live on the device chosen by core.device.set_device
    if isinstance(data, Tensor):
        data = data.data
    if dtype is None and not hasattr(data, "dtype"):
        probe = np.asarray(data)
        if probe.dtype.kind == "f":
            dtype = "float32"
        elif probe.dtype.kind in "iu":
            dtype = "int64"
    value_range = _host_int_range(data, dtype)
    array = backend.asarray(data, dtype=dtype)
    if array is data:
        array = array.copy()  # Paddle copies: later edits of the source must not leak in
    out = Tensor(array, stop_gradient=stop_gradient)
    out._value_range = value_range
    return out


def arrays_to_tensors(*values) -> tuple:
    """``values`` with each numpy array made a Tensor (``to_tensor``: its dtype, the current
    device), the rest as they are. Paddle's DataLoader yields Tensors and its tutorial passes
    them straight to layers and losses; ``core.io.DataLoader`` yields numpy batches, which
    core's layers and losses therefore take as well."""
    for value in values:
        if isinstance(value, np.ndarray):
            return tuple(to_tensor(v) if isinstance(v, np.ndarray) else v for v in values)
    return values


def _host_int_range(data, dtype) -> tuple[int, int] | None:
    """(min, max) of integer host data (labels, token ids): cheap here, whereas on a GPU the
    same read after the upload would be a host synchronisation. None for other data."""
    if not isinstance(data, np.ndarray) or data.size == 0 or data.dtype.kind not in "iu":
        return None
    if dtype is not None and not (np.dtype(dtype).kind in "iu"
                                  and np.can_cast(data.dtype, dtype, "safe")):
        return None  # a cast that may change the values (or makes floats): not tracked
    return int(data.min()), int(data.max())


def as_tensor(value, like: Tensor | None = None) -> Tensor:
    """Tensors pass through; scalars and arrays become constants (dtype of ``like`` if given)."""
    if isinstance(value, Tensor):
        return value
    if like is not None and np.isscalar(value):
        return Tensor(backend.array_module(like.data).asarray(value, dtype=like.dtype))
    return Tensor(backend.asarray(value))


def unbroadcast(grad, shape: tuple):
    """Sum ``grad`` down to ``shape``: the adjoint of numpy broadcasting."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    kept = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if kept:
        grad = grad.sum(axis=kept, keepdims=True)
    return grad
