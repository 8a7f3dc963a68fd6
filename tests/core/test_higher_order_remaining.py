"""Higher-order gradients of the ops that refused ``create_graph`` last: multi_margin_loss with
p >= 2, pairwise_distance with p < 0 (and +-inf), cdist (and pdist) with p != 2, ctc_loss and
the fractional max pools. Each is checked against float64 finite differences of its first
derivative and, where torch has the op with a double backward (or can compose it), against
torch; the first derivative on the create_graph path is the first-order path's."""
import numpy as np
import pytest

import core
import core.nn.functional as F
from core.higher_order import SUPPORTED_OPS
from tests.gradcheck import (
    _weights,
    assert_second_derivatives_match_torch,
    assert_third_order_matches_torch,
    check_second_grad,
    cube,
    leaf,
)

rng = np.random.default_rng(29)
INF = float("inf")




def _first_orders_agree(fn, *arrays):
    """The gradient the create_graph path records is the first-order path's gradient."""
    xs = [leaf(a) for a in arrays]
    recorded = core.grad(fn(*xs).sum(), xs, create_graph=True)
    plain = core.grad(fn(*xs).sum(), xs)
    for r, p in zip(recorded, plain):
        np.testing.assert_allclose(r.numpy(), p.numpy(), rtol=1e-12, atol=1e-13)


def _check_third_grad(fn, array, rtol=1e-5, atol=1e-7, eps=1e-6):
    """The third derivative (the gradient of a contracted second derivative, itself taken
    with create_graph) against central differences of that second derivative."""
    def second(x, create_graph):
        out = fn(x)
        (g1,) = core.grad((out * core.to_tensor(_weights(out.shape))).sum(), x,
                          create_graph=True)
        (g2,) = core.grad((g1 * g1).sum(), x, create_graph=create_graph)
        return (g2 * core.to_tensor(_weights(g2.shape) - 1.1)).sum()

    x = leaf(array)
    second(x, True).backward()
    base = np.array(array, dtype="float64")
    expected = np.zeros_like(base)
    for k in np.ndindex(base.shape):
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved[k] += step
            values.append(float(second(leaf(moved), False).item()))
        expected[k] = (values[0] - values[1]) / (2 * eps)
    np.testing.assert_allclose(x.gradient(), expected, rtol=rtol, atol=atol)


def _assert_double_backward_matches_torch(fn, tfn, arrays, rtol=1e-9, atol=1e-11):
    """Gradients of fn(...) ** 3 with create_graph, and the gradients of their squares, as
    torch's."""
    torch = pytest.importorskip("torch")
    assert_second_derivatives_match_torch(fn, tfn, arrays, torch, rtol=rtol, atol=atol)


# ----- multi_margin_loss, p >= 2 --------------------------------------------------------------

SCORES = rng.standard_normal((4, 5))
LABELS = np.array([1, 0, 4, 2])
CLASS_WEIGHT = rng.uniform(0.5, 2.0, 5)


def _multi_margin(p, weight=None, reduction="mean", margin=0.8):
    w = None if weight is None else core.to_tensor(weight)
    return lambda x: F.multi_margin_loss(x, core.to_tensor(LABELS), p=p, margin=margin,
                                         weight=w, reduction=reduction)


@pytest.mark.parametrize("p", [2, 3])
@pytest.mark.parametrize("weight", [None, CLASS_WEIGHT])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_margin_loss_second_derivatives(p, weight, reduction):
    fn = _multi_margin(p, weight, reduction)
    check_second_grad(cube(fn), SCORES)
    _first_orders_agree(fn, SCORES)


def _torch_multi_margin(p, weight, labels, margin):
    """torch's multi_margin_loss has no double backward: its formula, the hinge a relu (zero
    slope at 0, as core's strict mask)."""
    torch = pytest.importorskip("torch")

    def loss(x):
        lab = torch.tensor(labels)
        picked = x[torch.arange(x.shape[0]), lab][:, None]
        others = 1 - torch.nn.functional.one_hot(lab, x.shape[1]).double()
        rows = (torch.relu(margin - picked + x) ** p * others).sum(1) / x.shape[1]
        return rows * (1 if weight is None else torch.tensor(weight)[lab])
    return loss


