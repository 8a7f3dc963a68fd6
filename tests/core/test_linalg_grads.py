"""Gradients of core.linalg's svd and qr and of what is built of them (matrix_norm with p 'nuc'
or +-2, svd_lowrank, pca_lowrank), first order against float64 finite differences and torch,
second order (create_graph) against finite differences of the first derivative and torch's
double backward; and tril / triu under create_graph (with lu_unpack, householder_product and
cholesky_inverse, built of them). svd's losses are gauge-invariant (functions of S, of
U diag(S) VH, of U's and VH's squares): the singular vectors' signs are arbitrary."""
import numpy as np
import pytest

import core
from core import backend, linalg
from core.higher_order import SUPPORTED_OPS
from tests.gradcheck import check_grad, check_second_grad

rng = np.random.default_rng(73)
SHAPES = [(4, 4), (5, 3), (3, 5), (2, 5, 3), (2, 3, 5)]


def leaf(values):
    return core.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=False)


def distinct(shape):
    """A random matrix (or batch) of shape [..., m, n] with singular values 1, 1.7, 2.4, ...
    (well apart and away from 0) in random bases."""
    *batch, m, n = shape
    k = min(m, n)
    left, _ = np.linalg.qr(rng.normal(size=(*batch, m, k)))
    right, _ = np.linalg.qr(rng.normal(size=(*batch, n, k)))
    return (left * (1 + 0.7 * np.arange(k))) @ np.swapaxes(right, -1, -2)


def _k(x):
    return min(x.shape[-2:])


# gauge-invariant losses of svd's outputs: name -> (core loss of x, torch loss of tensor)
SVD_LOSSES = {
    "S": (lambda x: linalg.svd(x)[1] ** 3,
          lambda torch, x: torch.linalg.svd(x)[1] ** 3),
    "U^2": (lambda x: linalg.svd(x)[0] ** 2,
            lambda torch, x: torch.linalg.svd(x)[0] ** 2),
    "VH^2": (lambda x: linalg.svd(x)[2] ** 2,
             lambda torch, x: torch.linalg.svd(x)[2] ** 2),
    "U S VH": (lambda x: _rebuild(*linalg.svd(x)),
               lambda torch, x: _rebuild(*torch.linalg.svd(x))),
    "u1 v1": (lambda x: _first_pair(*linalg.svd(x)),
              lambda torch, x: _first_pair(*torch.linalg.svd(x))),
}


def _rebuild(u, s, vh):
    return (u * s.unsqueeze(-2)) @ vh


def _first_pair(u, s, vh):  # u_1 v_1^T: the signs of u_1 and v_1 flip together
    return u[..., :, :1] @ vh[..., :1, :] * s[..., :1].unsqueeze(-1)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("loss", sorted(SVD_LOSSES))
def test_svd_gradients_match_finite_differences(shape, loss):
    check_grad(SVD_LOSSES[loss][0], distinct(shape), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_gradients_match_torch_for_every_output_together(shape):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=shape)  # random, not constructed: distinct values almost surely
    k = min(shape[-2:])
    wu, wv = rng.normal(size=(shape[-2], k)), rng.normal(size=(k, shape[-1]))
    x = leaf(a)
    u, s, vh = linalg.svd(x)
    ((u ** 2 * core.to_tensor(wu)).sum() + (s ** 2).sum() + (vh ** 2 * core.to_tensor(wv)).sum()
     ).backward()
    tx = torch.tensor(a, requires_grad=True)
    tu, ts, tvh = torch.linalg.svd(tx, full_matrices=False)
    ((tu ** 2 * torch.tensor(wu)).sum() + (ts ** 2).sum()
     + (tvh ** 2 * torch.tensor(wv)).sum()).backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_svd_full_matrices_ignores_the_complement_as_torch(shape):
    """With full_matrices, U's columns and VH's rows past min(m, n) are any basis of the
    complement: their gradients are ignored (torch's rule), the rest is the reduced one's."""
    torch = pytest.importorskip("torch")
    a = distinct(shape)
    x = leaf(a)
    u, s, vh = linalg.svd(x, full_matrices=True)
    assert u.shape[-1] == shape[-2] and vh.shape[-2] == shape[-1]
    wu, wv = rng.normal(size=u.shape), rng.normal(size=vh.shape)
    ((u ** 2 * core.to_tensor(wu)).sum() + (vh ** 2 * core.to_tensor(wv)).sum()
     + s.sum()).backward()
    tx = torch.tensor(a, requires_grad=True)
    tu, ts, tvh = torch.linalg.svd(tx, full_matrices=True)
    ((tu ** 2 * torch.tensor(wu)).sum() + (tvh ** 2 * torch.tensor(wv)).sum()
     + ts.sum()).backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_svd_singular_values_gradient_at_repeated_values_and_the_degenerate_vectors():
    """S's gradient U diag(g) VH is fine at repeated singular values; the singular
    vectors' gradient divides by s_j^2 - s_i^2 and is not finite there, as torch's."""
    x = leaf(2 * np.eye(3))
    linalg.svd(x)[1].sum().backward()
    np.testing.assert_allclose(x.gradient(), np.eye(3), atol=1e-12)
    y = leaf(2 * np.eye(3))
    u = linalg.svd(y)[0]
    with np.errstate(divide="ignore", invalid="ignore"):  # the 1 / 0 is the point here
        (u * core.to_tensor(rng.normal(size=(3, 3)))).sum().backward()
    assert not np.isfinite(y.gradient()).all()


