"""Fractional max pooling (Paddle 3's ``fractional_max_pool2d/3d``, ``FractionalMaxPool2D/3D``):
Paddle's windows against a hand-written numpy reference of its kernel's formula, torch where the
formulas agree (a kernel_size), first-maximum ties, gradients, argument errors and a spec."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


# ----- a reference: Paddle's kernel (pooling.h / pooling.cc), one window at a time --------------

def _paddle_windows(n: int, m: int, k: int, u: float) -> list[tuple[int, int]]:
    """Paddle's FractionalRationalU / FractionalStartIndex / FractionalEndIndex in float32."""
    f = np.float32
    alpha = f(n - k) / f(m - (1 if k > 0 else 0)) if (k == 0 or m > 1) else f(0)
    uu = f(u)
    if k == 0:
        base = n // m
        uu = uu * min(f(base + 2) / alpha - f(1), f(n + 1 - base) / alpha - f(m - 1))
    windows = []
    for i in range(m):
        start = int(f(f(i) + uu) * alpha) - int(uu * alpha)
        end = start + k if k > 0 else int(f(f(i + 1) + uu) * alpha) - int(uu * alpha)
        windows.append((max(start, 0), min(end, n)))
    return windows


def _reference(x: np.ndarray, out_size, kernel, u: float):
    """(out, mask) by loops over every window, the first maximum in row-major order."""
    spatial = x.shape[2:]
    axes = [_paddle_windows(n, m, k, u) for n, m, k in zip(spatial, out_size, kernel)]
    out = np.empty(x.shape[:2] + tuple(out_size), x.dtype)
    mask = np.empty(out.shape, np.int32)
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        plane = x[b, c].reshape(-1)
        for cell in itertools.product(*[range(m) for m in out_size]):
            ranges = [range(*axes[a][i]) for a, i in enumerate(cell)]
            best, where = -np.inf, -1
            for pos in itertools.product(*ranges):
                flat = int(np.ravel_multi_index(pos, spatial))
                if plane[flat] > best:
                    best, where = plane[flat], flat
            out[(b, c, *cell)], mask[(b, c, *cell)] = best, where
    return out, mask


def test_paddles_documented_example():
    # Paddle's docs: [2, 4, 3, 1, 5, 2, 3], output_size 5, random_u 0.3 -> starts [0, 1, 3, 4,
    # 6], ends [1, 3, 4, 6, 7], output [2, 4, 1, 5, 3].
    x = core.to_tensor(np.array([2, 4, 3, 1, 5, 2, 3], np.float32).reshape(1, 1, 1, 7))
    out, mask = F.fractional_max_pool2d(x, [1, 5], random_u=0.3, return_mask=True)
    np.testing.assert_array_equal(out.numpy().ravel(), [2, 4, 1, 5, 3])
    np.testing.assert_array_equal(mask.numpy().ravel(), [0, 1, 3, 4, 6])
    assert mask.dtype == np.int32


@pytest.mark.parametrize("shape, out_size, kernel, u", [
    ((2, 3, 11, 9), (5, 4), (0, 0), 0.37), ((1, 2, 10, 10), (3, 7), (0, 0), 0.91),
    ((2, 2, 9, 8), (9, 8), (0, 0), 0.5), ((1, 2, 12, 7), (4, 3), (3, 2), 0.05),
    ((2, 1, 6, 6), (1, 1), (0, 0), 0.6), ((1, 1, 7, 9), (1, 2), (4, 3), 0.2)])
def test_fractional_max_pool2d_matches_the_reference_of_paddles_formula(shape, out_size,
                                                                        kernel, u):
    x = RNG.normal(size=shape).astype(np.float32)
    ks = None if kernel == (0, 0) else kernel
    out, mask = F.fractional_max_pool2d(core.to_tensor(x), out_size, ks, u, return_mask=True)
    want, want_mask = _reference(x, out_size, kernel, u)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), want_mask)


@pytest.mark.parametrize("kernel", [None, 2, (3, 2, 2)])
def test_fractional_max_pool3d_matches_the_reference(kernel):
    x = RNG.normal(size=(2, 2, 7, 8, 9)).astype(np.float32)
    out, mask = F.fractional_max_pool3d(core.to_tensor(x), (3, 4, 5), kernel, 0.44,
                                        return_mask=True)
    ks = (0, 0, 0) if kernel is None else (kernel,) * 3 if isinstance(kernel, int) else kernel
    want, want_mask = _reference(x, (3, 4, 5), ks, 0.44)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), want_mask)


