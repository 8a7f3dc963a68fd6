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

from collections import OrderedDict

import numpy as np

from core import backend
from core.clipping import check_error_clip, error_clip_hook
from core.tensor import Parameter, Tensor, _HookHandle, arrays_to_tensors


class Layer:
    """Subclass, create parameters in ``__init__`` and compute in ``forward``."""

    _takes_arrays = True  # numpy inputs become Tensors: core's layers only (__init_subclass__)
    _runs_forward = True  # False for pure containers, whose forward never runs (output_layers)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._takes_arrays = cls.__module__.startswith("core.")

    def __init__(self, name_scope: str | None = None, dtype: str = "float32"):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_forward_post_hooks", [])
        object.__setattr__(self, "_forward_pre_hooks", [])
        self.training = True
        self.error_clip: float | None = None
        self._dtype = dtype
        self._full_name = name_scope or type(self).__name__.lower()

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

    def create_parameter(self, shape, dtype=None, default_initializer=None, attr=None,
                         is_bias: bool = False) -> Parameter:
        """A new Parameter initialised by ``default_initializer`` (zeros for biases)."""
        from core.nn import initializer  # noqa: PLC0415 - initializer imports Layer's module

        dtype = dtype or self._dtype
        init = default_initializer or (initializer.Constant(0.0) if is_bias
                                       else initializer.XavierUniform())
        # set_global_initializer: above the layer's default, below the attribute's (Paddle)
        init = initializer._global_initializer(is_bias) or init
        attr = attr or {}
        get = attr.get if isinstance(attr, dict) else (lambda k, d=None: getattr(attr, k, d))
        if get("initializer") is not None:  # a ParamAttr's (or dict's) own initializer wins
            init = get("initializer")
        data = init(tuple(int(n) for n in shape), dtype)
        return Parameter(data, name=get("name"), trainable=get("trainable", True),
                         regularizer=get("regularizer"), need_clip=get("need_clip", True),
                         learning_rate=get("learning_rate", 1.0))

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

    # ----- state -------------------------------------------------------------------------
    def state_dict(self) -> OrderedDict:
        """Parameters and persistable buffers by dotted name (Tensors, sharing memory)."""
        state = OrderedDict(self.named_parameters())
        for base, layer in self.named_sublayers(include_self=True):
            skip = layer.__dict__.get("_non_persistable", set())
            for name, buf in layer._buffers.items():
                if name not in skip:
                    state[f"{base}.{name}" if base else name] = buf
        return state

    def set_state_dict(self, state_dict, strict: bool = True):
        """Copy values in by name; returns (missing keys, unexpected keys).

        With ``strict`` a missing or unexpected key, or a shape mismatch, raises an error that
        names every offending key.
        """
        own = self.state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        wrong = [f"{k}: saved {list(np.shape(_raw(state_dict[k])))} vs model {own[k].shape}"
                 for k in own if k in state_dict
                 and tuple(np.shape(_raw(state_dict[k]))) != tuple(own[k].data.shape)]
        if wrong or (strict and (missing or unexpected)):
            raise ValueError(
                "set_state_dict: the state does not fit this model. "
                + (f"Missing keys: {missing}. " if missing else "")
                + (f"Unexpected keys: {unexpected}. " if unexpected else "")
                + (f"Shape mismatches: {wrong}." if wrong else ""))
        for key, target in own.items():
            if key in state_dict:
                target.data[...] = _on_module_of(target.data, _raw(state_dict[key]))
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
        if self._takes_arrays:  # inline: every layer call passes here (a call costs ~80 ns)
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
        if self.error_clip is not None and isinstance(output, Tensor) and not output.stop_gradient:
            output.register_array_hook(error_clip_hook(self, self.error_clip))
        return output

    def full_name(self) -> str:
        return self._full_name

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, child in self._sub_layers.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        return lines[0] + (")" if len(lines) == 1 else "\n" + "\n".join(lines[1:]) + "\n)")


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
