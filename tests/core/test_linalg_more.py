"""core.linalg beyond tests/core/test_linalg.py: cdist, triangular_solve, cholesky_solve,
cholesky_inverse, lstsq, lu / lu_unpack, householder_product, eig / eigvals / eigvalsh, cond,
matrix_rank, vecdot and matrix_transpose: values against numpy/torch and Paddle's documented
examples, gradients against float64 finite differences, bad arguments named in the errors."""
import numpy as np
import pytest

import core
from core import linalg
from tests.gradcheck import check_grad

rng = np.random.default_rng(41)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


def well_conditioned(*batch, n=3):
    return rng.normal(size=batch + (n, n)) + 3 * np.eye(n)


def lower_factor(*batch, n=3):
    """A lower triangular factor with a positive, well-separated diagonal."""
    return np.tril(rng.normal(size=batch + (n, n)), -1) + np.diag(rng.uniform(1, 2, n))


# ----- cdist ------------------------------------------------------------------------------------

def test_cdist_follows_paddles_example():
    x = t([[0.9041, 0.0196], [-0.3108, -2.4423], [-0.4821, 1.059]], "float32")
    y = t([[-2.1763, -0.4713], [-0.6986, 1.3702]], "float32")
    np.testing.assert_allclose(core.cdist(x, y).numpy(),
                               [[3.1193, 2.0959], [2.7138, 3.8322], [2.2830, 0.3791]],
                               atol=1e-4)
    assert x.cdist(y).dtype == core.float32


@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, np.inf])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist_matches_torch_with_broadcast_batches(p, mode):
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 1, 30, 3)), rng.normal(size=(4, 5, 3))
    got = linalg.cdist(t(a), t(b), p, mode)
    want = torch.cdist(torch.tensor(a), torch.tensor(b), p=p, compute_mode=mode)
    assert got.shape == [2, 4, 30, 5]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, np.inf])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_gradients(p, mode):
    a, b = rng.normal(size=(2, 4, 3)), rng.normal(size=(1, 5, 3))
    check_grad(lambda x, y: linalg.cdist(x, y, p, mode), a, b)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_cdist_gradient_matches_torch(p):
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    x, y = t(a, grad=True), t(b, grad=True)
    core.cdist(x, y, p).sum().backward()
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    torch.cdist(ta, tb, p=p).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ta.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(y.grad.numpy(), tb.grad.numpy(), rtol=1e-9)


def test_cdist_gradient_is_zero_at_zero_distance():
    a = rng.normal(size=(3, 2))
    for p in (2, 1, 0.5):
        x = t(a, grad=True)
        core.cdist(x, t(a[:1]), p).sum().backward()
        assert np.isfinite(x.grad.numpy()).all()
        np.testing.assert_array_equal(x.grad.numpy()[0], 0)


def test_cdist_rejects_bad_arguments():
    x = t(rng.normal(size=(3, 2)))
    with pytest.raises(ValueError, match="cdist: p must be a non-negative"):
        core.cdist(x, x, p=-1)
    with pytest.raises(ValueError, match="cdist: compute_mode must be one of"):
        core.cdist(x, x, compute_mode="fast")
    with pytest.raises(ValueError, match="same number of columns"):
        core.cdist(x, t(rng.normal(size=(3, 4))))
    with pytest.raises(ValueError, match="cdist: y must be a matrix"):
        core.cdist(x, t([1.0, 2.0]))
    with pytest.raises(ValueError, match="batch dimensions"):
        core.cdist(t(rng.normal(size=(2, 3, 2))), t(rng.normal(size=(3, 3, 2))))
    with pytest.raises(TypeError, match="cdist: x must be a floating"):
        core.cdist(t([[1, 2]]), x)


# ----- triangular_solve, cholesky_solve, cholesky_inverse ---------------------------------------

@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_triangular_solve_values_and_gradients(upper, transpose, unitriangular):
    torch = pytest.importorskip("torch")
    a, b = well_conditioned(2, n=3), rng.normal(size=(1, 3, 2))
    got = linalg.triangular_solve(t(a), t(b), upper, transpose, unitriangular)
    ta = torch.tensor(a)
    ta = ta.triu() if upper else ta.tril()
    ta, upper_t = (ta.mT, not upper) if transpose else (ta, upper)
    want = torch.linalg.solve_triangular(ta, torch.tensor(b), upper=upper_t,
                                         unitriangular=unitriangular)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    check_grad(lambda x, y: linalg.triangular_solve(x, y, upper, transpose, unitriangular), a, b)


