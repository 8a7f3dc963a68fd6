"""``ParamAttr``: how a layer makes one of its parameters (Paddle's ``paddle.ParamAttr``).

A layer's ``weight_attr`` / ``bias_attr`` may be a ParamAttr or a short form of one, which
``to_attr`` turns into a ParamAttr exactly as Paddle's ``ParamAttr._to_attr`` does:

- None or True: the default ParamAttr (the layer's own initialiser);
- a ParamAttr: itself;
- a str: ``ParamAttr(name=str)``;
- an ``Initializer`` (``nn.initializer.Constant(2.0)``): ``ParamAttr(initializer=...)``;
- a ``WeightDecayRegularizer`` (``regularizer.L2Decay(1e-4)``): ``ParamAttr(regularizer=...)``;
- False: no parameter at all (``bias_attr=False``: a layer without a bias);
- anything else raises a TypeError.

core also reads a dict of ParamAttr's fields (``{"trainable": False}``) and an object that has
ParamAttr's fields as attributes (an ``initializer`` attribute at least); see docs/paddle.md.
"""
from __future__ import annotations

import numbers

import numpy as np

from core.nn import initializer
from core.nn.initializer import Initializer
from core.regularizer import WeightDecayRegularizer
from core.tensor import Parameter, unique_name

_FIELDS = ("name", "initializer", "learning_rate", "regularizer", "trainable",
           "do_model_average", "need_clip")


class ParamAttr:
    """Paddle's ``ParamAttr(name=None, initializer=None, learning_rate=1.0, regularizer=None,
    trainable=True, do_model_average=False, need_clip=True)``.

    ``name`` names the Parameter; ``initializer`` (an Initializer, or any callable (shape,
    dtype) -> array) replaces the layer's default; ``learning_rate`` multiplies the
    optimiser's for this parameter; ``regularizer`` replaces the optimiser's weight decay for
    it; ``trainable=False`` freezes it; ``need_clip=False`` leaves its gradient out of gradient
    clipping. ``do_model_average`` is kept on the attribute only (core has no ModelAverage).
    """

    def __init__(self, name: str | None = None, initializer=None, learning_rate: float = 1.0,
                 regularizer=None, trainable: bool = True, do_model_average: bool = False,
                 need_clip: bool = True):
        _check(name is None or isinstance(name, str), "name", name, "a str or None")
        _check(initializer is None or callable(initializer), "initializer", initializer,
               "an Initializer (core.nn.initializer.*) or None")
        _check(isinstance(learning_rate, numbers.Real) and not isinstance(learning_rate, bool)
               and learning_rate >= 0, "learning_rate", learning_rate, "a number >= 0")
        _check(regularizer is None or isinstance(regularizer, WeightDecayRegularizer),
               "regularizer", regularizer,
               "a WeightDecayRegularizer (core.regularizer.L1Decay / L2Decay) or None")
        for field, value in (("trainable", trainable), ("do_model_average", do_model_average),
                             ("need_clip", need_clip)):
            _check(isinstance(value, bool), field, value, "True or False")
        self.name, self.initializer = name, initializer
        self.learning_rate, self.regularizer = float(learning_rate), regularizer
        self.trainable, self.do_model_average = trainable, do_model_average
        self.need_clip = need_clip

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in _FIELDS)
        return f"ParamAttr({fields})"

    @staticmethod
    def _to_attr(arg):
        """Paddle's ``ParamAttr._to_attr``: see ``to_attr``."""
        return to_attr(arg)


def _check(ok: bool, field: str, value, allowed: str) -> None:
    if not ok:
        raise TypeError(f"ParamAttr: {field} must be {allowed}, got {value!r} "
                        f"({type(value).__name__})")