def test_ties_go_to_the_first_maximum():
    # After a ReLU most windows are all zeros: the mask must name each window's first cell.
    x = np.zeros((1, 1, 9, 9), np.float32)
    x[0, 0, 4, 4] = 1.0
    t = core.to_tensor(x, stop_gradient=False)
    out, mask = F.fractional_max_pool2d(t, 4, random_u=0.25, return_mask=True)
    starts = [s for s, _ in _paddle_windows(9, 4, 0, 0.25)]
    for i, j in itertools.product(range(4), range(4)):
        if out.numpy()[0, 0, i, j] == 0:
            assert mask.numpy()[0, 0, i, j] == starts[i] * 9 + starts[j]
    out.sum().backward()
    assert t.grad.numpy().sum() == 16 and t.grad.numpy().max() == 1  # one cell per window


@pytest.mark.parametrize("shape, out_size, kernel", [
    ((2, 3, 11, 9), (5, 4), (2, 3)), ((1, 2, 10, 12), (4, 6), (3, 2)),
    ((2, 2, 8, 8), (7, 7), 2)])
def test_fractional_max_pool2d_matches_torch_with_a_kernel(shape, out_size, kernel):
    # With a kernel_size Paddle's and torch's windows are one formula (torch pins the last start
    # to n - k, which Paddle's formula gives too unless float32 rounds it up; the test asserts
    # that it did not). Paddle uses one u; torch takes one per sample, channel and axis.
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=shape).astype(np.float32)
    u = 0.37
    ks = (kernel, kernel) if isinstance(kernel, int) else kernel
    for n, m, k in zip(shape[2:], out_size, ks):
        assert _paddle_windows(n, m, k, u)[-1][0] == n - k
    out, mask = F.fractional_max_pool2d(core.to_tensor(x), out_size, kernel, u, True)
    samples = torch.full((shape[0], shape[1], 2), u)
    want, want_mask = torch.nn.functional.fractional_max_pool2d(
        torch.tensor(x), kernel, output_size=out_size, return_indices=True,
        _random_samples=samples)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), want_mask.numpy())


def test_fractional_max_pool3d_matches_torch_with_a_kernel():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 2, 7, 8, 9)).astype(np.float32)
    layer = nn.FractionalMaxPool3D((3, 4, 5), kernel_size=2, random_u=0.61, return_mask=True)
    out, mask = layer(core.to_tensor(x))
    want, want_mask = torch.nn.functional.fractional_max_pool3d(
        torch.tensor(x), 2, output_size=(3, 4, 5), return_indices=True,
        _random_samples=torch.full((2, 2, 3), 0.61))
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), want_mask.numpy())


def test_the_mask_unpools_back_to_the_maxima():
    x = RNG.normal(size=(2, 3, 9, 10)).astype(np.float32)
    out, mask = F.fractional_max_pool2d(core.to_tensor(x), (4, 5), random_u=0.7,
                                        return_mask=True)
    back = F.max_unpool2d(out, mask, kernel_size=2, output_size=[9, 10]).numpy()
    flat = x.reshape(2, 3, -1)
    picked = np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1), axis=2)
    np.testing.assert_array_equal(picked.reshape(out.shape), out.numpy())
    assert (back[back != 0] == x[back != 0]).all()


# ----- gradients -------------------------------------------------------------------------------

@pytest.mark.parametrize("out_size, kernel", [((3, 4), None), ((4, 3), 2), ((5, 5), (3, 2))])
def test_fractional_max_pool2d_gradient(out_size, kernel):
    # (4, 3) and (5, 5) with a kernel overlap: a cell that is two windows' maximum gets both.
    x = RNG.normal(size=(2, 2, 7, 6))
    check_grad(lambda t: F.fractional_max_pool2d(t, out_size, kernel, random_u=0.3), x)


@pytest.mark.parametrize("kernel", [None, 2])
def test_fractional_max_pool3d_gradient(kernel):
    x = RNG.normal(size=(1, 2, 5, 6, 5))
    check_grad(lambda t: F.fractional_max_pool3d(t, (2, 3, 3), kernel, random_u=0.8), x)


def test_FractionalMaxPool2D_and_FractionalMaxPool3D_gradients():
    check_grad(nn.FractionalMaxPool2D((3, None), random_u=0.45), RNG.normal(size=(2, 2, 7, 5)))
    check_grad(nn.FractionalMaxPool3D(2, kernel_size=(2, 3, 2), random_u=0.55),
               RNG.normal(size=(1, 2, 4, 5, 4)))