def test_triangular_solve_errors():
    a = np.triu(well_conditioned())
    a[1, 1] = 0
    with pytest.raises(ValueError, match="triangular_solve: x has a zero on its diagonal"):
        linalg.triangular_solve(t(a), t(np.ones((3, 1))))
    with pytest.raises(ValueError, match=r"triangular_solve: y must be \[..., 3, k\]"):
        linalg.triangular_solve(t(well_conditioned()), t(np.ones(3)))
    with pytest.raises(ValueError, match="triangular_solve: x must be a square"):
        linalg.triangular_solve(t(np.ones((2, 3))), t(np.ones((2, 1))))


def test_cholesky_solve_follows_paddles_example_and_torch():
    torch = pytest.importorskip("torch")
    u = t([[1, 1, 1], [0, 2, 1], [0, 0, -1]], "float64")
    b = t([[0], [-9], [5]], "float64")
    np.testing.assert_allclose(linalg.cholesky_solve(b, u, upper=True).numpy().ravel(),
                               [-2.5, -7, 9.5])
    low, rhs = lower_factor(2), rng.normal(size=(2, 3, 4))
    for upper, factor in ((False, low), (True, np.swapaxes(low, -1, -2))):
        got = linalg.cholesky_solve(t(rhs), t(factor), upper=upper)
        want = torch.cholesky_solve(torch.tensor(rhs), torch.tensor(factor), upper=upper)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
        check_grad(lambda x, y, up=upper: linalg.cholesky_solve(x, y, up), rhs, factor)
    assert t(rhs).cholesky_solve(t(low)).shape == [2, 3, 4]


