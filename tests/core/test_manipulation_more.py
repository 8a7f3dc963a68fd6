"""diagonal, trace, t, moveaxis, kron, diff (core/manipulation.py, core/linalg), clone and
assign (core/creation.py): values against numpy, gradients against float64 finite differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(71)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)



# ----- diagonals, transposes, copies and slices ---------------------------------------------

@pytest.mark.parametrize("offset, axis1, axis2", [(0, 0, 1), (1, 0, 2), (-1, 2, 1), (2, -1, 0)])
def test_diagonal_and_trace(offset, axis1, axis2):
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4, 5))
    np.testing.assert_allclose(core.diagonal(t(x), offset, axis1, axis2).numpy(),
                               torch.diagonal(torch.tensor(x), offset, axis1, axis2).numpy())
    np.testing.assert_allclose(t(x).trace(offset, axis1, axis2).numpy(),
                               np.trace(x, offset, axis1, axis2))
    check_grad(lambda p: core.diagonal(p, offset, axis1, axis2), x)
    check_grad(lambda p: core.trace(p, offset, axis1, axis2), x)


def test_t_moveaxis_clone_and_assign():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    np.testing.assert_allclose(core.t(t(a)).numpy(), a.T)
    v = t([1.0, 2.0])
    assert core.t(v) is v  # Paddle returns 0-D and 1-D input as it is
    check_grad(core.t, a)
    x = rng.normal(size=(2, 3, 4))
    for src, dst in ((0, -1), ([0, 1], [2, 0]), ([2], [0])):
        np.testing.assert_allclose(core.moveaxis(t(x), src, dst).numpy(),
                                   torch.movedim(torch.tensor(x), src, dst).numpy())
        check_grad(lambda p, s=src, d=dst: core.moveaxis(p, s, d), x)
    check_grad(core.clone, a)
    check_grad(core.assign, a)
    c = core.clone(t(a))
    c.data[0, 0] = 99.0
    assert a[0, 0] != 99.0
    assert core.assign([1.5, 2.5]).dtype == np.float32
    assert core.assign(np.array([1, 2])).dtype == np.int64
    out = core.zeros([3, 4], dtype="float64")
    assert core.assign(t(a), output=out) is out
    np.testing.assert_allclose(out.numpy(), a)
    with pytest.raises(ValueError, match="moveaxis: source .* must have the same length"):
        core.moveaxis(t(x), [0, 1], [0])
    with pytest.raises(ValueError, match="t: input must have at most 2"):
        core.t(t(x))
    # an output of another shape takes x's shape and dtype, as Paddle's assign
    other = core.zeros([2], dtype="float32")
    assert core.assign(t(a), output=other) is other
    assert other.shape == [3, 4] and other.dtype == np.float64
    np.testing.assert_allclose(other.numpy(), a)


# ----- kron, diff, bincount, histogram -------------------------------------------------------

def test_kron_and_diff():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 2, 2))
    np.testing.assert_allclose(core.kron(t(a), t(b)).numpy(),
                               torch.kron(torch.tensor(a), torch.tensor(b)).numpy())
    check_grad(core.kron, a, b)
    check_grad(lambda p, q: p.kron(q), rng.normal(size=(2,)), rng.normal(size=(3,)))
    x = rng.normal(size=(3, 5))
    pre, app = rng.normal(size=(3, 1)), rng.normal(size=(3, 2))
    np.testing.assert_allclose(core.diff(t(x)).numpy(), np.diff(x))
    np.testing.assert_allclose(core.diff(t(x), 2, 0).numpy(), np.diff(x, 2, 0))
    np.testing.assert_allclose(
        t(x).diff(2, -1, t(pre), t(app)).numpy(),
        torch.diff(torch.tensor(x), 2, -1, torch.tensor(pre), torch.tensor(app)).numpy())
    check_grad(lambda p, q, r: core.diff(p, 2, -1, q, r), x, pre, app)
    with pytest.raises(ValueError, match="diff: n must be non-negative"):
        core.diff(t(x), -1)
