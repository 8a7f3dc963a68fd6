"""Containers: ``Sequential`` (layers called in order), ``LayerList`` / ``LayerDict`` (layers)
and ``ParameterList`` (parameters).

Children are registered under their position ("0", "1", ...) or the name given, so parameter
names read ``0.weight`` or ``conv1.weight`` exactly as in Paddle. At inference a ``Sequential``
runs a Conv2D and the BatchNorm2D after it as one convolution (core.nn.fusion).
"""
from __future__ import annotations

from core.nn import fusion
from core.nn.conv import Conv2D
from core.nn.layer import Layer
from core.tensor import Parameter


def _check_layer(owner: str, layer, where: str) -> Layer:
    if not isinstance(layer, Layer):
        raise TypeError(f"{owner}: {where} is a {type(layer).__name__}, not a Layer.")
    return layer


def _position(owner: str, index, length: int) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"{owner}: index {index!r} must be an integer or a slice.")
    if not -length <= index < length:
        raise IndexError(f"{owner}: index {index} is out of range for {length} layer(s).")
    return index % length


class Sequential(Layer):
    """Call layers in order: ``Sequential(l1, l2)`` or ``Sequential(("name", l1), ...)``."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], dict):
            layers = tuple(layers[0].items())
        for i, item in enumerate(layers):
            if isinstance(item, (list, tuple)):
                if len(item) != 2 or not isinstance(item[0], str):
                    raise TypeError("Sequential: give layers, or (name, layer) pairs; item "
                                    f"{i} is {item!r}.")
                self.add_sublayer(item[0], _check_layer("Sequential", item[1], f"item {i}"))
            else:
                self.add_sublayer(str(i), _check_layer("Sequential", item, f"item {i}"))

    def forward(self, x):
        layers = list(self._sub_layers.values())
        i = 0
        while i < len(layers):
            # A Conv2D then a BatchNorm2D run as one convolution at inference (core.nn.fusion)
            if i + 1 < len(layers) and isinstance(layers[i], Conv2D):
                folded = fusion.conv_bn(layers[i], layers[i + 1], x)
                if folded is not None:
                    x, i = folded, i + 2
                    continue
            x, i = layers[i](x), i + 1
        return x

    def __getitem__(self, index):
        layers = list(self._sub_layers.items())
        if isinstance(index, slice):
            return Sequential(*layers[index])
        if isinstance(index, str):
            if index not in self._sub_layers:
                raise KeyError(f"Sequential: no layer named {index!r}; names are "
                               f"{list(self._sub_layers)}.")
            return self._sub_layers[index]
        return layers[_position("Sequential", index, len(layers))][1]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())


class LayerList(Layer):
    """A list of layers whose parameters belong to the owner; index, append, extend, insert."""

    _runs_forward = False  # a container: its owner calls the items, never it

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in sublayers or ():
            self.append(layer)

    def _reset(self, layers: list[Layer]) -> None:
        """Re-register ``layers`` under the names 0..n-1 (after an insertion or deletion)."""
        for name in list(self._sub_layers):
            delattr(self, name)
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)

    def append(self, sublayer: Layer) -> LayerList:
        self.add_sublayer(str(len(self)), _check_layer("LayerList", sublayer, "the new item"))
        return self

    def extend(self, sublayers) -> LayerList:
        for layer in sublayers:
            self.append(layer)
        return self

    def insert(self, index: int, sublayer: Layer) -> None:
        """Insert before ``index`` (Python's list.insert semantics)."""
        layers = list(self)
        layers.insert(index, _check_layer("LayerList", sublayer, "the new item"))
        self._reset(layers)

    def __getitem__(self, index):
        layers = list(self)
        if isinstance(index, slice):
            return LayerList(layers[index])
        return layers[_position("LayerList", index, len(layers))]

    def __setitem__(self, index: int, sublayer: Layer) -> None:
        layers = list(self)
        layers[_position("LayerList", index, len(layers))] = \
            _check_layer("LayerList", sublayer, "the new item")
        self._reset(layers)  # re-registering keeps the order (a plain setattr would move it)

    def __delitem__(self, index) -> None:
        layers = list(self)
        if isinstance(index, slice):
            del layers[index]
        else:
            del layers[_position("LayerList", index, len(layers))]
        self._reset(layers)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, *inputs, **kwargs):
        raise TypeError("LayerList is a container, not a layer to call: iterate over it in the "
                        "owner's forward().")


