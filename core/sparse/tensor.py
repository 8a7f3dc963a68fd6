"""Paddle's sparse tensors: ``SparseCooTensor`` and ``SparseCsrTensor``, their creation
(``sparse_coo_tensor``, ``sparse_csr_tensor``, ``Tensor.to_sparse_coo`` / ``to_sparse_csr``),
``to_dense``, ``coalesce`` and ``is_same_shape``.

A sparse tensor is a ``core.Tensor`` (``isinstance(x, core.Tensor)`` holds, as in Paddle) whose
``data`` is its VALUES array, ``[nnz, *dense_dims]``: the autograd engine then handles it like
any tensor, and its gradient is an array of the values' shape, i.e. a sparse tensor of the same
pattern (``x.grad``). ``shape``, ``ndim`` and ``numpy()`` describe the dense tensor it stands
for; the dense Tensor methods that would act on the bare values raise
(``_refuse_dense_methods``), and so do core's dense functions, which read ``data``
(``_read_values``). The pattern lives beside: COO ``indices`` ``[sparse_dim, nnz]``
(int64), CSR ``crows`` (``rows + 1`` entries per batch) and ``cols``. Ops are built from four
differentiable steps (``values``, ``with_values``, ``gather_rows``, ``sum_rows``) and core's
dense ops on the values, so every op's gradient with respect to values and dense operands comes
from those.

Everything runs on the array module of the values (numpy or cupy): keys are row-major linear
indices, duplicates are summed with ``sum_by_index`` (as row-sparse gradients are), rows are
found with ``searchsorted``; nothing needs scipy or cupyx.
"""
from __future__ import annotations

import inspect
import math
import sys

import numpy as np

from core import backend
from core.manipulation import reshape as dense_reshape
from core.tensor import Tensor, apply, is_grad_enabled, no_grad, to_tensor


# ----- the four differentiable steps ----------------------------------------------------------
def link(out, parents: tuple, backward, op: str):
    """``out`` (a new sparse tensor) recorded as the result of ``op`` on ``parents``, as
    ``core.tensor.apply`` records a dense one: only when grad is on and a parent needs one."""
    if is_grad_enabled() and any(not p.stop_gradient for p in parents):
        out.stop_gradient = False
        out._parents, out._backward, out._op = parents, backward, op
    return out


def values_of(x) -> Tensor:
    """The values of sparse ``x`` as a dense Tensor whose gradient flows back to ``x``."""
    return apply(x.data, (x,), lambda g: (g,), "sparse_values")


def with_values(x, values: Tensor):
    """A sparse tensor of ``x``'s layout and pattern holding ``values`` (a dense Tensor of
    ``[nnz, *dense_dims]``); its gradient flows back to ``values``."""
    return link(x._like(values.data), (values,), lambda g: (g,), "sparse_with_values")


def gather_rows(t: Tensor, index) -> Tensor:
    """``t[index]`` along axis 0 (``index`` a backend int array); the gradient scatter-adds."""
    count = t.data.shape[0]
    xp = backend.array_module(t.data)
    return apply(xp.take(t.data, index, axis=0), (t,),
                 lambda g: (backend.kernels(g).sum_by_index(g, index, count),), "gather_rows")


def sum_rows(t: Tensor, index, count: int) -> Tensor:
    """``out[k] = sum of t[i] where index[i] == k``, for ``k < count``; the gradient gathers."""
    xp = backend.array_module(t.data)
    return apply(backend.kernels(t.data).sum_by_index(t.data, index, count), (t,),
                 lambda g: (xp.take(g, index, axis=0),), "sum_rows")


# ----- keys: row-major linear indices ---------------------------------------------------------
def linear_keys(indices, dims) -> object:
    """The row-major linear index of each column of ``indices`` ``[len(dims), nnz]``."""
    xp = backend.array_module(indices)
    keys = xp.zeros(indices.shape[1], dtype=np.int64)
    for row, n in zip(indices, dims):
        keys = keys * int(n) + row
    return keys