def test_svd_float32_gradient_keeps_the_dtype():
    x = core.to_tensor(distinct((4, 3)).astype("float32"), stop_gradient=False)
    linalg.svd(x)[1].sum().backward()
    assert x.gradient().dtype == np.float32
    u, _, vh = np.linalg.svd(x.numpy(), full_matrices=False)
    np.testing.assert_allclose(x.gradient(), u @ vh, rtol=1e-4, atol=1e-5)


# ----- qr --------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_qr_gradients_match_finite_differences(shape):
    a = rng.normal(size=shape) + np.eye(*shape[-2:])
    check_grad(lambda x: linalg.qr(x)[0], a)
    check_grad(lambda x: linalg.qr(x)[1], a)
    check_grad(lambda x: linalg.qr(x)[0] @ linalg.qr(x)[1][..., :, :1], a)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 3, 4)])
def test_qr_complete_with_no_more_rows_than_columns_is_differentiable(shape):
    a = rng.normal(size=shape) + np.eye(*shape[-2:])
    check_grad(lambda x: linalg.qr(x, mode="complete")[0] ** 3, a)
    check_grad(lambda x: linalg.qr(x, mode="complete")[1], a)


@pytest.mark.parametrize("shape", SHAPES)
def test_qr_gradients_match_torch(shape):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=shape)
    x = leaf(a)
    q, r = linalg.qr(x)
    wq, wr = rng.normal(size=q.shape), rng.normal(size=r.shape)
    ((q * core.to_tensor(wq)).sum() + (r ** 2 * core.to_tensor(wr)).sum()).backward()
    tx = torch.tensor(a, requires_grad=True)
    tq, tr = torch.linalg.qr(tx)
    ((tq * torch.tensor(wq)).sum() + (tr ** 2 * torch.tensor(wr)).sum()).backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_qr_backward_is_refused_where_it_is_not_defined():
    x = leaf(rng.normal(size=(4, 3)))
    with pytest.raises(RuntimeError, match=r"qr: no gradient .*mode='r' returns no Q"):
        linalg.qr(x, mode="r").sum().backward()
    q, r = linalg.qr(x, mode="complete")
    assert q.shape == [4, 4]
    with pytest.raises(RuntimeError, match=r"qr: no gradient .*mode='complete' with more rows "
                                           r"than columns.*use mode='reduced'"):
        q.sum().backward()
    with pytest.raises(RuntimeError, match="mode='complete' with more rows"):
        linalg.qr(x, mode="complete")[1].sum().backward()
    dependent = leaf(np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]))  # R[1, 1] is exactly 0
    with pytest.raises(ValueError, match=r"qr: the gradient needs x's leading min\(m, n\) "
                                         "columns to be linearly independent"):
        linalg.qr(dependent)[0].sum().backward()


def test_replaced_forward_only_error_left_the_forward_unchanged():
    """qr and svd give the same arrays as before (the backend's), gradient or not."""
    a = rng.normal(size=(2, 4, 3))
    xp, on_device = backend.xp(), core.to_tensor(a).data  # the current device's module
    for x in (core.to_tensor(a), leaf(a)):
        q, r = linalg.qr(x)
        np.testing.assert_array_equal(q.numpy(), backend.to_numpy(xp.linalg.qr(on_device)[0]))
        np.testing.assert_array_equal(r.numpy(), backend.to_numpy(xp.linalg.qr(on_device)[1]))
        for got, want in zip(linalg.svd(x), xp.linalg.svd(on_device, full_matrices=False)):
            np.testing.assert_array_equal(got.numpy(), backend.to_numpy(want))
    assert linalg.svd(core.to_tensor(a))[0].stop_gradient
    assert not linalg.svd(leaf(a))[1].stop_gradient


# ----- the singular-value norms and the low-rank decompositions --------------------------------

