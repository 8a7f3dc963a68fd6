"""core.linalg (paddle.linalg): norm / vector_norm / matrix_norm, inv, det, slogdet, solve,
cholesky, matrix_power, pinv, eigh, qr, svd, multi_dot, cov, corrcoef, and cross / outer /
inner: values against numpy/torch and Paddle's documented examples, gradients against float64
finite differences, bad arguments named in the errors."""
import numpy as np
import pytest

import core
from core import linalg
from tests.gradcheck import check_grad

rng = np.random.default_rng(29)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


def well_conditioned(*batch, n=3):
    return rng.normal(size=batch + (n, n)) + 3 * np.eye(n)


def spd(*batch, n=3):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def sym(x):
    """The symmetric part: cholesky and eigh read one triangle, so finite differences of the
    raw input would see only that triangle; through sym both see the symmetric gradient."""
    return (x + core.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])) * 0.5


# ----- norms ------------------------------------------------------------------------------------

def test_norm_follows_paddles_examples():
    x = core.arange(24, dtype="float32").reshape([2, 3, 4]) - 12
    np.testing.assert_allclose(core.linalg.norm(x, p="fro", axis=[0, 1]).numpy(),
                               [17.435596, 16.911535, 16.7332, 16.911535], rtol=1e-6)
    np.testing.assert_allclose(core.norm(x, p=2, axis=-1).numpy(),
                               [[21.118711, 13.190906, 5.477226],
                                [3.7416575, 11.224972, 19.131126]], rtol=1e-6)
    assert core.norm(x).item() == pytest.approx(np.sqrt(((np.arange(24) - 12) ** 2).sum()))
    np.testing.assert_allclose(core.norm(x, p=np.inf, axis=[0, 1]).numpy(),
                               np.linalg.norm(x.numpy().transpose(2, 0, 1), np.inf,
                                              axis=(1, 2)), rtol=1e-6)
    np.testing.assert_allclose(linalg.vector_norm(x, p=0, axis=[0, 1]).numpy(), [5, 6, 6, 6])
    assert x.norm(p=1).item() == 144


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, -1.5, np.inf, -np.inf])
@pytest.mark.parametrize("axis", [None, -1, [0, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm_values_gradients_and_torch(p, axis, keepdim):
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4, 5))
    got = linalg.vector_norm(t(x), p, axis, keepdim)
    want = torch.linalg.vector_norm(torch.tensor(x), p, dim=axis, keepdim=keepdim)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    check_grad(lambda a: linalg.vector_norm(a, p, axis, keepdim), x)
    if not isinstance(axis, list):  # two axes make core.norm a matrix norm (Paddle 3)
        check_grad(lambda a: core.norm(a, p, axis, keepdim), x)


@pytest.mark.parametrize("p", ["fro", 1, -1, np.inf, -np.inf, "nuc", 2, -2])
def test_matrix_norm_values_and_gradients(p):
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4, 5))
    got = linalg.matrix_norm(t(x), p, [0, 2], keepdim=True)
    want = torch.linalg.matrix_norm(torch.tensor(x), p, dim=(0, 2), keepdim=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    np.testing.assert_allclose(core.norm(t(x[0]), p, [0, 1]).numpy(),
                               np.linalg.norm(x[0], p), rtol=1e-10)
    check_grad(lambda a: linalg.matrix_norm(a, p, [0, 2]), x)
    check_grad(lambda a: core.norm(a, p, [-1, 1], keepdim=True), x)


def test_norm_at_zero_and_bad_arguments():
    z = t(np.zeros(3), grad=True)
    core.norm(z).backward()
    np.testing.assert_array_equal(z.grad.numpy(), 0)
    x = t(rng.normal(size=(3, 4)))
    with pytest.raises(ValueError, match="norm: p='nuc' needs a matrix"):
        core.norm(x, "nuc")
    with pytest.raises(ValueError, match="matrix_norm: p must be"):
        core.norm(x, 3, [0, 1])  # Paddle 3: a p-norm over two axes is a matrix norm
    with pytest.raises(ValueError, match="vector_norm: p must be a number"):
        linalg.vector_norm(x, "two")
    with pytest.raises(TypeError, match="vector_norm: x must be a floating"):
        core.norm(t([1, 2]))


# ----- inverses, determinants, solves --------------------------------------------------------

@pytest.mark.parametrize("batch", [(), (2,), (2, 2)])
def test_inv_det_slogdet(batch):
    torch = pytest.importorskip("torch")
    a = well_conditioned(*batch)
    np.testing.assert_allclose(linalg.inv(t(a)).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(linalg.det(t(a)).numpy(), torch.linalg.det(torch.tensor(a)))
    sign, logabs = torch.linalg.slogdet(torch.tensor(a))
    got = linalg.slogdet(t(a))
    assert got.shape == [2, *batch]  # Paddle stacks (sign, log|det|)
    np.testing.assert_allclose(got.numpy(), np.stack([sign.numpy(), logabs.numpy()]))
    check_grad(linalg.inv, a)
    check_grad(linalg.det, a)
    check_grad(linalg.slogdet, a)
    np.testing.assert_allclose(t(a).inverse().numpy(), np.linalg.inv(a), rtol=1e-10)


def test_det_and_slogdet_of_a_singular_matrix_and_errors():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert linalg.det(t(s)).item() == pytest.approx(0)
    sign, logabs = linalg.slogdet(t(s)).numpy()
    assert sign == 0 and logabs == -np.inf
    x = t(s, grad=True)
    linalg.det(x).backward()
    assert np.isfinite(x.grad.numpy()).all()
    with pytest.raises(ValueError, match="inv: x is singular"):
        linalg.inv(t(s))
    with pytest.raises(ValueError, match=r"det: x must be a square matrix .* got shape \[2, 3\]"):
        linalg.det(t(np.ones((2, 3))))
    with pytest.raises(TypeError, match="inv: x must be a floating tensor"):
        linalg.inv(t(np.eye(2, dtype="int64")))


@pytest.mark.parametrize("left", [True, False])
def test_solve_matrices_vectors_batches(left):
    torch = pytest.importorskip("torch")
    a = well_conditioned(2)
    b = rng.normal(size=(2, 3, 2)) if left else rng.normal(size=(2, 2, 3))
    want = torch.linalg.solve(torch.tensor(a), torch.tensor(b), left=left).numpy()
    np.testing.assert_allclose(linalg.solve(t(a), t(b), left=left).numpy(), want, rtol=1e-10)
    check_grad(lambda p, q: linalg.solve(p, q, left=left), a, b)
    shared = rng.normal(size=(3, 4)) if left else rng.normal(size=(4, 3))
    check_grad(lambda p, q: linalg.solve(p, q, left=left), a, shared)  # batch broadcast


def test_solve_vector_and_errors():
    a, b = well_conditioned(), rng.normal(size=3)
    np.testing.assert_allclose(linalg.solve(t(a), t(b)).numpy(), np.linalg.solve(a, b))
    check_grad(linalg.solve, a, b)
    with pytest.raises(ValueError, match="solve: y must be"):
        linalg.solve(t(a), t(np.ones(4)))
    with pytest.raises(ValueError, match="solve: x is singular"):
        linalg.solve(t(np.zeros((3, 3))), t(b))


# ----- decompositions and powers -------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky(upper, batch):
    torch = pytest.importorskip("torch")
    a = spd(*batch)
    want = torch.linalg.cholesky(torch.tensor(a), upper=upper).numpy()
    np.testing.assert_allclose(linalg.cholesky(t(a), upper).numpy(), want, rtol=1e-10)
    check_grad(lambda p: linalg.cholesky(sym(p), upper), a)
    # The gradient with respect to the raw input is torch's (symmetric)
    x = torch.tensor(a, requires_grad=True)
    weights = torch.tensor(rng.normal(size=a.shape))
    (torch.linalg.cholesky(x, upper=upper) * weights).sum().backward()
    mine = t(a, grad=True)
    (t(a).cholesky(upper) * 0 + linalg.cholesky(mine, upper) * t(weights.numpy())).sum()\
        .backward()
    np.testing.assert_allclose(mine.grad.numpy(), x.grad.numpy(), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="cholesky: x is not positive definite"):
        linalg.cholesky(t(-np.eye(3)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n):
    a = well_conditioned(2) / 3
    np.testing.assert_allclose(linalg.matrix_power(t(a), n).numpy(),
                               np.linalg.matrix_power(a, n), rtol=1e-10, atol=1e-12)
    check_grad(lambda p: linalg.matrix_power(p, n), a)
    check_grad(lambda p: p.matrix_power(n), a[0])


def test_matrix_power_bad_n():
    with pytest.raises(TypeError, match="matrix_power: n must be an int"):
        linalg.matrix_power(t(np.eye(2)), 1.5)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_pinv(shape):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=shape)
    np.testing.assert_allclose(linalg.pinv(t(a)).numpy(),
                               torch.linalg.pinv(torch.tensor(a)).numpy(), rtol=1e-8,
                               atol=1e-12)
    check_grad(linalg.pinv, a)
    with pytest.raises(ValueError, match="pinv: rcond must be"):
        linalg.pinv(t(a), rcond=-1)


def test_eigh_values_vectors_and_gradients():
    a = spd(2)
    w, v = linalg.eigh(t(a))
    want_w, want_v = np.linalg.eigh(a)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-10)
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(want_v), rtol=1e-8, atol=1e-10)
    check_grad(lambda p: linalg.eigh(sym(p))[0], a)
    # eigenvectors are defined up to sign: check a sign-free function of them
    check_grad(lambda p: linalg.eigh(sym(p))[1] * linalg.eigh(sym(p))[1], a)
    w_up, _ = linalg.eigh(t(a), UPLO="U")
    np.testing.assert_allclose(w_up.numpy(), want_w, rtol=1e-10)
    with pytest.raises(ValueError, match="eigh: UPLO must be"):
        linalg.eigh(t(a), UPLO="X")