def unravel_keys(keys, dims):
    """``linear_keys``' inverse: the ``[len(dims), nnz]`` int64 indices of ``keys``."""
    xp = backend.array_module(keys)
    rows = []
    for n in reversed(dims):
        rows.append(keys % int(n))
        keys = keys // int(n)
    return xp.stack(rows[::-1]) if rows else xp.zeros((0, len(keys)), dtype=np.int64)


def expand(counts):
    """For ``counts[i]`` copies of each i: (owner i of each copy, its rank within i's copies),
    with searchsorted (cupy's ``repeat`` takes no array of repeats)."""
    xp = backend.array_module(counts)
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    slots = xp.arange(total, dtype=np.int64)
    owner = xp.searchsorted(ends, slots, side="right")
    return owner, slots - (ends - counts)[owner]


def placed_like(like, array, dtype=None):
    """``array`` (host data or a backend array) as an array of ``like``'s module and device."""
    xp = backend.array_module(like)
    if xp is np:
        return np.asarray(backend.to_numpy(array), dtype=dtype)
    with like.device:
        return xp.asarray(array, dtype=dtype)


# ----- who may read the values array ---------------------------------------------------------
# Every dense function of core reads its inputs' arrays through ``.data``: given a sparse tensor
# it would compute on the [nnz, ...] values as if they were the tensor, a silent wrong result
# (``core.add(x, dense)``). So a sparse tensor's ``data`` is a property that hands the values
# only to the code that knows what they are: core.sparse itself, the autograd engine
# (core.backprop, core.tensor), the optimizers with their regularizers and gradient clipping
# (element-wise on the values: a sparse tensor may be trained), and the dense Tensor methods a
# sparse tensor keeps (``_KEPT``: dtype queries). Any other reader gets the TypeError Paddle's
# dense kernels give a sparse input. Dense tensors keep the plain slot and pay nothing.
_VALUES = Tensor.data  # the slot where every tensor, sparse or not, keeps its array
_READER_MODULES = frozenset({"core.tensor", "core.backprop", "core.regularizer",
                             "core.clipping"})
_READER_PACKAGES = ("core.sparse.", "core.optimizer.")


def _read_values(x):
    caller = sys._getframe(1)
    module = caller.f_globals.get("__name__", "")
    if module in _READER_MODULES or module.startswith(_READER_PACKAGES) \
            or caller.f_code in _KEPT_CODE:
        return _VALUES.__get__(x)
    if module != "core" and not module.startswith("core."):  # the user's own x.data
        raise TypeError(_function_refusal("x.data"))
    raise TypeError(_function_refusal(_entry_point(caller)))


def _entry_point(frame) -> str:
    """The core function the user called: the outermost public one of core's on the stack
    (``core.exp`` reads the array in ``_unary``, ``Linear.forward`` in ``F.linear``); made by
    a factory (``<locals>``), it goes unnamed."""
    name = None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("core."):
        code = frame.f_code
        qualname = getattr(code, "co_qualname", code.co_name)  # Python 3.11 on
        if not code.co_name.startswith(("_", "<")) and "<locals>" not in qualname:
            name = qualname
        frame = frame.f_back
    return f"{name}()" if name else "a dense function"


