"""``Layer``: the base of every network part, with Paddle 2.x's names.

Attributes that are Parameters, Layers or registered buffers are tracked in insertion order, so
``named_parameters()`` and ``state_dict()`` are deterministic and read like the model's code
(``conv1.weight``). Forward hooks let tools read a layer's output without changing the model;
``error_clip`` clips the gradient arriving at the layer's output during backward.

core's own layers take numpy arrays as inputs too, as ``core.to_tensor`` makes them
(``core.tensor.arrays_to_tensors``): in Paddle a ``DataLoader`` yields Tensors, and the
tutorial's ``model(x_data)`` passes them straight on, where ``core.io.DataLoader`` yields numpy
batches (unless ``return_tensors=True``). A layer of your own receives what it is given.
"""
from __future__ import annotations

import re
import warnings
from collections import OrderedDict

import numpy as np

from core import backend
from core.clipping import check_error_clip, error_clip_hook
from core.framework import get_default_dtype
from core.nn.param_attr import new_parameter
from core.profiler import recorder as _profiling
from core.tensor import Parameter, Tensor, _HookHandle, arrays_to_tensors, unique_name

_FIRST_CAP = re.compile("(.)([A-Z][a-z]+)")
_ALL_CAP = re.compile("([a-z])([A-Z])")
# Paddle's _scope_dist2single: model-parallel layers count their names as single-device ones
_DIST_TO_SINGLE = {"row_parallel_linear": "linear", "column_parallel_linear": "linear",
                   "vocab_parallel_embedding": "embedding"}


