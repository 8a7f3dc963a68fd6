"""Higher-order gradients through core.linalg and the running ops: core.grad(create_graph=True)
records the tensor-level backwards of inv, det, slogdet, solve, cholesky, triangular_solve,
pinv and eigh (and of what is built of them: cholesky_solve, lstsq, matrix_power, matrix_exp,
multi_dot, cond, norm), and of cummax / cummin, maxout and cumprod. Each is checked against
float64 finite differences of its first derivative (check_second_grad) on well-conditioned
random matrices, batched [B, n, n] where the op batches, and against torch's double backward."""
import numpy as np
import pytest

import core
import core.nn.functional as F
from core import linalg
from core.higher_order import SUPPORTED_OPS
from tests.gradcheck import assert_second_derivatives_match_torch, check_second_grad, cube, leaf

rng = np.random.default_rng(41)




def _well_conditioned(*batch, n=3):
    return rng.normal(size=batch + (n, n)) + 3 * np.eye(n)


def _spd(*batch, n=3):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _distinct_spectrum(*batch, n=3):
    """Symmetric matrices with eigenvalues 1, 2.5, 4, ... (well apart) in random bases."""
    q, _ = np.linalg.qr(rng.normal(size=batch + (n, n)))
    values = 1 + 1.5 * np.arange(n)
    return (q * values) @ np.swapaxes(q, -1, -2)


def sym(x):
    """The symmetric part: cholesky and eigh read one triangle, so finite differences of the
    raw input would see only that triangle; through sym both see the symmetric gradient."""
    return (x + x.mT) * 0.5


def _tsym(t):
    return (t + t.mT) * 0.5


A, A1 = _well_conditioned(2), _well_conditioned()
SPD, SPD1 = _spd(2), _spd()
SPECTRUM = _distinct_spectrum(2)
RHS, RHS_VEC = rng.normal(size=(3, 2)), rng.normal(size=3)
RIGHT_RHS = rng.normal(size=(2, 4, 3))
TALL = rng.normal(size=(2, 4, 3))
TALL_RHS = rng.normal(size=(4, 2))
SMALL = rng.normal(size=(2, 3, 3)) * 0.4  # matrix_exp: a low Padé degree
LARGE = rng.normal(size=(3, 3)) * 3  # matrix_exp: degree 13 with squarings
CHAIN = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
X = rng.normal(size=(3, 4))
ZEROS = np.where([[1, 0, 1, 1], [1, 1, 1, 0], [0, 1, 0, 1]], rng.uniform(0.5, 1.5, (3, 4)), 0.0)
CHANNELS = rng.normal(size=(2, 6, 3))
VECTORS = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
TRIPLES = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))


