"""Tensor and reverse-mode autograd.

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
    __slots__ = ("data", "grad_data", "stop_gradient", "name", "_parents", "_backward",
                 "_hooks", "_op", "__weakref__")

    def __init__(self, data, stop_gradient: bool = True, name: str | None = None):
        self.data = data
        self.grad_data = None
        self.stop_gradient = stop_gradient
        self.name = name
        self._parents: tuple = ()
        self._backward = None
        self._hooks: list | None = None
        self._op: str | None = None

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
        return backend.to_numpy(self.data)

    def item(self):
        return self.numpy().item()

    def tolist(self):
        return self.numpy().tolist()

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


def _topological_order(root: Tensor) -> list[Tensor]:
    """Interior nodes reachable from ``root``, inputs before outputs, in a fixed order."""
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for parent in reversed(node._parents):
            if parent._backward is not None and id(parent) not in visited:
                stack.append((parent, False))
    return order


def _apply_hooks(tensor: Tensor, grad):
    for hook in tensor._hooks or ():
        grad = hook(grad)
    return grad


def _freed_graph(grad):
    raise RuntimeError(
        "backward() reached a part of the graph that an earlier backward() already freed: pass "
        "retain_graph=True to the first backward() to go through the same graph twice, or "
        "recompute the forward pass before the second backward().")


def run_backward(root: Tensor, seed, retain_graph: bool = False) -> None:
    if root._backward is None:  # backward() on a leaf: its gradient is the seed itself
        _accumulate_leaf(root, seed, {id(seed)})  # the id forces a copy the leaf owns
        return
    order = _topological_order(root)
    pending = {id(root): seed}
    # A leaf's contributions are summed first so that its hooks see its whole gradient once,
    # as they do for interior nodes; dict order keeps the accumulation deterministic.
    leaves: dict[int, list] = {}
    for node in reversed(order):
        grad = pending.pop(id(node), None)
        if grad is None:
            continue
        grad = _apply_hooks(node, grad)
        for parent, parent_grad in zip(node._parents, node._backward(grad)):
            if parent_grad is None or parent.stop_gradient:
                continue
            key = id(parent)
            if parent._backward is not None:
                pending[key] = parent_grad if key not in pending else pending[key] + parent_grad
            elif key in leaves:
                leaves[key][1] = leaves[key][1] + parent_grad
            else:
                leaves[key] = [parent, parent_grad]
    given_to_leaves: set[int] = set()
    for leaf, grad in leaves.values():
        _accumulate_leaf(leaf, grad, given_to_leaves)
    if not retain_graph:
        for node in order:  # a freed node raises a clear error if a later backward reaches it
            node._parents, node._backward = (), _freed_graph


def _accumulate_leaf(leaf: Tensor, grad, given: set[int]) -> None:
    grad = _apply_hooks(leaf, grad)
    if leaf.grad_data is not None:
        grad = leaf.grad_data + grad
    elif grad.base is not None or id(grad) in given:
        # A closure may hand the same array (or a view of another) to several inputs; a leaf
        # must own its gradient because clipping and optimizers may change it in place.
        grad = grad.copy()
    if grad.dtype != leaf.data.dtype or isinstance(grad, np.generic):
        # Keep the leaf's dtype, and an array (numpy returns scalars for 0-D math).
        grad = backend.array_module(grad).asarray(grad, dtype=leaf.data.dtype)
    given.add(id(grad))
    leaf.grad_data = grad


def apply(out_data, parents: tuple, backward, op: str | None = None) -> Tensor:
    """Wrap an op's output; record the graph only when some parent needs a gradient."""
    if isinstance(out_data, np.generic):
        out_data = np.asarray(out_data)  # numpy returns scalars for 0-D math; keep arrays
    needs_grad = is_grad_enabled() and any(not p.stop_gradient for p in parents)
    out = Tensor(out_data, stop_gradient=not needs_grad)
    if needs_grad:
        out._parents, out._backward, out._op = parents, backward, op
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
    array = backend.asarray(data, dtype=dtype)
    if array is data:
        array = array.copy()  # Paddle copies: later edits of the source must not leak in
    return Tensor(array, stop_gradient=stop_gradient)


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


# ----- arithmetic primitives (the operators of Tensor) ---------------------------------------

def add(x, y) -> Tensor:
    x, y = _pair(x, y)
    xs, ys = x.data.shape, y.data.shape
    return apply(x.data + y.data, (x, y),
                 lambda g: (unbroadcast(g, xs), unbroadcast(g, ys)), "add")


def subtract(x, y) -> Tensor:
    x, y = _pair(x, y)
    xs, ys = x.data.shape, y.data.shape
    return apply(x.data - y.data, (x, y),
                 lambda g: (unbroadcast(g, xs), unbroadcast(-g, ys)), "subtract")