class Layer:
    """Subclass, create parameters in ``__init__`` and compute in ``forward``."""

    _takes_arrays = True  # numpy inputs become Tensors: core's layers only (__init_subclass__)
    _runs_forward = True  # False for pure containers, whose forward never runs (output_layers)
    # Whether the name_scope argument names the layer. core's own layers pass their Paddle
    # ``name`` argument up as name_scope, but in Paddle a layer's ``name`` never names it
    # (``ReLU(name="x").full_name()`` is ``re_lu_0``), so theirs is ignored.
    _scope_names_it = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._takes_arrays = cls.__module__.startswith("core.")
        cls._scope_names_it = not cls.__module__.startswith("core.")

    def __init__(self, name_scope: str | None = None, dtype: str | None = None):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_forward_post_hooks", [])
        object.__setattr__(self, "_forward_pre_hooks", [])
        self.training = True
        self.error_clip: float | None = None
        # As Paddle's layers (self._helper.get_default_dtype()): new parameters take the
        # default float dtype of the moment the layer is made.
        self._dtype = get_default_dtype() if dtype is None else dtype
        if not self._scope_names_it:
            name_scope = None
        elif name_scope is not None and not isinstance(name_scope, str):
            raise TypeError(f"{type(self).__name__}: name_scope={name_scope!r} must be a str "
                            "or None")
        # Paddle's name: the scope (default: the class name in snake case) with the next
        # number of the unique_name counter of that key, "linear_0"; parameters extend it
        self._full_name = unique_name(_layer_key(type(self).__name__) if name_scope is None
                                      else name_scope)

    # ----- registration ------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        if "_parameters" not in self.__dict__ and isinstance(value, (Parameter, Layer)):
            raise RuntimeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                               f"before assigning '{name}'")
        if name == "error_clip":
            value = check_error_clip(value)  # a clear error now, not in some later backward
        for registry in ("_parameters", "_sub_layers", "_buffers"):
            self.__dict__.get(registry, {}).pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        elif isinstance(value, Tensor) and name in self.__dict__.get("_buffer_names", ()):
            self._buffers[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_sub_layers", "_buffers"):
            self.__dict__[registry].pop(name, None)
        object.__delattr__(self, name)

    def create_parameter(self, shape, attr=None, dtype=None, is_bias: bool = False,
                         default_initializer=None) -> Parameter | None:
        """Paddle's ``create_parameter(shape, attr=None, dtype=None, is_bias=False,
        default_initializer=None)``: a new Parameter of ``shape``, or None when ``attr`` is
        False (no such parameter).

        ``attr`` is a ParamAttr or a short form of one (core.nn.param_attr.to_attr: a name, an
        Initializer, a regularizer, a dict of ParamAttr's fields). The values come from the
        attribute's initializer, else ``set_global_initializer``'s, else
        ``default_initializer``, else Xavier uniform (zeros for a bias). ``dtype`` defaults to
        the layer's. Without a name in ``attr`` it is named as in Paddle,
        ``<full_name()>.w_N`` (``.b_N`` for a bias), N counting this layer's.
        """
        return new_parameter(shape, attr, dtype or self._dtype, is_bias, default_initializer,
                             f"{type(self).__name__}.create_parameter", self._full_name)

    def register_buffer(self, name: str, tensor: Tensor, persistable: bool = True) -> None:
        """A non-trainable tensor saved in ``state_dict`` (BatchNorm's running statistics)."""
        names = self.__dict__.setdefault("_buffer_names", set())
        names.add(name)
        if not persistable:
            self.__dict__.setdefault("_non_persistable", set()).add(name)
        setattr(self, name, tensor)

    def add_sublayer(self, name: str, sublayer: Layer) -> Layer:
        setattr(self, str(name), sublayer)
        return sublayer

    def add_parameter(self, name: str, parameter: Parameter) -> Parameter:
        setattr(self, name, parameter)
        return parameter

    # ----- traversal ---------------------------------------------------------------------
    def named_sublayers(self, prefix: str = "", include_self: bool = False):
        """(dotted name, layer) for every layer below this one, depth first, in order."""
        if include_self:
            yield prefix, self
        yield from _depth_first(self, prefix)

    def output_layers(self) -> dict[str, Layer]:
        """{name: the layer whose forward output that name reads}: the names forward hooks can
        read (``core.inference.Inference``, the runner's ``inspect.layer_outputs``).

        Every sublayer by its dotted name, except containers that never run themselves
        (``LayerList``, ``LayerDict``): a hook on them would never fire. A network that groups
        layers under names of its own overrides this to say whose output each group name is.
        """
        return {name: layer for name, layer in self.named_sublayers() if layer._runs_forward}

    def sublayers(self, include_self: bool = False) -> list[Layer]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def children(self):
        yield from self._sub_layers.values()

    def named_children(self):
        yield from self._sub_layers.items()

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True):
        """(dotted name, Parameter) pairs, each parameter once, in definition order."""
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for base, layer in layers:
            for name, param in layer._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{base}.{name}" if base else name), param

    def parameters(self, include_sublayers: bool = True) -> list[Parameter]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = ""):
        for base, layer in self.named_sublayers(prefix, include_self=True):
            for name, buf in layer._buffers.items():
                yield (f"{base}.{name}" if base else name), buf

    def buffers(self) -> list[Tensor]:
        return [b for _, b in self.named_buffers()]

    # ----- modes -------------------------------------------------------------------------
    def train(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def clear_gradients(self) -> None:
        for param in self.parameters():
            param.clear_grad()

    def apply(self, fn) -> Layer:
        """Paddle's ``apply(fn)``: ``fn(layer)`` for every sublayer (children first, depth
        first) and then this layer; returns this layer (``model.apply(init_weights)``)."""
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}.apply: fn must be a callable taking a Layer, "
                            f"got {fn!r}")
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ----- dtype and device --------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None) -> Layer:
        """Paddle's ``to(device=None, dtype=None, blocking=None)``: every parameter and buffer
        (and gradient) of this layer and its sublayers moved to ``device`` ("cpu", "gpu",
        "gpu:N") and/or cast to ``dtype``, in place: the same Parameter objects, so an
        optimiser built before keeps them. ``blocking`` is accepted and ignored (core's copies
        have finished when ``to`` returns). Returns this layer."""
        del blocking
        owner = f"{type(self).__name__}.to"
        target = None if dtype is None else _dtype(owner, dtype)
        where = None if device is None else str(backend.parse_device(device))

        def change(array):
            if where is not None:
                array = _on_device(array, where)
            return array if target is None else array.astype(target, copy=False)

        self._convert(change, floating_only=False, dtype=target)
        return self

    def astype(self, dtype) -> Layer:
        """Paddle's ``astype(dtype)``: every parameter and buffer cast to ``dtype`` in place
        (the same objects); the layers' default dtype for new parameters becomes ``dtype``.
        Returns this layer."""
        target = _dtype(f"{type(self).__name__}.astype", dtype)
        self._convert(lambda array: array.astype(target, copy=False), floating_only=False,
                      dtype=target)
        return self

    def float(self, excluded_layers=None) -> Layer:  # noqa: A003 - Paddle's name
        """Paddle's ``float(excluded_layers=None)``: floating-point parameters and buffers to
        float32, except those of the layers ``excluded_layers`` names (a Layer type or
        instance, or a list or tuple of them). Returns this layer."""
        return self._to_float("float32", excluded_layers, "float")

    def float16(self, excluded_layers=None) -> Layer:
        """Paddle's ``float16(excluded_layers=None)``: as ``float``, to float16."""
        return self._to_float("float16", excluded_layers, "float16")

    def _to_float(self, dtype: str, excluded_layers, method: str) -> Layer:
        excluded = _excluded(f"{type(self).__name__}.{method}", excluded_layers)
        self._convert(lambda array: array.astype(dtype, copy=False), floating_only=True,
                      dtype=np.dtype(dtype), excluded=excluded)
        return self

    def _convert(self, change, floating_only: bool, dtype=None, excluded=()) -> None:
        """``change(array)`` for the array (and gradient) of every parameter and buffer, each
        once (a tied parameter too), skipping layers ``excluded`` matches; with
        ``floating_only`` non-float tensors (integer buffers) are left as they are."""
        seen = set()
        for layer in self.sublayers(include_self=True):
            if any(layer is e or (isinstance(e, type) and isinstance(layer, e))
                   for e in excluded):
                continue
            if dtype is not None:
                layer._dtype = dtype.name
            for tensor in [*layer._parameters.values(), *layer._buffers.values()]:
                if tensor is None or id(tensor) in seen \
                        or (floating_only and tensor.data.dtype.kind != "f"):
                    continue
                seen.add(id(tensor))
                tensor.data = change(tensor.data)
                if tensor.grad_data is not None:
                    tensor.grad_data = change(tensor.grad_data)
                tensor._value_range = None  # bounds recorded for the old array

    # ----- state -------------------------------------------------------------------------
    def state_dict(self) -> OrderedDict:
        """Parameters and persistable buffers by dotted name (Tensors, sharing memory), in
        Paddle's order: each layer's parameters, then its buffers, then its sublayers' (depth
        first), so a BatchNorm's running statistics follow its weight and bias. A parameter
        shared by two layers is listed once; a layer's ``_state_aliases`` (Paddle's RNN cell
        names) follow its own entries."""
        state, seen = OrderedDict(), set()
        for base, layer in self.named_sublayers(include_self=True):
            dot = f"{base}." if base else ""
            for name, param in layer._parameters.items():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    state[dot + name] = param
            skip = layer.__dict__.get("_non_persistable", set())
            for name, buf in layer._buffers.items():
                if name not in skip:
                    state[dot + name] = buf
            for alias, name in layer._state_aliases():
                state[dot + alias] = layer._parameters[name]
        return state

    def _state_aliases(self) -> list[tuple[str, str]]:
        """(second name, parameter name) pairs: entries ``state_dict`` adds after this layer's
        own for parameters Paddle lists twice (its RNN layers: ``0.cell.weight_ih`` is
        ``weight_ih_l0``). ``set_state_dict`` reads either name. None by default."""
        return []

    def _alias_keys(self, own) -> dict[str, str]:
        """{dotted alias: dotted parameter name} for the aliases in ``own`` (a state_dict)."""
        keys = {}
        for base, layer in self.named_sublayers(include_self=True):
            dot = f"{base}." if base else ""
            for alias, name in layer._state_aliases():
                if dot + alias in own and dot + name in own:
                    keys[dot + alias] = dot + name
        return keys

    def _legacy_shapes(self) -> dict[str, tuple]:
        """{parameter name: an older saved shape it still loads from, reshaped} for this
        layer's parameters whose shape changed (LayerNorm's weight and bias were
        normalized_shape before they became Paddle's flat vector). None by default."""
        return {}

    def _legacy_keys(self) -> dict[str, tuple]:
        """{dotted parameter name: older shape} over this layer and its sublayers."""
        keys = {}
        for base, layer in self.named_sublayers(include_self=True):
            dot = f"{base}." if base else ""
            keys.update({dot + name: shape for name, shape in layer._legacy_shapes().items()})
        return keys

    def set_state_dict(self, state_dict, use_structured_name: bool = True, *,
                       strict: bool = False):
        """Paddle's ``set_state_dict(state_dict, use_structured_name=True)``: copy the values in
        by name and return (missing keys, unexpected keys).

        As in Paddle, a key the model has but ``state_dict`` lacks, or whose saved shape
        differs, is skipped with a warning (one ``warnings.warn`` naming them all) and is
        listed in the missing keys; the rest are loaded (fine-tuning: a backbone into a model
        with a new head). A saved key that loaded nothing is unexpected (a shape mismatch is
        both, as in Paddle). ``use_structured_name=False`` looks values up by each
        Parameter's ``name`` instead of its dotted path. ``strict=True`` (core's) raises a
        ValueError naming every offending key instead, and loads nothing: what restoring a
        checkpoint of the same model wants.
        """
        own = self.state_dict()
        aliases = self._alias_keys(own) if use_structured_name else {}
        if aliases:
            # an alias loads its parameter (after the plain name, as in Paddle, so it wins);
            # a state with only the plain names (core's before, torch-style) misses nothing
            given = [a for a in aliases if a in state_dict]
            state_dict = {**state_dict, **{aliases[a]: state_dict[a] for a in given}}
            own = OrderedDict((k, t) for k, t in own.items() if k not in aliases)
        key_of = {k: (k if use_structured_name else (t.name or k)) for k, t in own.items()}
        absent = [k for k in own if key_of[k] not in state_dict]
        saved = {k: tuple(np.shape(_raw(state_dict[key_of[k]]))) for k in own if k not in absent}
        legacy = self._legacy_keys()

        def fits(key, shape) -> bool:
            return shape == tuple(own[key].data.shape) or shape == legacy.get(key)

        wrong = [f"{k}: saved {list(shape)} vs model {own[k].shape}"
                 for k, shape in saved.items() if not fits(k, shape)]
        loaded = [k for k, shape in saved.items() if fits(k, shape)]
        used = {key_of[k] for k in loaded}
        missing = [k for k in own if k not in saved or not fits(k, saved[k])]
        used |= {a for a in aliases if aliases[a] in used}
        unexpected = [k for k in state_dict if k not in used]
        known = set(key_of.values()) | set(aliases)
        extra = [k for k in state_dict if k not in known]
        if strict and (absent or wrong or extra):
            raise ValueError(
                "set_state_dict: the state does not fit this model. "
                + (f"Missing keys: {absent}. " if absent else "")
                + (f"Unexpected keys: {extra}. " if extra else "")
                + (f"Shape mismatches: {wrong}." if wrong else ""))
        if absent or wrong:
            warnings.warn(
                "set_state_dict: skipped loading "
                + (f"keys not in the state: {absent}" if absent else "")
                + ("; " if absent and wrong else "")
                + (f"shape mismatches: {wrong}" if wrong else "")
                + " (those parameters keep their values; strict=True raises instead)",
                stacklevel=2)
        for key in loaded:
            target = own[key]
            value = _on_module_of(target.data, _raw(state_dict[key_of[key]]))
            target.data[...] = value.reshape(target.data.shape)
        return missing, unexpected

    load_dict = set_state_dict
    set_dict = set_state_dict

    # ----- calling -----------------------------------------------------------------------
    def register_forward_post_hook(self, hook):
        """``hook(layer, inputs, output)``; a non-None return value replaces the output."""
        self._forward_post_hooks.append(hook)
        return _HookHandle(self._forward_post_hooks, hook)

    def register_forward_pre_hook(self, hook):
        """``hook(layer, inputs)``; a non-None return value replaces the inputs."""
        self._forward_pre_hooks.append(hook)
        return _HookHandle(self._forward_pre_hooks, hook)

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs, **kwargs):
        # core.profiler: while it records, this call is one Forward range; otherwise the cost
        # is this flag test (the try block is free in Python 3.11+)
        token = _profiling.RECORDING and _profiling.open_layer(self)
        try:
            if self._takes_arrays:  # inline: every layer call passes here (~80 ns a call)
                for value in inputs:
                    if isinstance(value, np.ndarray):
                        inputs = arrays_to_tensors(*inputs)
                        break
            for hook in self._forward_pre_hooks:
                replaced = hook(self, inputs)
                if replaced is not None:
                    inputs = replaced if isinstance(replaced, tuple) else (replaced,)
            output = self.forward(*inputs, **kwargs)
            for hook in self._forward_post_hooks:
                replaced = hook(self, inputs, output)
                if replaced is not None:
                    output = replaced
            if self.error_clip is not None and isinstance(output, Tensor) \
                    and not output.stop_gradient:
                output.register_array_hook(error_clip_hook(self, self.error_clip))
            return output
        except TypeError as error:  # cupy's and numpy's word for arrays of two devices
            message = backend.mismatch_message(type(self).__name__, inputs,
                                               list(self.parameters()))
            if message is None:
                raise
            raise backend.DeviceMismatchError(message) from error
        finally:
            if token:
                _profiling.close_layer(token)

    def full_name(self) -> str:
        """Paddle's ``full_name()``: the layer's generated name, ``linear_0`` (module
        docstring of core.utils.unique_name)."""
        return self._full_name

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, child in self._sub_layers.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        return lines[0] + (")" if len(lines) == 1 else "\n" + "\n".join(lines[1:]) + "\n)")


