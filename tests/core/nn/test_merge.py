"""Add, Multiply, Concat, Matmul and SequencePool: the layers that merge or pool in specs."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def test_add_multiply_and_concat_gradients_match_finite_differences():
    a, b, c = (RNG.standard_normal((2, 3, 4)) for _ in range(3))
    check_grad(lambda x, y, z: nn.Add()(x, y, z), a, b, c)
    check_grad(lambda x, y: nn.Multiply()(x, y), a, b)
    check_grad(lambda x, y: nn.Concat(axis=2)(x, y), a, b)
    out = nn.Concat()(core.to_tensor(a), core.to_tensor(b))
    assert out.shape == [2, 6, 4]


@pytest.mark.parametrize("tx, ty", [(False, False), (False, True), (True, False)])
def test_matmul_is_paddles_matmul_scaled_and_its_gradient_is_exact(tx, ty):
    a = RNG.standard_normal((2, 4, 3) if tx else (2, 3, 4))
    b = RNG.standard_normal((2, 5, 4) if ty else (2, 4, 5))
    layer = nn.Matmul(transpose_x=tx, transpose_y=ty, alpha=0.5)
    check_grad(lambda x, y: layer(x, y), a, b)
    want = 0.5 * np.matmul(np.swapaxes(a, 1, 2) if tx else a, np.swapaxes(b, 1, 2) if ty else b)
    np.testing.assert_allclose(layer(core.to_tensor(a), core.to_tensor(b)).numpy(), want,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="Matmul multiplies exactly two inputs, got 3"):
        layer(core.to_tensor(a), core.to_tensor(b), core.to_tensor(b))


def test_merges_need_two_inputs():
    with pytest.raises(ValueError, match="two or more inputs"):
        nn.Add()(core.to_tensor(RNG.standard_normal((2, 3))))


@pytest.mark.parametrize("pool", ["sum", "mean", "max", "last"])
def test_sequence_pool_uses_only_the_real_steps_and_its_gradient_is_exact(pool):
    x = RNG.standard_normal((3, 5, 2))
    lengths = np.array([5, 2, 1])
    layer = nn.SequencePool(pool)
    out = layer(core.to_tensor(x), lengths).numpy()
    real = [x[i, :n] for i, n in enumerate(lengths)]
    expected = {"sum": [r.sum(0) for r in real], "mean": [r.mean(0) for r in real],
                "max": [r.max(0) for r in real], "last": [r[-1] for r in real]}[pool]
    np.testing.assert_allclose(out, np.stack(expected), rtol=1e-6)
    check_grad(lambda t: layer(t, lengths), x)