def test_cholesky_inverse_follows_paddles_example_and_inverts():
    x = t([[3.0, 0.0, 0.0], [5.0, 3.0, 0.0], [-1.0, 1.0, 2.0]], "float32")
    want = [[0.61728382, -0.25925916, 0.22222219], [-0.25925916, 0.13888884, -0.08333331],
            [0.22222218, -0.08333331, 0.25]]
    np.testing.assert_allclose(linalg.cholesky_inverse(x).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(linalg.cholesky_inverse(x.t(), upper=True).numpy(), want,
                               rtol=1e-5)
    low = lower_factor(2)
    np.testing.assert_allclose(linalg.cholesky_inverse(t(low)).numpy(),
                               np.linalg.inv(low @ np.swapaxes(low, -1, -2)), rtol=1e-10)
    check_grad(linalg.cholesky_inverse, low)
    with pytest.raises(ValueError, match="cholesky_inverse: x must be a square"):
        linalg.cholesky_inverse(t(np.ones((2, 3))))


# ----- lstsq ------------------------------------------------------------------------------------

def test_lstsq_follows_paddles_example():
    x = t([[1, 3], [3, 2], [5, 6.0]], "float32")
    y = t([[3, 4, 6], [5, 3, 4], [1, 2, 1.0]], "float32")
    solution, residuals, rank, singular = linalg.lstsq(x, y, driver="gelsd")
    np.testing.assert_allclose(solution.numpy(), [[0.78350395, -0.22165027, -0.62371236],
                                                  [-0.11340097, 0.78866047, 1.14948535]],
                               rtol=1e-4)
    np.testing.assert_allclose(residuals.numpy(), [19.81443405, 10.43814468, 30.56185532],
                               rtol=1e-4)
    assert rank.item() == 2 and rank.dtype == core.int32
    np.testing.assert_allclose(singular.numpy(), [9.03455734, 1.54167950], rtol=1e-5)


def test_lstsq_drivers_batches_and_numpy():
    a, b = rng.normal(size=(3, 6, 4)), rng.normal(size=(3, 6, 2))
    for driver, has_rank, has_sv in ((None, True, False), ("gels", False, False),
                                     ("gelsy", True, False), ("gelss", True, True)):
        solution, residuals, rank, singular = linalg.lstsq(t(a), t(b), driver=driver)
        for i in range(3):
            want, res, _, s = np.linalg.lstsq(a[i], b[i], rcond=None)
            np.testing.assert_allclose(solution.numpy()[i], want, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(residuals.numpy()[i], res, rtol=1e-9)
            if has_sv:
                np.testing.assert_allclose(singular.numpy()[i], s, rtol=1e-10)
        assert rank.shape == ([3] if has_rank else [0])
        assert singular.shape == ([3, 4] if has_sv else [0])
    # wide (fewer equations than unknowns): no residuals
    _, residuals, rank, _ = linalg.lstsq(t(rng.normal(size=(2, 5))), t(rng.normal(size=(2, 1))))
    assert residuals.shape == [0] and rank.item() == 2


def test_lstsq_minimum_norm_and_gradient():
    wide, rhs = rng.normal(size=(2, 5)), rng.normal(size=(2, 1))
    solution = linalg.lstsq(t(wide), t(rhs))[0]
    np.testing.assert_allclose(solution.numpy(), np.linalg.pinv(wide) @ rhs, rtol=1e-9)
    a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    check_grad(lambda x, y: linalg.lstsq(x, y)[0], a, b)
    check_grad(lambda x, y: linalg.lstsq(x, y)[1], a, b)


def test_lstsq_rejects_bad_arguments():
    x = t(rng.normal(size=(4, 2)))
    with pytest.raises(ValueError, match="lstsq: driver must be None or one of"):
        linalg.lstsq(x, x, driver="gesv")
    with pytest.raises(ValueError, match="lstsq: rcond must be"):
        linalg.lstsq(x, x, rcond=-1.0)
    with pytest.raises(ValueError, match=r"lstsq: y must be \[..., 4, k\]"):
        linalg.lstsq(x, t(rng.normal(size=(3, 2))))
    with pytest.raises(TypeError, match="lstsq: x and y must have the same dtype"):
        linalg.lstsq(x, t(rng.normal(size=(4, 1)), "float32"))


# ----- lu, lu_unpack, householder_product -------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (5, 3), (3, 5)])
def test_lu_matches_torch_and_unpacks_to_x(shape):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=shape)
    packed, pivots, infos = linalg.lu(t(a), get_infos=True)
    want, want_piv = torch.linalg.lu_factor(torch.tensor(a))
    np.testing.assert_allclose(packed.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(pivots.numpy(), want_piv.numpy())
    assert pivots.dtype == core.int32 and infos.dtype == core.int32
    np.testing.assert_array_equal(infos.numpy(), 0)
    p, low, up = linalg.lu_unpack(packed, pivots)
    tp, tl, tu = torch.lu_unpack(want, want_piv)
    for got, ref in ((p, tp), (low, tl), (up, tu)):
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose((p.numpy() @ low.numpy()) @ up.numpy(), a, rtol=1e-10, atol=1e-12)


def test_lu_without_pivoting_singular_infos_and_partial_unpack():
    a = well_conditioned(n=4)
    packed, pivots = t(a).lu(pivot=False)
    np.testing.assert_array_equal(pivots.numpy(), [1, 2, 3, 4])
    _, low, up = linalg.lu_unpack(packed, pivots)
    np.testing.assert_allclose(low.numpy() @ up.numpy(), a, rtol=1e-10)
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    infos = linalg.lu(t(singular), get_infos=True)[2]
    np.testing.assert_array_equal(infos.numpy(), [2, 0])
    p, low, up = linalg.lu_unpack(packed, pivots, unpack_ludata=False)
    assert low.shape == [0] and up.shape == [0] and p.shape == [4, 4]
    p, low, _ = linalg.lu_unpack(packed, pivots, unpack_pivots=False)
    assert p.shape == [0] and low.shape == [4, 4]


def test_lu_gradients():
    a = well_conditioned(2, n=4)
    check_grad(lambda x: linalg.lu(x)[0], a)
    # through lu_unpack (L and U are tril / triu of the packed factors)
    check_grad(lambda x: linalg.lu_unpack(*linalg.lu(x))[1], a)
    check_grad(lambda x: linalg.lu_unpack(*linalg.lu(x))[2], a)


def test_lu_backward_of_a_rectangular_matrix_names_the_op():
    x = t(rng.normal(size=(4, 3)), grad=True)
    with pytest.raises(RuntimeError, match="lu: no gradient"):
        linalg.lu(x)[0].sum().backward()


def test_lu_and_lu_unpack_reject_bad_arguments():
    with pytest.raises(ValueError, match="lu: x must be a floating matrix"):
        linalg.lu(t([1.0, 2.0]))
    with pytest.raises(TypeError, match="lu: pivot must be a bool"):
        linalg.lu(t(np.eye(2)), pivot="yes")
    packed, pivots = linalg.lu(t(np.eye(3)))
    with pytest.raises(ValueError, match="lu_unpack: y must be lu's integer pivots"):
        linalg.lu_unpack(packed, t([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"lu_unpack: y must be .* of shape \[3\]"):
        linalg.lu_unpack(packed, pivots[:2])


def test_householder_product_matches_torch_and_qr():
    torch = pytest.importorskip("torch")
    a, tau = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 2))
    got = linalg.householder_product(t(a), t(tau))
    want = torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    check_grad(linalg.householder_product, a, tau)
    # from LAPACK's geqrf reflectors, the product is QR's Q
    reflectors, taus = torch.geqrf(torch.tensor(a[0]))
    q = linalg.householder_product(t(reflectors.numpy()), t(taus.numpy()))
    np.testing.assert_allclose(np.abs(q.numpy()), np.abs(np.linalg.qr(a[0])[0]), rtol=1e-9)


def test_householder_product_rejects_bad_arguments():
    with pytest.raises(ValueError, match="householder_product: x must have at least as many"):
        linalg.householder_product(t(np.ones((2, 3))), t(np.ones(2)))
    with pytest.raises(ValueError, match=r"householder_product: tau must be \[..., k\]"):
        linalg.householder_product(t(np.ones((4, 3))), t(np.ones(4)))
    with pytest.raises(TypeError, match="same dtype"):
        linalg.householder_product(t(np.ones((4, 3))), t(np.ones(2), "float32"))


# ----- eig, eigvals, eigvalsh -------------------------------------------------------------------

def test_eig_returns_complex_eigenpairs():
    a = rng.normal(size=(2, 4, 4))
    w, v = linalg.eig(t(a))
    assert w.dtype == np.complex128 and v.shape == [2, 4, 4]
    wn, vn = w.numpy(), v.numpy()
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], atol=1e-10)
    np.testing.assert_allclose(np.sort_complex(wn[0]), np.sort_complex(np.linalg.eigvals(a[0])),
                               rtol=1e-10)
    vals = t(a, "float32").eigvals()
    assert vals.dtype == np.complex64
    np.testing.assert_allclose(np.sort_complex(vals.numpy()[1]),
                               np.sort_complex(np.linalg.eigvals(a[1])), rtol=1e-4)
    # a symmetric matrix: real eigenvalues, still a complex tensor (as Paddle)
    assert linalg.eigvals(t(np.eye(2))).dtype == np.complex128