def test_output_size_none_keeps_the_input_size_and_float64_stays():
    x = RNG.normal(size=(1, 2, 6, 5))
    out = F.fractional_max_pool2d(core.to_tensor(x), [None, 3], random_u=0.5)
    assert out.shape == [1, 2, 6, 3] and out.dtype == np.float64
    np.testing.assert_array_equal(out.numpy(), _reference(x, (6, 3), (0, 0), 0.5)[0])


def test_no_random_u_draws_from_core_seed():
    x = core.to_tensor(RNG.normal(size=(2, 3, 17, 17)).astype(np.float32))
    core.seed(3)
    first = F.fractional_max_pool2d(x, 6).numpy()
    core.seed(3)
    np.testing.assert_array_equal(F.fractional_max_pool2d(x, 6).numpy(), first)
    draws = {F.fractional_max_pool2d(x, 6).numpy().tobytes() for _ in range(8)}
    assert len(draws) > 1  # another u, other windows


# ----- argument errors -------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"output_size": 0}, "output_size=0"), ({"output_size": [2, 2, 2]}, "output_size"),
    ({"output_size": 2.5}, "output_size"), ({"output_size": 3, "kernel_size": 0}, "kernel_size"),
    ({"output_size": 3, "kernel_size": [2]}, "kernel_size"),
    ({"output_size": 3, "random_u": 0.0}, r"random_u=0\.0"),
    ({"output_size": 3, "random_u": 1}, "random_u=1"),
    ({"output_size": 3, "random_u": -0.2}, "random_u"),
    ({"output_size": 3, "random_u": "0.5"}, "random_u"),
    ({"output_size": 3, "random_u": True}, "random_u"),
    ({"output_size": 9}, "output_size 9 is larger than the input height 8"),
    ({"output_size": 5, "kernel_size": 5}, "at least output_size - 1 \\+ kernel_size = 9")])
def test_bad_arguments_name_themselves(kwargs, match):
    x = core.to_tensor(np.zeros((1, 1, 8, 8), np.float32))
    with pytest.raises(ValueError, match=match):
        F.fractional_max_pool2d(x, **kwargs)


def test_bad_inputs_and_layer_arguments():
    with pytest.raises(ValueError, match="'x' must be 4-D"):
        F.fractional_max_pool2d(core.to_tensor(np.zeros((1, 8, 8), np.float32)), 2)
    with pytest.raises(ValueError, match="'x' must be 5-D"):
        F.fractional_max_pool3d(core.to_tensor(np.zeros((1, 1, 8, 8), np.float32)), 2)
    with pytest.raises(TypeError, match="floating"):
        F.fractional_max_pool2d(core.to_tensor(np.zeros((1, 1, 8, 8), np.int64)), 2)
    with pytest.raises(TypeError, match="core.Tensor"):
        F.fractional_max_pool2d(np.zeros((1, 1, 8, 8), np.float32), 2)
    with pytest.raises(ValueError, match="FractionalMaxPool2D: output_size"):
        nn.FractionalMaxPool2D([2, 0])
    with pytest.raises(ValueError, match="FractionalMaxPool3D: kernel_size"):
        nn.FractionalMaxPool3D(2, kernel_size=[2, 2])
    with pytest.raises(ValueError, match="FractionalMaxPool2D: random_u=1.5"):
        nn.FractionalMaxPool2D(2, random_u=1.5)


# ----- a network spec ------------------------------------------------------------------------

def test_a_spec_network_with_fractional_max_pooling_trains():
    node = {"name": "net", "blocks": {}, "layers": {
        "conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3, "padding": 1},
        "act": {"type": "ReLU"},
        "pool": {"type": "FractionalMaxPool2D", "output_size": 5},
        "pool2": {"type": "FractionalMaxPool2D", "output_size": 3, "kernel_size": 2,
                  "random_u": 0.5},
        "f": {"type": "Flatten"}, "o": {"type": "Linear"}}}
    model = build.build_model(validation.group_option("model", node), (1, 8, 8), 10)
    x = core.to_tensor(RNG.random((3, 1, 8, 8), dtype=np.float32))
    out = model(x)
    assert list(out.shape) == [3, 10]
    out.sum().backward()
    assert model["conv"].weight.grad is not None
    assert core.summary(model, (1, 1, 8, 8))["total_params"] == 4 * 9 + 4 + 36 * 10 + 10


def test_empty_batch_backward():
    """An empty batch used to fail in the backward (reshape(0, -1) cannot infer -1)."""
    x = core.to_tensor(np.zeros((0, 2, 7, 7), np.float32), stop_gradient=False)
    out = F.fractional_max_pool2d(x, 3, random_u=0.3)
    assert out.shape == [0, 2, 3, 3]
    out.sum().backward()
    assert x.grad.shape == [0, 2, 7, 7]
