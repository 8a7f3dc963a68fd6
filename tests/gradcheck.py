"""Finite-difference gradient checks in float64, shared by the op and layer tests."""
from __future__ import annotations

import numpy as np

import core


def numeric_grad(fn, arrays: list[np.ndarray], index: int, eps: float = 1e-6) -> np.ndarray:
    """Central differences of sum(fn(*arrays) * weights) with respect to arrays[index]."""
    base = arrays[index]
    grad = np.zeros_like(base)
    it = np.nditer(base, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        old = base[i]
        base[i] = old + eps
        plus = _scalar(fn, arrays)
        base[i] = old - eps
        minus = _scalar(fn, arrays)
        base[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def _scalar(fn, arrays) -> float:
    with core.no_grad():
        out = fn(*[core.to_tensor(a) for a in arrays])
    return float((out.numpy() * _weights(out.shape)).sum())


def _weights(shape) -> np.ndarray:
    # Fixed, non-uniform output weights, so that a wrong permutation of outputs is caught.
    n = int(np.prod(shape)) if len(shape) else 1
    return (np.sin(np.arange(n) * 0.7 + 0.3) + 1.5).reshape(shape)


def check_grad(fn, *arrays, wrt=None, rtol: float = 1e-5, atol: float = 1e-7, eps: float = 1e-6):
    """Assert autograd's gradients of ``fn`` match float64 central differences.

    ``arrays`` are numpy inputs (converted to float64); ``wrt`` picks which ones need gradients
    (default: every floating one).
    """
    arrays = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.array(a)
              for a in arrays]
    wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if wrt is None else wrt
    tensors = [core.to_tensor(a, stop_gradient=i not in wrt) for i, a in enumerate(arrays)]
    out = fn(*tensors)
    out.backward(core.to_tensor(_weights(out.shape)))
    for i in wrt:
        expected = numeric_grad(fn, arrays, i, eps)
        got = tensors[i].gradient()
        assert got is not None, f"input {i} received no gradient"
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i}")
