"""Make a layer produce a NaN in its forward or its backward, from its n-th call on.

Used by the NaN/Inf tests (core.debug, runner.train.health) to check that the layer is named.
"""
from __future__ import annotations

import numpy as np

from core.tensor import apply


def _wrap(layer, make_output, after: int) -> None:
    original, calls = layer.forward, [0]

    def forward(*inputs):
        out = original(*inputs)
        calls[0] += 1
        return out if calls[0] <= after else make_output(out)

    layer.forward = forward


def poison_forward(layer, after: int = 0) -> None:
    """From call ``after + 1`` on, the layer's output holds a NaN (gradients pass unchanged)."""
    def make(out):
        data = out.data.copy()
        data.flat[0] = np.nan
        return apply(data, (out,), lambda g: (g,), "poison_forward")

    _wrap(layer, make, after)


def poison_backward(layer, after: int = 0) -> None:
    """From call ``after + 1`` on, the output stays finite but the layer's backward emits NaN."""
    def make(out):
        return apply(out.data.copy(), (out,), lambda g: (g * np.nan,), "poison_backward")

    _wrap(layer, make, after)