@pytest.mark.parametrize("p", [2, 3])
@pytest.mark.parametrize("weight", [None, CLASS_WEIGHT])
def test_multi_margin_loss_matches_torch(p, weight):
    torch = pytest.importorskip("torch")
    fn = _multi_margin(p, weight, "none")
    _assert_double_backward_matches_torch(fn, _torch_multi_margin(p, weight, LABELS, 0.8),
                                          (SCORES,))
    if p > 2:  # torch's own op takes p 1 or 2
        return
    # and torch's own op agrees at first order
    x, t = leaf(SCORES), torch.tensor(SCORES, requires_grad=True)
    (g,) = core.grad(fn(x).sum(), x, create_graph=True)
    tw = None if weight is None else torch.tensor(weight)
    torch.nn.functional.multi_margin_loss(t, torch.tensor(LABELS), p=p, margin=0.8, weight=tw,
                                          reduction="sum").backward()
    np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_multi_margin_loss_hinges_exactly_at_zero_have_no_curvature():
    """margin - x[label] + x[j] == 0 exactly: the hinge is inactive (strict, as the first
    order's mask), so it adds neither slope nor curvature; the others still do."""
    scores = np.array([[1.0, 2.0, 1.0, 0.5], [0.0, -1.0, 0.5, -1.0]])
    labels = np.array([1, 0])  # row 0: columns 0 and 2 sit at z = 0; row 1: 1 and 3 do
    fn = lambda x: F.multi_margin_loss(x, core.to_tensor(labels), p=2, margin=1.0,  # noqa: E731
                                       reduction="sum")
    x = leaf(scores)
    (g,) = core.grad(fn(x), x, create_graph=True)
    (h,) = core.grad((g * core.to_tensor(_weights([2, 4]))).sum(), x)
    # Only row 1's column 2 is active (z = 1.5): d2/dx2 of (z^2 / 4) is 1/2 on (label, label),
    # (2, 2) and -1/2 across them, contracted with the weights.
    w = _weights([2, 4])
    expected = np.zeros((2, 4))
    expected[1, 0] = 0.5 * (w[1, 0] - w[1, 2])
    expected[1, 2] = 0.5 * (w[1, 2] - w[1, 0])
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g.numpy()[0], 0.0, atol=0)
    _assert_double_backward_matches_torch(fn, _torch_multi_margin(2, None, labels, 1.0), (scores,))


# ----- pairwise_distance, any p -----------------------------------------------------------------

A = rng.standard_normal((3, 4))
B = rng.standard_normal((3, 4))


