"""affine_grid and grid_sample: finite-difference gradients (x, grid, theta), torch parity with
both align_corners settings (Paddle's default True, torch's False), hand-checked values and the
bad-argument errors."""
import numpy as np
import pytest

import core
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(3)
MODES = [(m, p) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")]


def _grid(n=2, ho=3, wo=4, scale=1.3):
    """Points in and a little outside [-1, 1], away from pixel centres (no kinks)."""
    return RNG.uniform(-scale, scale, (n, ho, wo, 2))


@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_bilinear_gradients(padding, align):
    x = RNG.standard_normal((2, 3, 4, 5))
    grid = _grid()
    check_grad(lambda a, g: F.grid_sample(a, g, "bilinear", padding, align), x, grid,
               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_nearest_gradient_of_x(padding):
    x = RNG.standard_normal((1, 2, 3, 4))
    grid = _grid(1, 2, 3)
    check_grad(lambda a, g: F.grid_sample(a, g, "nearest", padding), x, grid, wrt=[0])
    xt, gt = core.to_tensor(x), core.to_tensor(grid, stop_gradient=False)
    F.grid_sample(xt, gt, "nearest", padding).sum().backward()
    assert not gt.gradient().any()  # piecewise constant in the grid


@pytest.mark.parametrize("align", [True, False])
def test_affine_grid_gradients_2d_and_3d(align):
    theta = RNG.standard_normal((2, 2, 3))
    check_grad(lambda t: F.affine_grid(t, [2, 1, 3, 4], align), theta)
    theta3 = RNG.standard_normal((1, 3, 4))
    check_grad(lambda t: F.affine_grid(t, (1, 2, 2, 3, 2), align), theta3)


def test_spatial_transformer_gradient_through_theta():
    """affine_grid then grid_sample: the gradient reaches theta through the grid."""
    x = RNG.standard_normal((1, 2, 4, 4))
    theta = np.array([[[0.9, 0.1, 0.05], [-0.12, 0.8, 0.03]]])
    check_grad(lambda a, t: F.grid_sample(a, F.affine_grid(t, [1, 2, 3, 3])), x, theta,
               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("mode, padding", MODES)
def test_grid_sample_matches_torch(mode, padding, align):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    grid = _grid(2, 3, 6).astype(np.float32)
    xt, gt = core.to_tensor(x, stop_gradient=False), core.to_tensor(grid, stop_gradient=False)
    out = F.grid_sample(xt, gt, mode, padding, align)
    tx = torch.tensor(x, requires_grad=True)
    tg = torch.tensor(grid, requires_grad=True)
    ref = torch.nn.functional.grid_sample(tx, tg, mode, padding, align_corners=align)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    weights = RNG.standard_normal(ref.shape).astype(np.float32)
    out.backward(core.to_tensor(weights))
    ref.backward(torch.tensor(weights))
    np.testing.assert_allclose(xt.gradient(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    if mode == "bilinear":
        np.testing.assert_allclose(gt.gradient(), tg.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("align", [True, False])
def test_affine_grid_matches_torch(align):
    torch = pytest.importorskip("torch")
    theta = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    ref = torch.nn.functional.affine_grid(torch.tensor(theta), [2, 3, 4, 5], align_corners=align)
    out = F.affine_grid(core.to_tensor(theta), [2, 3, 4, 5], align_corners=align)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)
    theta3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    ref3 = torch.nn.functional.affine_grid(torch.tensor(theta3), [2, 1, 2, 3, 4],
                                           align_corners=align)
    out3 = F.affine_grid(core.to_tensor(theta3), [2, 1, 2, 3, 4], align_corners=align)
    np.testing.assert_allclose(out3.numpy(), ref3.numpy(), rtol=1e-6, atol=1e-6)


def test_paddle_defaults_are_align_corners_true():
    """Identity theta with Paddle's default align_corners=True reproduces the input exactly;
    the grid's corners are the corner pixels' centres (-1 and 1)."""
    x = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    theta = core.to_tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=np.float32))
    grid = F.affine_grid(theta, [1, 2, 3, 4])
    np.testing.assert_allclose(grid.numpy()[0, 0, 0], [-1, -1])
    np.testing.assert_allclose(grid.numpy()[0, -1, -1], [1, 1])
    out = F.grid_sample(core.to_tensor(x), grid)
    np.testing.assert_allclose(out.numpy(), x, rtol=1e-6, atol=1e-6)


def test_grid_sample_hand_value():
    """A point halfway between four pixels averages them; one outside reads zeros."""
    x = core.to_tensor(np.arange(4.0).reshape(1, 1, 2, 2))
    grid = core.to_tensor(np.array([[[[0.0, 0.0], [3.0, 3.0]]]]))
    out = F.grid_sample(x, grid).numpy().ravel()
    np.testing.assert_allclose(out, [1.5, 0.0])
    border = F.grid_sample(x, grid, padding_mode="border").numpy().ravel()
    np.testing.assert_allclose(border, [1.5, 3.0])


def test_bad_arguments_name_themselves():
    x = core.to_tensor(np.zeros((1, 1, 2, 2), np.float32))
    grid = core.to_tensor(np.zeros((1, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="mode='bicubic'"):
        F.grid_sample(x, grid, mode="bicubic")
    with pytest.raises(ValueError, match="padding_mode='wrap'"):
        F.grid_sample(x, grid, padding_mode="wrap")
    with pytest.raises(ValueError, match="align_corners=1"):
        F.grid_sample(x, grid, align_corners=1)
    with pytest.raises(ValueError, match="grid must be"):
        F.grid_sample(x, core.to_tensor(np.zeros((1, 2, 2, 3), np.float32)))
    with pytest.raises(ValueError, match="'x' must be 4-D"):
        F.grid_sample(core.to_tensor(np.zeros((1, 2, 2), np.float32)), grid)
    theta = core.to_tensor(np.zeros((1, 2, 3), np.float32))
    with pytest.raises(ValueError, match="out_shape"):
        F.affine_grid(theta, [1, 2, 3])
    with pytest.raises(ValueError, match="theta must be"):
        F.affine_grid(theta, [2, 1, 3, 3])
    with pytest.raises(ValueError, match="theta must be"):
        F.affine_grid(theta, [1, 1, 2, 3, 3])