def test_qr_and_svd_values_and_gradients():
    """Both are differentiable now (tests/core/test_linalg_grads.py checks them in depth); qr's
    backward is refused, naming the case, only where Q is not there or not determined."""
    a = rng.normal(size=(2, 4, 3))
    q, r = linalg.qr(t(a))
    np.testing.assert_allclose((q.numpy() @ r.numpy()), a, rtol=1e-10, atol=1e-12)
    assert q.shape == [2, 4, 3] and linalg.qr(t(a), mode="complete")[0].shape == [2, 4, 4]
    assert linalg.qr(t(a), mode="r").shape == [2, 3, 3]
    u, s, vh = linalg.svd(t(a))
    np.testing.assert_allclose((u.numpy() * s.numpy()[..., None, :]) @ vh.numpy(), a,
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False))
    check_grad(lambda x: linalg.svd(x)[1], a)
    check_grad(lambda x: linalg.qr(x)[1], a)
    with pytest.raises(RuntimeError, match="qr: no gradient .*mode='r'"):
        linalg.qr(t(a, grad=True), mode="r").sum().backward()
    with pytest.raises(ValueError, match="qr: mode must be"):
        linalg.qr(t(a), mode="full")


# ----- products and statistics -------------------------------------------------------------

def test_multi_dot():
    mats = [rng.normal(size=s) for s in [(3,), (3, 4), (4, 2), (2,)]]
    got = linalg.multi_dot([t(m) for m in mats])
    assert got.shape == []
    np.testing.assert_allclose(got.numpy(), np.linalg.multi_dot(mats))
    check_grad(lambda *ms: linalg.multi_dot(list(ms)), *mats)
    mats2 = [rng.normal(size=s) for s in [(5, 2), (2, 6), (6, 3)]]
    np.testing.assert_allclose(linalg.multi_dot([t(m) for m in mats2]).numpy(),
                               np.linalg.multi_dot(mats2))
    check_grad(lambda *ms: linalg.multi_dot(list(ms)), *mats2)
    with pytest.raises(ValueError, match=r"multi_dot: x\[0\] of shape \[5, 2\] cannot multiply"):
        linalg.multi_dot([t(mats2[0]), t(mats2[2])])
    with pytest.raises(TypeError, match="multi_dot: x must be a list"):
        linalg.multi_dot(t(mats2[0]))