@pytest.mark.parametrize("p", [-1.5, -1.0, -0.5, -INF, INF, 0.0, 3.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_second_derivatives(p, keepdim):
    fn = lambda x, y: F.pairwise_distance(x, y, p, keepdim=keepdim)  # noqa: E731
    check_second_grad(cube(fn), A, B)
    _first_orders_agree(fn, A, B)


@pytest.mark.parametrize("p", [-1.5, -1.0, -INF, INF, 3.0])
def test_pairwise_distance_matches_torch(p):
    torch = pytest.importorskip("torch")
    _assert_double_backward_matches_torch(lambda x, y: F.pairwise_distance(x, y, p),
                  lambda x, y: torch.nn.functional.pairwise_distance(x, y, p), (A, B))


def test_pairwise_distance_broadcast_and_float_y_of_another_dtype():
    check_second_grad(cube(lambda x, y: F.pairwise_distance(x, y, -2.0)), A, B[0])
    x = leaf(A)
    y = core.to_tensor(B.astype("float32"), stop_gradient=False)
    (gx, gy) = core.grad((F.pairwise_distance(x, y, -1.0) ** 2).sum(), [x, y], create_graph=True)
    ((gx * gx).sum() + (gy * gy).sum()).backward()
    assert gy.dtype == core.float32 and y.grad.dtype == core.float32
    assert np.isfinite(x.grad.numpy()).all() and np.isfinite(y.grad.numpy()).all()


@pytest.mark.parametrize("p", [-1.5, 0.5, 2.0, 3.0])
def test_pairwise_distance_zero_differences_give_zero_derivatives(p):
    """epsilon=0 and x == y in row 0 (a zero distance: every gradient 0, as Paddle's p_norm),
    and for p < 0 a zero difference in row 1 (the norm is 0 there: again 0); the finite rows
    still get their curvature, and nothing is NaN."""
    a, b = A.copy(), B.copy()
    b[0] = a[0]
    b[1, 2] = a[1, 2]
    fn = lambda x, y: F.pairwise_distance(x, y, p, epsilon=0.0)  # noqa: E731
    x, y = leaf(a), leaf(b)
    (gx, gy) = core.grad((fn(x, y) ** 3).sum(), [x, y], create_graph=True)
    ((gx * gx).sum() + (gy * gy).sum()).backward()
    for t in (gx, gy):
        assert np.isfinite(t.numpy()).all()
    for t in (x, y):
        assert np.isfinite(t.grad.numpy()).all()
        np.testing.assert_allclose(t.grad.numpy()[0], 0.0, atol=0)
    if p < 0:
        np.testing.assert_allclose(gx.numpy()[1], 0.0, atol=0)
        np.testing.assert_allclose(x.grad.numpy()[1], 0.0, atol=0)
    # the other rows: as without the special rows
    rest = lambda x, y: fn(x, y)[2:]  # noqa: E731
    check_second_grad(cube(rest), a, b)


# ----- cdist and pdist, any p -----------------------------------------------------------------

P_ROWS = rng.standard_normal((3, 4))
R_ROWS = rng.standard_normal((2, 4))


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 3.0, INF])
def test_cdist_second_derivatives(p):
    fn = lambda x, y: core.cdist(x, y, p)  # noqa: E731
    check_second_grad(cube(fn), P_ROWS, R_ROWS)
    _first_orders_agree(fn, P_ROWS, R_ROWS)


def test_cdist_batched_and_broadcast_second_derivatives():
    check_second_grad(cube(lambda x, y: core.cdist(x, y, 3.0)), rng.standard_normal((2, 3, 4)),
                      R_ROWS)
    check_second_grad(cube(lambda x, y: core.cdist(x, y, 1.5)), rng.standard_normal((2, 1, 2, 3)),
                      rng.standard_normal((3, 4, 3)))


@pytest.mark.parametrize("p", [1.0, 1.5, 3.0, INF])
def test_cdist_matches_torch(p):
    """torch.cdist has no double backward for p != 2: its formula through vector_norm (whose
    p = 0 leaves the input out of its graph; finite differences check p = 0)."""
    torch = pytest.importorskip("torch")
    _assert_double_backward_matches_torch(lambda x, y: core.cdist(x, y, p),
                  lambda x, y: torch.linalg.vector_norm(x.unsqueeze(-2) - y.unsqueeze(-3), p,
                                                        dim=-1), (P_ROWS, R_ROWS))
    x, y = leaf(P_ROWS), leaf(R_ROWS)
    tx, ty = (torch.tensor(a, requires_grad=True) for a in (P_ROWS, R_ROWS))
    grads = core.grad(core.cdist(x, y, p).sum(), [x, y], create_graph=True)
    torch.cdist(tx, ty, p).sum().backward()
    for g, t in zip(grads, (tx, ty)):
        np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("p", [0.5, 1.0, 3.0, INF])