# name -> (core function, torch function of (torch, *tensors), input arrays)
CASES = {
    "inv": (linalg.inv, lambda torch, x: torch.linalg.inv(x), (A,)),
    "det": (linalg.det, lambda torch, x: torch.linalg.det(x), (A,)),
    "slogdet": (linalg.slogdet, lambda torch, x: torch.stack(torch.linalg.slogdet(x)), (A,)),
    "solve": (linalg.solve, lambda torch, x, y: torch.linalg.solve(x, y), (A, RHS)),
    "solve_vector": (linalg.solve, lambda torch, x, y: torch.linalg.solve(x, y), (A1, RHS_VEC)),
    "solve_right": (lambda x, y: linalg.solve(x, y, left=False),
                    lambda torch, x, y: torch.linalg.solve(x, y, left=False), (A, RIGHT_RHS)),
    "cholesky": (lambda x: linalg.cholesky(sym(x)),
                 lambda torch, x: torch.linalg.cholesky(_tsym(x)), (SPD,)),
    "cholesky_upper": (lambda x: linalg.cholesky(sym(x), upper=True),
                       lambda torch, x: torch.linalg.cholesky(_tsym(x), upper=True), (SPD1,)),
    "triangular_solve": (
        linalg.triangular_solve,
        lambda torch, x, y: torch.linalg.solve_triangular(x, y, upper=True), (A, RHS)),
    "triangular_solve_lower_transposed_unit": (
        lambda x, y: linalg.triangular_solve(x, y, upper=False, transpose=True,
                                             unitriangular=True),
        lambda torch, x, y: torch.linalg.solve_triangular(x.mT, y, upper=True,
                                                          unitriangular=True),
        (A1, RIGHT_RHS[:, :3, :2])),
    "cholesky_solve": (
        lambda b, f: linalg.cholesky_solve(b, linalg.cholesky(sym(f))),
        lambda torch, b, f: torch.cholesky_solve(b, torch.linalg.cholesky(_tsym(f))), (RHS, SPD)),
    "cholesky_inverse": (
        lambda f: linalg.cholesky_inverse(linalg.cholesky(sym(f), upper=True),
                                            upper=True),
        lambda torch, f: torch.cholesky_inverse(torch.linalg.cholesky(_tsym(f), upper=True),
                                                upper=True), (SPD1,)),
    "pinv": (linalg.pinv, lambda torch, x: torch.linalg.pinv(x), (TALL,)),
    "pinv_wide": (linalg.pinv, lambda torch, x: torch.linalg.pinv(x),
                  (np.swapaxes(TALL, -1, -2),)),
    "lstsq": (lambda x, y: linalg.lstsq(x, y)[0],
              lambda torch, x, y: torch.linalg.pinv(x) @ y, (TALL[0], TALL_RHS)),
    "eigvalsh": (lambda x: linalg.eigvalsh(sym(x)),
                 lambda torch, x: torch.linalg.eigvalsh(_tsym(x)), (SPECTRUM,)),
    # V's columns have arbitrary signs: the functions of V below do not depend on them
    "eigh_vectors": (lambda x: linalg.eigh(sym(x))[1] ** 2,
                     lambda torch, x: torch.linalg.eigh(_tsym(x))[1] ** 2, (SPECTRUM,)),
    "eigh_both": (lambda x: _eigh_rebuilt(*linalg.eigh(sym(x), UPLO="U")),
                  lambda torch, x: _eigh_rebuilt(*torch.linalg.eigh(_tsym(x))), (SPECTRUM,)),
    "matrix_power": (lambda x: linalg.matrix_power(x, 3),
                     lambda torch, x: torch.linalg.matrix_power(x, 3), (A * 0.5,)),
    "matrix_power_negative": (lambda x: linalg.matrix_power(x, -2),
                              lambda torch, x: torch.linalg.matrix_power(x, -2), (A,)),
    "matrix_exp": (linalg.matrix_exp, lambda torch, x: torch.linalg.matrix_exp(x), (SMALL,)),
    "matrix_exp_squared": (linalg.matrix_exp, lambda torch, x: torch.linalg.matrix_exp(x),
                           (LARGE,)),
    "multi_dot": (lambda a, b, c: linalg.multi_dot([a, b, c]),
                  lambda torch, a, b, c: torch.linalg.multi_dot([a, b, c]), CHAIN),
    "norm_fro": (lambda x: linalg.norm(x, "fro", axis=[-2, -1]),
                 lambda torch, x: torch.linalg.matrix_norm(x, "fro"), (A,)),
    # torch.linalg.cond's double backward fails (an in-place inverse): its definition instead
    "cond_fro": (lambda x: linalg.cond(x, "fro"), lambda torch, x: _torch_cond(torch, x, "fro"),
                 (A,)),
    "cond_inf": (lambda x: linalg.cond(x, np.inf),
                 lambda torch, x: _torch_cond(torch, x, np.inf), (A1,)),
    "dot": (linalg.dot, lambda torch, x, y: (x * y).sum(-1), VECTORS),
    "cross": (lambda x, y: core.cross(x, y), lambda torch, x, y: torch.linalg.cross(x, y, dim=1),
              TRIPLES),
    "addmm_beta_0": (lambda i, x, y: core.addmm(i, x, y, beta=0.0, alpha=1.5),
                     lambda torch, i, x, y: torch.addmm(i, x, y, beta=0.0, alpha=1.5),
                     (CHAIN[0] @ CHAIN[1] @ CHAIN[2] + 1, CHAIN[0], CHAIN[1] @ CHAIN[2])),
    "cummax": (lambda x: core.cummax(x, axis=1)[0],
               lambda torch, x: torch.cummax(x, 1).values, (X,)),
    "cummin_axis_0": (lambda x: core.cummin(x, axis=0)[0],
                      lambda torch, x: torch.cummin(x, 0).values, (X,)),
    "cummax_flattened": (lambda x: core.cummax(x)[0],
                         lambda torch, x: torch.cummax(x.reshape(-1), 0).values, (X,)),
    "maxout": (lambda x: F.maxout(x, 2, axis=1), None, (CHANNELS,)),
    "maxout_last_axis": (lambda x: F.maxout(x, 3, axis=-1), None, (CHANNELS,)),
    "cumprod": (lambda x: core.cumprod(x, dim=1), lambda torch, x: torch.cumprod(x, 1),
                (ZEROS,)),
    "cumprod_axis_0": (lambda x: core.cumprod(x, dim=0), lambda torch, x: torch.cumprod(x, 0),
                       (ZEROS,)),
    "cumprod_flattened": (core.cumprod, lambda torch, x: torch.cumprod(x.reshape(-1), 0),
                          (ZEROS,)),
}