def test_eig_and_eigvals_are_forward_only_and_check_inputs():
    x = t(rng.normal(size=(3, 3)), grad=True)
    with pytest.raises(RuntimeError, match="eig: no gradient"):
        linalg.eig(x)[1].sum().backward()
    with pytest.raises(RuntimeError, match="eigvals: no gradient"):
        linalg.eigvals(x).sum().backward()
    with pytest.raises(ValueError, match="eig: x must be a square"):
        linalg.eig(t(np.ones((2, 3))))
    with pytest.raises(ValueError, match="eigvals: x has inf or NaN"):
        linalg.eigvals(t([[np.nan, 0.0], [0.0, 1.0]]))


def test_eigvalsh_values_gradient_and_top_level_name():
    a = rng.normal(size=(2, 4, 4))
    sym = a + np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(core.eigvalsh(t(sym)).numpy(), np.linalg.eigvalsh(sym),
                               rtol=1e-10)
    np.testing.assert_allclose(t(np.triu(sym)).eigvalsh(UPLO="U").numpy(),
                               np.linalg.eigvalsh(sym), rtol=1e-10)

    def symmetric(x):
        return linalg.eigvalsh((x + linalg.matrix_transpose(x)) * 0.5)

    check_grad(symmetric, a)
    with pytest.raises(ValueError, match="eigh: UPLO must be 'L' or 'U'"):
        linalg.eigvalsh(t(sym), UPLO="X")


# ----- cond, matrix_rank ------------------------------------------------------------------------

@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf])
def test_cond_matches_numpy(p):
    a = rng.normal(size=(3, 4, 4))
    np.testing.assert_allclose(linalg.cond(t(a), p).numpy(), np.linalg.cond(a, p), rtol=1e-9)


def test_cond_of_a_rectangular_matrix_gradients_and_errors():
    a = rng.normal(size=(5, 3))
    assert t(a).cond().item() == pytest.approx(np.linalg.cond(a))
    for p in ("fro", 1, np.inf):
        check_grad(lambda x, q=p: linalg.cond(x, q), well_conditioned(2))
    for p in (None, 2, -2):  # through the singular values: largest / smallest and inverse
        check_grad(lambda x, q=p: linalg.cond(x, q), a)
        check_grad(lambda x, q=p: linalg.cond(x, q), well_conditioned(2))
    with pytest.raises(ValueError, match="cond: p must be None, 'fro'"):
        linalg.cond(t(np.eye(2)), p=3)
    with pytest.raises(ValueError, match="cond: p='fro' needs square matrices"):
        linalg.cond(t(a), "fro")
    with pytest.raises(ValueError, match="cond: x is singular"):
        linalg.cond(t(np.ones((2, 2))), 1)
    assert np.isinf(linalg.cond(t([[1.0, 0.0], [0.0, 0.0]])).item())