def test_cdist_zero_distances_give_zero_derivatives(p):
    """A row of x equal to a row of y: that distance's gradient is 0 (Paddle's and torch's
    rule), so its second derivatives are too; the result is what the other pairs give."""
    a, b = P_ROWS.copy(), R_ROWS.copy()
    b[1] = a[0]
    mask = np.ones((3, 2))
    mask[0, 1] = 0.0

    def second(masked):
        x, y = leaf(a), leaf(b)
        d = core.cdist(x, y, p) ** 3
        d = d * core.to_tensor(mask) if masked else d
        grads = core.grad(d.sum(), [x, y], create_graph=True)
        sum((g * g).sum() for g in grads).backward()
        return [g.numpy() for g in grads] + [x.grad.numpy(), y.grad.numpy()]

    for got, want in zip(second(False), second(True)):
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_cdist_third_derivatives():
    _check_third_grad(lambda x: core.cdist(x, core.to_tensor(R_ROWS), 3.0), P_ROWS)


@pytest.mark.parametrize("p", [1.5, 3.0, INF])
def test_pdist_second_derivatives(p):
    check_second_grad(cube(lambda x: core.pdist(x, p)), rng.standard_normal((4, 3)))


# ----- ctc_loss --------------------------------------------------------------------------------

LOGITS = rng.standard_normal((6, 4, 5))
# repeated labels (1, 1: a blank must come between), an empty label (every frame blank), a
# label repeated throughout, and one whose frames are too few (warp-ctc's loss 0, no gradient)
CTC_LABELS = np.array([[1, 1, 2], [3, 0, 0], [2, 2, 4], [4, 3, 4]])
CTC_LABEL_LENGTHS = np.array([3, 0, 3, 3])
CTC_INPUT_LENGTHS = np.array([6, 3, 5, 2])


def _ctc(reduction="none", blank=0, labels=CTC_LABELS, label_lengths=CTC_LABEL_LENGTHS,
         input_lengths=CTC_INPUT_LENGTHS, norm_by_times=False):
    return lambda x: F.ctc_loss(x, core.to_tensor(labels), core.to_tensor(input_lengths),
                                core.to_tensor(label_lengths), blank=blank,
                                reduction=reduction, norm_by_times=norm_by_times)


@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_ctc_loss_second_derivatives(reduction):
    """torch's ctc_loss has no double backward: finite differences only."""
    fn = _ctc(reduction)
    check_second_grad(cube(fn), LOGITS)
    _first_orders_agree(fn, LOGITS)


def test_ctc_loss_second_derivatives_mean_blank_and_short_inputs():
    """reduction 'mean' (divided by the label lengths, none empty here), a blank that is not
    0, and input lengths all shorter than the padded time axis (its last frames unused)."""
    labels = np.array([[0, 0, 1], [2, 1, 2]])
    fn = _ctc("mean", blank=3, labels=labels, label_lengths=np.array([2, 3]),
              input_lengths=np.array([4, 5]))
    check_second_grad(cube(fn), LOGITS[:, :2, :4])
    _first_orders_agree(fn, LOGITS[:, :2, :4])