# ----- the tensor classes ---------------------------------------------------------------------
class SparseTensor(Tensor):
    """What COO and CSR tensors share; ``data`` is the values array (see the module doc), which
    only core.sparse and the autograd engine may read (``_read_values``)."""

    __slots__ = ("_dense_shape",)
    _sparse = True  # core.tensor.to_tensor refuses it
    data = property(_read_values, _VALUES.__set__)

    @property
    def shape(self) -> list[int]:
        return list(self._dense_shape)

    @property
    def ndim(self) -> int:
        return len(self._dense_shape)

    @property
    def size(self) -> int:
        return math.prod(self._dense_shape)

    def dim(self) -> int:
        return len(self._dense_shape)

    ndimension = dim

    def __len__(self) -> int:
        return self._dense_shape[0]

    def is_sparse(self) -> bool:
        return True

    def __getstate__(self):
        """What ``copy``, ``deepcopy`` and ``pickle`` keep: every slot that holds a value, as
        Python's default gives it, read here, where ``data`` may be read (they would read it
        from their own modules, which ``_read_values`` refuses)."""
        slots = {}
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if name != "__weakref__" and hasattr(self, name):
                    slots[name] = getattr(self, name)
        return None, slots

    def is_same_shape(self, y) -> bool:
        return list(self.shape) == list(y.shape)

    def nnz(self) -> int:
        """The number of stored entries (Paddle's ``Tensor.nnz()``)."""
        return int(self.data.shape[0])

    def values(self) -> Tensor:
        """The stored values ``[nnz, *dense_dims]`` as a dense Tensor (Paddle's
        ``Tensor.values()``); gradients taken through it reach this tensor."""
        return values_of(self)

    def numpy(self) -> np.ndarray:
        """The dense tensor this stands for, as a numpy array (as ``to_dense().numpy()``)."""
        with no_grad():
            return self.to_dense().numpy()

    def item(self):
        return self.numpy().item()

    def tolist(self):
        return self.numpy().tolist()

    @property
    def grad(self):
        """The gradient: a sparse tensor of this pattern (None before a backward pass), one
        gradient per stored value (repeated indices each hold theirs: coalesce first for one
        per position)."""
        return None if self.grad_data is None else self._like(self.grad_data)

    def gradient(self) -> np.ndarray | None:
        """The gradient as a dense numpy array (None before a backward pass)."""
        grad = self.grad
        return None if grad is None else grad.numpy()

    def detach(self):
        return self._like(self.data)

    def clone(self):
        return with_values(self, values_of(self).clone())

    def astype(self, dtype):
        return with_values(self, values_of(self).astype(dtype))

    cast = astype

    def cpu(self):
        return self._moved(values_of(self).cpu())

    def cuda(self, device_id: int | None = None, blocking: bool = True):
        return self._moved(values_of(self).cuda(device_id, blocking))

    def to(self, *args, **kwargs):
        values = values_of(self).to(*args, **kwargs)
        return self if values.data is self.data else self._moved(values)

    def _moved(self, values: Tensor):
        """This pattern, moved to the device of ``values`` (this tensor's values, moved)."""
        out = self._like(values.data, lambda a: placed_like(values.data, a))
        return link(out, (values,), lambda g: (g,), "sparse_to")

    def __repr__(self) -> str:
        # Paddle's layout: the index arrays (each class's _rows_repr), then the values.
        pad = " " * 7
        return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n{pad}{self._rows_repr()},\n{pad}"
                f"{_index_repr('values', self.data)})")

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(x)``: the dense array, as ``numpy()`` (Paddle's ``Tensor.__array__``)."""
        del copy  # numpy() is always a new array
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)


def _index_repr(name: str, array) -> str:
    indent = " " * (8 + len(name))
    return f"{name}=" + np.array2string(backend.to_numpy(array), separator=", ").replace(
        "\n", "\n" + indent)


class SparseCooTensor(SparseTensor):
    """A COO tensor: ``values[k]`` sits at ``indices[:, k]`` of the first ``sparse_dim`` axes
    (repeated indices add up, until ``coalesce``)."""

    __slots__ = ("_indices", "_coalesced")

    def __init__(self, indices, values, shape, stop_gradient: bool = True,  # noqa: PLR0913
                 coalesced: bool = False):
        super().__init__(values, stop_gradient=stop_gradient)
        self._indices, self._dense_shape = indices, tuple(int(n) for n in shape)
        self._coalesced = coalesced

    def _like(self, values, move=None):
        move = move or (lambda a: a)
        return SparseCooTensor(move(self._indices), values, self._dense_shape,
                               coalesced=self._coalesced)

    def _rows_repr(self) -> str:
        return _index_repr("indices", self._indices)

    def is_sparse_coo(self) -> bool:
        return True

    def is_sparse_csr(self) -> bool:
        return False

    def sparse_dim(self) -> int:
        return int(self._indices.shape[0])

    def dense_dim(self) -> int:
        return self.data.ndim - 1

    def indices(self) -> Tensor:
        """The ``[sparse_dim, nnz]`` int64 indices (Paddle's ``Tensor.indices()``)."""
        return Tensor(self._indices)

    def keys(self):
        """The row-major linear index of each entry over the sparse axes."""
        return linear_keys(self._indices, self._dense_shape[:self.sparse_dim()])

    def coalesce(self):
        return coalesce(self)

    def to_dense(self) -> Tensor:
        """The dense tensor (repeated indices summed); differentiable in the values."""
        sparse_dims = self._dense_shape[:self.sparse_dim()]
        flat = sum_rows(values_of(self), self.keys(), math.prod(sparse_dims))
        return dense_reshape(flat, list(self._dense_shape))

    def to_sparse_coo(self, sparse_dim: int):
        if sparse_dim == self.sparse_dim():
            return self
        return dense_to_coo(self.to_dense(), sparse_dim)

    def to_sparse_csr(self):
        return coo_to_csr(self)


