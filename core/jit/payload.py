"""The saved object of ``jit.save`` without its tensors, in one of two forms.

A *description* is a tree of plain values (serialize's format, no pickle): each Layer (or core
object such as a ParamAttr or an initializer) is its class's import path and its attributes,
each Tensor an index into the table of tensors, functions core's by import path. Loading
imports the classes and fills ``cls.__new__(cls)`` with the attributes; it calls no other code,
so a description is safe to load. core.nn layers do not record their constructor arguments, so
the attributes are what describes them. A layer whose attributes reach anything else (a lambda,
an object of a class of your own, a hook) is *pickled* instead, with the same tensor table
(``persistent_id``): loading that runs pickle, so load only files you trust. Either form needs
the layer's classes importable where it is loaded.
"""
from __future__ import annotations

import importlib
import io
import pickle
import re
import types
from collections import OrderedDict

import numpy as np

from core import backend
from core.jit.static_function import StaticFunction
from core.nn.layer import Layer
from core.tensor import Parameter, Tensor, unique_name

DESCRIPTION, PICKLE = "description", "pickle"
_PLAIN_VALUES = (type(None), bool, int, float, str)
_CONTAINERS = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}


class NotDescribable(Exception):
    """A value the description cannot hold; ``where`` is its attribute path."""

    def __init__(self, where: str, value):
        super().__init__(f"{where} is a {type(value).__name__}")
        self.where = where


class NotImportable(ImportError):
    """A saved class or function whose module or name cannot be imported any more."""

    def __init__(self, module: str, name: str, reason: str):
        super().__init__(f"{module}.{name} ({reason})")
        self.module, self.qualname, self.reason = module, name, reason


# ----- the tensors ------------------------------------------------------------------------------

class TensorTable:
    """Every Tensor reachable from the saved object, once each. One in ``state`` is named by its
    key (its values go to the .pdiparams file); any other carries its own array."""

    def __init__(self, state: dict):
        self._key_of = {id(t): key for key, t in state.items()}
        self._index: dict[int, int] = {}
        self.tensors: list[Tensor] = []

    def index(self, tensor: Tensor) -> int:
        found = self._index.get(id(tensor))
        if found is None:
            found = self._index[id(tensor)] = len(self.tensors)
            self.tensors.append(tensor)
        return found

    def records(self) -> list[dict]:
        return [_record(t, self._key_of.get(id(t))) for t in self.tensors]

    def extras(self) -> list:
        """What of each Parameter is an object: its regularizer and optimize_attr."""
        return [(t.regularizer, t.optimize_attr) if isinstance(t, Parameter) else None
                for t in self.tensors]


def _record(tensor: Tensor, key: str | None) -> dict:
    record = {"key": key, "parameter": isinstance(tensor, Parameter), "name": tensor.name,
              "stop_gradient": bool(tensor.stop_gradient)}
    if key is None:
        record["array"] = backend.to_numpy(tensor.data)
    if isinstance(tensor, Parameter):
        record.update(trainable=bool(tensor.trainable), need_clip=bool(tensor.need_clip))
    return record


def build_tensors(records: list[dict], state: dict) -> list[Tensor]:
    """The tensors of a table, their values from ``state`` (the .pdiparams) or the record.
    Parameters with generated names get new ones, as Paddle's ``jit.load`` gives them
    (``linear_0.w_0`` -> ``linear_0.w_0_0``, from the unique_name counters): the saved names
    belong to the process that made them, and optimizers key their state by name. Names
    given by a ParamAttr stay."""
    tensors = []
    for record in records:
        array = state[record["key"]] if record["key"] is not None else record["array"]
        data = backend.asarray(np.asarray(array))
        if record["parameter"]:
            name = record["name"]
            if _generated(name):
                name = unique_name(name)
            tensor = Parameter(data, name=name,
                               trainable=record["trainable"], need_clip=record["need_clip"])
        else:
            tensor = Tensor(data, name=record["name"])
        tensor.stop_gradient = record["stop_gradient"]
        tensors.append(tensor)
    return tensors