def _torch_cond(torch, x, p):
    return torch.linalg.matrix_norm(x, p) * torch.linalg.matrix_norm(torch.linalg.inv(x), p)


def _eigh_rebuilt(w, v):
    """V diag(exp(w)) V^T: a sign-free function of both outputs."""
    return (v * w.exp().unsqueeze(-2)) @ v.mT


def _maxout_torch(torch, x, groups, axis):
    """maxout as torch has no such function: the max over each group's members (the first
    maximum's gradient, as core's, for distinct values)."""
    axis = axis % x.ndim
    shape = list(x.shape)
    grouped = x.reshape(shape[:axis] + [shape[axis] // groups, groups] + shape[axis + 1:])
    return grouped.max(axis + 1).values


_TORCH_MAXOUT = {"maxout": (2, 1), "maxout_last_axis": (3, -1)}


def _torch_fn(name):
    torch = pytest.importorskip("torch")
    _, tfn, _ = CASES[name]
    if tfn is None:
        groups, axis = _TORCH_MAXOUT[name]
        return lambda x: _maxout_torch(torch, x, groups, axis)
    return lambda *ts: tfn(torch, *ts)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_finite_differences(name):
    fn, _, arrays = CASES[name]
    check_second_grad(cube(fn), *arrays, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, _, arrays = CASES[name]
    assert_second_derivatives_match_torch(fn, _torch_fn(name), arrays, torch, rtol=1e-8,
                                          atol=1e-10)


@pytest.mark.parametrize("name", ["inv", "det", "solve", "cholesky", "eigh_both", "pinv",
                                  "triangular_solve", "cummax", "cumprod", "cross"])
def test_third_derivatives_match_torch(name):
    """The tensor-level backwards are built of recorded ops that have their own (inv, solve,
    eigh's outputs rebuilt, the gather of cummax_grad, cumprod again): a third derivative."""
    torch = pytest.importorskip("torch")
    fn, _, arrays = CASES[name]
    tfn = _torch_fn(name)
    xs = [leaf(a) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    (g1,) = core.grad(cube(fn)(*xs).sum(), xs[0], create_graph=True)
    (tg1,) = torch.autograd.grad(cube(tfn)(*ts).sum(), ts[0], create_graph=True)
    (g2,) = core.grad((g1 * g1 * g1).sum(), xs[0], create_graph=True)
    (tg2,) = torch.autograd.grad((tg1 * tg1 * tg1).sum(), ts[0], create_graph=True)
    (g2 * g2).sum().backward()
    (tg2 * tg2).sum().backward()
    np.testing.assert_allclose(g2.numpy(), tg2.detach().numpy(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(xs[0].gradient(), ts[0].grad.numpy(), rtol=1e-6, atol=1e-8)


def test_a_hessian_vector_product_of_a_log_determinant_matches_the_closed_form():
    """d/dA <inv(A)^T, V> = -inv(A)^T V^T inv(A)^T: the Hessian of log|det A| applied to V."""
    a, v = _well_conditioned(), rng.normal(size=(3, 3))
    x = leaf(a)
    (g,) = core.grad(linalg.slogdet(x)[1], x, create_graph=True)
    (hv,) = core.grad((g * core.to_tensor(v)).sum(), x)
    inv_t = np.linalg.inv(a).T
    np.testing.assert_allclose(g.numpy(), inv_t, rtol=1e-12)
    np.testing.assert_allclose(hv.numpy(), -inv_t @ v.T @ inv_t, rtol=1e-10, atol=1e-12)


def test_a_singular_matrix_gives_det_a_zero_gradient_on_both_paths():
    """As the array backward, the recorded one gives 0 where det(A) = 0 (a batch that mixes a
    singular matrix with a regular one keeps the regular one's gradient)."""
    a = np.stack([A1, [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 0.0]]])
    x = leaf(a)
    (first,) = core.grad((linalg.det(x) * core.to_tensor([1.0, 2.0])).sum(), x)
    (graph,) = core.grad((linalg.det(x) * core.to_tensor([1.0, 2.0])).sum(), x,
                         create_graph=True)
    np.testing.assert_allclose(graph.numpy(), first.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(graph.numpy()[1], 0)
    np.testing.assert_allclose(graph.numpy()[0], np.linalg.det(A1) * np.linalg.inv(A1).T,
                               rtol=1e-12)


def test_solve_broadcasts_batches_on_the_recorded_path():
    """A single matrix against a batch of right-hand sides: x's gradient is summed over the
    batch, as on the first-order path."""
    check_second_grad(cube(linalg.solve), A1, RIGHT_RHS[:, :3, :], rtol=1e-5, atol=1e-6)
    x, y = leaf(A1), leaf(RIGHT_RHS[:, :3, :])
    first = core.grad((linalg.solve(x, y) ** 2).sum(), [x, y])
    graph = core.grad((linalg.solve(x, y) ** 2).sum(), [x, y], create_graph=True)
    for f, g in zip(first, graph):
        np.testing.assert_allclose(g.numpy(), f.numpy(), rtol=1e-12)


def test_the_gradients_flow_to_one_input_alone():
    """An input that needs no gradient gets None from the tensor-level backward."""
    x, y = leaf(A), core.to_tensor(RHS)
    (g,) = core.grad((linalg.solve(x, y) ** 3).sum(), x, create_graph=True)
    (g * g).sum().backward()
    assert x.gradient() is not None and y.gradient() is None
    x, y = core.to_tensor(A1), leaf(RIGHT_RHS[0, :3, :2])
    (g,) = core.grad((linalg.triangular_solve(x, y) ** 3).sum(), y, create_graph=True)
    assert not g.stop_gradient and g.shape == [3, 2]


def test_cumprod_in_float32_keeps_its_dtype_and_a_dtype_argument_casts():
    x32 = core.to_tensor(ZEROS, dtype="float32", stop_gradient=False)
    (g,) = core.grad((core.cumprod(x32, dim=1) ** 2).sum(), x32, create_graph=True)
    assert g.dtype == core.float32
    (g64,) = core.grad((core.cumprod(x32, dim=1, dtype="float64") ** 2).sum(), x32,
                       create_graph=True)
    assert g64.dtype == core.float32
    np.testing.assert_allclose(g64.numpy(), g.numpy(), rtol=1e-5)


def test_cumprod_of_a_zero_dimensional_tensor():
    x = leaf(1.7)
    (g,) = core.grad(core.cumprod(x, dim=0) ** 3, x, create_graph=True)
    (h,) = core.grad(g, x)
    np.testing.assert_allclose(g.numpy(), 3 * 1.7 ** 2)
    np.testing.assert_allclose(h.numpy(), 6 * 1.7)


def test_cummax_of_a_zero_dimensional_tensor_and_ties():
    """A 0-D x is its own running maximum; among ties the gradient goes to the later index,
    as the first-order path (Paddle's kernel)."""
    x = leaf(0.4)
    (g,) = core.grad(core.cummax(x, axis=0)[0] ** 3, x, create_graph=True)
    (h,) = core.grad(g, x)
    np.testing.assert_allclose(h.numpy(), 6 * 0.4)
    x = leaf([1.0, 3.0, 3.0, 2.0])
    weights = core.to_tensor([1.0, 2.0, 3.0, 4.0])
    (first,) = core.grad((core.cummax(x, axis=0)[0] ** 2 * weights).sum(), x)
    (graph,) = core.grad((core.cummax(x, axis=0)[0] ** 2 * weights).sum(), x, create_graph=True)
    np.testing.assert_allclose(graph.numpy(), first.numpy())
    # out = [1, 3, 3, 3] from indices [0, 1, 2, 2]: the tie at 2 takes outputs 2 and 3
    np.testing.assert_allclose(graph.numpy(), [2.0, 2 * 3 * 2, 2 * 3 * (3 + 4), 0.0])


def test_create_graph_false_is_unchanged_for_the_new_ops():
    """The first-order path runs the array closures: the same numbers as backward()."""
    for name in ("inv", "cholesky", "eigh_vectors", "cumprod", "cummax", "maxout"):
        fn, _, arrays = CASES[name]
        xs = [leaf(a) for a in arrays]
        grads = core.grad(cube(fn)(*xs).sum(), xs)
        ys = [leaf(a) for a in arrays]
        cube(fn)(*ys).sum().backward()
        for g, y in zip(grads, ys):
            assert g.stop_gradient
            np.testing.assert_array_equal(g.numpy(), y.gradient())


def test_supported_list_names_the_new_ops():
    for op in ("inv", "det", "slogdet", "solve", "cholesky", "triangular_solve", "pinv", "eigh",
               "matrix_power", "cummax", "cummin", "cummax_grad", "cummin_grad", "maxout",
               "cumprod", "dot", "cross", "addmm"):
        assert any(entry.split(" ")[0] == op for entry in SUPPORTED_OPS), op


@pytest.mark.parametrize("fn, op", [
    (lambda x: linalg.qr(x, mode="r"), "qr"),
])
def test_the_forward_only_decompositions_are_still_refused_by_name(fn, op):
    """svd, qr, the singular-value norms and cond are supported now
    (tests/core/test_linalg_grads.py); qr with mode='r' (no Q, no gradient) is refused."""
    x = leaf(A1)
    with pytest.raises(NotImplementedError, match=f"the op '{op}' .*Nothing was computed"):
        core.grad((fn(x) ** 2).sum(), x, create_graph=True)


def test_matrix_power_zero_is_a_constant_with_a_zero_recorded_gradient():
    x = leaf(A1)
    (g,) = core.grad((linalg.matrix_power(x, 0) * x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), np.eye(3))
    (h,) = core.grad((g * x).sum(), x, allow_unused=True)
    np.testing.assert_array_equal(h.numpy(), np.eye(3))


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "solve", "cholesky", "pinv",
                                  "triangular_solve", "eigh_both", "cummax", "maxout",
                                  "cumprod"])
def test_float32_inputs_keep_float32_on_the_recorded_path(name):
    """The constant masks and identities of the tensor-level backwards take x's dtype."""
    fn, _, arrays = CASES[name]
    xs = [core.to_tensor(a, dtype="float32", stop_gradient=False) for a in arrays]
    grads = core.grad(cube(fn)(*xs).sum(), xs, create_graph=True)
    assert all(g.dtype == core.float32 for g in grads)
    sum((g * g).sum() for g in grads).backward()
    assert all(x.grad.dtype == core.float32 for x in xs)
