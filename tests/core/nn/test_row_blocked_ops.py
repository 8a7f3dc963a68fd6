"""GELU, softmax and layer norm on arrays of several row blocks (core.row_blocks): the values
and gradients of a float64 reference, and the same bits on one thread as on two."""
import math

import numpy as np
import pytest

import core
from core.nn import functional as F

SHAPE = (3, 1000, 130)  # 1.5 MB of float32: three blocks and a ragged one


def _run(op, threads: int, data, grad):
    previous = core.device.get_num_threads()
    core.device.set_num_threads(threads)
    try:
        x = core.to_tensor(data, stop_gradient=False)
        out = op(x)
        (out * core.to_tensor(grad)).sum().backward()
        return out.numpy(), x.grad.numpy()
    finally:
        core.device.set_num_threads(previous)


def _gelu_tanh64(x):
    k = math.sqrt(2 / math.pi)
    th = np.tanh(k * (x + 0.044715 * x ** 3))
    value = 0.5 * x * (1 + th)
    return value, 0.5 * (1 + th) + 0.5 * x * (1 - th ** 2) * k * (1 + 3 * 0.044715 * x ** 2)


def _softmax64(x, g):
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    return p, p * (g - (g * p).sum(-1, keepdims=True))


def _layer_norm64(x, g, w, b, eps=1e-5):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    inv = 1 / np.sqrt(var + eps)
    xh = (x - mu) * inv
    gh = g * w
    dx = inv * (gh - gh.mean(-1, keepdims=True) - xh * (gh * xh).mean(-1, keepdims=True))
    return xh * w + b, dx


@pytest.mark.parametrize("op", ["gelu_tanh", "gelu", "softmax", "layer_norm"])
def test_blocked_ops_match_float64_and_every_thread_count(op):
    rng = np.random.default_rng(0)
    data = rng.normal(0, 2, SHAPE).astype(np.float32)
    grad = rng.standard_normal(SHAPE).astype(np.float32)
    x64, g64 = data.astype(np.float64), grad.astype(np.float64)
    w = rng.normal(1, 0.3, SHAPE[-1]).astype(np.float32)
    b = rng.normal(0, 0.3, SHAPE[-1]).astype(np.float32)
    if op == "gelu_tanh":
        fn = lambda x: F.gelu(x, approximate=True)  # noqa: E731
        value, slope = _gelu_tanh64(x64)
        want = value, slope * g64
    elif op == "gelu":
        fn = F.gelu
        cdf = 0.5 * (1 + np.vectorize(math.erf)(x64 / math.sqrt(2)))
        want = x64 * cdf, (cdf + x64 * np.exp(-x64 ** 2 / 2) / math.sqrt(2 * math.pi)) * g64
    elif op == "softmax":
        fn = F.softmax
        want = _softmax64(x64, g64)
    else:
        wt, bt = core.to_tensor(w), core.to_tensor(b)
        fn = lambda x: F.layer_norm(x, SHAPE[-1], wt, bt)  # noqa: E731
        want = _layer_norm64(x64, g64, w.astype(np.float64), b.astype(np.float64))
    one = _run(fn, 1, data, grad)
    two = _run(fn, 2, data, grad)
    for got, expected in zip(one, want):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    for a, b2 in zip(one, two):
        np.testing.assert_array_equal(a, b2)  # the blocks are fixed: same bits on two threads