def set_extras(tensors: list[Tensor], extras: list) -> None:
    for tensor, extra in zip(tensors, extras):
        if extra is not None:
            tensor.regularizer, tensor.optimize_attr = extra


# what Layer.create_parameter, core.create_parameter and Parameter name (linear_0.w_0,
# create_parameter_0.b_0, _eager_param_base_3), with the counters jit.load appends
_GENERATED = re.compile(r"(.+_\d+\.[wb]|_eager_param_base|param)_\d+(_\d+)*")


def _generated(name) -> bool:
    return name is not None and _GENERATED.fullmatch(name) is not None


# ----- description ------------------------------------------------------------------------------

def describe(value, table: TensorTable) -> tuple[dict, dict]:
    """The descriptions of ``value`` and of its parameters' extras (one memo: an object the two
    share stays one object); NotDescribable when something in them has none."""
    describer = _Describer(table)
    tree = describer.node(value, "layer")
    return tree, describer.node(table.extras(), "a parameter's regularizer or optimize_attr")


class _Describer:
    def __init__(self, table: TensorTable):
        self.table = table
        self.memo: dict[int, int] = {}
        self.alive: list = []  # keeps described objects alive, so their ids stay theirs

    def node(self, value, where: str) -> dict:
        if isinstance(value, Tensor):
            return {"t": "tensor", "i": self.table.index(value)}
        kind = type(value)
        if kind in _PLAIN_VALUES or isinstance(value, np.generic):
            return {"t": "value", "v": value}
        if kind is np.ndarray and not value.dtype.hasobject:
            return {"t": "array", "v": value}
        if isinstance(value, np.dtype):
            return {"t": "dtype", "v": value.str}
        if kind in _CONTAINERS:
            return {"t": _CONTAINERS[kind],
                    "items": [self.node(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if kind in (dict, OrderedDict):
            return {"t": "dict" if kind is dict else "odict",
                    "items": [[self.node(k, f"{where} key"), self.node(v, f"{where}[{k!r}]")]
                              for k, v in value.items()]}
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
            return self.reference(value, where)
        return self.instance(value, where)

    def reference(self, value, where: str) -> dict:
        module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
        if not _is_core(module) or "<" in name:
            raise NotDescribable(where, value)
        try:
            found = _resolve(module, name)
        except NotImportable:
            found = None
        if found is not value:
            raise NotDescribable(where, value)
        return {"t": "global", "m": module, "q": name}

    def instance(self, value, where: str) -> dict:
        if id(value) in self.memo:
            return {"t": "ref", "n": self.memo[id(value)]}
        cls = type(value)
        if not ((isinstance(value, Layer) or _is_core(cls.__module__))
                and "<" not in cls.__qualname__ and _plain_state(cls)):
            raise NotDescribable(where, value)
        number = self.memo[id(value)] = len(self.memo)
        self.alive.append(value)
        attrs = {name: self.node(v, f"{where}.{name}") for name, v in vars(value).items()
                 if not _is_decoration(value, name, v)}
        return {"t": "object", "m": cls.__module__, "q": cls.__qualname__, "n": number,
                "a": attrs}


def _is_core(module) -> bool:
    return isinstance(module, str) and (module == "core" or module.startswith("core."))


def _plain_state(cls) -> bool:
    """Whether an instance's state is its ``__dict__`` alone (what a description restores)."""
    if not hasattr(cls, "__dict__") or hasattr(cls, "__setstate__") \
            or cls.__reduce_ex__ is not object.__reduce_ex__ \
            or cls.__reduce__ is not object.__reduce__ \
            or getattr(cls, "__getstate__", object.__getstate__) is not object.__getstate__:
        return False
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        slots = [slots] if isinstance(slots, str) else slots
        if any(s not in ("__dict__", "__weakref__") for s in slots):
            return False
    return True


def _is_decoration(owner, name: str, value) -> bool:
    """``to_static(layer)`` sets ``layer.forward``; the saved layer runs its class's forward."""
    return isinstance(owner, Layer) and name == "forward" and isinstance(value, StaticFunction)


def rebuild(tree: dict, extras: dict, tensors: list[Tensor]) -> tuple:
    """(the object, its parameters' extras) from ``describe``'s trees."""
    builder = _Builder(tensors)
    return builder.node(tree), builder.node(extras)


class _Builder:
    def __init__(self, tensors: list[Tensor]):
        self.tensors = tensors
        self.memo: dict[int, object] = {}

    def node(self, tree: dict):
        kind = tree["t"]
        if kind in ("value", "array"):
            return tree["v"]
        if kind == "tensor":
            return self.tensors[tree["i"]]
        if kind == "dtype":
            return np.dtype(tree["v"])
        if kind in ("list", "tuple", "set", "frozenset"):
            items = [self.node(item) for item in tree["items"]]
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)
        if kind in ("dict", "odict"):
            pairs = [(self.node(k), self.node(v)) for k, v in tree["items"]]
            return dict(pairs) if kind == "dict" else OrderedDict(pairs)
        if kind == "global":
            if not _is_core(tree["m"]):
                raise ValueError(f"a function outside core ({tree['m']}.{tree['q']})")
            return _resolve(tree["m"], tree["q"])
        if kind == "ref":
            return self.memo[tree["n"]]
        if kind == "object":
            return self.instance(tree)
        raise ValueError(f"unknown entry type {kind!r}")

    def instance(self, tree: dict):
        cls = _resolve(tree["m"], tree["q"])
        if not isinstance(cls, type) or not (issubclass(cls, Layer) or _is_core(cls.__module__)):
            raise ValueError(f"{tree['m']}.{tree['q']} is neither a Layer nor a core class")
        obj = cls.__new__(cls)
        self.memo[tree["n"]] = obj  # before the attributes: they may refer back to it
        vars(obj).update({name: self.node(value) for name, value in tree["a"].items()})
        return obj


def _resolve(module: str, qualname: str):
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise NotImportable(module, qualname, str(exc)) from None
    for part in qualname.split("."):
        if not hasattr(found, part):
            raise NotImportable(module, qualname, f"module '{module}' has no '{qualname}'")
        found = getattr(found, part)
    return found


# ----- pickle -----------------------------------------------------------------------------------

def pickled(value, table: TensorTable) -> bytes:
    """``value`` and then its parameters' extras, pickled with every Tensor as a table index."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, table)
    pickler.dump(value)
    pickler.dump(table.extras())
    return buffer.getvalue()


class _Pickler(pickle.Pickler):
    def __init__(self, file, table: TensorTable):
        super().__init__(file, protocol=4)
        self.table = table

    def persistent_id(self, obj):
        return ("tensor", self.table.index(obj)) if isinstance(obj, Tensor) else None

    def reducer_override(self, obj):
        if isinstance(obj, Layer) and _is_decoration(obj, "forward", vars(obj).get("forward")):
            state = {k: v for k, v in vars(obj).items() if k != "forward"}
            return _new_object, (type(obj),), state
        return NotImplemented


def _new_object(cls):
    return cls.__new__(cls)


def unpickled(data: bytes, tensors: list[Tensor]) -> tuple:
    """(the object, its parameters' extras) from ``pickled``'s bytes."""
    unpickler = _Unpickler(io.BytesIO(data), tensors)
    return unpickler.load(), unpickler.load()


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, tensors: list[Tensor]):
        super().__init__(file)
        self.tensors = tensors

    def persistent_load(self, pid):
        kind, index = pid
        if kind != "tensor":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.tensors[index]

    def find_class(self, module, name):
        try:
            return super().find_class(module, name)
        except (ImportError, AttributeError) as exc:
            raise NotImportable(module, name, str(exc)) from None