class SparseCsrTensor(SparseTensor):
    """A CSR matrix (2-D) or batch of them (3-D): row r of batch b holds the entries
    ``crows[b*(rows+1) + r] : crows[b*(rows+1) + r + 1]`` of that batch's part of ``cols`` and
    ``values`` (batches follow one another in ``cols`` and ``values``)."""

    __slots__ = ("_crows", "_cols")

    def __init__(self, crows, cols, values, shape, stop_gradient: bool = True):  # noqa: PLR0913
        super().__init__(values, stop_gradient=stop_gradient)
        self._crows, self._cols = crows, cols
        self._dense_shape = tuple(int(n) for n in shape)

    def _like(self, values, move=None):
        move = move or (lambda a: a)
        return SparseCsrTensor(move(self._crows), move(self._cols), values, self._dense_shape)

    def _rows_repr(self) -> str:
        return _index_repr("crows", self._crows) + ",\n       " + _index_repr("cols", self._cols)

    def is_sparse_coo(self) -> bool:
        return False

    def is_sparse_csr(self) -> bool:
        return True

    def crows(self) -> Tensor:
        """The compressed row offsets, int64 (Paddle's ``Tensor.crows()``)."""
        return Tensor(self._crows)

    def cols(self) -> Tensor:
        """The column of each stored value, int64 (Paddle's ``Tensor.cols()``)."""
        return Tensor(self._cols)

    def coo_indices(self):
        """The ``[ndim, nnz]`` COO indices of the entries, in storage order."""
        xp = backend.array_module(self._crows)
        rows = self._dense_shape[-2]
        batches = len(self._crows) // (rows + 1)
        crows = self._crows.reshape(batches, rows + 1)
        # Row ends as global entry offsets: each batch's offsets start at that batch's first
        # entry; the row of entry p is the number of rows that end at or before p.
        starts = xp.cumsum(crows[:, -1]) - crows[:, -1]
        ends = (crows[:, 1:] + starts[:, None]).reshape(-1)
        row_keys = xp.searchsorted(ends, xp.arange(len(self._cols), dtype=np.int64),
                                   side="right")
        if len(self._dense_shape) == 2:
            return xp.stack([row_keys, self._cols])
        return xp.stack([row_keys // rows, row_keys % rows, self._cols])

    def to_sparse_coo(self, sparse_dim: int):
        if sparse_dim != self.ndim:
            return dense_to_coo(self.to_dense(), sparse_dim)
        out = SparseCooTensor(self.coo_indices(), self.data, self._dense_shape)
        return link(out, (self,), lambda g: (g,), "csr_to_coo")

    def to_sparse_csr(self):
        return self

    def to_dense(self) -> Tensor:
        return self.to_sparse_coo(self.ndim).to_dense()


# ----- the dense Tensor methods a sparse tensor refuses -----------------------------------------
# What a sparse tensor keeps of the dense Tensor's attributes besides its own: the autograd
# state, dtype and place queries. Every other dense method or operator would act on the bare
# values array (``data``) as if it were the tensor, so it raises instead, as Paddle's dense
# kernels do for a sparse input.
_KEPT = frozenset({
    "backward", "clear_grad", "clear_gradient", "data", "dtype", "element_size", "grad_data",
    "is_complex", "is_contiguous", "is_floating_point", "is_integer", "is_leaf", "is_tensor",
    "name", "place", "register_array_hook", "register_hook", "retain_grads", "stop_gradient",
    "contiguous", "__float__", "__int__", "__bool__",
})
# The code of those kept methods (property getters included): they may read ``data`` (its dtype).
_KEPT_CODE = frozenset(
    getattr(getattr(inspect.getattr_static(Tensor, name), "fget", None)
            or inspect.getattr_static(Tensor, name), "__code__", None) for name in _KEPT
    if hasattr(Tensor, name)) - {None}
_OPERATORS = {"__getitem__": "indexing x[...]", "__setitem__": "assignment x[...] = value",
              "__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">",
              "__ge__": ">=", "__and__": "&", "__rand__": "&", "__or__": "|", "__ror__": "|",
              "__xor__": "^", "__rxor__": "^", "__invert__": "~", "__abs__": "abs()",
              "__rmatmul__": "dense @ sparse", "__dlpack__": "__dlpack__",
              "__dlpack_device__": "__dlpack_device__"}


def _refusal(what: str) -> str:
    return (f"{what} is not supported for a sparse tensor (nor by Paddle's sparse tensors): it "
            "would act on the stored values as if they were the tensor. Use the core.sparse op "
            "(core.sparse.transpose, sum, matmul, ...) or convert with x.to_dense() first")


def _function_refusal(function: str) -> str:
    return (f"{function}: a sparse tensor is not supported by core's dense functions (nor by "
            "Paddle's dense kernels): they would act on its stored values as if they were the "
            "tensor. Use the core.sparse op (core.sparse.add, multiply, matmul, sum, ...) or "
            "convert with x.to_dense() first")


def _refuse(name: str, what: str):
    def method(self, *args, **kwargs):
        raise TypeError(_refusal(what))
    method.__name__ = method.__qualname__ = name
    return method


def _refuse_dense_methods() -> None:
    """Replace on ``SparseTensor`` every public Tensor method and property and every operator of
    ``_OPERATORS`` that the sparse classes do not define and ``_KEPT`` does not name."""
    own = set(vars(SparseTensor)) | set(vars(SparseCooTensor)) | set(vars(SparseCsrTensor))
    names = [n for n in dir(Tensor) if not n.startswith("_")] + list(_OPERATORS)
    for name in names:
        if name in own or name in _KEPT or not hasattr(Tensor, name):
            continue
        what = _OPERATORS.get(name, f"Tensor.{name}")
        attr = inspect.getattr_static(Tensor, name)
        if isinstance(attr, property):
            setattr(SparseTensor, name, property(_refuse(name, what)))
        elif callable(attr) or isinstance(attr, (staticmethod, classmethod)):
            setattr(SparseTensor, name, _refuse(name, what))


_refuse_dense_methods()


# ----- conversions ----------------------------------------------------------------------------
def dense_to_coo(x: Tensor, sparse_dim: int) -> SparseCooTensor:
    """Paddle's ``Tensor.to_sparse_coo(sparse_dim)``: the nonzero entries of the first
    ``sparse_dim`` axes (a slice of the remaining axes is stored when any of it is nonzero)."""
    if isinstance(sparse_dim, bool) or not isinstance(sparse_dim, (int, np.integer)) \
            or not 1 <= sparse_dim <= x.ndim:
        raise ValueError(f"to_sparse_coo: sparse_dim must be an int in 1..{x.ndim} (the "
                         f"tensor has {x.ndim} axes), got {sparse_dim!r}")
    sparse_dim = int(sparse_dim)
    xp = backend.array_module(x.data)
    dims = tuple(x.data.shape)
    count = math.prod(dims[:sparse_dim])
    rows = dense_reshape(x, [count, *dims[sparse_dim:]])
    nonzero = rows.data != 0
    if nonzero.ndim > 1:
        nonzero = nonzero.reshape(count, -1).any(axis=1)
    keys = xp.nonzero(nonzero)[0].astype(np.int64)
    out_values = gather_rows(rows, keys)
    out = SparseCooTensor(unravel_keys(keys, dims[:sparse_dim]), out_values.data, dims,
                          coalesced=True)
    return link(out, (out_values,), lambda g: (g,), "to_sparse_coo")


def coo_to_csr(x: SparseCooTensor) -> SparseCsrTensor:
    """Paddle's ``to_sparse_csr`` of a COO tensor: 2-D or 3-D, every axis sparse."""
    if x.ndim not in (2, 3) or x.sparse_dim() != x.ndim:
        raise ValueError(f"to_sparse_csr: a CSR tensor is 2-D or 3-D with every axis sparse; "
                         f"this COO tensor has shape {x.shape} and sparse_dim "
                         f"{x.sparse_dim()}")
    x = coalesce(x)  # sorted row-major, each position once: the CSR order
    xp = backend.array_module(x.data)
    rows = x.shape[-2]
    batches = x.shape[0] if x.ndim == 3 else 1
    indices = x._indices
    row_keys = indices[-2] + (indices[0] * rows if x.ndim == 3 else 0)
    counts = xp.bincount(row_keys, minlength=batches * rows).reshape(batches, rows)
    crows = xp.concatenate([xp.zeros((batches, 1), dtype=np.int64),
                            xp.cumsum(counts, axis=1)], axis=1).reshape(-1)
    out = SparseCsrTensor(crows.astype(np.int64), indices[-1].copy(), x.data, x.shape)
    return link(out, (x,), lambda g: (g,), "coo_to_csr")


def dense_to_csr(x: Tensor) -> SparseCsrTensor:
    """Paddle's ``Tensor.to_sparse_csr()`` of a dense 2-D or 3-D tensor."""
    if x.ndim not in (2, 3):
        raise ValueError(f"to_sparse_csr: a CSR tensor is 2-D or 3-D, got a tensor of shape "
                         f"{x.shape}")
    return coo_to_csr(dense_to_coo(x, x.ndim))


# ----- creation -------------------------------------------------------------------------------
def _values_tensor(values, dtype, place, fn: str) -> Tensor:
    """``values`` as a Tensor of ``dtype`` on ``place``; a Tensor keeps its graph."""
    if isinstance(values, SparseTensor):
        raise TypeError(f"{fn}: values must be dense (a list, array or dense Tensor), got a "
                        "sparse tensor")
    if not isinstance(values, Tensor):
        return to_tensor(values, dtype=dtype, place=place)
    if dtype is not None and np.dtype(dtype) != values.dtype:
        values = values.astype(dtype)
    return values if place is None else values.to(place)


def _index_array(data, like, fn: str, arg: str):
    """``data`` (list, array or Tensor of integers) as an int64 array beside ``like``."""
    raw = data.data if isinstance(data, Tensor) else data
    if not hasattr(raw, "dtype"):
        raw = np.asarray(raw)
    if raw.dtype.kind not in "iu" and raw.size:  # an empty list reads as float64
        raise TypeError(f"{fn}: {arg} must hold integers, got dtype {raw.dtype} (pass int32 "
                        "or int64 indices)")
    return placed_like(like, raw, dtype=np.int64)


def _host(array) -> np.ndarray:
    return backend.to_numpy(array)


def _check_coo(indices, values, shape, fn: str) -> tuple:
    if indices.ndim != 2:
        raise ValueError(f"{fn}: indices must be 2-D, [sparse_dim, nnz], got shape "
                         f"{list(indices.shape)}")
    if values.ndim < 1 or values.shape[0] != indices.shape[1]:
        raise ValueError(f"{fn}: values must have one row per column of indices (nnz = "
                         f"{indices.shape[1]}), got values of shape {list(values.shape)}")
    sparse_dim = indices.shape[0]
    host = _host(indices)
    if shape is None:
        if host.shape[1] == 0:
            raise ValueError(f"{fn}: shape is needed when there are no entries (nnz = 0)")
        shape = [int(n) + 1 for n in host.max(axis=1)] + list(values.shape[1:])
    shape = [int(n) for n in shape]
    if len(shape) != sparse_dim + values.ndim - 1 or shape[sparse_dim:] != list(values.shape[1:]):
        raise ValueError(f"{fn}: shape {shape} does not fit indices of sparse_dim {sparse_dim} "
                         f"and values of shape {list(values.shape)}: it must be "
                         f"{sparse_dim} sparse sizes followed by {list(values.shape[1:])}")
    if host.size:
        low, high = host.min(axis=1), host.max(axis=1)
        for axis in range(sparse_dim):
            if low[axis] < 0 or high[axis] >= shape[axis]:
                bad = int(low[axis] if low[axis] < 0 else high[axis])
                raise ValueError(f"{fn}: indices[{axis}] holds {bad}, out of range for axis "
                                 f"{axis} of size {shape[axis]}; allowed: 0..{shape[axis] - 1}")
    return tuple(shape)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,  # noqa: PLR0913
                      stop_gradient: bool = True) -> SparseCooTensor:
    """Paddle's ``paddle.sparse.sparse_coo_tensor(indices, values, shape=None, dtype=None,
    place=None, stop_gradient=True)``: a COO tensor with ``values[k]`` (``values`` of shape
    ``[nnz, *dense_dims]``) at ``indices[:, k]`` (``indices`` ``[sparse_dim, nnz]``). ``shape``
    defaults to the smallest that holds the indices. Values given as a Tensor that needs a
    gradient keep their graph (gradients reach them); otherwise the result is a leaf whose
    ``stop_gradient`` is the one given."""
    values = _values_tensor(values, dtype, place, "sparse_coo_tensor")
    if values.ndim == 0:
        raise ValueError("sparse_coo_tensor: values must have at least one axis, [nnz, ...], "
                         "got a 0-D tensor")
    index = _index_array(indices, values.data, "sparse_coo_tensor", "indices")
    shape = _check_coo(index, values.data, shape, "sparse_coo_tensor")
    if not values.stop_gradient:
        out = SparseCooTensor(index, values.data, shape)
        return link(out, (values,), lambda g: (g,), "sparse_coo_tensor")
    return SparseCooTensor(index, values.data, shape, stop_gradient=stop_gradient)


def _check_csr(crows, cols, values, shape, fn: str) -> tuple:
    if shape is None or len(shape) not in (2, 3):
        raise ValueError(f"{fn}: shape must be given, 2-D [rows, cols] or 3-D [batch, rows, "
                         f"cols], got {shape!r}")
    shape = tuple(int(n) for n in shape)
    if crows.ndim != 1 or cols.ndim != 1 or values.ndim != 1 or len(cols) != len(values):
        raise ValueError(f"{fn}: crows, cols and values must be 1-D, cols and values of the "
                         f"same length; got shapes {list(crows.shape)}, {list(cols.shape)} and "
                         f"{list(values.shape)}")
    rows, batches = shape[-2], (shape[0] if len(shape) == 3 else 1)
    if len(crows) != batches * (rows + 1):
        raise ValueError(f"{fn}: crows must hold rows + 1 = {rows + 1} offsets per batch "
                         f"({batches * (rows + 1)} for shape {list(shape)}), got {len(crows)}")
    offsets = _host(crows).reshape(batches, rows + 1)
    if (offsets[:, 0] != 0).any() or (np.diff(offsets, axis=1) < 0).any():
        raise ValueError(f"{fn}: crows must start at 0 and never decrease within each batch "
                         f"(row r's entries are crows[r]:crows[r+1]), got {offsets.tolist()}")
    if int(offsets[:, -1].sum()) != len(cols):
        raise ValueError(f"{fn}: crows ends at {offsets[:, -1].tolist()} entries but cols and "
                         f"values hold {len(cols)}: the last offset of each batch must be its "
                         "entry count")
    host_cols = _host(cols)
    if host_cols.size and (host_cols.min() < 0 or host_cols.max() >= shape[-1]):
        bad = int(host_cols.min() if host_cols.min() < 0 else host_cols.max())
        raise ValueError(f"{fn}: cols holds {bad}, out of range for {shape[-1]} columns; "
                         f"allowed: 0..{shape[-1] - 1}")
    return shape


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None,  # noqa: PLR0913
                      stop_gradient: bool = True) -> SparseCsrTensor:
    """Paddle's ``paddle.sparse.sparse_csr_tensor(crows, cols, values, shape, dtype=None,
    place=None, stop_gradient=True)``: a 2-D CSR matrix, or a 3-D batch of them (``crows`` then
    holds ``rows + 1`` offsets per batch, each batch's from 0). Gradients as
    ``sparse_coo_tensor``."""
    values = _values_tensor(values, dtype, place, "sparse_csr_tensor")
    crows_array = _index_array(crows, values.data, "sparse_csr_tensor", "crows")
    cols_array = _index_array(cols, values.data, "sparse_csr_tensor", "cols")
    shape = _check_csr(crows_array, cols_array, values.data, shape, "sparse_csr_tensor")
    if not values.stop_gradient:
        out = SparseCsrTensor(crows_array, cols_array, values.data, shape)
        return link(out, (values,), lambda g: (g,), "sparse_csr_tensor")
    return SparseCsrTensor(crows_array, cols_array, values.data, shape,
                           stop_gradient=stop_gradient)


