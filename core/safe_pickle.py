"""Unpickling files from elsewhere without letting them run code.

A pickle can call any importable callable it names (``os.system`` with an argument is five
bytes of opcodes), so files that are pickles by format -- Paddle's checkpoints (``.pdparams``,
``.pdopt``), the CIFAR batches -- are read with ``RestrictedUnpickler``: every global the file
names is looked up in an allow-list of objects that only build data (numpy arrays, dtypes and
scalars, the builtin containers), and anything else stops the load before it is called.
Arrays and dtypes that hold Python objects (dtype object) are refused too:
``numpy.ndarray(shape, 'O', buffer)`` would read object pointers from the file's bytes, so
``numpy.ndarray`` can only be ``_reconstruct``'s argument.

Names are resolved to the objects of the installed numpy rather than imported, so a file
written under numpy 1.x (``numpy.core.multiarray``) and one written under numpy 2.x
(``numpy._core.multiarray``) both load, without importing numpy's deprecated ``numpy.core``.
"""
from __future__ import annotations

import _compat_pickle
import collections
import pickle

import numpy as np

# The callables numpy's own pickles name, taken from what this numpy's reductions return.
_RECONSTRUCT = np.zeros(1).__reduce__()[0]        # multiarray._reconstruct
_SCALAR = np.float64(0).__reduce__()[0]           # multiarray.scalar
_FROMBUFFER = np.zeros(1).__reduce_ex__(5)[0]     # numeric._frombuffer (protocol 5)


def _latin1_encode(text, encoding="latin1"):
    """``_codecs.encode`` as pickle uses it: Python 3 writes ``bytes`` at protocol 2 as
    ``_codecs.encode(text, 'latin1')``. Any other codec (there are compressing ones) is
    refused: no pickle written by pickle itself asks for one."""
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str):
        raise pickle.UnpicklingError(f"_codecs.encode is allowed only as pickle uses it, "
                                     f"encode(str, 'latin1'), not with encoding={encoding!r}")
    return text.encode("latin1")


class ObjectArrayError(pickle.UnpicklingError):
    """A pickle builds a numpy array or dtype that holds Python objects (dtype object)."""

    def __init__(self, what):
        super().__init__(f"the pickle builds {what}, which holds Python objects and is not "
                         "allowed: such an array holds pointers, and numpy.ndarray(shape, "
                         "'O', buffer) would take them from the file's bytes")


def _plain_dtype(*args):
    """``numpy.dtype`` for a pickle: refuses dtypes that hold Python objects, which no
    checkpoint or dataset needs and which let an array read pointers from raw bytes."""
    dtype = np.dtype(*args)
    if dtype.hasobject:
        raise ObjectArrayError(f"the numpy dtype {dtype}")
    return dtype


class _NdarrayName:
    """What ``numpy.ndarray`` resolves to: numpy's pickles name it only as the first argument
    of ``_reconstruct``, and calling it with a buffer and dtype 'O' would turn the file's
    bytes into object pointers (a crash, or worse), so it cannot be called."""

    def __call__(self, *args, **kwargs):
        raise ForbiddenGlobalError("numpy", "ndarray (called)")


_NDARRAY = _NdarrayName()


def _reconstruct(subtype, shape, typecode):
    """numpy's ``multiarray._reconstruct`` for plain arrays of a non-object dtype (the dtype
    set by the BUILD that follows comes from ``_plain_dtype``)."""
    if subtype is not _NDARRAY:
        raise ForbiddenGlobalError("numpy", f"_reconstruct of {type(subtype).__name__}")
    _plain_dtype(typecode)
    return _RECONSTRUCT(np.ndarray, shape, typecode)


def _checked(obj):
    """``obj`` if no array in it holds Python objects: the last check, whatever path built
    them (a dtype's state, a scalar)."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, (np.ndarray, np.generic)) and node.dtype.hasobject:
            raise ObjectArrayError(f"a numpy array of dtype {node.dtype}")
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, set, frozenset)):
            stack.extend(node)
    return obj


def _numpy_globals() -> dict:
    table = {("numpy", "ndarray"): _NDARRAY, ("numpy", "dtype"): _plain_dtype,
             ("_codecs", "encode"): _latin1_encode}
    for package in ("numpy.core", "numpy._core"):  # numpy 1.x and 2.x spell them differently
        table[(f"{package}.multiarray", "_reconstruct")] = _reconstruct
        table[(f"{package}.multiarray", "scalar")] = _SCALAR
        table[(f"{package}.numeric", "_frombuffer")] = _FROMBUFFER
    return table


# numpy arrays, dtypes and scalars: what the CIFAR batches need
NUMPY_GLOBALS = _numpy_globals()

# ... plus the containers a state dict is made of (protocol 2 writes sets and tuples built by
# a reduction as calls of the builtin; ``__builtin__`` is mapped to ``builtins`` by pickle)
CONTAINER_GLOBALS = {
    **NUMPY_GLOBALS,
    ("collections", "OrderedDict"): collections.OrderedDict,
    **{("builtins", kind.__name__): kind
       for kind in (tuple, list, dict, set, frozenset, complex, bytearray, slice)},
}


class ForbiddenGlobalError(pickle.UnpicklingError):
    """A pickle names a global outside the allow-list: ``module`` and ``name`` say which."""

    def __init__(self, module: str, name: str):
        super().__init__(f"the pickle names {module}.{name}, which is not allowed")
        self.module, self.name = module, name


class RestrictedUnpickler(pickle.Unpickler):
    """``pickle.Unpickler`` that resolves globals only from ``allowed``, a dict
    ``(module, name) -> object``; any other global raises ``ForbiddenGlobalError`` before
    it is imported or called."""

    def __init__(self, file, allowed: dict, **kwargs):
        super().__init__(file, **kwargs)
        self._allowed = allowed

    def find_class(self, module, name):
        # Python 2 names (``__builtin__.set``), which Python 3 also writes at protocol 2, as
        # pickle's own find_class maps them; no Python 3 module is named like them
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        try:
            return self._allowed[(module, name)]
        except (KeyError, TypeError):  # TypeError: an unhashable name from a crafted file
            raise ForbiddenGlobalError(str(module), str(name)) from None


def load(file, allowed: dict = CONTAINER_GLOBALS, encoding: str = "ASCII"):
    """Unpickle the open binary ``file`` with only the globals of ``allowed``; an array or
    dtype holding Python objects raises ``ObjectArrayError``."""
    return _checked(RestrictedUnpickler(file, allowed, encoding=encoding).load())


__all__ = ["CONTAINER_GLOBALS", "NUMPY_GLOBALS", "ForbiddenGlobalError", "ObjectArrayError",
           "RestrictedUnpickler", "load"]