def to_attr(arg, owner: str = "ParamAttr._to_attr"):
    """``arg`` (a parameter attribute in any form the module's docstring lists) as a ParamAttr,
    or False when it asks for no parameter. A list or tuple gives a list (Paddle)."""
    if arg is None or arg is True:
        return ParamAttr()
    if arg is False:
        return False
    if isinstance(arg, ParamAttr):
        return arg
    if isinstance(arg, (list, tuple)):
        return [to_attr(a, owner) for a in arg]
    if isinstance(arg, str):
        return ParamAttr(name=arg)
    if isinstance(arg, Initializer):
        return ParamAttr(initializer=arg)
    if isinstance(arg, WeightDecayRegularizer):
        return ParamAttr(regularizer=arg)
    if isinstance(arg, dict):
        unknown = sorted(set(arg) - set(_FIELDS))
        if unknown:
            raise TypeError(f"{owner}: the attribute dict has unknown key(s) {unknown}; "
                            f"ParamAttr's fields are {list(_FIELDS)}")
        return ParamAttr(**arg)
    if hasattr(arg, "initializer") and not isinstance(arg, type):  # a ParamAttr look-alike
        return ParamAttr(**{f: getattr(arg, f) for f in _FIELDS if hasattr(arg, f)})
    raise TypeError(f"{owner}: a parameter attribute (attr; a layer's weight_attr or "
                    "bias_attr) must be None, a bool, a str (the name), a ParamAttr, an "
                    "Initializer or a WeightDecayRegularizer, got "
                    f"{arg!r} ({type(arg).__name__}); wrap a custom initializer callable as "
                    "ParamAttr(initializer=...)")


def new_parameter(shape, attr, dtype, is_bias: bool, default_initializer,
                  owner: str, prefix: str) -> Parameter | None:
    """The Parameter that ``Layer.create_parameter`` and ``core.create_parameter`` make (None
    when ``attr`` is False): Paddle's ``LayerHelper.create_parameter``. Unless ``attr`` names
    it, it is named ``<prefix>.w_N`` (``.b_N`` for a bias) from the unique_name counters."""
    attr = to_attr(None if isinstance(attr, str) and attr == "" else attr, owner)
    if attr is False:
        return None
    if isinstance(attr, list):
        raise TypeError(f"{owner}: attr is a list of {len(attr)} attributes; a parameter takes "
                        "one")
    shape = _shape(owner, shape)
    default = default_initializer or (initializer.Constant(0.0) if is_bias
                                      else initializer.XavierUniform())
    # set_global_initializer: above the layer's default, below the attribute's (Paddle)
    init = attr.initializer or initializer._global_initializer(is_bias) or default
    # Paddle names it on a copy of the attribute: a ParamAttr shared by layers stays unnamed
    name = attr.name
    if name is None:
        name = unique_name(f"{prefix}.{'b' if is_bias else 'w'}")
    return Parameter(init(shape, dtype), name=name, trainable=attr.trainable,
                     regularizer=attr.regularizer, need_clip=attr.need_clip,
                     learning_rate=attr.learning_rate)


def _shape(owner: str, shape) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"{owner}: shape must be a list or tuple of ints, got {shape!r}")
    dims = []
    for n in shape:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"{owner}: shape must hold ints >= 0, got {list(shape)!r}")
        dims.append(int(n))
    return tuple(dims)


_DTYPES = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")


def create_parameter(shape, dtype, name: str | None = None, attr=None, is_bias: bool = False,
                     default_initializer=None) -> Parameter:
    """A Parameter outside any layer: Paddle's ``paddle.create_parameter(shape, dtype,
    name=None, attr=None, is_bias=False, default_initializer=None)``.

    ``attr`` is a ParamAttr or None (then ``ParamAttr(name=name)``); ``default_initializer``
    an Initializer or None (Xavier uniform, zeros for a bias), which the attribute's own
    initializer and ``set_global_initializer`` override, as in a layer. Unnamed, it is
    ``create_parameter_N.w_0`` (``.b_0`` for a bias), as in Paddle; with ``name`` and an
    ``attr`` that has none, ``<name>.w_0``.
    """
    owner = "create_parameter"
    try:
        dtype_name = np.dtype(dtype).name
    except TypeError:
        dtype_name = None
    if dtype_name not in _DTYPES:
        raise TypeError(f"{owner}: dtype must be one of {list(_DTYPES)}, got {dtype!r}")
    if attr is not None and not isinstance(attr, ParamAttr):
        raise TypeError(f"{owner}: attr must be a ParamAttr or None, got {attr!r} "
                        f"({type(attr).__name__})")
    if default_initializer is not None and not isinstance(default_initializer, Initializer):
        raise TypeError(f"{owner}: default_initializer must be an Initializer "
                        f"(core.nn.initializer.*) or None, got {default_initializer!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{owner}: name must be a str or None, got {name!r}")
    # Paddle's LayerHelper("create_parameter", name=name): its name is the prefix
    prefix = name if name is not None else unique_name("create_parameter")
    return new_parameter(shape, ParamAttr(name=name) if attr is None else attr, dtype_name,
                         is_bias, default_initializer, owner, prefix)


__all__ = ["ParamAttr", "create_parameter"]