def multiply(x, y) -> Tensor:
    x, y = _pair(x, y)
    a, b = x.data, y.data

    def backward(g):
        return (unbroadcast(g * b, a.shape) if not x.stop_gradient else None,
                unbroadcast(g * a, b.shape) if not y.stop_gradient else None)

    return apply(a * b, (x, y), backward, "multiply")


def divide(x, y) -> Tensor:
    x, y = _pair(x, y)
    a, b = x.data, y.data

    def backward(g):
        return (unbroadcast(g / b, a.shape) if not x.stop_gradient else None,
                unbroadcast(-g * a / (b * b), b.shape) if not y.stop_gradient else None)

    return apply(a / b, (x, y), backward, "divide")


def neg(x: Tensor) -> Tensor:
    return apply(-x.data, (x,), lambda g: (-g,), "neg")


def pow(x, y) -> Tensor:  # noqa: A001 - Paddle's name
    if isinstance(y, Tensor):
        return _pow_tensor(*_pair(x, y))
    a, exponent = x.data, y
    out = a ** exponent
    return apply(out, (x,), lambda g: (g * exponent * a ** (exponent - 1),), "pow")


def _pow_tensor(x: Tensor, y: Tensor) -> Tensor:
    a, b = x.data, y.data
    out = a ** b
    xp = backend.array_module(a)

    def backward(g):
        gx = unbroadcast(g * b * a ** (b - 1), a.shape) if not x.stop_gradient else None
        gy = None
        if not y.stop_gradient:
            safe = xp.where(a > 0, a, 1)
            gy = unbroadcast(g * out * xp.log(safe), b.shape)
        return gx, gy

    return apply(out, (x, y), backward, "pow")


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False) -> Tensor:
    """Matrix product with numpy's matmul broadcasting; 1-D operands as in numpy."""
    x, y = _pair(x, y)
    a = x.data.swapaxes(-1, -2) if transpose_x and x.ndim > 1 else x.data
    b = y.data.swapaxes(-1, -2) if transpose_y and y.ndim > 1 else y.data
    xp = backend.array_module(a)
    out = xp.matmul(a, b)

    def backward(g):
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = xp.expand_dims(g2, -2)
        if b.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        ga = gb = None
        if not x.stop_gradient:
            ga = unbroadcast(xp.matmul(g2, b2.swapaxes(-1, -2)), a2.shape).reshape(a.shape)
            ga = ga.swapaxes(-1, -2) if transpose_x and x.ndim > 1 else ga
        if not y.stop_gradient:
            gb = unbroadcast(xp.matmul(a2.swapaxes(-1, -2), g2), b2.shape).reshape(b.shape)
            gb = gb.swapaxes(-1, -2) if transpose_y and y.ndim > 1 else gb
        return ga, gb

    return apply(out, (x, y), backward, "matmul")


def getitem(x: Tensor, index) -> Tensor:
    index = _raw_index(index)
    shape, dtype = x.data.shape, x.data.dtype
    xp = backend.array_module(x.data)

    def backward(g):
        full = xp.zeros(shape, dtype=dtype)
        if _is_advanced(index):
            xp.add.at(full, index, g)  # repeated indices must add up, not overwrite
        else:
            full[index] = g
        return (full,)

    return apply(x.data[index], (x,), backward, "getitem")


def _raw_index(index):
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, tuple):
        return tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return index


def _is_advanced(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(hasattr(p, "shape") and p.ndim > 0 or isinstance(p, list) for p in parts)


def _pair(x, y) -> tuple[Tensor, Tensor]:
    if isinstance(x, Tensor):
        return x, as_tensor(y, like=x)
    return as_tensor(x, like=y), y


def _compare(op):
    def method(self, other):
        other = other.data if isinstance(other, Tensor) else other
        return Tensor(op(self.data, other))
    return method


Tensor.__add__ = add
Tensor.__radd__ = lambda self, other: add(other, self)
Tensor.__sub__ = subtract
Tensor.__rsub__ = lambda self, other: subtract(other, self)
Tensor.__mul__ = multiply
Tensor.__rmul__ = lambda self, other: multiply(other, self)
Tensor.__truediv__ = divide
Tensor.__rtruediv__ = lambda self, other: divide(other, self)
Tensor.__neg__ = neg
Tensor.__pow__ = pow
Tensor.__rpow__ = lambda self, other: pow(as_tensor(other, like=self), self)
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = lambda self, other: matmul(other, self)
Tensor.__getitem__ = getitem
Tensor.__lt__ = _compare(lambda a, b: a < b)
Tensor.__le__ = _compare(lambda a, b: a <= b)
Tensor.__gt__ = _compare(lambda a, b: a > b)
Tensor.__ge__ = _compare(lambda a, b: a >= b)
Tensor.__eq__ = _compare(lambda a, b: a == b)  # element-wise, as in Paddle
Tensor.__ne__ = _compare(lambda a, b: a != b)
Tensor.add, Tensor.subtract, Tensor.multiply, Tensor.divide = add, subtract, multiply, divide
Tensor.matmul, Tensor.pow = matmul, pow
