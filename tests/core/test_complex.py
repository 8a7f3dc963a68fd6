"""Complex tensors: paddle.real / imag / conj / angle / complex / polar / as_complex / as_real
(core/complex.py) and their Tensor methods, and the autograd engine's handling of complex
gradients: values against numpy and torch, gradients against torch's autograd and against
float64/complex128 central differences in torch's convention (the gradient of a complex z is
dL/d(Re z) + i dL/d(Im z)), bad arguments named in the errors.

``check_complex_grad`` here is the complex-aware finite-difference check the fft tests share
(tests/gradcheck.py differentiates real inputs only)."""
import numpy as np
import pytest

import core
from core.tensor import apply
from tests.gradcheck import check_grad

rng = np.random.default_rng(41)


def cplx(*shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


# ----- the complex-aware finite-difference check -------------------------------------------------

def weights(shape, is_complex: bool) -> np.ndarray:
    """Fixed, non-uniform output weights w (complex for a complex output): the loss is
    L = sum(Re(conj(w) * y)), whose gradient with respect to y is w in torch's convention."""
    k = np.arange(int(np.prod(shape)) if len(shape) else 1)
    w = np.sin(k * 0.7 + 0.3) + 1.5
    if is_complex:
        w = w + 1j * (np.cos(k * 0.4 + 0.1) - 0.5)
    return w.reshape(shape)


def _loss(fn, arrays) -> float:
    with core.no_grad():
        out = fn(*[core.to_tensor(a) for a in arrays]).numpy()
    return float(np.real(np.sum(np.conj(weights(out.shape, out.dtype.kind == "c")) * out)))


def numeric_complex_grad(fn, arrays, index: int, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the loss along the real and (for a complex input) the
    imaginary direction of each element: dL/d(Re) + i dL/d(Im)."""
    base = arrays[index]
    grad = np.zeros_like(base)
    units = (1, 1j) if base.dtype.kind == "c" else (1,)
    for i in np.ndindex(base.shape):
        old = base[i]
        for unit in units:
            base[i] = old + eps * unit
            plus = _loss(fn, arrays)
            base[i] = old - eps * unit
            minus = _loss(fn, arrays)
            base[i] = old
            grad[i] += unit * (plus - minus) / (2 * eps)
    return grad


def check_complex_grad(fn, *arrays, wrt=None, rtol=1e-6, atol=1e-8, eps=1e-6) -> list:
    """Assert autograd's gradients of ``fn`` (real or complex inputs and output) match
    complex128/float64 central differences; returns them (for comparisons with torch)."""
    arrays = [np.array(a, dtype=np.complex128) if np.asarray(a).dtype.kind == "c"
              else np.array(a, dtype=np.float64) for a in arrays]
    wrt = list(range(len(arrays))) if wrt is None else wrt
    tensors = [core.to_tensor(a, stop_gradient=i not in wrt) for i, a in enumerate(arrays)]
    out = fn(*tensors)
    out.backward(core.to_tensor(weights(out.shape, out.dtype.kind == "c")))
    got = []
    for i in wrt:
        expected = numeric_complex_grad(fn, arrays, i, eps)
        grad = tensors[i].gradient()
        assert grad is not None, f"input {i} received no gradient"
        assert grad.dtype == arrays[i].dtype, f"input {i}: gradient dtype {grad.dtype}"
        # The differences' rounding error grows with the loss: atol scales with the largest
        # gradient (linear maps, such as the FFTs, have no truncation error to speak of).
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(grad, expected, rtol=rtol, atol=atol * scale,
                                   err_msg=f"gradient of input {i}")
        got.append(grad)
    return got


def torch_grads(torch_fn, *arrays) -> tuple:
    """(output, input gradients) of ``torch_fn`` seeded with the same weights."""
    torch = pytest.importorskip("torch")
    inputs = [torch.tensor(np.asarray(a), requires_grad=True) for a in arrays]
    out = torch_fn(*inputs)
    out.backward(torch.tensor(weights(tuple(out.shape), out.is_complex())))
    return out.detach().resolve_conj().numpy(), [t.grad.resolve_conj().numpy() for t in inputs]


def test_the_complex_check_catches_a_wrong_gradient():
    # conj with the gradient passed through unconjugated: the check must fail.
    def wrong_conj(x):
        return apply(np.conj(x.data), (x,), lambda g: (g,), "wrong_conj")

    with pytest.raises(AssertionError):
        check_complex_grad(wrong_conj, cplx(3))


# ----- values ------------------------------------------------------------------------------------

def test_real_imag_conj_angle_match_numpy_and_keep_part_dtypes():
    z = cplx(2, 3).astype(np.complex64)
    x = core.to_tensor(z)
    for fn, ref in ((core.real, np.real), (core.imag, np.imag), (core.conj, np.conj),
                    (core.angle, np.angle)):
        out = fn(x)
        np.testing.assert_allclose(out.numpy(), ref(z), rtol=1e-6)
        assert out.dtype == ref(z).dtype
    assert core.real(core.to_tensor(z.astype(np.complex128))).dtype == np.float64


def test_tensor_methods_are_bound():
    z = cplx(4)
    x = core.to_tensor(z)
    np.testing.assert_allclose(x.real().numpy(), z.real)
    np.testing.assert_allclose(x.imag().numpy(), z.imag)
    np.testing.assert_allclose(x.conj().numpy(), z.conj())
    np.testing.assert_allclose(x.angle().numpy(), np.angle(z))
    np.testing.assert_allclose(x.as_real().numpy(), np.stack([z.real, z.imag], -1))
    np.testing.assert_allclose(x.as_real().as_complex().numpy(), z)
    assert x.is_complex() and not x.real().is_complex()


def test_paddles_documented_examples():
    x = core.to_tensor([[1 + 6j, 2 + 5j, 3 + 4j], [4 + 3j, 5 + 2j, 6 + 1j]])
    assert x.dtype == np.complex64
    np.testing.assert_array_equal(core.real(x).numpy(), [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(core.imag(x).numpy(), [[6, 5, 4], [3, 2, 1]])
    np.testing.assert_array_equal(core.conj(x).numpy(), np.conj(x.numpy()))
    pair = core.as_real(core.to_tensor([1 + 2j, 3 + 4j]))
    np.testing.assert_array_equal(pair.numpy(), [[1, 2], [3, 4]])
    out = core.complex(core.arange(2, dtype="float32").unsqueeze(-1),
                       core.arange(3, dtype="float32"))
    np.testing.assert_array_equal(out.numpy(), [[0j, 1j, 2j], [1, 1 + 1j, 1 + 2j]])
    assert out.dtype == np.complex64
    polar = core.polar(core.to_tensor([1.0, 2.0]), core.to_tensor([np.pi / 2, np.pi / 6]))
    np.testing.assert_allclose(polar.numpy(), [1j, 2 * np.exp(1j * np.pi / 6)], atol=1e-6)


def test_real_tensors_as_numpy_treats_them():
    x = core.to_tensor([-2.0, 0.0, 3.0, np.nan])
    np.testing.assert_array_equal(core.real(x).numpy(), x.numpy())
    np.testing.assert_array_equal(core.imag(x).numpy(), [0, 0, 0, 0])
    np.testing.assert_array_equal(core.conj(x).numpy(), x.numpy())
    np.testing.assert_allclose(core.angle(x).numpy(), [np.pi, 0, 0, np.nan], rtol=1e-7)
    assert core.angle(x).dtype == np.float32
    assert core.angle(core.to_tensor([-1, 2])).dtype == np.float32  # integers compute in float32


def test_complex_polar_as_complex_as_real_match_torch():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3,))
    got = core.complex(core.to_tensor(a), core.to_tensor(b)).numpy()
    np.testing.assert_allclose(got, torch.complex(torch.tensor(a), torch.tensor(b)).numpy())
    r, t = np.abs(rng.normal(size=(4,))), rng.normal(size=(4,))
    np.testing.assert_allclose(core.polar(core.to_tensor(r), core.to_tensor(t)).numpy(),
                               torch.polar(torch.tensor(r), torch.tensor(t)).numpy())
    pairs = rng.normal(size=(3, 2))
    np.testing.assert_allclose(core.as_complex(core.to_tensor(pairs)).numpy(),
                               torch.view_as_complex(torch.tensor(pairs)).numpy())
    z = cplx(2, 2)
    np.testing.assert_allclose(core.as_real(core.to_tensor(z)).numpy(),
                               torch.view_as_real(torch.tensor(z)).numpy())


# ----- gradients ---------------------------------------------------------------------------------

UNARY = {"real": (core.real, "real"), "imag": (core.imag, "imag"), "conj": (core.conj, "conj"),
         "angle": (core.angle, "angle")}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradients_match_differences_and_torch(name):
    torch = pytest.importorskip("torch")
    fn, torch_name = UNARY[name]
    z = cplx(2, 3)
    (got,) = check_complex_grad(fn, z)
    # torch.conj is a lazy view; resolve_conj makes it a plain tensor with the same gradient.
    torch_fn = {"conj": lambda t: torch.conj(t).resolve_conj()}.get(
        name, getattr(torch, torch_name))
    _, (expected,) = torch_grads(torch_fn, z)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_angle_gradient_is_zero_at_zero_and_for_real_inputs():
    x = core.to_tensor(np.array([0j, 1 + 1j]), stop_gradient=False)
    core.angle(x).sum().backward()
    np.testing.assert_allclose(x.gradient(), [0, (-1 + 1j) / 2])
    r = core.to_tensor([-1.0, 2.0], stop_gradient=False)
    core.angle(r).sum().backward()
    np.testing.assert_array_equal(r.gradient(), [0, 0])


def test_real_input_gradients_of_real_imag_conj():
    for fn in (core.real, core.imag, core.conj):
        check_grad(fn, rng.normal(size=(2, 3)))


@pytest.mark.parametrize("name", ["complex", "polar"])
def test_two_input_gradients_broadcast_and_match_torch(name):
    torch = pytest.importorskip("torch")
    a, b = np.abs(rng.normal(size=(2, 3))) + 0.5, rng.normal(size=(3,))
    got = check_complex_grad(getattr(core, name), a, b)
    _, expected = torch_grads(getattr(torch, name), a, b)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def test_as_complex_and_as_real_gradients_match_torch():
    torch = pytest.importorskip("torch")
    pairs, z = rng.normal(size=(3, 2)), cplx(2, 3)
    (got,) = check_complex_grad(core.as_complex, pairs)
    _, (expected,) = torch_grads(torch.view_as_complex, pairs)
    np.testing.assert_allclose(got, expected)
    (got,) = check_complex_grad(core.as_real, z)
    _, (expected,) = torch_grads(torch.view_as_real, z)
    np.testing.assert_allclose(got, expected)


def test_a_chain_through_complex_values_matches_torch():
    torch = pytest.importorskip("torch")

    def chain(lib, r, t):
        z = lib.polar(r, t)
        return lib.angle(lib.conj(z) if lib is core else lib.conj(z).resolve_conj()) \
            + lib.real(z) * 0 + lib.imag(z)

    r, t = np.abs(rng.normal(size=(4,))) + 0.5, rng.uniform(-1, 1, size=(4,))
    got = check_complex_grad(lambda a, b: chain(core, a, b), r, t)
    _, expected = torch_grads(lambda a, b: chain(torch, a, b), r, t)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


# ----- the engine: complex gradients reaching real tensors -----------------------------------

def _leaky(x):
    """An op whose backward hands its real input a complex gradient (as a complex op may)."""
    return apply(x.data * 2, (x,), lambda g: (g * (2 + 5j),), "leaky")


def test_a_real_leaf_keeps_the_real_part_of_a_complex_gradient():
    x = core.to_tensor([1.0, 2.0], stop_gradient=False)
    _leaky(x).sum().backward()
    assert x.gradient().dtype == np.float32
    np.testing.assert_array_equal(x.gradient(), [2, 2])


def test_real_interior_tensors_and_their_hooks_see_real_gradients():
    x = core.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.dtype))
    _leaky(y).sum().backward()
    assert seen == [np.float32]
    np.testing.assert_array_equal(x.gradient(), [6, 6])


def test_paddle_grad_gives_real_inputs_real_gradients():
    x = core.to_tensor([1.0, 2.0], stop_gradient=False)
    (g,) = core.grad(_leaky(x).sum(), x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g.numpy(), [2, 2])
    z = core.to_tensor(np.array([1 + 1j]), stop_gradient=False)
    (gz,) = core.grad(core.real(z * 1).sum(), z)
    assert gz.dtype == np.complex128


def test_a_real_tensor_cast_to_complex_gets_a_real_gradient():
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3,))

    def fn(lib, t):
        z = t.astype("complex128") if lib is core else t.to(torch.complex128)
        return lib.imag(lib.polar(lib.abs(lib.real(z)) + 1, lib.real(z))) \
            if lib is core else torch.imag(torch.polar(torch.abs(torch.real(z)) + 1,
                                                       torch.real(z)))

    (got,) = check_complex_grad(lambda t: fn(core, t), x)
    _, (expected,) = torch_grads(lambda t: fn(torch, t), x)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


# ----- bad arguments -----------------------------------------------------------------------------

def test_bad_arguments_are_named():
    f32, f64 = core.to_tensor([1.0]), core.to_tensor(np.array([1.0]))
    with pytest.raises(TypeError, match="complex: 'real' and 'imag' must have the same dtype"):
        core.complex(f32, f64)
    with pytest.raises(TypeError, match="complex: 'imag' must be a float32 or float64 tensor"):
        core.complex(f32, core.to_tensor([1]))
    with pytest.raises(TypeError, match="polar: 'abs' and 'angle' must have the same dtype"):
        core.polar(f32, f64)
    with pytest.raises(TypeError, match="polar: 'angle' must be a Tensor"):
        core.polar(f32, 1.0)
    with pytest.raises(ValueError, match=r"as_complex: the last axis of 'x' must have size 2.*"
                                         r"got shape \[2, 3\]"):
        core.as_complex(core.ones([2, 3]))
    with pytest.raises(TypeError, match="as_complex: 'x' must be a float32 or float64 tensor, "
                                        "got dtype complex64"):
        core.as_complex(core.to_tensor([[1j, 2j]]))
    with pytest.raises(TypeError, match="as_real: 'x' must be a complex64 or complex128 "
                                        "tensor, got dtype float32"):
        core.as_real(f32)
    with pytest.raises(TypeError, match="real: 'x' must be a Tensor"):
        core.real(np.array([1j]))


# ----- complex gradients through the arithmetic and element-wise ops --------------------------

@pytest.mark.parametrize("name", ["multiply", "divide", "matmul", "pow2", "dot"])
def test_products_of_complex_values_match_differences_and_torch(name):
    fns = {"multiply": lambda lib, a, b: a * b, "divide": lambda lib, a, b: a / b,
           "matmul": lambda lib, a, b: lib.matmul(a, b), "pow2": lambda lib, a, b: a ** 2 * b,
           "dot": lambda lib, a, b: lib.matmul(a, b)}
    shapes = {"matmul": ((3, 4), (4, 2)), "dot": ((4,), (4,))}.get(name, ((3, 4), (3, 4)))
    a, b = cplx(*shapes[0]), cplx(*shapes[1]) + 2.0
    got = check_complex_grad(lambda x, y: fns[name](core, x, y), a, b)
    torch = pytest.importorskip("torch")
    _, expected = torch_grads(lambda x, y: fns[name](torch, x, y), a, b)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, shift", [(name, 1.5) for name in
                                         ("exp", "sin", "tanh", "sqrt", "log", "reciprocal",
                                          "abs", "acosh")] + [("acosh", -2.0)])
def test_element_wise_ops_of_complex_values_match_torch(name, shift):
    torch = pytest.importorskip("torch")
    z = cplx(5) + shift  # acosh at Re z < 0: the branch its derivative must follow
    got = check_complex_grad(getattr(core, name), z)
    _, expected = torch_grads(getattr(torch, name), z)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-9, atol=1e-12)


def test_a_real_dot_product_has_gradients():
    # 1-D @ 1-D gives a 0-D result; its backward used to fail on the 0-D gradient
    a, b = rng.normal(size=4), rng.normal(size=4)
    check_grad(lambda x, y: core.matmul(x, y), a, b)


@pytest.mark.parametrize("axis", [None, 1])
def test_prod_of_complex_values_conjugates_its_gradient(axis):
    # Regression: prod's backward multiplied by the other factors unconjugated, the wrong
    # gradient for complex inputs (right only for real ones).
    z = cplx(3, 4)
    got = check_complex_grad(lambda x: core.prod(x, axis=axis), z)
    torch = pytest.importorskip("torch")
    _, expected = torch_grads(lambda x: torch.prod(x) if axis is None else torch.prod(x, axis), z)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["cumprod", "pow_tensors", "rpow"])
def test_running_products_and_tensor_powers_of_complex_values_match_torch(name):
    # Regression: cumprod's and a tensor exponent's backward used the derivatives
    # unconjugated (and compared complex bases with > 0 for the exponent's log).
    fns = {"cumprod": lambda lib, a, b: lib.cumprod(a, dim=1) * b,
           "pow_tensors": lambda lib, a, b: a ** b,
           "rpow": lambda lib, a, b: 2.0 ** a * b}
    a, b = cplx(3, 4) + 1.0, cplx(3, 4) * 0.3
    got = check_complex_grad(lambda x, y: fns[name](core, x, y), a, b)
    torch = pytest.importorskip("torch")
    _, expected = torch_grads(lambda x, y: fns[name](torch, x, y), a, b)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["dot", "einsum", "kron"])
def test_contractions_of_complex_values_match_torch(name):
    fns = {"dot": lambda lib, a, b: lib.dot(a, b) if lib is core else (a * b).sum(-1),
           "einsum": lambda lib, a, b: lib.einsum("ij,jk->ik", a, b),
           "kron": lambda lib, a, b: lib.kron(a, b)}
    shapes = {"dot": ((3, 4), (3, 4)), "einsum": ((3, 4), (4, 2)), "kron": ((2, 2), (2, 3))}
    a, b = cplx(*shapes[name][0]), cplx(*shapes[name][1])
    got = check_complex_grad(lambda x, y: fns[name](core, x, y), a, b)
    torch = pytest.importorskip("torch")
    _, expected = torch_grads(lambda x, y: fns[name](torch, x, y), a, b)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def test_a_real_tensor_and_a_python_complex_make_a_complex_tensor():
    """Paddle's stft example builds its input as ``randn(...) + randn(...) * 1j``: the real
    tensor meets a Python complex and the result is complex (complex128 from float64,
    complex64 from float32), on either side of the operator, with real gradients for x."""
    x = rng.normal(size=(2, 3))
    got = core.to_tensor(x) + core.to_tensor(x) * 1j
    assert got.dtype == np.complex128
    np.testing.assert_array_equal(got.numpy(), x + 1j * x)
    assert (1j * core.to_tensor(x, dtype="float32")).dtype == np.complex64
    assert (core.to_tensor(x, dtype="float32") - 2j).dtype == np.complex64
    check_complex_grad(lambda t: (t * (0.5 + 2j) + 1j) / (1 - 1j), x.copy())
    y = core.signal.stft(core.to_tensor(rng.normal(size=(2, 64))) * 1j, n_fft=16,
                         onesided=False)
    assert y.dtype == np.complex128