def test_cov_and_corrcoef():
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 6))
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), rng.uniform(0.5, 2, 6)
    np.testing.assert_allclose(linalg.cov(t(x)).numpy(), torch.cov(torch.tensor(x)).numpy())
    np.testing.assert_allclose(
        linalg.cov(t(x), fweights=t(fw), aweights=t(aw)).numpy(),
        torch.cov(torch.tensor(x), fweights=torch.tensor(fw), aweights=torch.tensor(aw)).numpy())
    np.testing.assert_allclose(linalg.cov(t(x), rowvar=False, ddof=False).numpy(),
                               np.cov(x, rowvar=False, ddof=0))
    np.testing.assert_allclose(linalg.corrcoef(t(x)).numpy(),
                               torch.corrcoef(torch.tensor(x)).numpy())
    assert linalg.cov(t(x[0])).shape == []
    check_grad(lambda a: linalg.cov(a), x)
    check_grad(lambda a: linalg.cov(a, fweights=t(fw), aweights=t(aw)), x)
    check_grad(lambda a: linalg.corrcoef(a, rowvar=False), x.T)
    with pytest.raises(ValueError, match="cov: fweights must be"):
        linalg.cov(t(x), fweights=t(aw))


def test_cross_default_axis_is_the_first_of_size_3():
    # Paddle's example: axis=9 (the default) means the first axis of size 3, here axis 0
    x = t([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])
    y = core.ones([3, 3])
    np.testing.assert_array_equal(core.cross(x, y).numpy(),
                                  [[-1, -1, -1], [2, 2, 2], [-1, -1, -1]])
    np.testing.assert_array_equal(core.cross(x, y, axis=1).numpy(), np.zeros((3, 3)))
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(4, 3, 3)), rng.normal(size=(4, 3, 3))
    np.testing.assert_allclose(x.cross(y, axis=-1).numpy(),
                               torch.linalg.cross(torch.tensor(x.numpy()),
                                                  torch.tensor(y.numpy(), dtype=torch.float64))
                               .numpy())
    np.testing.assert_allclose(core.cross(t(a), t(b)).numpy(), np.cross(a, b, axis=1))
    check_grad(core.cross, a, b)
    check_grad(lambda p, q: core.cross(p, q, axis=2), a, b)
    with pytest.raises(ValueError, match="cross: axis 0 of x must have size 3"):
        core.cross(t(a), t(b), axis=0)
    with pytest.raises(ValueError, match="cross: with the default axis"):
        core.cross(t(np.ones((2, 2))), t(np.ones((2, 2))))


def test_outer_and_inner():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 2)), rng.normal(size=3)
    np.testing.assert_allclose(core.outer(t(a), t(b)).numpy(), np.outer(a, b))
    check_grad(core.outer, a, b)
    x, y = rng.normal(size=(2, 3)), rng.normal(size=(4, 2, 3))
    np.testing.assert_allclose(core.inner(t(x), t(y)).numpy(),
                               torch.inner(torch.tensor(x), torch.tensor(y)).numpy())
    check_grad(core.inner, x, y)
    check_grad(lambda p, q: p.inner(q), rng.normal(size=4), rng.normal(size=4))
    with pytest.raises(ValueError, match="inner: the last dimensions"):
        core.inner(t(x), t(np.ones((2, 4))))


def test_public_names_of_linalg_are_documented():
    for name in linalg.__all__:
        assert getattr(linalg, name).__doc__, name
    for name in ("norm", "inv", "det", "slogdet", "solve", "cholesky", "matrix_power", "pinv",
                 "qr", "svd", "eigh", "multi_dot", "cov", "corrcoef", "vector_norm",
                 "matrix_norm", "dot", "mm", "bmm"):
        assert name in linalg.__all__
