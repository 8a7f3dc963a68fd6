"""core/elementwise.py: tan ... erfinv, logit, lerp, atan2, heaviside: values against numpy
and torch, Paddle's documented examples, gradients against float64 finite differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(71)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)



# ----- element-wise -------------------------------------------------------------------------

# name, numpy reference, torch name, a sampler of inputs inside the domain
UNARY = [
    ("tan", np.tan, "tan", lambda s: rng.uniform(-1.2, 1.2, s)),
    ("asin", np.arcsin, "asin", lambda s: rng.uniform(-0.9, 0.9, s)),
    ("acos", np.arccos, "acos", lambda s: rng.uniform(-0.9, 0.9, s)),
    ("atan", np.arctan, "atan", lambda s: rng.normal(size=s) * 2),
    ("sinh", np.sinh, "sinh", lambda s: rng.normal(size=s)),
    ("cosh", np.cosh, "cosh", lambda s: rng.normal(size=s)),
    ("asinh", np.arcsinh, "asinh", lambda s: rng.normal(size=s) * 2),
    ("acosh", np.arccosh, "acosh", lambda s: rng.uniform(1.2, 4, s)),
    ("atanh", np.arctanh, "atanh", lambda s: rng.uniform(-0.9, 0.9, s)),
    ("erf", None, "erf", lambda s: rng.normal(size=s)),
    ("erfinv", None, "erfinv", lambda s: rng.uniform(-0.95, 0.95, s)),
    ("expm1", np.expm1, "expm1", lambda s: rng.normal(size=s)),
    ("log2", np.log2, "log2", lambda s: rng.uniform(0.2, 5, s)),
    ("log10", np.log10, "log10", lambda s: rng.uniform(0.2, 5, s)),
    ("frac", lambda a: a - np.trunc(a), "frac", lambda s: rng.normal(size=s) * 3 + 0.01),
]


@pytest.mark.parametrize("name, ref, torch_name, sample", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_gradients_and_methods(name, ref, torch_name, sample):
    a = sample((3, 4))
    fn = getattr(core, name)
    got = fn(t(a))
    if ref is not None:
        np.testing.assert_allclose(got.numpy(), ref(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(getattr(t(a), name)().numpy(), got.numpy())
    check_grad(fn, a)
    assert fn(t(a.astype("float32"))).dtype == np.float32


@pytest.mark.parametrize("name, ref, torch_name, sample", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_match_torch(name, ref, torch_name, sample):
    torch = pytest.importorskip("torch")
    a = sample((5, 3))
    want = getattr(torch, torch_name)(torch.tensor(a)).numpy()
    np.testing.assert_allclose(getattr(core, name)(t(a)).numpy(), want, rtol=1e-10, atol=1e-12)


def test_erfinv_edges_and_float32_accuracy():
    out = core.erfinv(t([1.0, -1.0, 1.5, 0.0])).numpy()
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2]) and out[3] == 0
    a = np.linspace(-0.999, 0.999, 201)
    back = core.erf(core.erfinv(t(a))).numpy()
    np.testing.assert_allclose(back, a, rtol=1e-12, atol=1e-14)
    back32 = core.erf(core.erfinv(t(a, "float32"))).numpy()
    np.testing.assert_allclose(back32, a, atol=2e-6)


def test_trunc_has_a_zero_gradient_and_keeps_dtype():
    x = t([-1.7, -0.2, 0.5, 2.9], grad=True)
    out = core.trunc(x)
    np.testing.assert_array_equal(out.numpy(), [-1.0, -0.0, 0.0, 2.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 0)
    assert core.trunc(t([1, 2])).dtype == np.int64 and x.trunc().shape == [4]


def test_logit_with_and_without_eps():
    a = rng.uniform(0.05, 0.95, (3, 4))
    np.testing.assert_allclose(core.logit(t(a)).numpy(), np.log(a / (1 - a)), rtol=1e-12)
    check_grad(lambda x: core.logit(x), a)
    check_grad(lambda x: core.logit(x, eps=0.2), a)
    clipped = core.logit(t([0.0, 0.1, 0.5, 1.0]), eps=0.2).numpy()
    np.testing.assert_allclose(clipped, np.log([0.25, 0.25, 1.0, 4.0]), rtol=1e-12)
    x = t([0.1, 0.5], grad=True)
    core.logit(x, eps=0.2).sum().backward()  # Paddle: zero gradient outside [eps, 1 - eps]
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 4.0])
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(core.logit(t(a), 0.2).numpy(),
                               torch.logit(torch.tensor(a), 0.2).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="logit: eps"):
        core.logit(t(a), eps=0.7)


def test_atan2_lerp_and_heaviside():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    np.testing.assert_allclose(core.atan2(t(a), t(b)).numpy(),
                               torch.atan2(torch.tensor(a), torch.tensor(b)).numpy())
    check_grad(core.atan2, a, b)
    y, w = rng.normal(size=(3, 4)), rng.uniform(size=(4,))
    np.testing.assert_allclose(core.lerp(t(a), t(y), t(w)).numpy(),
                               torch.lerp(torch.tensor(a), torch.tensor(y),
                                          torch.tensor(w)).numpy())
    np.testing.assert_allclose(core.lerp(t(a), t(y), 0.3).numpy(), a + 0.3 * (y - a))
    check_grad(lambda p, q, r: core.lerp(p, q, r), a, y, w)
    check_grad(lambda p, q: p.lerp(q, 0.25), a, y)
    x, v = np.array([-1.5, 0.0, 2.0, 0.0]), np.array([0.3, 0.4, 0.5, 0.6])
    np.testing.assert_allclose(core.heaviside(t(x), t(v)).numpy(), [0.0, 0.4, 1.0, 0.6])
    np.testing.assert_allclose(core.heaviside(t(x), t(v)).numpy(),
                               torch.heaviside(torch.tensor(x), torch.tensor(v)).numpy())
    check_grad(core.heaviside, x, v, wrt=[1])  # x's gradient is zero (a step)
    xs = t(x, grad=True)
    core.heaviside(xs, t(v)).sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), 0)
    with pytest.raises(TypeError, match="lerp: weight"):
        core.lerp(t(a), t(y), "half")


# ----- integer inputs: float32, as Paddle 3.x ----------------------------------------------------

FLOAT_OF_INTEGERS = ["exp", "sqrt", "log", "log1p", "sin", "cos", "tanh", "rsqrt", "reciprocal",
                     "log2", "log10", "expm1", "tan", "atan", "sinh", "cosh", "asinh", "erf"]


@pytest.mark.parametrize("name", FLOAT_OF_INTEGERS)
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
def test_unary_math_of_integers_is_float32(name, dtype):
    values = np.array([1, 2, 3, 1]).astype(dtype)
    got = getattr(core, name)(t(values))
    assert got.dtype == np.float32
    want = getattr(core, name)(t(values.astype("float32")))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert getattr(t(values), name)().dtype == np.float32  # the Tensor method too


def test_abs_and_square_of_integers_stay_integers():
    x = t(np.array([-3, 0, 4], "int32"))
    assert core.abs(x).dtype == np.int32 and core.square(x).dtype == np.int32
    np.testing.assert_array_equal(core.square(x).numpy(), [9, 0, 16])
    np.testing.assert_array_equal(abs(x).numpy(), [3, 0, 4])
    assert core.sqrt(t([4.0, 9.0], "float64")).dtype == np.float64  # floats keep theirs
