"""Paddle's ``paddle.amp.auto_cast`` (``amp_guard``) and ``paddle.amp.decorate``
(``amp_decorate``), with ``is_float16_supported`` / ``is_bfloat16_supported``.

Inside ``auto_cast`` the results of core's ops are recast where the op goes through
``core.tensor.apply`` (``core.amp.state.recast``): at O1 a white-listed op (matmul, linear,
einsum) gives its float32 result in float16 and a black-listed one (exp, log, softmax, sum,
mean, the losses, ...) gives a float16 result back in float32; other ops follow numpy's
promotion (a float16 and a float32 input give float32, Paddle's ``use_promote``). At O2
every op but the black-listed ones gives float16, and ``decorate`` casts the models'
parameters to float16 (normalisation layers excepted) with float32 master weights in the
optimizers. Gradients reach each parameter in its own dtype. docs/paddle.md lists where this
differs from Paddle (core casts an op's result, not its inputs; conv2d is left out at O1).
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np

from core import backend, nn
from core.amp import lists
from core.amp.state import AmpState, current, pop, push
from core.nn.layer import Layer
from core.optimizer.optimizer import Optimizer
from core.tensor import Tensor

_LEVELS = ("O0", "OD", "O1", "O2")
_DTYPES = ("float16", "bfloat16")


def is_float16_supported(device=None) -> bool:
    """Paddle's ``paddle.amp.is_float16_supported(device=None)``: whether the backend of
    ``device`` (default: the current one) computes in float16; numpy and cupy both do."""
    return _has_dtype(device, "float16")


def is_bfloat16_supported(device=None) -> bool:
    """Paddle's ``paddle.amp.is_bfloat16_supported(device=None)``: whether the backend of
    ``device`` (default: the current one) has a bfloat16 dtype. numpy has none (nor has
    cupy), so this is False unless a backend grows one."""
    return _has_dtype(device, "bfloat16")


def _has_dtype(device, name: str) -> bool:
    target = backend.current_device() if device is None else backend.parse_device(device)
    module = np if target.kind == "cpu" else backend.xp()
    try:
        module.dtype(name)
    except TypeError:
        return False
    return True


def _check_dtype(owner: str, dtype) -> str:
    if dtype not in _DTYPES:
        raise ValueError(f"{owner}: dtype must be one of {list(_DTYPES)}, got {dtype!r}")
    if not _has_dtype(None, dtype):
        raise ValueError(f"{owner}: dtype {dtype!r} is not supported by the "
                         f"{backend.current_device().kind} backend (numpy has no bfloat16); "
                         "use dtype='float16'")
    return dtype


def _check_level(owner: str, level, allowed=_LEVELS) -> str:
    if level not in allowed:
        raise ValueError(f"{owner}: level must be one of {list(allowed)}, got {level!r}")
    return level


def _op_names(owner: str, arg: str, names) -> frozenset:
    if names is None:
        return frozenset()
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{owner}: {arg} must be a list or set of op names, got {names!r}")
    return frozenset(names)


def _state(level: str, dtype: str, custom_white: frozenset, custom_black: frozenset) -> AmpState:
    """Paddle's lists for ``level`` and ``dtype`` with the custom ones moved in: a custom
    white op leaves the black list, a custom black op the white list."""
    custom_white, custom_black = lists.core_names(custom_white), lists.core_names(custom_black)
    white = lists.core_names(lists.white_list()[dtype][level])
    if level == "O1":
        white -= lists.NOT_CAST_AT_O1
    white = white - custom_black | custom_white
    black = lists.core_names(lists.black_list()[dtype][level]) - custom_white | custom_black
    rest = {"OD": "float32", "O1": "keep", "O2": "low"}[level]
    return AmpState(level, dtype, white, black, rest)


class auto_cast(contextlib.ContextDecorator):  # noqa: N801 - Paddle's name
    """Paddle's ``paddle.amp.auto_cast(enable=True, custom_white_list=None,
    custom_black_list=None, level='O1', dtype='float16', use_promote=True)``: a context
    manager (and decorator) under which ops run in mixed precision (module docstring).
    ``level`` is 'O0' (off), 'OD' (only white-listed ops in low precision), 'O1' or 'O2';
    ``enable=False`` turns amp off inside, also within an outer ``auto_cast``.
    ``use_promote`` is accepted: core's promotion is always numpy's (float32 wins)."""

    def __init__(self, enable: bool = True, custom_white_list=None,  # noqa: PLR0913
                 custom_black_list=None, level: str = "O1", dtype: str = "float16",
                 use_promote: bool = True):
        owner = "auto_cast"
        if not isinstance(enable, bool):
            raise TypeError(f"{owner}: enable must be True or False, got {enable!r}")
        level = _check_level(owner, level)
        white = _op_names(owner, "custom_white_list", custom_white_list)
        black = _op_names(owner, "custom_black_list", custom_black_list)
        if white & black:
            raise ValueError(f"{owner}: custom_white_list and custom_black_list both name "
                             f"{sorted(white & black)}")
        del use_promote
        self._state = None
        if enable and level != "O0":
            self._state = _state(level, _check_dtype(owner, dtype), white, black)
        self._previous = []

    def __enter__(self):
        self._previous.append(push(self._state))
        return self

    def __exit__(self, *exc):
        pop(self._previous.pop())
        return False

    def _recreate_cm(self):
        # as a decorator, each call saves its own previous state (threads, recursion)
        fresh = copy.copy(self)
        fresh._previous = []
        return fresh


amp_guard = auto_cast  # Paddle's older name


def amp_state():
    """The innermost active ``auto_cast`` of this thread as ``(level, dtype)``, or None."""
    state = current()
    return None if state is None else (state.level, state.dtype)


_NORM_LAYERS = ("BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm",
                "SyncBatchNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D",
                "GroupNorm")


def _norm_layer_types() -> tuple:
    return tuple(getattr(nn, name) for name in _NORM_LAYERS)


def decorate(models, optimizers=None, level: str = "O1", dtype: str = "float16",  # noqa: PLR0913
             master_weight=None, save_dtype=None):
    """Paddle's ``paddle.amp.decorate(models, optimizers=None, level='O1', dtype='float16',
    master_weight=None, save_dtype=None)``: at O2, every floating parameter and buffer of
    ``models`` (a Layer or a list of them) is cast to ``dtype`` in place, except those of
    normalisation layers (BatchNorm*, LayerNorm, InstanceNorm*, GroupNorm, SyncBatchNorm),
    and, with ``master_weight`` True or None, each of ``optimizers`` keeps float32 copies of
    the low-precision parameters and updates those (the parameters get the rounded result).
    A decorated model also casts its float32 input tensors to ``dtype`` while an O2
    ``auto_cast`` is active (Paddle casts every op's inputs at O2). At O1 nothing changes.
    ``save_dtype`` ('float16', 'bfloat16', 'float32', 'float64' or None) is the dtype the
    models' ``state_dict`` gives. Returns the models, or ``(models, optimizers)`` when
    optimizers are given, in the form (single or list) they came in."""
    owner = "decorate"
    level = _check_level(owner, level, ("O1", "O2"))
    dtype = _check_dtype(owner, dtype)
    model_list = _as_list(owner, "models", models, Layer)
    optimizer_list = [] if optimizers is None else _as_list(owner, "optimizers", optimizers,
                                                            Optimizer)
    if master_weight is not None and not isinstance(master_weight, bool):
        raise TypeError(f"{owner}: master_weight must be None, True or False, got "
                        f"{master_weight!r}")
    if save_dtype not in (None, "float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"{owner}: save_dtype must be None, 'float16', 'bfloat16', 'float32' "
                         f"or 'float64', got {save_dtype!r}")
    if level == "O2":
        # the float32 values before the cast seed the master weights: nothing is lost
        full = {id(p): p.data.copy() for model in model_list for p in model.parameters()
                if p.data.dtype == "float32"}
        for model in model_list:
            model._to_float(dtype, list(_norm_layer_types()), "decorate")
            model.register_forward_pre_hook(_cast_inputs)
        if master_weight is not False:
            for optimizer in optimizer_list:
                _keep_master_weights(optimizer, full)
    if save_dtype is not None:
        for model in model_list:
            _save_as(model, save_dtype)
    if optimizers is None:
        return models
    return models, optimizers


amp_decorate = decorate  # Paddle's older name


def _as_list(owner: str, arg: str, value, kind) -> list:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    bad = [type(v).__name__ for v in items if not isinstance(v, kind)]
    if not items or bad:
        raise TypeError(f"{owner}: {arg} must be a {kind.__name__} or a list of them, got "
                        f"{bad or 'an empty list'}")
    return items


def _cast_inputs(layer, inputs):
    """A decorated model's forward pre-hook: float32 tensors in, in the amp dtype, under an
    O2 auto_cast (core's conv kernels want x and weight of one dtype)."""
    state = current()
    if state is None or state.level != "O2":
        return None
    return tuple(x.astype(state.dtype) if isinstance(x, Tensor) and x.dtype == "float32"
                 else x for x in inputs)


def _save_as(model, save_dtype: str) -> None:
    """``model.state_dict()`` gives its floating tensors in ``save_dtype`` (copies)."""
    original = model.state_dict

    def state_dict(*args, **kwargs):
        state = original(*args, **kwargs)
        for key, value in state.items():
            if value.data.dtype.kind == "f":
                state[key] = value.astype(save_dtype)
        return state

    model.state_dict = state_dict


def _rounds_to(master, low) -> bool:
    """Whether ``master`` still rounds to the parameter's values."""
    return bool(backend.array_module(low).array_equal(master.astype(low.dtype), low))


def _keep_master_weights(optimizer, full: dict) -> None:
    """The optimizer updates float32 copies of its low-precision parameters: for each step
    the parameter holds its master copy and a float32 gradient, then gets the rounded
    result back. Done around ``Optimizer._apply``, the one place every rule's step and
    minimize go through, so the rule itself and its state (float32) are unchanged."""
    if getattr(optimizer, "_master_weights", None) is not None:
        return
    mine = {id(p) for p in optimizer._parameter_list}
    optimizer._master_weights = {key: value for key, value in full.items() if key in mine}
    apply = optimizer._apply

    def apply_on_masters(parameters, *args, **kwargs):
        masters = optimizer._master_weights
        swapped = []
        for param in parameters:
            if param.data.dtype.kind == "f" and param.data.dtype.itemsize < 4:
                master = masters.get(id(param))
                if master is None or not _rounds_to(master, param.data):
                    # new, or changed outside the optimizer (set_value, a loaded state)
                    master = masters[id(param)] = param.data.astype("float32")
                swapped.append((param, param.data, param.grad_data))
                param.data = master
                if param.grad_data is not None:
                    param.grad_data = param.grad_data.astype("float32")
        try:
            apply(parameters, *args, **kwargs)
        finally:
            for param, low, grad in swapped:
                masters[id(param)] = param.data
                low[...] = param.data  # rounded into the parameter's own array, in place
                param.data, param.grad_data = low, grad

    optimizer._apply = apply_on_masters