class LayerDict(Layer):
    """An ordered dict of named layers whose parameters belong to the owner, Paddle's
    ``LayerDict(sublayers=None)`` (a dict, or an iterable of (name, layer) pairs)."""

    _runs_forward = False  # a container: its owner calls the items, never it

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: str) -> Layer:
        if key not in self._sub_layers:
            raise KeyError(f"LayerDict: no layer named {key!r}; names are "
                           f"{list(self._sub_layers)}.")
        return self._sub_layers[key]

    def __setitem__(self, key: str, sublayer: Layer) -> None:
        self.add_sublayer(key, _check_layer("LayerDict", sublayer, f"item {key!r}"))

    def __delitem__(self, key: str) -> None:
        self.__getitem__(key)  # the clear KeyError
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key) -> bool:
        return key in self._sub_layers

    def clear(self) -> None:
        for key in list(self._sub_layers):
            delattr(self, key)

    def pop(self, key: str) -> Layer:
        layer = self[key]
        del self[key]
        return layer

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers) -> None:
        pairs = sublayers.items() if hasattr(sublayers, "items") else sublayers
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise TypeError(f"LayerDict.update: item {i} is {pair!r}, not a (name, layer) "
                                "pair.")
            self[pair[0]] = pair[1]

    def forward(self, *inputs, **kwargs):
        raise TypeError("LayerDict is a container, not a layer to call: look layers up by name "
                        "in the owner's forward().")


class ParameterList(Layer):
    """A list of Parameters that belong to the owner: Paddle's ``ParameterList(parameters=None)``.

    The parameters are registered under "0", "1", ..., so the owner's ``parameters()`` and
    ``state_dict()`` hold them (``params.0``); index, assign, iterate, ``len`` and ``append``.
    """

    _runs_forward = False  # a container: its owner uses the items, never calls it

    def __init__(self, parameters=None):
        super().__init__()
        for i, param in enumerate(parameters or ()):
            self.add_parameter(str(i), _check_parameter(param, f"item {i}"))

    def __getitem__(self, index: int) -> Parameter:
        return self._parameters[str(_position("ParameterList", index, len(self)))]

    def __setitem__(self, index: int, param: Parameter) -> None:
        name = str(_position("ParameterList", index, len(self)))
        self._parameters[name] = _check_parameter(param, "the new item")  # keeps the order
        object.__setattr__(self, name, param)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter: Parameter) -> ParameterList:
        self.add_parameter(str(len(self)), _check_parameter(parameter, "the new item"))
        return self

    def forward(self, *inputs, **kwargs):
        raise TypeError("ParameterList is a container, not a layer to call: use its parameters "
                        "in the owner's forward().")


def _check_parameter(param, where: str, owner: str = "ParameterList") -> Parameter:
    if not isinstance(param, Parameter):
        raise TypeError(f"{owner}: {where} is a {type(param).__name__}, not a Parameter "
                        "(make one with create_parameter).")
    return param


class ParameterDict(Layer):
    """An ordered dict of named Parameters that belong to the owner: Paddle's
    ``ParameterDict(parameters=None)`` (a dict, a ParameterDict, or an iterable of
    (name, Parameter) pairs).

    The parameters are registered under their names, so the owner's ``parameters()`` and
    ``state_dict()`` hold them (``params.t0``). As in Paddle: look up and assign by name
    (assigning an existing name replaces that parameter in place in the order), ``len``,
    iterate over the names, ``update``; and, as a dict, ``in``, ``keys``, ``values``, ``items``.
    """

    _runs_forward = False  # a container: its owner uses the items, never calls it

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Parameter:
        if key not in self._parameters:
            raise KeyError(f"ParameterDict: no parameter named {key!r}; names are "
                           f"{list(self._parameters)}.")
        return self._parameters[key]

    def __setitem__(self, key: str, param: Parameter) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict: a name must be a str, got {key!r}.")
        # Paddle's add_parameter rules: a dotted name could not be read back as an attribute
        # path, and a name such as 'training' or 'update' would shadow the layer's own
        if not key or "." in key:
            raise KeyError(f"ParameterDict: a name must be non-empty and contain no '.', got "
                           f"{key!r}.")
        if key not in self._parameters and hasattr(self, key):
            raise KeyError(f"ParameterDict: the name {key!r} is already an attribute of the "
                           "layer (a method or setting); choose another name.")
        self.add_parameter(key, _check_parameter(param, f"item {key!r}", "ParameterDict"))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key) -> bool:
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters) -> None:
        """Add (or replace) the parameters of a dict, a ParameterDict or an iterable of
        (name, Parameter) pairs, in their order."""
        if isinstance(parameters, (str, bytes)) or not hasattr(parameters, "__iter__"):
            raise TypeError("ParameterDict.update: parameters must be a dict or an iterable of "
                            f"(name, Parameter) pairs, got {type(parameters).__name__}.")
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"ParameterDict.update: item {i} is {pair!r}, not a "
                                 "(name, Parameter) pair.")
            self[pair[0]] = pair[1]

    def forward(self, *inputs, **kwargs):
        raise TypeError("ParameterDict is a container, not a layer to call: use its parameters "
                        "by name in the owner's forward().")
