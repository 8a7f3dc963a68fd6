"""core.fft (paddle.fft): every transform's values against numpy.fft (torch.fft for hfftn /
ihfftn, which numpy lacks) and Paddle's documented examples, in every norm mode, with ``n`` / ``s``
cropping and padding and chosen axes; gradients for real and complex inputs against torch's
autograd and against float64/complex128 central differences (torch's convention for complex
gradients, tests/core/test_complex.py); the frequency and shift helpers; bad arguments named in
the errors; core.fft loaded only on first use."""
import subprocess
import sys

import numpy as np
import pytest

import core
from core import fft as F
from tests.core.test_complex import check_complex_grad, torch_grads
from tests.gradcheck import check_grad

rng = np.random.default_rng(53)
NORMS = ["backward", "forward", "ortho"]


def real(*shape):
    return rng.normal(size=shape)


def cplx(*shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


# ----- values ------------------------------------------------------------------------------------

ONE_D_REAL_IN = ["fft", "ifft", "rfft", "ihfft"]
ONE_D_COMPLEX_IN = ["fft", "ifft", "irfft", "hfft"]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 3, 7, 8])
@pytest.mark.parametrize("name", ONE_D_REAL_IN)
def test_one_dimensional_transforms_of_real_input_match_numpy(name, n, norm):
    x = real(5, 4)
    got = getattr(F, name)(core.to_tensor(x), n=n, axis=0, norm=norm)
    np.testing.assert_allclose(got.numpy(), getattr(np.fft, name)(x, n=n, axis=0, norm=norm),
                               rtol=1e-10, atol=1e-12)
    assert got.dtype == np.complex128


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 3, 7, 8])
@pytest.mark.parametrize("name", ONE_D_COMPLEX_IN)
def test_one_dimensional_transforms_of_complex_input_match_numpy(name, n, norm):
    z = cplx(3, 5)
    got = getattr(F, name)(core.to_tensor(z), n=n, axis=-1, norm=norm)
    np.testing.assert_allclose(got.numpy(), getattr(np.fft, name)(z, n=n, axis=-1, norm=norm),
                               rtol=1e-10, atol=1e-12)
    assert got.dtype == (np.float64 if name in ("irfft", "hfft") else np.complex128)


N_D = [("fftn", cplx), ("ifftn", cplx), ("rfftn", real), ("irfftn", cplx),
       ("fft2", cplx), ("ifft2", cplx), ("rfft2", real), ("irfft2", cplx)]
PLANS = [(None, None), ([3, 6], None), (None, [0, 2]), ([4, 2], [2, 0]), ([5], [1])]


def _cases(names):
    """(name, s, axes) with the plans each form takes: the 2-D ones two sizes and two axes."""
    return [(name, s, axes) for name in names for s, axes in PLANS
            if not name.endswith("2") or (len(s or [0, 0]) == 2 and len(axes or [0, 0]) == 2)]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("name", "s", "axes"), _cases([name for name, _ in N_D]))
def test_n_dimensional_transforms_match_numpy(name, s, axes, norm):
    x = dict(N_D)[name](3, 4, 5)
    kwargs = {"s": s, "norm": norm} if axes is None else {"s": s, "axes": axes, "norm": norm}
    got = getattr(F, name)(core.to_tensor(x), **kwargs)
    if s is not None and axes is None:  # numpy 2 wants the axes spelled out (Paddle's default)
        kwargs["axes"] = list(range(x.ndim - len(s), x.ndim))
    np.testing.assert_allclose(got.numpy(), getattr(np.fft, name)(x, **kwargs),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("name", "s", "axes"),
                         _cases(["hfftn", "ihfftn", "hfft2", "ihfft2"]))