@pytest.mark.parametrize("p", ["nuc", 2, -2])
@pytest.mark.parametrize("axis, keepdim", [((-2, -1), False), ((0, 2), True), ((2, 0), False)])
def test_singular_value_norms_gradients(p, axis, keepdim):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4, 5))
    check_grad(lambda x: linalg.matrix_norm(x, p, list(axis), keepdim), a)
    check_grad(lambda x: core.norm(x, p, list(axis), keepdim) ** 2, a)
    x = leaf(a)
    (linalg.matrix_norm(x, p, list(axis), keepdim) ** 2).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (torch.linalg.matrix_norm(tx, p, dim=axis, keepdim=keepdim) ** 2).sum().backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_singular_value_norms_are_built_of_the_singular_values_alone():
    """The forward computes no singular vectors: the value matches numpy's, and the gradient
    of the nuclear norm is U VH, of the spectral norm u_1 v_1^T."""
    a = distinct((4, 3))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    for p, want in (("nuc", u @ vh), (2, np.outer(u[:, 0], vh[0])),
                    (-2, np.outer(u[:, -1], vh[-1]))):
        x = leaf(a)
        out = linalg.matrix_norm(x, p)
        assert out.item() == pytest.approx(np.linalg.norm(a, p), rel=1e-12)
        out.backward()
        np.testing.assert_allclose(x.gradient(), want, atol=1e-12)


@pytest.mark.parametrize("p", [None, 2, -2])
def test_condition_number_through_the_singular_values(p):
    """The ratio of the extreme singular values, differentiable (first and second order, as
    torch's cond), for cond's p None / 2 / -2 to use; a singular x gives inf."""
    torch = pytest.importorskip("torch")
    from core.linalg.decompositions import _singular_cond
    a = rng.normal(size=(2, 3, 4))
    check_grad(lambda x: _singular_cond(x, p), a)
    check_second_grad(lambda x: _singular_cond(x, p), a, rtol=1e-4, atol=1e-6)
    x = leaf(a)
    out = _singular_cond(x, p)
    np.testing.assert_allclose(out.numpy(), np.linalg.cond(a, p), rtol=1e-12)
    (out ** 2).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (torch.linalg.cond(tx, p) ** 2).sum().backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)
    singular = _singular_cond(core.to_tensor(np.diag([1.0, 0.0])), p).item()
    assert singular == (0.0 if p == -2 else np.inf)


def _seeded(fn):
    """fn run after core.seed(5): the same Gaussian sketch at every finite-difference step."""
    def run(x):
        core.seed(5)
        return fn(x)
    return run


@pytest.mark.parametrize("shape", [(6, 4), (2, 4, 6)])
def test_svd_lowrank_and_pca_lowrank_are_differentiable(shape):
    """With q = min(m, n) the sketch spans x's range, so the factors are exact: S's
    gradient is that of the full svd, U V^T; the rebuilt x's is the identity map's."""
    a = distinct(shape)
    check_grad(_seeded(lambda x: linalg.svd_lowrank(x, q=min(shape[-2:]))[1]), a)
    check_grad(_seeded(lambda x: (lambda u, s, v: (u * s.unsqueeze(-2)) @ v.mT)(
        *linalg.svd_lowrank(x, q=min(shape[-2:]), niter=1))), a)
    check_grad(_seeded(lambda x: linalg.pca_lowrank(x, q=min(shape[-2:]) - 1)[1] ** 2), a,
               rtol=1e-4, atol=1e-6)
    x = leaf(a)
    core.seed(5)
    linalg.svd_lowrank(x, q=min(shape[-2:]))[1].sum().backward()
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(x.gradient(), u @ vh, atol=1e-9)


# ----- second order (create_graph) --------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("loss", ["S", "U^2", "VH^2", "u1 v1"])
def test_svd_second_derivatives_match_finite_differences(shape, loss):
    check_second_grad(SVD_LOSSES[loss][0], distinct(shape), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_svd_full_matrices_second_derivatives(shape):
    k = min(shape)
    check_second_grad(lambda x: linalg.svd(x, full_matrices=True)[0][..., :, :k] ** 2,
                      distinct(shape), rtol=1e-4, atol=1e-6)
    check_second_grad(lambda x: linalg.svd(x, full_matrices=True)[2][..., :k, :] ** 2,
                      distinct(shape), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 4)])
