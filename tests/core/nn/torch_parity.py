"""Checks against torch that several test modules share (the finite-difference checks stay in
each test module)."""
from __future__ import annotations

import numpy as np
import pytest

import core


def assert_layer_matches_torch(layer, ref, x: np.ndarray, rtol: float = 1e-10,
                               grad_rtol: float = 1e-9) -> None:
    """``layer(x)`` and d(sum(out * cos x))/dx against ``ref(tensor, torch.nn.functional)``."""
    torch = pytest.importorskip("torch")
    xt = core.to_tensor(x, stop_gradient=False)
    out = layer(xt)
    out.backward(core.to_tensor(np.cos(x)))
    t = torch.tensor(x, requires_grad=True)
    want = ref(t, torch.nn.functional)
    want.backward(torch.tensor(np.cos(x)))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=rtol, atol=1e-12)
    np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=grad_rtol, atol=1e-12)


def assert_matches_torch(mine, theirs, *arrays, rtol: float = 1e-10, seed: int = 0) -> None:
    """``mine(*tensors)`` and ``theirs(torch, *tensors)``: outputs and every input's gradient
    for the same random upstream gradient."""
    torch = pytest.importorskip("torch")
    ours = [core.to_tensor(a, stop_gradient=False) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, want = mine(*ours), theirs(torch, *refs)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=rtol, atol=1e-12)
    g = np.random.default_rng(seed).standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    want.backward(torch.tensor(g))
    for a, r in zip(ours, refs):
        np.testing.assert_allclose(a.gradient(), r.grad.numpy(), rtol=rtol, atol=1e-12)
