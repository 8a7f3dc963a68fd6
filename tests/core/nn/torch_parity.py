"""One check the activation test modules share: a layer's output and input gradient against
torch's, for a cosine upstream gradient (the finite-difference check stays in each test)."""
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
