"""Paddle's ``paddle.amp.auto_cast`` (``amp_guard``) and ``paddle.amp.decorate``
(``amp_decorate``), with ``is_float16_supported`` / ``is_bfloat16_supported``.

Inside ``auto_cast`` the ops of Paddle's lists that core wires cast their inputs before they
compute (``core.autocast.cast_inputs``): at O1 a white-listed op (matmul and mm / bmm /
addmm through it, linear, einsum, the convolutions) computes from float16 inputs, its
float32 weights cast too, and a black-listed one (softmax, log_softmax, the losses,
layer_norm, group_norm, exp, log, sum, mean, pow, square, cumsum) from float32 inputs; the
other ops run on what they get (numpy's promotion: a float16 and a float32 input give
float32, Paddle's ``use_promote``). At O2 every wired op but the black-listed ones computes
in float16, and ``decorate`` casts the models' parameters to float16 (normalisation layers
excepted) and turns on the optimizers' ``multi_precision`` (float32 master weights).
Gradients reach each parameter in its own dtype. docs/paddle.md lists where this differs
from Paddle (the black-listed ops core does not wire).
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np

from core import backend, nn
from core.amp import lists
from core.autocast import AmpState, current, pop, push
from core.nn.layer import Layer
from core.optimizer.optimizer import Optimizer

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
    white = lists.core_names(lists.white_list()[dtype][level]) - custom_black | custom_white
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
    and, with ``master_weight`` True or None, each of ``optimizers`` gets Paddle's
    ``multi_precision`` (float32 master weights, seeded with the values before the cast;
    ``master_weight=False`` turns it off). At O1 nothing changes.
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
        for optimizer in optimizer_list:
            if master_weight is False:
                optimizer._set_multi_precision(False)
            else:
                _seed_master_weights(optimizer, full)
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


def _save_as(model, save_dtype: str) -> None:
    """``model.state_dict()`` gives its floating tensors in ``save_dtype`` (copies), as
    Paddle's state-dict hook; ``set_state_dict`` (and its aliases) still load into the live
    tensors, as Paddle's reads its state without the hook."""
    getter = model.__dict__.get("state_dict")
    if isinstance(getter, _StateDictIn):  # decorated again: the latest save_dtype holds
        getter.dtype = save_dtype
        return
    model.state_dict = _StateDictIn(model, save_dtype)
    model.set_state_dict = model.set_dict = model.load_dict = _SetStateDictLive(model)


class _StateDictIn:
    """``model.state_dict`` after ``decorate(save_dtype=...)``: the model's state with its
    floating entries as copies in ``dtype``. A module-level class, not a closure, so that the
    model still deep-copies (the copy's reads the copy), pickles and ``jit.save``s."""

    def __init__(self, model, dtype: str):
        self.model, self.dtype = model, dtype
        self.live = 0  # set_state_dict calls under way: they need the live tensors

    def __call__(self, *args, **kwargs):
        state = type(self.model).state_dict(self.model, *args, **kwargs)
        if self.live:
            return state
        for key, value in state.items():
            if value.data.dtype.kind == "f":
                state[key] = value.astype(self.dtype)
        return state


class _SetStateDictLive:
    """``model.set_state_dict`` (``set_dict``, ``load_dict``) after ``decorate(save_dtype=
    ...)``: Layer's, which copies into what ``self.state_dict()`` gives, so with the copies
    of ``_StateDictIn`` turned off meanwhile (else nothing would load)."""

    def __init__(self, model):
        self.model = model

    def __call__(self, *args, **kwargs):
        getter = self.model.__dict__["state_dict"]
        getter.live += 1
        try:
            return type(self.model).set_state_dict(self.model, *args, **kwargs)
        finally:
            getter.live -= 1


def _seed_master_weights(optimizer, full: dict) -> None:
    """Turn on ``optimizer``'s master weights (Paddle's ``multi_precision``), seeded with the
    float32 values its now low-precision parameters had before ``decorate`` cast them."""
    optimizer._set_multi_precision(True)
    for param in optimizer._parameter_list:
        value = full.get(id(param))
        if value is not None and param.data.dtype != value.dtype:
            optimizer._master_weights[param.name] = value
