"""Paddle's SpectralNorm layer (a weight in, weight / sigma out): a numpy power iteration, the
largest singular value, the finite-difference gradient and the bad-argument errors."""
import numpy as np
import pytest

import core
from core import nn
from tests.gradcheck import check_grad

RNG = np.random.default_rng(5)


def _numpy_spectral(weight, u, v, dim, iters, eps):
    """Paddle's spectral_norm op in numpy: v, u normalised by ||.|| + eps, then W / u^T W v."""
    mat = np.moveaxis(weight, dim, 0).reshape(weight.shape[dim], -1)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return weight / (u @ mat @ v)


@pytest.mark.parametrize("shape, dim", [((4, 3), 0), ((2, 3, 2, 2), 1), ((3, 5), -1)])
@pytest.mark.parametrize("iters", [0, 1, 3])
def test_matches_numpy_power_iteration(shape, dim, iters):
    layer = nn.SpectralNorm(list(shape), dim=dim, power_iters=iters, dtype="float64")
    weight = RNG.standard_normal(shape)
    out = layer(core.to_tensor(weight)).numpy()
    ref = _numpy_spectral(weight, layer.weight_u.numpy(), layer.weight_v.numpy(),
                          dim % len(shape), iters, 1e-12)
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_many_iterations_give_the_largest_singular_value():
    weight = RNG.standard_normal((5, 4)).astype(np.float32)
    layer = nn.SpectralNorm([5, 4], power_iters=60)
    out = layer(core.to_tensor(weight)).numpy()
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, 2), 1.0, rtol=1e-5)
    sigma = np.linalg.svd(weight, compute_uv=False)[0]
    np.testing.assert_allclose(out, weight / sigma, rtol=1e-4, atol=1e-6)


def test_u_and_v_are_frozen_and_not_updated():
    """Paddle's op iterates on copies: the parameters keep their draws, take no gradient."""
    layer = nn.SpectralNorm([3, 4], power_iters=2)
    u0 = layer.weight_u.numpy().copy()
    w = core.to_tensor(RNG.standard_normal((3, 4)).astype(np.float32), stop_gradient=False)
    first = layer(w)
    first.sum().backward()
    np.testing.assert_array_equal(layer.weight_u.numpy(), u0)
    assert layer.weight_u.stop_gradient and layer.weight_v.stop_gradient
    assert layer.weight_u.gradient() is None
    np.testing.assert_array_equal(layer(w).numpy(), first.numpy())
    assert sorted(layer.state_dict()) == ["weight_u", "weight_v"]


@pytest.mark.parametrize("iters", [0, 200])
@pytest.mark.parametrize("shape, dim", [((3, 4), 0), ((2, 3, 2), 2)])
def test_spectral_norm_layer_gradient(shape, dim, iters):
    """The gradient treats u and v as constants (Paddle's op). Finite differences agree where
    u, v do not depend on the weight (no iteration) or no longer move with it to first order
    (converged to the singular vectors, where d sigma / d W = u v^T exactly)."""
    layer = nn.SpectralNorm(list(shape), dim=dim, power_iters=iters, dtype="float64")
    check_grad(lambda w: layer(w), RNG.standard_normal(shape), rtol=1e-4, atol=1e-6)


def test_the_hook_form_still_matches_after_sharing_the_iteration():
    """core.nn.utils.spectral_norm runs the shared power_iteration (with max(||x||, eps))."""
    core.seed(0)
    lin = nn.utils.spectral_norm(nn.Linear(4, 3), n_power_iterations=50)
    lin(core.to_tensor(np.zeros((1, 4), np.float32)))
    sigma = np.linalg.svd(lin.weight_orig.numpy(), compute_uv=False)[0]
    np.testing.assert_allclose(lin.weight.numpy(), lin.weight_orig.numpy() / sigma, rtol=1e-4)


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="weight_shape"):
        nn.SpectralNorm([3, 0])
    with pytest.raises(ValueError, match="dim=2"):
        nn.SpectralNorm([3, 4], dim=2)
    with pytest.raises(ValueError, match="power_iters=-1"):
        nn.SpectralNorm([3, 4], power_iters=-1)
    with pytest.raises(ValueError, match="eps=0"):
        nn.SpectralNorm([3, 4], eps=0)  # Paddle's name (core's was epsilon until s17)
    with pytest.raises(ValueError, match="dtype='int32'"):
        nn.SpectralNorm([3, 4], dtype="int32")
    layer = nn.SpectralNorm([3, 4])
    with pytest.raises(ValueError, match=r"weight_shape=\[3, 4\]"):
        layer(core.to_tensor(np.zeros((4, 3), np.float32)))
