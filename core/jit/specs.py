"""Input specs for ``core.jit``: what ``to_static(input_spec=...)`` and ``jit.save`` accept, and
the check of a call's inputs against them (Paddle's ``FunctionSpec``).

Paddle checks a call against ``input_spec`` when it traces: keyword arguments beyond the named
ones, fewer arguments than specs, or a spec given for an argument that is not a Tensor are
errors; a tensor whose shape does not fit its spec is only a warning (Paddle traces the real
shape). core does the same, and its warning also names a dtype that differs.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

from core.static import InputSpec
from core.tensor import Tensor

_CONSTANTS = (type(None), bool, int, float, str)
TENSORS = (Tensor, np.ndarray)


def as_specs(input_spec, owner: str) -> tuple:
    """``input_spec`` (a list or tuple of InputSpec, Tensors / numpy arrays standing for their
    own spec, and Python constants for non-tensor arguments) as a tuple of InputSpec and
    constants."""
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"{owner}: input_spec must be a list or tuple of InputSpec, got "
                        f"{type(input_spec).__name__} {input_spec!r:.80}.")
    return tuple(_as_spec(item, owner, i) for i, item in enumerate(input_spec))


def _as_spec(item, owner: str, index: int):
    if isinstance(item, InputSpec) or isinstance(item, _CONSTANTS):
        return item
    if isinstance(item, (Tensor, np.ndarray)):
        return spec_of(item, getattr(item, "name", None))
    if isinstance(item, (list, tuple, dict)):
        raise TypeError(f"{owner}: input_spec[{index}] is a nested {type(item).__name__}; core "
                        "takes one InputSpec per argument of forward (a flat list).")
    raise TypeError(f"{owner}: input_spec[{index}] is a {type(item).__name__}; give an "
                    "InputSpec, a Tensor or numpy array (its shape and dtype), or a Python "
                    "constant (None, bool, int, float, str) for a non-tensor argument.")


def spec_of(value, name: str | None = None) -> InputSpec:
    """The exact InputSpec of a Tensor or numpy array (Paddle's ``InputSpec.from_tensor``)."""
    data = value.data if isinstance(value, Tensor) else value
    stop_gradient = value.stop_gradient if isinstance(value, Tensor) else True
    return InputSpec(tuple(data.shape), np.dtype(data.dtype).name, name, stop_gradient)


def named(specs: tuple, names: list[str]) -> tuple:
    """Specs whose name is None take the name of their argument (Paddle's rule)."""
    out = []
    for i, spec in enumerate(specs):
        if isinstance(spec, InputSpec) and spec.name is None and i < len(names):
            spec = InputSpec(spec.shape, spec.dtype, names[i], spec.stop_gradient)
        out.append(spec)
    return tuple(out)


def signature(function) -> inspect.Signature:
    """``function``'s signature (a bound method's without ``self``); a Signature as it is."""
    return function if isinstance(function, inspect.Signature) else inspect.signature(function)


def positional_names(function) -> tuple[list[str], int, bool]:
    """(names of the named positional parameters, how many of them are required, whether
    there is ``*args``) of ``function`` (a function or its Signature)."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(signature(function).parameters.values())
    named_params = [p for p in params if p.kind in kinds]
    required = sum(p.default is inspect.Parameter.empty for p in named_params)
    varargs = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
    return [p.name for p in named_params], required, varargs


def check_arity(function, specs: tuple, owner: str, what: str) -> None:
    """Refuse ``specs`` whose length ``function`` cannot take as positional arguments."""
    names, required, varargs = positional_names(function)
    shown = f"{what}({', '.join(names + (['*args'] if varargs else []))})"
    if len(specs) < required:
        raise ValueError(f"{owner}: input_spec has {len(specs)} entr"
                         f"{'y' if len(specs) == 1 else 'ies'} but {shown} needs {required} "
                         "positional input(s): give one InputSpec per input.")
    if len(specs) > len(names) and not varargs:
        raise ValueError(f"{owner}: input_spec has {len(specs)} entries but {shown} takes at "
                         f"most {len(names)} positional input(s).")


def bind(function, args: tuple, kwargs: dict, specs: tuple, owner: str) -> tuple:
    """The call's positional values with defaults filled in, checked against ``specs``
    (Paddle's ``unified_args_and_kwargs`` then ``args_to_input_spec``). ``function``: a
    function or its Signature."""
    try:
        bound = signature(function).bind(*args, **kwargs)
    except TypeError as exc:  # Paddle raises ValueError for missing or extra arguments
        raise ValueError(f"{owner}: {exc}.") from None
    values, extra = positional_values(bound)
    if extra:
        raise ValueError(f"{owner} got unexpected keyword arguments {sorted(extra)}: a function "
                         "with an input_spec takes its inputs by position (Paddle cannot trace "
                         "**kwargs either).")
    if len(values) < len(specs):
        raise ValueError(f"{owner}: the call gives {len(values)} argument(s) but input_spec "
                         f"describes {len(specs)}; give one value per InputSpec.")
    check_values(values, specs, owner)
    return tuple(values)


def positional_values(bound: inspect.BoundArguments) -> tuple[list, dict]:
    """(the positional values, defaults filled in; the ``**kwargs`` values) of a call."""
    bound.apply_defaults()
    values, extra = [], {}
    for name, value in bound.arguments.items():
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            values.extend(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            extra.update(value)
        elif kind is not inspect.Parameter.KEYWORD_ONLY:
            values.append(value)
    return values, extra


def check_values(values, specs: tuple, owner: str) -> None:
    """Each value given for an InputSpec must be a tensor; a shape or dtype that does not fit
    is a warning."""
    for i, spec in enumerate(specs):
        if isinstance(spec, InputSpec):
            _check_value(values[i], spec, i, owner)


def _check_value(value, spec: InputSpec, index: int, owner: str) -> None:
    label = spec.name or f"input {index}"
    if not isinstance(value, (Tensor, np.ndarray)):
        raise RuntimeError(f"{owner}: input_spec[{index}] ({label}) describes a tensor but the "
                           f"call gives a {type(value).__name__} ({value!r:.60}); pass a Tensor "
                           "or numpy array there, or put the constant itself in input_spec.")
    real = spec_of(value)
    problems = []
    if not fits(spec.shape, real.shape):
        problems.append(f"shape {list(real.shape)} does not fit {_shape_text(spec.shape)}")
    if real.dtype != spec.dtype:
        problems.append(f"dtype {real.dtype} is not {spec.dtype}")
    if problems:
        warnings.warn(f"{owner}: {label}: {' and '.join(problems)} (input_spec[{index}]); it "
                      "runs on the real input, as Paddle traces the real shape.", stacklevel=4)


def fits(wanted: tuple, shape: tuple) -> bool:
    """Whether ``shape`` has ``wanted``'s rank and its fixed sizes (None matches any size)."""
    return len(wanted) == len(shape) and all(w is None or w == s for w, s in zip(wanted, shape))


def _shape_text(shape: tuple) -> str:
    return "[" + ", ".join("None" if s is None else str(s) for s in shape) + "]"


def to_record(spec: InputSpec) -> dict:
    """An InputSpec as plain values for a file."""
    return {"shape": [-1 if s is None else s for s in spec.shape], "dtype": spec.dtype,
            "name": spec.name, "stop_gradient": bool(spec.stop_gradient)}


def from_record(record: dict) -> InputSpec:
    return InputSpec(tuple(record["shape"]), record["dtype"], record["name"],
                     record["stop_gradient"])