# ----- coalesce, is_same_shape ----------------------------------------------------------------
def sparse_input(x, fn: str, arg: str = "x") -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{fn}: {arg} must be a sparse tensor (SparseCooTensor or "
                        f"SparseCsrTensor), got {type(x).__name__}; make one with "
                        "x.to_sparse_coo(sparse_dim) or x.to_sparse_csr()")
    return x


def coalesce(x, name: str | None = None) -> SparseCooTensor:
    """Paddle's ``paddle.sparse.coalesce(x, name=None)``: the same COO tensor with its indices
    sorted (row-major) and each position once, repeated entries summed."""
    del name
    x = sparse_input(x, "coalesce")
    if not x.is_sparse_coo():
        raise TypeError("coalesce: x must be a COO tensor (a CSR tensor stores each position "
                        "once already); got a CSR tensor")
    if x._coalesced:
        return x
    xp = backend.array_module(x.data)
    sparse_dims = x.shape[:x.sparse_dim()]
    keys, inverse = xp.unique(x.keys(), return_inverse=True)
    summed = sum_rows(values_of(x), inverse.reshape(-1), len(keys))
    out = SparseCooTensor(unravel_keys(keys, sparse_dims), summed.data, x.shape,
                          coalesced=True)
    return link(out, (summed,), lambda g: (g,), "coalesce")