def test_hermitian_n_dimensional_transforms_match_torch(name, s, axes, norm):
    torch = pytest.importorskip("torch")
    x = cplx(3, 4, 5) if name.startswith("h") else real(3, 4, 5)
    got = getattr(F, name)(core.to_tensor(x), s=s, norm=norm,
                           **({} if axes is None else {"axes": axes}))
    kwargs = {} if axes is None else {"dim": axes}
    expected = getattr(torch.fft, name)(torch.tensor(x), s=s, norm=norm, **kwargs)
    expected = expected.resolve_conj().numpy()
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_dtypes_follow_paddle():
    f32 = core.to_tensor(real(4).astype(np.float32))
    c64 = core.to_tensor(cplx(4).astype(np.complex64))
    assert F.fft(f32).dtype == F.rfft(f32).dtype == F.ihfft(f32).dtype == np.complex64
    assert F.fft(c64).dtype == np.complex64
    assert F.irfft(c64).dtype == F.hfft(c64).dtype == np.float32
    ints = core.to_tensor([1, 2, 3, 4])  # integers compute in the default float dtype
    assert F.fft(ints).dtype == F.rfft(ints).dtype == np.complex64
    assert F.irfft(ints).dtype == np.float32
    half = core.to_tensor(real(4).astype(np.float16))
    assert F.rfft(half).dtype == np.complex64
    np.testing.assert_allclose(F.fft(f32).numpy(), np.fft.fft(f32.numpy()), rtol=1e-5,
                               atol=1e-5)


def test_paddles_documented_examples():
    x = core.to_tensor(np.exp(3j * np.pi * np.arange(7) / 7))
    np.testing.assert_allclose(
        F.fft(x).numpy().round(3),
        [1 + 1.254j, 1 + 4.381j, 1 - 4.381j, 1 - 1.254j, 1 - 0.482j, 1 + 0j, 1 + 0.482j])
    np.testing.assert_allclose(
        F.ifft(x).numpy().round(3),
        [0.143 + 0.179j, 0.143 + 0.069j, 0.143 + 0j, 0.143 - 0.069j, 0.143 - 0.179j,
         0.143 - 0.626j, 0.143 + 0.626j])
    np.testing.assert_allclose(F.rfft(core.to_tensor([0.0, 1.0, 0.0, 0.0])).numpy(),
                               [1, -1j, -1], atol=1e-7)
    np.testing.assert_allclose(F.irfft(core.to_tensor([1, -1j, -1])).numpy(), [0, 1, 0, 0],
                               atol=1e-7)
    np.testing.assert_allclose(F.hfft(core.to_tensor([1, -1j, -1])).numpy(), [0, 0, 0, 4],
                               atol=1e-6)
    spectrum = core.to_tensor([10.0, -5.0, 0.0, -1.0, 0.0, -5.0])
    np.testing.assert_allclose(F.ihfft(spectrum).numpy(),
                               [-0.16666667, 1, 2.3333335, 3.5], rtol=1e-6, atol=1e-7)
    x = core.to_tensor([[3 + 3j, 2 + 2j, 3 + 3j], [2 + 2j, 2 + 2j, 3 + 3j]])
    np.testing.assert_allclose(F.irfft2(x).numpy(), [[2.375, -1.125, 0.375, 0.875],
                                                     [0.125, 0.125, 0.125, 0.125]], atol=1e-6)
    np.testing.assert_allclose(F.hfft2(x).numpy(), [[19, 7, 3, -9], [1, 1, 1, 1]], atol=1e-5)
    ones = core.ones((2, 3, 4))
    np.testing.assert_allclose(F.rfftn(ones, axes=(2, 0)).numpy()[:, :, 0], [[8] * 3, [0] * 3])
    np.testing.assert_allclose(F.fftfreq(5, d=0.5).numpy(), [0, 0.4, 0.8, -0.8, -0.4],
                               rtol=1e-6)
    np.testing.assert_allclose(F.rfftfreq(5, d=0.3).numpy(), [0, 0.6666667, 1.3333334],
                               rtol=1e-6)
    freq = F.fftfreq(5, d=0.3)
    np.testing.assert_allclose(F.fftshift(freq).numpy(),
                               [-1.3333334, -0.6666667, 0, 0.6666667, 1.3333334], rtol=1e-6)
    np.testing.assert_allclose(F.ifftshift(freq).numpy(),
                               [1.3333334, -1.3333334, -0.6666667, 0, 0.6666667], rtol=1e-6)


@pytest.mark.parametrize("n", [1, 4, 7])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies_match_numpy(n, d):
    np.testing.assert_allclose(F.fftfreq(n, d).numpy(), np.fft.fftfreq(n, d), rtol=1e-6)
    np.testing.assert_allclose(F.rfftfreq(n, d).numpy(), np.fft.rfftfreq(n, d), rtol=1e-6)
    assert F.fftfreq(n, d).dtype == np.float32
    assert F.rfftfreq(n, d, dtype="float64").dtype == np.float64


