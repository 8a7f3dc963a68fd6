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

import collections
import contextlib
import threading

import numpy as np

from core import backend
from core.backprop import run_backward, run_graph_backward, run_partial_backward
from core.framework import get_default_dtype
from core.higher_order import SUPPORTED_OPS, captured
from core.row_sparse import RowSparseGrad

_state = threading.local()


class UniqueNameGenerator:
    """Paddle's ``paddle.utils.unique_name.UniqueNameGenerator(prefix=None)``: ``generator(key)``
    is ``prefix + key + "_" + n``, ``n`` counting the calls with that key from 0.

    It lives here, not in core.utils.unique_name, because parameters are named from it: a
    Parameter's name is generated at its creation (``linear_0.w_0``), and core.tensor is below
    core.utils."""

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


# the current generator: unique_name.switch / guard replace it
name_generator = UniqueNameGenerator()


def unique_name(key: str) -> str:
    """``key_0``, ``key_1``, ... from the current generator (``unique_name.generate``)."""
    return name_generator(key)


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


class enable_grad(contextlib.ContextDecorator):  # noqa: N801 - Paddle's name
    """Paddle's ``enable_grad``: context manager and decorator that turns gradient recording
    back on (inside ``no_grad``, for example), restoring the previous state on exit."""

    def __enter__(self):
        self._previous = is_grad_enabled()
        _state.grad_enabled = True
        return self

    def __exit__(self, *exc):
        _state.grad_enabled = self._previous
        return False

    def _recreate_cm(self):
        return type(self)()  # a fresh saved state per decorated call, as no_grad


