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


def check_second_grad(fn, *arrays, wrt=None, rtol: float = 1e-5, atol: float = 1e-7,
                      eps: float = 1e-6):
    """Assert second derivatives through ``core.grad(create_graph=True)`` match float64
    central differences of the first derivative.

    The first derivatives g_i of sum(fn(*arrays) * weights) are taken with create_graph=True
    and contracted with fixed weights; backward() of that scalar must equal its numerical
    gradient, which is computed from first derivatives alone (create_graph=False)."""
    arrays = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.array(a)
              for a in arrays]
    wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if wrt is None else wrt

    def contracted(tensors, create_graph: bool):
        out = fn(*tensors)
        total = (out * core.to_tensor(_weights(out.shape))).sum()
        grads = core.grad(total, [tensors[i] for i in wrt], create_graph=create_graph)
        return sum((g * core.to_tensor(_weights(g.shape) - 1.1)).sum() for g in grads)

    def numeric_value(arrays_now) -> float:
        tensors = [core.to_tensor(a, stop_gradient=i not in wrt)
                   for i, a in enumerate(arrays_now)]
        return float(contracted(tensors, False).item())

    tensors = [core.to_tensor(a, stop_gradient=i not in wrt) for i, a in enumerate(arrays)]
    value = contracted(tensors, True)
    if not value.stop_gradient:  # else the first derivatives are constants: zero expected
        value.backward()
    for i in wrt:
        expected = np.zeros_like(arrays[i])
        it = np.nditer(arrays[i], flags=["multi_index"])
        for _ in it:
            k = it.multi_index
            old = arrays[i][k]
            arrays[i][k] = old + eps
            plus = numeric_value(arrays)
            arrays[i][k] = old - eps
            minus = numeric_value(arrays)
            arrays[i][k] = old
            expected[k] = (plus - minus) / (2 * eps)
        got = tensors[i].gradient()
        got = np.zeros_like(expected) if got is None else got
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol,
                                   err_msg=f"second derivative with respect to input {i}")


def leaf(values) -> core.Tensor:
    """A float64 tensor that takes gradients (the higher-order tests' inputs)."""
    return core.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=False)


def cube(fn):
    """fn(...) ** 3: every op's own second derivative, and its first derivative's graph, count."""
    def cubed(*xs):
        out = fn(*xs)
        return out * out * out
    return cubed


def assert_third_order_matches_torch(fn, tfn, array, torch) -> None:
    """Gradients of gradients of gradients of ``fn`` (core) and ``tfn`` (torch) at ``array``
    agree: g1 of fn**3, g2 of g1**3, then the backward of g2**2 to the input."""
    x, t = leaf(array), torch.tensor(array, requires_grad=True)
    (g1,) = core.grad((fn(x) ** 3).sum(), x, create_graph=True)
    (tg1,) = torch.autograd.grad((tfn(t) ** 3).sum(), t, create_graph=True)
    (g2,) = core.grad((g1 * g1 * g1).sum(), x, create_graph=True)
    (tg2,) = torch.autograd.grad((tg1 * tg1 * tg1).sum(), t, create_graph=True)
    (g2 * g2).sum().backward()
    (tg2 * tg2).sum().backward()
    np.testing.assert_allclose(g2.numpy(), tg2.detach().numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(x.gradient(), t.grad.numpy(), rtol=1e-8, atol=1e-9)


def assert_second_derivatives_match_torch(fn, tfn, arrays, torch, rtol: float = 1e-9,
                                          atol: float = 1e-11, rtol2: float | None = None,
                                          atol2: float | None = None) -> None:
    """The gradients of fn(...) ** 3 taken with create_graph (within rtol / atol), then the
    gradients of their squares (within rtol2 / atol2, default ten times looser), as torch's.
    torch's second backward runs first: a torch without that double backward raises there."""
    xs = [leaf(a) for a in arrays]
    ts = [torch.tensor(np.asarray(a, dtype="float64"), requires_grad=True) for a in arrays]
    grads = core.grad(cube(fn)(*xs).sum(), xs, create_graph=True)
    tgrads = torch.autograd.grad(cube(tfn)(*ts).sum(), ts, create_graph=True)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=rtol, atol=atol)
    sum((tg * tg).sum() for tg in tgrads).backward()
    sum((g * g).sum() for g in grads).backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.gradient(), t.grad.numpy(),
                                   rtol=rtol * 10 if rtol2 is None else rtol2,
                                   atol=atol * 10 if atol2 is None else atol2)