@pytest.mark.parametrize("axes", [None, 0, [1], (0, 2), [-1, 0]])
def test_shifts_match_numpy_and_undo_each_other(axes):
    x = real(3, 4, 5)
    got = F.fftshift(core.to_tensor(x), axes=axes)
    np.testing.assert_array_equal(got.numpy(), np.fft.fftshift(x, axes=axes))
    np.testing.assert_array_equal(F.ifftshift(core.to_tensor(x), axes=axes).numpy(),
                                  np.fft.ifftshift(x, axes=axes))
    np.testing.assert_array_equal(F.ifftshift(got, axes=axes).numpy(), x)


def test_round_trips():
    x = real(4, 6)
    t = core.to_tensor(x)
    np.testing.assert_allclose(F.ifft(F.fft(t)).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(F.irfft(F.rfft(t), n=6).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(F.irfftn(F.rfftn(t), s=x.shape).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(F.hfft(F.ihfft(t), n=6).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(F.hfftn(F.ihfftn(t), s=x.shape).numpy(), x, atol=1e-12)


# ----- gradients ---------------------------------------------------------------------------------

def _torch_one_d(name, n, axis, norm):
    torch = pytest.importorskip("torch")
    return lambda t: getattr(torch.fft, name)(t, n=n, dim=axis, norm=norm)


def _compare(got, expected):
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 3, 7])
@pytest.mark.parametrize("name", ONE_D_REAL_IN)
def test_one_dimensional_gradients_of_real_input(name, n, norm):
    x = real(5, 3)
    got = check_complex_grad(lambda t: getattr(F, name)(t, n=n, axis=0, norm=norm), x)
    _, expected = torch_grads(_torch_one_d(name, n, 0, norm), x)
    _compare(got, expected)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 3, 6, 7, 10])
@pytest.mark.parametrize("name", ONE_D_COMPLEX_IN)
def test_one_dimensional_gradients_of_complex_input(name, n, norm):
    # irfft / hfft: the Hermitian extension counts entries 1 .. n - n//2 - 1 twice, and the
    # imaginary parts of entry 0 (and of the Nyquist entry for even n) not at all.
    z = cplx(3, 5)
    got = check_complex_grad(lambda t: getattr(F, name)(t, n=n, axis=-1, norm=norm), z)
    _, expected = torch_grads(_torch_one_d(name, n, -1, norm), z)
    _compare(got, expected)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("s", "axes"), [(None, None), ([3, 5], None), ([2, 4], [2, 0])])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
def test_n_dimensional_gradients_match_differences_and_torch(name, s, axes, norm):
    torch = pytest.importorskip("torch")
    x = real(2, 3, 4) if name in ("rfftn", "ihfftn") else cplx(2, 3, 4)
    got = check_complex_grad(lambda t: getattr(F, name)(t, s=s, axes=axes, norm=norm), x)
    _, expected = torch_grads(
        lambda t: getattr(torch.fft, name)(t, s=s, dim=axes, norm=norm), x)
    _compare(got, expected)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_two_dimensional_gradients_match_differences_and_torch(name):
    torch = pytest.importorskip("torch")
    x = real(3, 4) if name in ("rfft2", "ihfft2") else cplx(3, 4)
    got = check_complex_grad(lambda t: getattr(F, name)(t, s=[4, 5], norm="ortho"), x)
    _, expected = torch_grads(lambda t: getattr(torch.fft, name)(t, s=[4, 5], norm="ortho"), x)
    _compare(got, expected)


@pytest.mark.parametrize("name", ["fft", "ifft", "fftn"])
def test_full_transforms_of_real_input_give_real_gradients(name):
    # The full spectrum of a real input, through its real and imaginary parts: check_grad's
    # float64 differences of a real function of a real input.
    check_grad(lambda t: core.real(getattr(F, name)(t)) + 2 * core.imag(getattr(F, name)(t)),
               real(3, 4))


def test_real_output_transforms_pass_check_grad():
    check_grad(lambda t: F.irfft(F.rfft(t, n=7), n=5)[:, :3] + F.hfft(F.ihfft(t), n=4)[:, :3],
               real(2, 3))
    check_grad(lambda t: F.irfftn(F.rfftn(t, axes=[1, 0]), s=[3, 2], axes=[1, 0]),
               real(2, 3))


def test_shift_gradients():
    check_grad(lambda t: F.fftshift(t, axes=[0, 1]) * F.ifftshift(t), real(3, 4))
    check_complex_grad(lambda t: F.fftshift(F.fft(t)), cplx(5))