def test_matrix_rank_follows_paddles_examples():
    assert linalg.matrix_rank(core.eye(10)).item() == 10
    d = linalg.matrix_rank(core.ones([3, 4, 5, 5]), tol=0.01, hermitian=True)
    assert d.shape == [3, 4] and d.dtype == core.int64
    np.testing.assert_array_equal(d.numpy(), 1)


def test_matrix_rank_matches_torch_thresholds():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(4, 6, 3)) @ rng.normal(size=(4, 3, 5))  # rank 3
    a[0] *= 1e-3
    ta = torch.tensor(a)
    assert t(a).matrix_rank().numpy().tolist() == [3, 3, 3, 3]
    for kwargs in ({"atol": 1.0}, {"rtol": 0.2}, {"atol": 0.5, "rtol": 0.1}, {"atol": 0.0}):
        np.testing.assert_array_equal(linalg.matrix_rank(t(a), **kwargs).numpy(),
                                      torch.linalg.matrix_rank(ta, **kwargs).numpy())
    tol = t([1.0, 1e-9, 1.0, 1e9])
    np.testing.assert_array_equal(linalg.matrix_rank(t(a), tol=tol).numpy(),
                                  (np.linalg.svd(a, compute_uv=False)
                                   > tol.numpy()[:, None]).sum(-1))
    sym = a[1] @ a[1].T
    assert linalg.matrix_rank(t(sym), hermitian=True).item() == 3


def test_matrix_rank_rejects_bad_arguments():
    x = t(np.eye(3))
    with pytest.raises(ValueError, match="matrix_rank: give tol alone"):
        linalg.matrix_rank(x, tol=0.1, atol=0.1)
    with pytest.raises(ValueError, match="matrix_rank: hermitian=True needs square"):
        linalg.matrix_rank(t(np.ones((2, 3))), hermitian=True)
    with pytest.raises(TypeError, match="matrix_rank: tol must be None, a number or a Tensor"):
        linalg.matrix_rank(x, tol="small")
    with pytest.raises(ValueError, match="matrix_rank: x must be a floating matrix"):
        linalg.matrix_rank(t([1.0]))


# ----- vecdot, matrix_transpose, names ----------------------------------------------------------

def test_vecdot_and_matrix_transpose():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4))
    got = linalg.vecdot(t(a), t(b), axis=1)
    np.testing.assert_allclose(got.numpy(),
                               torch.linalg.vecdot(torch.tensor(a), torch.tensor(b), dim=1),
                               rtol=1e-12)
    check_grad(lambda x, y: linalg.vecdot(x, y), a, b)
    assert t(a).vecdot(t(b)).shape == [2, 3]
    np.testing.assert_array_equal(linalg.matrix_transpose(t(a)).numpy(),
                                  np.swapaxes(a, -1, -2))
    check_grad(linalg.matrix_transpose, a)
    with pytest.raises(ValueError, match="vecdot: x of shape .* do not broadcast"):
        linalg.vecdot(t(a), t(np.ones(5)))
    with pytest.raises(ValueError, match="vecdot: axis 3 is out of range"):
        linalg.vecdot(t(a), t(b), axis=3)
    with pytest.raises(ValueError, match="matrix_transpose: x must have at least 2"):
        linalg.matrix_transpose(t([1.0]))


def test_paddles_top_level_names_and_tensor_methods():
    a = well_conditioned()
    np.testing.assert_allclose(core.inverse(t(a)).numpy(), np.linalg.inv(a), rtol=1e-10)
    spd = a @ a.T
    np.testing.assert_allclose(core.cholesky(t(spd)).numpy(), np.linalg.cholesky(spd),
                               rtol=1e-10)
    for name in ("cdist", "cholesky_solve", "cholesky_inverse", "triangular_solve", "lstsq",
                 "lu", "lu_unpack", "householder_product", "eig", "eigvals", "eigvalsh", "cond",
                 "matrix_rank", "vecdot", "matrix_transpose"):
        assert getattr(core.Tensor, name) is getattr(linalg, name)
        assert name in linalg.__all__