class set_grad_enabled(contextlib.ContextDecorator):  # noqa: N801 - Paddle's name
    """Paddle's ``set_grad_enabled(mode)``: recording is switched to ``mode`` at once, so it
    works as a plain call; used as a context manager (or decorator) the previous state comes
    back on exit."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: mode must be True or False, got {mode!r}")
        self._mode = mode
        self._previous = is_grad_enabled()
        _state.grad_enabled = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.grad_enabled = self._previous
        return False

    def __call__(self, func):
        _state.grad_enabled = self._previous  # as a decorator, the switch happens per call
        return super().__call__(func)

    def _recreate_cm(self):
        return type(self)(self._mode)


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
    # _grad_fn: the op's tensor-level backward (create_graph), set only by the ops that have
    # one; never set in __init__, so that the other ops pay nothing for it (read with getattr).
    __slots__ = ("data", "grad_data", "stop_gradient", "name", "_parents", "_backward",
                 "_grad_fn", "_hooks", "_op", "_value_range", "__weakref__")
    # True on core.sparse's tensors, which core's dense functions refuse (core.sparse.tensor).
    _sparse = False

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
    def place(self) -> backend.Place:
        """Paddle's ``Tensor.place``: ``Place(cpu)`` or ``Place(gpu:N)`` (``is_gpu_place()``,
        ``gpu_device_id()``); it also equals the device string, ``x.place == "cpu"``."""
        return backend.place_of(self.data)

    @property
    def is_leaf(self) -> bool:
        return self._backward is None

    def dim(self) -> int:
        """The number of dimensions (Paddle's ``Tensor.dim()``, alias ``ndimension()``)."""
        return self.data.ndim

    ndimension = dim

    def element_size(self) -> int:
        """Bytes per element of the dtype (Paddle's ``Tensor.element_size()``)."""
        return int(self.data.dtype.itemsize)

    def numpy(self) -> np.ndarray:
        """A copy of the values as a numpy array, as Paddle's: later steps do not change it, and
        writing to it does not change the tensor (``tensor.data`` is the live array)."""
        values = backend.to_numpy(self.data)
        return values.copy() if values is self.data else values  # a GPU's to_numpy copies

    def item(self, *args):
        """Paddle's ``Tensor.item(*args)``: the Python number of a one-element tensor, or with
        ``args`` the element at that flat index (one int) or position (one int per axis)."""
        return backend.to_numpy(self.data).item(*args)

    def tolist(self):
        return backend.to_numpy(self.data).tolist()

    def __len__(self) -> int:
        if not self.data.shape:  # TypeError, as Python, numpy and torch: it has no first axis
            raise TypeError("len() of a 0-D Tensor (shape []): it has no first axis; use "
                            "numel() for its element count")
        return self.data.shape[0]

    def __iter__(self):
        if not self.data.shape:  # TypeError, as Python, numpy and torch: nothing to iterate
            raise TypeError("iteration over a 0-D Tensor (shape []): it has no first axis; "
                            "use item() for its value")
        return (self[i] for i in range(self.data.shape[0]))

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

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        """Paddle's ``x.grad = value`` on a leaf: None drops the gradient (``.grad`` is None, an
        optimizer step skips the tensor); a Tensor of this tensor's shape and dtype becomes the
        gradient, copied onto this tensor's device (later changes of ``value`` do not reach it),
        which the next backward adds to and optimizers and gradient clipping use."""
        if self._backward is not None:  # Paddle: "Only leaf Tensor can be set grad."
            raise RuntimeError(f"Tensor.grad: only a leaf tensor's gradient can be assigned; "
                               f"this tensor (shape {self.shape}) is the output of "
                               f"{self._op or 'an op'} (use retain_grads() to keep its gradient)")
        if value is None:
            self.grad_data = None
            return
        self.grad_data = _checked_gradient(self, value)

    def gradient(self) -> np.ndarray | None:
        """The accumulated gradient as a numpy array (Paddle's ``Tensor.gradient()``)."""
        return None if self.grad_data is None else backend.to_numpy(self.grad_data)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Paddle's ``Tensor.clear_gradient(set_to_zero=True)``: the gradient becomes zeros
        (``.grad`` is a tensor of zeros), or with ``set_to_zero=False`` is dropped (``.grad``
        becomes None). A tensor without a gradient keeps none either way."""
        if not set_to_zero or self.grad_data is None:
            self.grad_data = None
        elif isinstance(self.grad_data, RowSparseGrad):
            # Zeros as a row-sparse gradient of no rows: dense zeros of the table's shape would
            # make every later sparse Embedding update dense.
            old = self.grad_data
            self.grad_data = RowSparseGrad(old.rows[:0], old.values[:0], old.shape)
        else:
            # A new array, not the old one zeroed: on the CPU ``gradient()`` hands out the live
            # array, which must keep the values it was read with.
            self.grad_data = backend.array_module(self.data).zeros(self.data.shape,
                                                                   dtype=self.data.dtype)

    clear_gradient = clear_grad

    def register_hook(self, hook):
        """Call ``hook(grad: Tensor) -> Tensor | None`` on this tensor's gradient in backward.

        A returned tensor replaces the gradient that flows on. Returns a handle with ``remove()``.
        """

        def on_array(grad):
            out = hook(Tensor(grad))
            return grad if out is None else (out.data if isinstance(out, Tensor) else out)

        on_array.tensor_hook = hook  # create_graph passes the gradient Tensor itself
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
        return apply(self.data.copy(), (self,), lambda g: (g,), "clone", _pass_through)

    def astype(self, dtype) -> Tensor:
        source = self.dtype
        if source.kind != "c":  # a real tensor cast to complex keeps the gradient's real part
            return apply(self.data.astype(dtype), (self,),
                         lambda g: ((g.real if g.dtype.kind == "c" else g).astype(source),),
                         "astype", _astype_grad)
        return apply(self.data.astype(dtype), (self,), lambda g: (g.astype(source),), "astype")

    cast = astype

    # ----- devices (Paddle's Tensor.cpu / cuda / to) -------------------------------------
    def cpu(self) -> Tensor:
        """A copy on the host (Paddle's ``Tensor.cpu()``); the gradient flows back to this
        tensor's device. On the CPU it is still a copy, as Paddle's."""
        return _moved(self, backend.to_numpy(self.data).copy(), "cpu")

    def cuda(self, device_id: int | None = None, blocking: bool = True) -> Tensor:
        """A copy on GPU ``device_id`` (Paddle's ``Tensor.cuda``): the current GPU, or GPU 0
        when the current device is the CPU. Needs cupy and a visible GPU. ``blocking`` is
        accepted for Paddle's signature; the copy is complete when this returns."""
        del blocking
        if device_id is None:
            current = backend.current_device()
            device_id = current.index if current.kind == "gpu" else 0
        if isinstance(device_id, bool) or not isinstance(device_id, (int, np.integer)):
            raise TypeError(f"Tensor.cuda: device_id must be an int or None, got {device_id!r}")
        return _moved(self, _on_gpu(self.data, int(device_id), "Tensor.cuda"), "cuda")

    def to(self, *args, **kwargs) -> Tensor:
        """Paddle 3.x's ``Tensor.to``: ``to(device)``, ``to(dtype)``, ``to(device, dtype)``,
        ``to(other_tensor)`` (its dtype and device), keyword ``device=``, ``dtype=``,
        ``blocking=``. Returns this tensor itself when nothing changes, as Paddle's."""
        device, dtype = _to_arguments(args, kwargs)
        out = self
        if dtype is not None and np.dtype(dtype) != self.dtype:
            out = out.astype(dtype)
        if device is not None:
            target = backend.parse_device(device)
            here = "cpu" if isinstance(out.data, np.ndarray) else f"gpu:{out.data.device.id}"
            if str(target) != here:
                out = out.cpu() if target.kind == "cpu" else out.cuda(target.index)
        return out

    def set_value(self, value) -> None:
        """Overwrite the values in place (shape must match): used to load weights. The values
        are copied onto this tensor's own device (the host, or the GPU it lives on), whatever
        the current device is, and cast to its dtype."""
        value = _on_device_of(self.data, value.data if isinstance(value, Tensor) else value)
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


def _checked_gradient(x: Tensor, value):
    """``value`` (the Tensor assigned to ``x.grad``) as a gradient array of x: a copy on x's
    device. Paddle accepts only a Tensor (a ValueError otherwise) and refuses another dtype
    (a RuntimeError); core also refuses another shape, which Paddle takes silently."""
    if not isinstance(value, Tensor) or value._sparse:
        raise ValueError(f"Tensor.grad: the assigned gradient must be a dense Tensor or None, "
                         f"got {type(value).__name__} {value!r:.80}")
    if value.data.dtype != x.data.dtype:
        raise RuntimeError(f"Tensor.grad: the assigned gradient has dtype {value.dtype}, but "
                           f"the tensor's dtype is {x.dtype}: cast it first "
                           f"(g.astype('{x.dtype}'))")
    if tuple(value.data.shape) != tuple(x.data.shape):
        raise ValueError(f"Tensor.grad: the assigned gradient has shape {value.shape}, but the "
                         f"tensor's shape is {x.shape}")
    copy = _on_device_of(x.data, value.data)
    return value.data.copy() if copy is value.data else copy


def _moved(x: Tensor, data, op: str) -> Tensor:
    """``data`` (``x``'s values on another device) as an op whose gradient goes back to x's."""
    source = x.data
    if isinstance(source, np.ndarray):
        return apply(data, (x,), lambda g: (backend.to_numpy(g),), op)
    index = source.device.id
    return apply(data, (x,), lambda g: (_on_gpu(g, index, op),), op)


def _on_device_of(target, value):
    """``value`` (an array of any device, or array-like) as an array of ``target``'s module
    and device: ``backend.asarray`` would put it on the CURRENT device instead."""
    if isinstance(target, np.ndarray):
        return backend.to_numpy(value)
    return _on_gpu(value, target.device.id, "set_value")


def _on_gpu(array, index: int, fn: str):
    """``array`` copied to GPU ``index`` (a clear error without cupy or that GPU)."""
    count = backend.gpu_count()
    if not 0 <= index < count:
        raise backend.DeviceError(
            f"{fn}: GPU {index} is not available: this machine has {count} GPU(s) visible to "
            "cupy" + (f"; allowed device_id: 0..{count - 1}" if count else
                      " (install cupy and check the NVIDIA driver, or stay on the CPU)"))
    import cupy  # noqa: PLC0415 - only reached when gpu_count() found cupy (lists too)

    with cupy.cuda.Device(index):
        return cupy.array(array, copy=True)


def _to_arguments(args: tuple, kwargs: dict) -> tuple:
    """(device, dtype) from ``Tensor.to``'s flexible arguments; None where not given."""
    unknown = set(kwargs) - {"device", "dtype", "blocking", "other"}
    if unknown:
        raise TypeError(f"Tensor.to: unexpected keyword argument(s) {sorted(unknown)}; "
                        "allowed: device, dtype, blocking, other")
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    other = kwargs.get("other")
    for arg in args:
        if isinstance(arg, Tensor):
            other = arg
        elif isinstance(arg, bool) or arg is None:
            continue  # blocking
        elif isinstance(arg, backend.Place) or (
                isinstance(arg, str) and arg.split(":")[0] in ("cpu", "gpu", "cuda")):
            device = arg
        else:
            dtype = arg
    if other is not None:
        dtype = other.dtype if dtype is None else dtype
        device = other.place if device is None else device
    if isinstance(device, str):
        device = device.replace("cuda", "gpu")
    if dtype is not None:
        try:
            np.dtype(dtype)
        except TypeError:
            raise TypeError(f"Tensor.to: {dtype!r} is neither a device ('cpu', 'gpu', "
                            "'gpu:N') nor a dtype ('float32', 'int64', ...)") from None
    return device, dtype


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None,  # noqa: PLR0913
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool = False,
         no_grad_vars=None) -> list:
    """Paddle's ``paddle.grad``: the gradients of ``outputs`` (a Tensor or a list) with respect
    to ``inputs`` (a Tensor or a list; leaves or tensors computed on the way), as a list of
    Tensors, one per input, without changing any tensor's ``.grad``.

    ``grad_outputs``: one seed per output (a Tensor, or None for ones). ``retain_graph``
    (default: ``create_graph``) keeps the graph for another pass. ``allow_unused=True`` gives
    None for an input no output depends on (else that raises). ``no_grad_vars``: tensors the
    gradient does not pass through. ``create_graph=True`` records the backward pass itself, so
    the gradients returned can be differentiated again (gradient penalties, Hessian-vector
    products, derivatives of derivatives): every op between the outputs and the inputs must
    then be one of ``core.higher_order.SUPPORTED_OPS`` (the error names the first that is
    not, before anything is computed)."""
    if not only_inputs:
        raise ValueError("grad: only_inputs=False is not supported (Paddle neither): only the "
                         "gradients of `inputs` are computed")
    outputs, inputs = _tensors(outputs, "outputs"), _tensors(inputs, "inputs")
    blocked = () if no_grad_vars is None else _tensors(no_grad_vars, "no_grad_vars")
    seeds = _seeds(outputs, grad_outputs)
    keep = create_graph if retain_graph is None else retain_graph
    if create_graph:
        return _graph_gradients(outputs, seeds, grad_outputs, inputs, blocked, keep,
                                allow_unused)
    arrays = run_partial_backward(outputs, seeds, inputs, blocked, keep)
    result = []
    for i, (x, g) in enumerate(zip(inputs, arrays)):
        if g is None:
            _unused(i, x, allow_unused)
        result.append(None if g is None else Tensor(_owned_gradient(g, x.data)))
    return result


def _graph_gradients(outputs: tuple, seeds: tuple, grad_outputs, inputs: tuple,  # noqa: PLR0913
                     blocked: tuple, keep: bool, allow_unused: bool) -> list:
    """``grad(create_graph=True)``: the gradients as Tensors with their own graph. A given
    grad_outputs Tensor is used itself (the gradient is differentiable in it too)."""
    given = (grad_outputs,) if isinstance(grad_outputs, Tensor) else (
        (None,) * len(outputs) if grad_outputs is None else tuple(grad_outputs))
    seed_tensors = tuple(g if g is not None else Tensor(seed) for g, seed in zip(given, seeds))
    found = run_graph_backward(outputs, seed_tensors, inputs, blocked, keep, enable_grad,
                               SUPPORTED_OPS)
    result, handed = [], {id(s) for s in seed_tensors}
    for i, (x, g) in enumerate(zip(inputs, found)):
        if g is None:
            _unused(i, x, allow_unused)
        elif g.stop_gradient:  # a constant (a linear function's gradient): a fresh array
            g = Tensor(_owned_gradient(g.data, x.data))
        elif g.dtype != x.dtype:
            g = g.astype(x.dtype)
        elif id(g) in handed:  # one Tensor for two inputs (or a seed): each gets its own
            g = g.clone()
        handed.add(id(g))
        result.append(g)
    return result


def _unused(i: int, x: Tensor, allow_unused: bool) -> None:
    if not allow_unused:
        raise RuntimeError(
            f"grad: input {i} (shape {x.shape}) is not reached from the outputs (it does "
            "not appear in their graph, or stops gradients): pass allow_unused=True to "
            "get None for it")


def _pass_through(out, grad) -> tuple:
    """The tensor-level backward of an op whose gradient passes unchanged (clone)."""
    return (grad,)


def _astype_grad(out, grad) -> tuple:  # a real source: back to its dtype, recorded
    (source,) = captured(out, "source")
    return (grad.astype(source),)


def _tensors(values, arg: str) -> tuple:
    values = (values,) if isinstance(values, Tensor) else values
    if not isinstance(values, (list, tuple)) or not values \
            or not all(isinstance(v, Tensor) for v in values):
        raise TypeError(f"grad: {arg} must be a Tensor or a non-empty list of Tensors, got "
                        f"{values!r}")
    return tuple(values)


def _seeds(outputs: tuple, grad_outputs) -> tuple:
    """One gradient array per output: the given Tensor, or ones where None."""
    given = [None] * len(outputs) if grad_outputs is None else (
        [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs))
    if len(given) != len(outputs):
        raise ValueError(f"grad: grad_outputs has {len(given)} entries but there are "
                         f"{len(outputs)} outputs")
    seeds = []
    for i, (out, seed) in enumerate(zip(outputs, given)):
        if out.stop_gradient:
            raise RuntimeError(f"grad: output {i} has stop_gradient=True: nothing it depends "
                               "on requires a gradient")
        if seed is None:
            seeds.append(backend.array_module(out.data).ones_like(out.data))
        elif not isinstance(seed, Tensor) or tuple(seed.data.shape) != tuple(out.data.shape):
            raise ValueError(f"grad: grad_outputs[{i}] must be None or a Tensor of the output's "
                             f"shape {out.shape}, got {seed!r}")
        else:
            seeds.append(seed.data)
    return tuple(seeds)


def _owned_gradient(g, like):
    """A copy of the gradient, of its input's dtype (dense if row-sparse): a closure may hand
    one array to several inputs, or pass a seed on unchanged."""
    if hasattr(g, "to_dense"):
        g = g.to_dense()
    if g.dtype != like.dtype or isinstance(g, np.generic):
        if g.dtype.kind == "c" and like.dtype.kind != "c":
            g = g.real  # a real input keeps the real part of a complex gradient, as in torch
        return backend.array_module(like).asarray(g, dtype=like.dtype)
    return g.copy()


def apply(out_data, parents: tuple, backward, op: str | None = None, grad_fn=None) -> Tensor:
    """Wrap an op's output; record the graph only when some parent needs a gradient.

    ``grad_fn(out, grad)`` (optional) is the op's tensor-level backward, which
    ``grad(create_graph=True)`` runs: from the output gradient as a Tensor (and the output
    ``out``, whose parents are the op's inputs) it returns one gradient Tensor (or None) per
    parent, computed with core's differentiable ops. It must not close over ``out``'s data
    beyond what ``backward`` keeps: it is stored with the node and freed with it."""
    if isinstance(out_data, np.generic):
        out_data = np.asarray(out_data)  # numpy returns scalars for 0-D math; keep arrays
    out = Tensor(out_data)
    if getattr(_state, "grad_enabled", True):
        try:  # free unless it raises: this runs once per op
            for parent in parents:  # a loop, not any(<generator>)
                if not parent.stop_gradient:
                    out.stop_gradient = False
                    out._parents, out._backward, out._op = parents, backward, op
                    if grad_fn is not None:
                        out._grad_fn = grad_fn
                    break
        except AttributeError:
            if all(isinstance(parent, Tensor) for parent in parents):
                raise
            raise backend.NotATensorError(f"{op or 'an op'}: {backend.NOT_A_TENSOR}") from None
    return out


class Parameter(Tensor):
    """A trainable leaf tensor owned by a Layer (Paddle's ``EagerParamBase``).

    Layers name theirs ``<layer's full_name>.w_N`` / ``.b_N`` (``Layer.create_parameter``);
    one made without a name is ``_eager_param_base_N``, as in Paddle."""

    __slots__ = ("trainable", "regularizer", "need_clip", "optimize_attr")

    def __init__(self, data, name: str | None = None, trainable: bool = True,
                 regularizer=None, need_clip: bool = True, learning_rate: float = 1.0):
        # Paddle's EagerParamBase draws "_eager_param_base_N" even when it is given a name
        generated = unique_name("_eager_param_base")
        super().__init__(data, stop_gradient=not trainable, name=name or generated)
        self.trainable = trainable
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.optimize_attr = {"learning_rate": learning_rate}

    def __repr__(self) -> str:
        return f"Parameter {self.name}, " + super().__repr__()


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """Paddle's ``to_tensor``: Python floats become the default float dtype (float32 unless
    ``core.set_default_dtype`` changed it), complex numbers its complex counterpart
    (complex64, or complex128 under float64), ints int64; arrays keep their dtype. ``place`` (a
    place, ``"cpu"``, ``"gpu:N"``; None: the current device, see ``core.device.set_device``)
    is where the tensor is made; ``CUDAPinnedPlace()`` is the host."""
    target = None if place is None else backend.parse_device(place)
    if isinstance(data, Tensor):
        if data._sparse:  # a dense tensor of the values alone would be a wrong tensor
            raise TypeError("to_tensor: a sparse tensor is not supported by core's dense "
                            "functions (nor by Paddle's dense kernels): use x.to_dense() or "
                            "x.values()")
        data = data.data
    if dtype is None and not hasattr(data, "dtype"):
        probe = np.asarray(data)
        if probe.dtype.kind == "f":
            dtype = get_default_dtype()
        elif probe.dtype.kind == "c":
            dtype = _default_complex()
        elif probe.dtype.kind in "iu":
            dtype = "int64"
    value_range = _host_int_range(data, dtype)
    array = _placed(data, dtype, target)
    if array is data:
        array = array.copy()  # Paddle copies: later edits of the source must not leak in
    out = Tensor(array, stop_gradient=stop_gradient)
    out._value_range = value_range
    return out


def _default_complex() -> str:
    """The complex dtype Python complex numbers become: complex128 under a float64 default,
    complex64 otherwise, as Paddle's to_tensor pairs them."""
    return "complex128" if np.dtype(get_default_dtype()) == np.float64 else "complex64"


def _placed(data, dtype, target: backend.Device | None):
    """``data`` as an array of ``target`` (None: the current device): to_tensor's ``place``."""
    if target is None or target == backend.current_device():
        return backend.asarray(data, dtype=dtype)
    host = np.asarray(backend.to_numpy(data), dtype=dtype)
    return host if target.kind == "cpu" else _on_gpu(host, target.index, "to_tensor")


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


def __getattr__(name: str):
    """``paddle.tensor.<function>``: Paddle's ``paddle.tensor`` package holds its tensor
    functions, and tutorials call them there (``paddle.tensor.flatten(x, 2)``,
    ``paddle.tensor.transpose(x, perm)``). ``core.tensor`` is the module of the Tensor class; it
    hands out core's public functions (the names of ``core.__all__``) under the same spelling.
    Paddle's submodules (``paddle.tensor.math``, ``paddle.tensor.creation``) are not mirrored."""
    import core  # noqa: PLC0415 - core imports this module first

    if name in getattr(core, "__all__", ()):
        return getattr(core, name)
    raise AttributeError(f"module 'core.tensor' has no attribute '{name}' (paddle.tensor.<name> "
                         "gives the public functions of core: core.__all__)")