def coalesced(x: SparseTensor) -> SparseTensor:
    """``x`` with each position stored once: a COO tensor that repeats a position coalesced
    (differentiably, so each repeated entry gets the gradient of its position), else ``x`` as it
    is (its order kept, as Paddle's kernels keep it). An op that is not linear in the values
    (``abs``, ``relu``, ``softmax``...) takes this: on repeated entries it would act on each
    one rather than on their sum, the value the dense tensor holds (torch coalesces first too).
    """
    if not x.is_sparse_coo() or x._coalesced:
        return x
    keys = x.keys()
    if len(backend.array_module(keys).unique(keys)) == len(keys):
        return x
    return coalesce(x)


def is_same_shape(x, y) -> bool:
    """Paddle's ``paddle.sparse.is_same_shape(x, y)``: whether two tensors (dense, COO or CSR,
    in any pairing) have the same shape."""
    for arg, value in (("x", x), ("y", y)):
        if not isinstance(value, Tensor):
            raise TypeError(f"is_same_shape: {arg} must be a Tensor, got "
                            f"{type(value).__name__}")
    return list(x.shape) == list(y.shape)


def entry_indices(x: SparseTensor):
    """The ``[sparse_dim, nnz]`` indices of ``x``'s entries, in the order of its values."""
    return x._indices if x.is_sparse_coo() else x.coo_indices()


def as_coo(x: SparseTensor) -> SparseCooTensor:
    """``x`` as COO over every sparse axis (a CSR tensor converted, differentiably)."""
    return x if x.is_sparse_coo() else x.to_sparse_coo(x.ndim)


def in_layout_of(out: SparseCooTensor, like: SparseTensor) -> SparseTensor:
    """``out`` (COO) back in ``like``'s layout: CSR where ``like`` is CSR and ``out`` is 2-D or
    3-D, else COO."""
    if like.is_sparse_csr() and out.ndim in (2, 3):
        return coo_to_csr(out)
    return out