def test_ctc_loss_second_derivatives_blank_only_labels():
    """Every label empty: the only path is all blanks, -sum_t log softmax(x_t)[blank]."""
    fn = _ctc("sum", labels=np.zeros((2, 1), dtype="int64"), label_lengths=np.array([0, 0]),
              input_lengths=np.array([6, 4]))
    check_second_grad(cube(fn), LOGITS[:, :2])
    x = leaf(LOGITS[:, :2])
    (g,) = core.grad(fn(x), x, create_graph=True)
    (g * g).sum().backward()
    y = leaf(LOGITS[:, :2])
    frames = core.to_tensor(np.arange(6)[:, None] < np.array([6, 4])[None, :]).astype("float64")
    expected = -(F.log_softmax(y, axis=2)[:, :, 0] * frames).sum()
    (ge,) = core.grad(expected, y, create_graph=True)
    (ge * ge).sum().backward()
    np.testing.assert_allclose(g.numpy(), ge.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_ctc_loss_norm_by_times_scales_the_recorded_gradient():
    """norm_by_times divides the gradient (not the loss) by the input length, on this path
    too; the loss enters linearly here, so the second derivative is the Hessian / T."""
    fn = _ctc("none", norm_by_times=True)
    check_second_grad(fn, LOGITS)
    _first_orders_agree(fn, LOGITS)


def test_ctc_loss_third_derivatives():
    _check_third_grad(_ctc("sum", labels=CTC_LABELS[:2], label_lengths=CTC_LABEL_LENGTHS[:2],
                           input_lengths=np.array([4, 3])), LOGITS[:4, :2, :4], rtol=1e-4,
                      atol=1e-6)


def test_ctc_loss_recorded_gradient_matches_torch():
    """torch's ctc_loss takes log-probabilities: equal on log_softmax'd logits at first order
    (the feasible samples; torch has no double backward to compare)."""
    torch = pytest.importorskip("torch")
    feasible = slice(0, 3)
    fn = _ctc("sum", labels=CTC_LABELS[feasible], label_lengths=CTC_LABEL_LENGTHS[feasible],
              input_lengths=CTC_INPUT_LENGTHS[feasible])
    x = leaf(LOGITS[:, feasible])
    (g,) = core.grad(fn(x), x, create_graph=True)
    t = torch.tensor(LOGITS[:, feasible], requires_grad=True)
    torch.nn.functional.ctc_loss(t.log_softmax(2), torch.tensor(CTC_LABELS[feasible]),
                                 torch.tensor(CTC_INPUT_LENGTHS[feasible]),
                                 torch.tensor(CTC_LABEL_LENGTHS[feasible]),
                                 reduction="sum").backward()
    np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_ctc_loss_float32_double_backward_is_finite():
    x = core.to_tensor(LOGITS.astype("float32"), stop_gradient=False)
    (g,) = core.grad(_ctc("sum")(x), x, create_graph=True)
    (g * g).sum().backward()
    assert g.dtype == core.float32 and x.grad.dtype == core.float32
    assert np.isfinite(x.grad.numpy()).all()
    x64 = leaf(LOGITS)
    (g64,) = core.grad(_ctc("sum")(x64), x64)
    np.testing.assert_allclose(g.numpy(), g64.numpy(), rtol=1e-4, atol=1e-5)


# ----- fractional max pooling ------------------------------------------------------------------

IMAGES = rng.standard_normal((2, 2, 7, 6))
VOLUMES = rng.standard_normal((1, 2, 5, 6, 5))
FRACTIONAL = {
    "2d_kernel": (lambda x: F.fractional_max_pool2d(x, [3, 4], kernel_size=[3, 2],
                                                    random_u=0.3), IMAGES),
    "2d_disjoint": (lambda x: F.fractional_max_pool2d(x, 3, random_u=0.6), IMAGES),
    "2d_none_kept": (lambda x: F.fractional_max_pool2d(x, [None, 4], random_u=0.45), IMAGES),
    "3d_kernel": (lambda x: F.fractional_max_pool3d(x, [2, 3, 3], kernel_size=2,
                                                    random_u=0.7), VOLUMES),
    "3d_disjoint": (lambda x: F.fractional_max_pool3d(x, [2, 3, 4], random_u=0.25), VOLUMES),
}


@pytest.mark.parametrize("name", sorted(FRACTIONAL))
def test_fractional_max_pool_second_derivatives(name):
    fn, a = FRACTIONAL[name]
    check_second_grad(cube(fn), a)
    _first_orders_agree(fn, a)


@pytest.mark.parametrize("dims, u", [(2, 0.3), (2, 0.9), (3, 0.7)])
def test_fractional_max_pool_matches_torch(dims, u):
    """torch's windows with a kernel and one fixed sample per axis are Paddle's for these
    sizes (checked on the forward first); torch has the double backward."""
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    if dims == 2:
        fn = lambda x: F.fractional_max_pool2d(x, [3, 4], kernel_size=[3, 2],  # noqa: E731
                                               random_u=u)
        tfn = lambda t: tf.fractional_max_pool2d(  # noqa: E731
            t, [3, 2], output_size=[3, 4], _random_samples=torch.full((2, 2, 2), u,
                                                                      dtype=torch.float64))
        a = IMAGES
    else:
        fn = lambda x: F.fractional_max_pool3d(x, [2, 3, 3], kernel_size=2,  # noqa: E731
                                               random_u=u)
        tfn = lambda t: tf.fractional_max_pool3d(  # noqa: E731
            t, 2, output_size=[2, 3, 3], _random_samples=torch.full((1, 2, 3), u,
                                                                    dtype=torch.float64))
        a = VOLUMES
    np.testing.assert_array_equal(fn(core.to_tensor(a)).numpy(), tfn(torch.tensor(a)).numpy())
    _assert_double_backward_matches_torch(fn, tfn, (a,))
    # third order: the recorded scatter's gradient is the gather again
    assert_third_order_matches_torch(fn, tfn, a, torch)


def test_fractional_max_pool_ties_go_to_the_first_maximum_on_every_order():
    """A plane of equal values (as after a ReLU): each window's gradient goes to its first
    cell, on the recorded path as on the first-order one, and the mask names that cell."""
    x = leaf(np.ones((1, 1, 6, 6)))
    out, mask = F.fractional_max_pool2d(x, 3, random_u=0.5, return_mask=True)
    (g,) = core.grad((out * out).sum(), x, create_graph=True)
    np.testing.assert_array_equal(np.flatnonzero(g.numpy()), np.sort(mask.numpy().ravel()))
    (g * g).sum().backward()
    np.testing.assert_array_equal(np.flatnonzero(x.grad.numpy()), np.sort(mask.numpy().ravel()))


def test_fractional_max_pool_third_derivatives():
    _check_third_grad(cube(FRACTIONAL["3d_disjoint"][0]), VOLUMES)


def test_a_wgan_gp_critic_with_a_fractional_pool():
    """The gradient penalty through nn.FractionalMaxPool2D (float32), as in float64."""
    core.seed(3)
    nn = core.nn
    critic = nn.Sequential(nn.Conv2D(1, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                           nn.FractionalMaxPool2D(3, random_u=0.5), nn.Flatten(),
                           nn.Linear(4 * 3 * 3, 1))
    mixed = core.to_tensor(rng.standard_normal((4, 1, 8, 8)), dtype="float32",
                           stop_gradient=False)
    (grad,) = core.grad(critic(mixed).sum(), mixed, create_graph=True)
    ((grad.reshape([4, -1]).norm(2, axis=1) - 1) ** 2).mean().backward()
    weight = critic[0].weight
    got = weight.grad.numpy().copy()
    critic.to(dtype="float64")
    weight.clear_gradient()
    mixed64 = core.to_tensor(mixed.numpy().astype("float64"), stop_gradient=False)
    (grad64,) = core.grad(critic(mixed64).sum(), mixed64, create_graph=True)
    ((grad64.reshape([4, -1]).norm(2, axis=1) - 1) ** 2).mean().backward()
    np.testing.assert_allclose(grad.numpy(), grad64.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got, weight.grad.numpy(), rtol=1e-3, atol=1e-5)


# ----- the lists --------------------------------------------------------------------------------

def test_the_remaining_ops_are_listed_as_supported():
    names = {entry.split(" ")[0] for entry in SUPPORTED_OPS}
    for op in ("multi_margin_loss", "pairwise_distance", "cdist", "ctc_loss",
               "fractional_max_pool2d", "fractional_max_pool2d_grad", "fractional_max_pool3d",
               "fractional_max_pool3d_grad"):
        assert op in names, op
    for entry in ("multi_margin_loss (any p)", "pairwise_distance (any p)", "cdist (any p)"):
        assert entry in SUPPORTED_OPS, entry