def test_qr_second_derivatives_match_finite_differences(shape):
    a = rng.normal(size=shape) + np.eye(*shape[-2:])
    check_second_grad(lambda x: linalg.qr(x)[0], a, rtol=1e-4, atol=1e-6)
    check_second_grad(lambda x: linalg.qr(x)[1] ** 2, a, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_svd_and_qr_double_backward_match_torch(shape):
    torch = pytest.importorskip("torch")
    a = distinct(shape)
    w = rng.normal(size=shape)

    def core_value(x):
        u, s, vh = linalg.svd(x)
        q, r = linalg.qr(x)
        return ((u ** 2).sum(-1) * s[..., :1]).sum() + (vh ** 4).sum() + (q * r.sum()).sum()

    def torch_value(x):
        u, s, vh = torch.linalg.svd(x, full_matrices=False)
        q, r = torch.linalg.qr(x)
        return ((u ** 2).sum(-1) * s[..., :1]).sum() + (vh ** 4).sum() + (q * r.sum()).sum()

    x = leaf(a)
    (g,) = core.grad(core_value(x), x, create_graph=True)
    (g * core.to_tensor(w)).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (tg,) = torch.autograd.grad(torch_value(tx), tx, create_graph=True)
    (tg * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("p", ["nuc", 2, -2])
def test_singular_value_norms_second_derivatives(p):
    torch = pytest.importorskip("torch")
    a = distinct((2, 3, 4))
    check_second_grad(lambda x: linalg.matrix_norm(x, p) ** 2, a, rtol=1e-4, atol=1e-6)
    check_second_grad(lambda x: linalg.matrix_norm(x, p, [2, 0], keepdim=True), np.moveaxis(
        a, 0, 1), rtol=1e-4, atol=1e-6)
    x = leaf(a)
    (g,) = core.grad((linalg.matrix_norm(x, p) ** 3).sum(), x, create_graph=True)
    (g ** 2).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (tg,) = torch.autograd.grad((torch.linalg.matrix_norm(tx, p) ** 3).sum(), tx,
                                create_graph=True)
    (tg ** 2).sum().backward()
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_create_graph_false_is_unchanged_for_svd_and_qr():
    """The first-order path runs the array closures: the same numbers as backward()."""
    a = distinct((2, 4, 3))
    for fn in (lambda x: linalg.svd(x)[0] ** 2, lambda x: linalg.svd(x)[1],
               lambda x: linalg.qr(x)[0], lambda x: linalg.matrix_norm(x, "nuc")):
        x, y = leaf(a), leaf(a)
        (g,) = core.grad((fn(x) ** 3).sum(), x)
        (fn(y) ** 3).sum().backward()
        assert g.stop_gradient
        np.testing.assert_array_equal(g.numpy(), y.gradient())


# ----- tril / triu and what is built of them under create_graph --------------------------------

@pytest.mark.parametrize("fn", [core.tril, core.triu])
@pytest.mark.parametrize("diagonal", [-1, 0, 2])
def test_tril_and_triu_second_derivatives(fn, diagonal):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(2, 3, 4))
    check_second_grad(lambda x: fn(x, diagonal) ** 3, a)
    x = leaf(a)
    (g,) = core.grad((fn(x ** 2, diagonal) ** 2).sum(), x, create_graph=True)
    (g ** 2).sum().backward()
    name = fn.__name__
    tx = torch.tensor(a, requires_grad=True)
    (tg,) = torch.autograd.grad((getattr(torch, name)(tx ** 2, diagonal) ** 2).sum(), tx,
                                create_graph=True)
    (tg ** 2).sum().backward()
    np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-12)


def test_lu_unpack_householder_product_and_cholesky_inverse_under_create_graph():
    packed = rng.normal(size=(2, 4, 3))
    pivots = core.to_tensor(np.array([[1, 2, 3], [3, 2, 3]], dtype=np.int32))
    check_second_grad(lambda x: linalg.lu_unpack(x, pivots)[1] ** 3, packed)
    check_second_grad(lambda x: linalg.lu_unpack(x, pivots)[2] ** 3, packed)
    tau = rng.uniform(0.5, 1.5, size=(2, 3))
    check_second_grad(lambda x, t: linalg.householder_product(x, t) ** 2, packed, tau)
    low = np.tril(rng.normal(size=(2, 3, 3)), -1) + 2 * np.eye(3)
    check_second_grad(lambda x: linalg.cholesky_inverse(core.tril(x)), low, rtol=1e-4,
                      atol=1e-6)


def test_supported_list_names_the_new_ops():
    for op in ("svd", "qr", "tril", "triu", "matrix_norm"):
        assert any(entry.split(" ")[0] == op for entry in SUPPORTED_OPS), op


def test_qr_without_q_is_still_refused_under_create_graph():
    x = leaf(rng.normal(size=(4, 3)))
    with pytest.raises(NotImplementedError, match="the op 'qr' .*Nothing was computed"):
        core.grad((linalg.qr(x, mode="r") ** 2).sum(), x, create_graph=True)
