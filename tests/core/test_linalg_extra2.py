"""core.linalg's matrix_exp, pdist, svd_lowrank and pca_lowrank (Paddle 3's
paddle.linalg.matrix_exp / svd_lowrank / pca_lowrank and paddle.pdist) against torch and numpy,
with float64 gradient checks and argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck import check_grad

import core

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("scale", [1e-3, 0.1, 0.6, 1.5, 4.0, 40.0])
def test_matrix_exp_matches_torch_at_every_pade_degree(scale):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 5, 5)) * scale  # the 1-norm picks the degree and squarings
    ours = core.linalg.matrix_exp(core.to_tensor(a)).numpy()
    ref = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-11, atol=1e-13 * np.abs(ref).max())


def test_matrix_exp_known_values_and_dtypes():
    theta = 0.7  # exp of a rotation generator is the rotation
    rot = core.linalg.matrix_exp(core.to_tensor([[0.0, -theta], [theta, 0.0]], dtype="float64"))
    np.testing.assert_allclose(rot.numpy(), [[math.cos(theta), -math.sin(theta)],
                                             [math.sin(theta), math.cos(theta)]], rtol=1e-14)
    diag = np.diag([1.0, -2.0, 0.5])
    np.testing.assert_allclose(core.linalg.matrix_exp(core.to_tensor(diag)).numpy(),
                               np.diag(np.exp([1.0, -2.0, 0.5])), rtol=1e-14, atol=1e-16)
    nilpotent = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    expected = np.eye(3) + nilpotent + nilpotent @ nilpotent / 2
    np.testing.assert_allclose(core.linalg.matrix_exp(core.to_tensor(nilpotent)).numpy(),
                               expected, rtol=1e-14, atol=1e-15)
    out = core.linalg.matrix_exp(core.to_tensor(RNG.standard_normal((4, 4)).astype("float32")))
    assert out.dtype == np.float32 and out.shape == [4, 4]
    np.testing.assert_array_equal(core.linalg.matrix_exp(core.zeros([2, 2])).numpy(), np.eye(2))


@pytest.mark.parametrize("scale", [0.05, 0.5, 3.0, 12.0])
def test_matrix_exp_gradient(scale):
    a = RNG.standard_normal((2, 3, 3)) * scale
    check_grad(core.linalg.matrix_exp, a, rtol=1e-6, atol=1e-8 * max(1.0, math.exp(scale * 3)))


def test_matrix_exp_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((4, 4)) * 2
    w = RNG.standard_normal((4, 4))
    x = core.to_tensor(a, stop_gradient=False)
    (core.linalg.matrix_exp(x) * core.to_tensor(w)).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (torch.linalg.matrix_exp(t) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.gradient(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, math.inf])
def test_pdist_matches_torch(p):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((6, 4))
    x[4] = x[1]  # a zero distance
    ours = core.pdist(core.to_tensor(x), p)
    ref = torch.nn.functional.pdist(torch.tensor(x), p).numpy()
    assert ours.shape == [15]
    np.testing.assert_allclose(ours.numpy(), ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(core.to_tensor(x).pdist(p).numpy(), ours.numpy())
    np.testing.assert_allclose(core.linalg.pdist(core.to_tensor(x), p=p).numpy(), ours.numpy())


def test_pdist_is_scipys_condensed_order_and_handles_one_row():
    spatial = pytest.importorskip("scipy.spatial")
    x = RNG.standard_normal((5, 3))
    np.testing.assert_allclose(core.pdist(core.to_tensor(x)).numpy(), spatial.distance.pdist(x),
                               rtol=1e-13)
    assert core.pdist(core.to_tensor(x[:1])).shape == [0]


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_pdist_gradient(p):
    x = RNG.standard_normal((5, 3))
    check_grad(lambda v: core.pdist(v, p), x)


def test_pdist_gradient_is_zero_at_a_zero_distance():
    x = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 0.5]])
    t = core.to_tensor(x, stop_gradient=False)
    core.pdist(t)[0].backward()
    np.testing.assert_array_equal(t.gradient(), 0.0)


def _low_rank(shape, rank):
    left = RNG.standard_normal(shape[:-1] + (rank,))
    right = RNG.standard_normal(shape[:-2] + (rank, shape[-1]))
    return left @ right


def test_svd_lowrank_recovers_a_low_rank_matrix():
    a = _low_rank((2, 30, 12), 3)
    core.seed(0)
    u, s, v = core.linalg.svd_lowrank(core.to_tensor(a), q=5)
    assert u.shape == [2, 30, 5] and s.shape == [2, 5] and v.shape == [2, 12, 5]
    full = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(s.numpy()[:, :3], full[:, :3], rtol=1e-10)
    np.testing.assert_allclose(s.numpy()[:, 3:], 0.0, atol=1e-10)
    rebuilt = u.numpy() @ (s.numpy()[..., None] * v.numpy().swapaxes(-1, -2))
    np.testing.assert_allclose(rebuilt, a, atol=1e-10)
    np.testing.assert_allclose(u.numpy().swapaxes(-1, -2) @ u.numpy(), np.broadcast_to(
        np.eye(5), (2, 5, 5)), atol=1e-12)
    # the default rank is min(6, m, n); M is subtracted first
    core.seed(1)
    u, s, v = core.linalg.svd_lowrank(core.to_tensor(a[0] + 1.0), M=core.ones([1, 12],
                                                                             "float64"))
    assert s.shape == [6]
    np.testing.assert_allclose(s.numpy()[:3], full[0, :3], rtol=1e-10)


def test_svd_lowrank_power_iterations_approach_the_top_singular_values():
    a = RNG.standard_normal((60, 40)) * np.linspace(1, 0.01, 40)
    full = np.linalg.svd(a, compute_uv=False)[:4]
    errors = []
    for niter in (0, 6):
        core.seed(2)
        s = core.linalg.svd_lowrank(core.to_tensor(a), q=8, niter=niter)[1].numpy()[:4]
        errors.append(np.abs(s - full).max())
    assert errors[1] < errors[0] and errors[1] < 1e-2 * full[0]


def test_pca_lowrank_matches_the_centred_svd():
    torch = pytest.importorskip("torch")
    a = _low_rank((40, 10), 2) + RNG.standard_normal(10) * 5  # rank 2 after centring
    core.seed(3)
    u, s, v = core.linalg.pca_lowrank(core.to_tensor(a), q=4)
    centred = a - a.mean(0)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, centred,
                               atol=1e-10)
    _, ts, tv = torch.pca_lowrank(torch.tensor(a), q=4)
    np.testing.assert_allclose(s.numpy()[:2], ts.numpy()[:2], rtol=1e-10)
    np.testing.assert_allclose(np.abs(v.numpy()[:, :2].T @ tv.numpy()[:, :2]), np.eye(2),
                               atol=1e-8)  # the same directions, up to sign
    core.seed(3)
    uncentred = core.linalg.pca_lowrank(core.to_tensor(a), q=4, center=False)[1].numpy()
    np.testing.assert_allclose(uncentred[:3], np.linalg.svd(a, compute_uv=False)[:3],
                               rtol=1e-10)


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match=r"matrix_exp: x must be a square matrix or a batch of "
                                         r"them \[..., n, n\], got shape \[2, 3\]"):
        core.linalg.matrix_exp(core.ones([2, 3]))
    with pytest.raises(TypeError, match="matrix_exp: x must be a floating tensor"):
        core.linalg.matrix_exp(core.to_tensor([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="matrix_exp: 'x' must be a Tensor, got list"):
        core.linalg.matrix_exp([[1.0]])
    with pytest.raises(ValueError, match="matrix_exp: x must be finite"):
        core.linalg.matrix_exp(core.to_tensor([[math.inf, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"pdist: x must be a 2-D matrix of row vectors "
                                         r"\[N, M\], got shape \[2, 3, 4\]"):
        core.pdist(core.ones([2, 3, 4]))
    with pytest.raises(ValueError, match="pdist: p must be a non-negative number"):
        core.pdist(core.ones([3, 2]), p=-1.0)
    with pytest.raises(ValueError, match=r"svd_lowrank: q must be an int in 1..3 \(min\(m, n\) "
                                         r"of x's shape \[5, 3\]\), got 4"):
        core.linalg.svd_lowrank(core.ones([5, 3]), q=4)
    with pytest.raises(ValueError, match="svd_lowrank: niter must be a non-negative int"):
        core.linalg.svd_lowrank(core.ones([5, 3]), niter=-1)
    with pytest.raises(ValueError, match="svd_lowrank: x must be a floating matrix"):
        core.linalg.svd_lowrank(core.ones([5]))
    with pytest.raises(TypeError, match="pca_lowrank: center must be a bool"):
        core.linalg.pca_lowrank(core.ones([5, 3]), center=1)