def test_gradients_keep_single_precision():
    x = core.to_tensor(real(6).astype(np.float32), stop_gradient=False)
    core.real(F.irfft(F.rfft(x) * 2, n=6)).sum().backward()
    assert x.gradient().dtype == np.float32
    z = core.to_tensor(cplx(6).astype(np.complex64), stop_gradient=False)
    core.abs(F.hfft(z)).sum().backward()
    assert z.gradient().dtype == np.complex64


# ----- bad arguments -----------------------------------------------------------------------------

def test_bad_arguments_are_named():
    x = core.to_tensor(real(3, 4))
    with pytest.raises(ValueError, match="fft: norm must be 'backward', 'forward' or 'ortho', "
                                         "got 'bad'"):
        F.fft(x, norm="bad")
    with pytest.raises(ValueError, match="irfftn: norm must be"):
        F.irfftn(x, norm=None)
    with pytest.raises(ValueError, match=r"rfft: axis 2 is out of range for a 2-D tensor; "
                                         r"allowed axes: -2..1"):
        F.rfft(x, axis=2)
    with pytest.raises(ValueError, match="fftn: axes\\[1\\] -3 is out of range"):
        F.fftn(x, axes=[0, -3])
    with pytest.raises(ValueError, match=r"ifft: n must be a positive int \(at least 1\), got 0"):
        F.ifft(x, n=0)
    with pytest.raises(TypeError, match="hfft: n must be a positive int, got 2.5"):
        F.hfft(x, n=2.5)
    with pytest.raises(ValueError, match=r"fftn: s\[1\] must be a positive int .* got -1"):
        F.fftn(x, s=[2, -1])
    with pytest.raises(ValueError, match=r"fftn: s \[2, 2, 2\] has more entries than the 2-D"):
        F.fftn(x, s=[2, 2, 2])
    with pytest.raises(ValueError, match=r"rfftn: s \[2\] and axes \[0, 1\] must have the same"):
        F.rfftn(x, s=[2], axes=[0, 1])
    with pytest.raises(ValueError, match=r"fftn: axes \[0, -2\] name the same axis twice"):
        F.fftn(x, axes=[0, -2])
    with pytest.raises(ValueError, match=r"fft2: axes must be a sequence of 2 ints, got \[0\]"):
        F.fft2(x, axes=[0])
    with pytest.raises(ValueError, match=r"rfft2: 'x' must have at least 2 axes, got shape \[4\]"):
        F.rfft2(core.ones([4]))
    with pytest.raises(TypeError, match="rfft: 'x' must be a real .* got dtype complex128"):
        F.rfft(core.to_tensor(cplx(3)))
    with pytest.raises(ValueError, match="irfft: the input has 1 point along axis 0"):
        F.irfft(core.to_tensor(cplx(1)))
    with pytest.raises(ValueError, match="fftn: there is no axis to transform"):
        F.fftn(core.to_tensor(1.0 + 0j))
    with pytest.raises(ValueError, match="fftfreq: d \\(the sample spacing\\) must be a finite "
                                         "non-zero number, got 0"):
        F.fftfreq(4, d=0)
    with pytest.raises(ValueError, match=r"rfftfreq: n must be a positive int \(at least 1\)"):
        F.rfftfreq(0)
    with pytest.raises(TypeError, match="fftfreq: dtype must be a float dtype, got int64"):
        F.fftfreq(4, dtype="int64")
    with pytest.raises(ValueError, match="fftshift: axes 3 is out of range"):
        F.fftshift(x, axes=3)
    with pytest.raises(TypeError, match="fft: 'x' must be a Tensor"):
        F.fft(np.ones(3))


# ----- loading -----------------------------------------------------------------------------------

def test_core_fft_is_loaded_on_first_use():
    code = ("import sys, core; assert 'core.fft' not in sys.modules; "
            "import numpy as np; "
            "out = core.fft.fft(core.to_tensor([1.0, 0.0])); "
            "assert 'core.fft' in sys.modules and np.allclose(out.numpy(), [1, 1])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert core.fft is F


def test_a_real_seed_for_a_complex_output_counts_as_complex():
    z, w = cplx(4), real(4)
    grads = []
    for seed in (w, w.astype(np.complex128)):
        x = core.to_tensor(z, stop_gradient=False)
        F.fft(x, norm="ortho").backward(core.to_tensor(seed))
        grads.append(x.gradient())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