def _layer_key(class_name: str) -> str:
    """The key a Layer class's names count under: Paddle's ``_convert_camel_to_snake`` then
    ``_scope_dist2single`` (``BatchNorm2D`` -> ``batch_norm2d``, ``MyNet`` -> ``my_net``)."""
    snake = _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", class_name)).lower()
    return _DIST_TO_SINGLE.get(snake, snake)


def _depth_first(root: Layer, prefix: str):
    """Sublayers below ``root`` in pre-order (a layer before its children), each once."""
    seen = {id(root)}
    stack = [(f"{prefix}.{n}" if prefix else n, c) for n, c in root._sub_layers.items()][::-1]
    while stack:
        name, layer = stack.pop()
        if layer is None or id(layer) in seen:
            continue
        seen.add(id(layer))
        yield name, layer
        stack.extend([(f"{name}.{n}", c) for n, c in layer._sub_layers.items()][::-1])


_DTYPES = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "complex64", "complex128")


def _dtype(owner: str, dtype) -> np.dtype:
    """``dtype`` (a name, a numpy dtype, core.float32, ...) as a numpy dtype core supports."""
    try:
        found = np.dtype(dtype)
    except TypeError:
        found = None
    if found is None or found.name not in _DTYPES:
        raise ValueError(f"{owner}: dtype must be one of {list(_DTYPES)}, got {dtype!r}"
                         + (" (numpy, hence core, has no bfloat16)" if "bfloat16" in str(dtype)
                            else ""))
    return found


def _excluded(owner: str, excluded_layers) -> tuple:
    """``excluded_layers`` (None, a Layer type or instance, or a list or tuple of them)."""
    if excluded_layers is None:
        return ()
    items = excluded_layers if isinstance(excluded_layers, (list, tuple)) else [excluded_layers]
    for item in items:
        if not (isinstance(item, Layer) or (isinstance(item, type) and issubclass(item, Layer))):
            raise TypeError(f"{owner}: excluded_layers must be a Layer type or instance, or a "
                            f"list or tuple of them, got {item!r}")
    return tuple(items)


def _on_device(array, device: str):
    """``array`` on ``device`` ("cpu" or "gpu:N"): backend.asarray with that device current
    for the copy, then the previous device current again."""
    previous = backend.get_device()
    backend.set_device(device)
    try:
        return backend.asarray(array)
    finally:
        backend.set_device(previous)


def _on_module_of(target, value):
    """``value`` as an array of ``target``'s module and dtype (host <-> device as needed)."""
    xp = backend.array_module(target)
    if xp is np:
        value = backend.to_numpy(value)
    return xp.asarray(value, dtype=target.dtype)


def _raw(value):
    if isinstance(value, Tensor):
        return value.data
    return value
