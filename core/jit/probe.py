"""``jit.save``'s run of forward on example inputs: it checks that the input spec fits forward
and records the outputs' specs (Paddle traces forward symbolically for the same purpose; core
runs it). The runs leave the layers' modes and the random state as they were.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from core import backend
from core.framework import get_rng_state, set_rng_state
from core.jit import specs as spec_tools
from core.jit.static_function import quiet
from core.nn.layer import Layer
from core.static import InputSpec
from core.tensor import Tensor, no_grad


def output_specs(target, forward, specs: tuple, static, label: str) -> list[InputSpec]:
    """The specs of forward's tensor outputs, from a run on example inputs; a second run with
    every varying input size doubled tells which output sizes vary."""
    sizes = _example_sizes(specs, static.traced_input_spec() if static else None)
    try:
        first = _run(target, forward, specs, sizes)
    except Exception as exc:
        shapes = [list(s) for s in sizes if s is not None]
        raise ValueError(
            f"jit.save: {label}.forward failed on example inputs of shapes {shapes}, built from "
            f"input_spec with each varying size as in the last call or 1 ({type(exc).__name__}: "
            f"{exc}). jit.save runs forward once to check the spec and record the outputs: give "
            "input_spec sizes forward accepts, or call the to_static forward once with real "
            "inputs first.") from exc
    varying = any(s is not None and None in spec.shape for s, spec in zip(sizes, specs)
                  if isinstance(spec, InputSpec))
    second = None
    if varying:
        doubled = [None if s is None else tuple(n * 2 if w is None else n
                                                for n, w in zip(s, spec.shape))
                   for s, spec in zip(sizes, specs)]
        with contextlib.suppress(Exception):  # which sizes vary stays unknown: all None
            second = _run(target, forward, specs, doubled)
    return [_output_spec(i, out, second[i] if second and i < len(second) else None, varying)
            for i, out in enumerate(first)]


def _example_sizes(specs: tuple, traced) -> list:
    """Per spec: its shape with each varying size taken from the last call when that call's
    input fits the spec, else 1; None for a constant."""
    sizes = []
    for i, spec in enumerate(specs):
        if not isinstance(spec, InputSpec):
            sizes.append(None)
            continue
        seen = traced[i] if traced is not None and i < len(traced) else None
        if isinstance(seen, InputSpec) and spec_tools.fits(spec.shape, seen.shape):
            sizes.append(tuple(seen.shape))
        else:
            sizes.append(spec.example_shape())
    return sizes


def _run(target, forward, specs: tuple, sizes: list) -> list[Tensor]:
    """forward's tensor outputs on zero inputs of ``sizes``, in eval mode, without gradients,
    leaving the layers' modes and the random state as they were."""
    args = [spec if size is None else Tensor(backend.asarray(np.zeros(size, spec.dtype)))
            for spec, size in zip(specs, sizes)]
    modes = [(layer, layer.training) for layer in target.sublayers(include_self=True)] \
        if isinstance(target, Layer) else []
    rng = get_rng_state()
    try:
        if isinstance(target, Layer):
            target.eval()
        with no_grad(), quiet(), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # about made-up inputs, not the user's
            return _tensors(target(*args) if isinstance(target, Layer) else forward(*args))
    finally:
        for layer, mode in modes:
            layer.training = mode
        set_rng_state(rng)


def _tensors(output) -> list[Tensor]:
    if isinstance(output, Tensor):
        return [output]
    if isinstance(output, dict):
        output = list(output.values())
    if isinstance(output, (list, tuple)):
        return [t for item in output for t in _tensors(item)]
    return []


def _output_spec(index: int, first: Tensor, second, varying: bool) -> InputSpec:
    shape = tuple(first.shape)
    if varying:
        other = tuple(second.shape) if second is not None else None
        shape = tuple(None if other is None or len(other) != len(shape) or a != b else a
                      for a, b in zip(shape, other or shape))
    return InputSpec(shape, np.dtype(first.dtype).name, f"output_{index}")
