"""core.signal (paddle.signal): ``stft`` / ``istft`` against torch.stft / torch.istft (centred or
not, reflect or constant padding, one- or two-sided, normalized, windows shorter than n_fft,
complex signals and windows, ``length``), Paddle's documented shapes and round trip, and
``frame`` / ``overlap_add`` against Paddle's documented examples; gradients with respect to the
signal and the window against float64/complex128 central differences and torch's autograd;
bad arguments named in the errors."""
import numpy as np
import pytest

import core
from core import signal
from tests.core.test_complex import check_complex_grad, torch_grads
from tests.gradcheck import check_grad

rng = np.random.default_rng(61)


def real(*shape):
    return rng.normal(size=shape)


def cplx(*shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def t(a, **kwargs):
    return core.to_tensor(a, **kwargs)


# (n_fft, hop_length, win_length): defaults, a short window, an odd n_fft, hop = win_length
LENGTHS = [(16, None, None), (16, 3, 10), (15, 5, 15), (9, 2, 9), (8, 4, 7)]


def _torch_stft(torch, x, n_fft, hop, win, window, **kwargs):
    return torch.stft(torch.tensor(x), n_fft, hop, win,
                      None if window is None else torch.tensor(window), return_complex=True,
                      **kwargs).numpy()


# ----- stft values -------------------------------------------------------------------------------

@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("onesided", [True, False])
@pytest.mark.parametrize(("center", "pad_mode"),
                         [(True, "reflect"), (True, "constant"), (False, "reflect")])
@pytest.mark.parametrize(("n_fft", "hop", "win"), LENGTHS)
def test_stft_matches_torch(n_fft, hop, win, center, pad_mode, onesided, normalized):
    torch = pytest.importorskip("torch")
    x, window = real(2, 41), rng.random(win or n_fft) + 0.1
    got = signal.stft(t(x), n_fft, hop, win, t(window), center, pad_mode, normalized, onesided)
    expected = _torch_stft(torch, x, n_fft, hop, win, window, center=center, pad_mode=pad_mode,
                           normalized=normalized, onesided=onesided)
    assert got.shape == list(expected.shape)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_stft_of_a_1d_signal_has_no_batch_axis_and_a_default_rectangular_window():
    torch = pytest.importorskip("torch")
    x = real(30)
    got = signal.stft(t(x), 8)  # hop 2, window of ones
    expected = _torch_stft(torch, x, 8, None, None, np.ones(8))
    assert got.shape == [5, 16]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_stft_of_a_complex_signal_or_window_is_two_sided_and_matches_torch():
    torch = pytest.importorskip("torch")
    x, window = cplx(2, 33), cplx(12)
    got = signal.stft(t(x), 16, 4, 12, t(window), onesided=False)
    expected = _torch_stft(torch, x, 16, 4, 12, window, onesided=False)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    x = real(33)  # a real signal with a complex window
    got = signal.stft(t(x), 16, 4, 12, t(window), onesided=False, center=False)
    expected = _torch_stft(torch, x, 16, 4, 12, window, onesided=False, center=False)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_stft_keeps_float32_precision_and_computes_integers_in_the_default_float_dtype():
    x = real(2, 40)
    got = signal.stft(t(x.astype(np.float32)), 16)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got.numpy(), signal.stft(t(x), 16).numpy(), rtol=1e-4,
                               atol=1e-4)
    ints = signal.stft(t(np.arange(40)), 16)
    assert ints.dtype == np.complex64  # int64 -> float32 (the default) -> complex64
    np.testing.assert_allclose(ints.numpy(), signal.stft(t(np.arange(40.0)), 16).numpy(),
                               rtol=1e-5, atol=1e-3)


def test_stft_shapes_of_paddles_docstring_example():
    x = t(rng.normal(size=(8, 48000)))
    assert signal.stft(x, n_fft=512).shape == [8, 257, 376]
    assert signal.stft(x, n_fft=512, onesided=False).shape == [8, 512, 376]
    z = x + core.to_tensor(1j) * x  # a complex128 signal
    assert signal.stft(z, n_fft=512, center=False, onesided=False).shape == [8, 512, 372]


def test_stft_frames_against_the_definition():
    # X_t[f] = sum_n window[n] x[t * H + n] exp(-2 pi i f n / N), without centring
    x, window = real(20), rng.random(6)
    got = signal.stft(t(x), 6, 3, window=t(window), center=False).numpy()
    n = np.arange(6)
    for frame in range(got.shape[1]):
        segment = window * x[frame * 3:frame * 3 + 6]
        for f in range(4):
            np.testing.assert_allclose(got[f, frame],
                                       np.sum(segment * np.exp(-2j * np.pi * f * n / 6)),
                                       rtol=1e-12, atol=1e-12)


# ----- istft values ------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:The length of signal is shorter")  # torch pads too
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("onesided", [True, False])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize(("n_fft", "hop", "win"), [(16, None, None), (15, 5, 15), (9, 2, 9)])
def test_istft_matches_torch_and_inverts_stft(n_fft, hop, win, center, onesided, normalized):
    torch = pytest.importorskip("torch")
    x, window = real(2, 41), rng.random(win or n_fft) + 0.1
    spec = signal.stft(t(x), n_fft, hop, win, t(window), center, "reflect", normalized,
                       onesided)
    length = None if center else 41
    got = signal.istft(spec, n_fft, hop, win, t(window), center, normalized, onesided, length)
    expected = torch.istft(torch.tensor(spec.numpy()), n_fft, hop, win, torch.tensor(window),
                           center, normalized, onesided, length).numpy()
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    if center:  # stft is inverted exactly (up to the last whole hop without ``length``)
        np.testing.assert_allclose(got.numpy(), x[:, :got.shape[-1]], rtol=1e-10, atol=1e-12)
    assert got.dtype == np.float64


def test_istft_round_trip_of_paddles_docstring_example():
    x = rng.normal(size=(8, 48000))
    y = signal.stft(t(x), n_fft=512)
    assert y.shape == [8, 257, 376]
    back = signal.istft(y, n_fft=512)
    assert back.shape == [8, 48000]
    np.testing.assert_allclose(back.numpy(), x, rtol=1e-10, atol=1e-10)


def test_istft_return_complex_inverts_a_complex_stft_and_matches_torch():
    torch = pytest.importorskip("torch")
    x, window = cplx(36), cplx(12) + 2
    spec = signal.stft(t(x), 16, 4, 12, t(window), onesided=False)
    got = signal.istft(spec, 16, 4, 12, t(window), onesided=False, return_complex=True)
    expected = torch.istft(torch.tensor(spec.numpy()), 16, 4, 12, torch.tensor(window),
                           onesided=False, return_complex=True).numpy()
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), x, rtol=1e-10, atol=1e-12)
    assert got.dtype == np.complex128


@pytest.mark.filterwarnings("ignore:The length of signal is shorter")  # torch, at 45
def test_istft_length_crops_or_pads_with_zeros_as_torch():
    torch = pytest.importorskip("torch")
    x = real(2, 40)
    spec = signal.stft(t(x), 8, 2, center=False)  # frames cover samples 0..39
    for length in (30, 40, 45):
        got = signal.istft(spec, 8, 2, center=False, length=length)
        expected = torch.istft(torch.tensor(spec.numpy()), 8, 2, window=torch.ones(8),
                               center=False, length=length).numpy()
        assert got.shape == [2, length]
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.numpy()[:, :40], x, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got.numpy()[:, 40:], 0)


def test_istft_keeps_complex64_precision():
    x = real(48).astype(np.float32)
    spec = signal.stft(t(x), 16)
    back = signal.istft(spec, 16)
    assert spec.dtype == np.complex64 and back.dtype == np.float32
    np.testing.assert_allclose(back.numpy(), x, rtol=1e-5, atol=1e-5)


# ----- frame and overlap_add ---------------------------------------------------------------------

def test_frame_matches_paddles_docstring_examples():
    x = core.arange(8)
    np.testing.assert_array_equal(signal.frame(x, frame_length=4, hop_length=2, axis=-1).numpy(),
                                  [[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5, 7]])
    np.testing.assert_array_equal(signal.frame(x, frame_length=4, hop_length=2, axis=0).numpy(),
                                  [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7]])
    x0 = core.arange(16).reshape([2, 8])
    np.testing.assert_array_equal(signal.frame(x0, 4, 2, axis=-1).numpy(),
                                  [[[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5, 7]],
                                   [[8, 10, 12], [9, 11, 13], [10, 12, 14], [11, 13, 15]]])
    assert signal.frame(core.arange(16).reshape([8, 2]), 4, 2, axis=0).shape == [3, 4, 2]
    assert signal.frame(core.arange(32).reshape([2, 2, 8]), 4, 2, axis=-1).shape == [2, 2, 4, 3]
    assert signal.frame(core.arange(32).reshape([8, 2, 2]), 4, 2, axis=0).shape == [3, 4, 2, 2]


def test_overlap_add_matches_paddles_docstring_examples():
    x0 = core.arange(16).reshape([8, 2])
    np.testing.assert_array_equal(signal.overlap_add(x0, hop_length=2, axis=-1).numpy(),
                                  [0, 2, 5, 9, 13, 17, 21, 25, 13, 15])
    x1 = core.arange(16).reshape([2, 8])
    np.testing.assert_array_equal(signal.overlap_add(x1, hop_length=2, axis=0).numpy(),
                                  [0, 1, 10, 12, 14, 16, 18, 20, 14, 15])
    assert signal.overlap_add(core.arange(32).reshape([2, 1, 8, 2]), 2, axis=-1).shape \
        == [2, 1, 10]
    assert signal.overlap_add(core.arange(32).reshape([2, 8, 1, 2]), 2, axis=0).shape \
        == [10, 1, 2]


@pytest.mark.parametrize(("size", "hop"), [(4, 1), (5, 2), (4, 4), (3, 5)])
def test_overlap_add_against_a_loop_including_gaps_between_frames(size, hop):
    frames = real(3, size, 6)  # [..., frame_length, num_frames]
    expected = np.zeros((3, 5 * hop + size))
    for f in range(6):
        expected[:, f * hop:f * hop + size] += frames[:, :, f]
    np.testing.assert_allclose(signal.overlap_add(t(frames), hop).numpy(), expected,
                               rtol=1e-12, atol=1e-12)


# ----- gradients ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("center", "pad_mode", "onesided"),
                         [(True, "reflect", True), (True, "constant", False),
                          (False, "reflect", True)])
def test_stft_gradients_with_respect_to_signal_and_window(center, pad_mode, onesided):
    def parts(x, w):
        return core.as_real(signal.stft(x, 8, 3, 6, w, center, pad_mode, onesided=onesided))

    def power(x, w):
        return core.abs(signal.stft(x, 8, 3, 6, w, center, pad_mode, normalized=True)) ** 2

    x, w = real(2, 13), rng.random(6) + 0.5
    check_grad(parts, x, w)
    check_grad(power, x, w)


def test_stft_gradient_of_the_power_matches_torch():
    torch = pytest.importorskip("torch")
    x, w = real(2, 21), rng.random(8) + 0.5
    _, (gx, gw) = torch_grads(lambda a, b: torch.stft(a, 8, 2, window=b, return_complex=True)
                              .abs() ** 2, x, w)
    xt, wt = t(x, stop_gradient=False), t(w, stop_gradient=False)
    out = core.abs(signal.stft(xt, 8, 2, window=wt)) ** 2
    from tests.core.test_complex import weights  # noqa: PLC0415 - the seed torch_grads used

    out.backward(t(weights(tuple(out.shape), False)))
    np.testing.assert_allclose(xt.gradient(), gx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(wt.gradient(), gw, rtol=1e-10, atol=1e-10)


def test_stft_gradient_of_a_complex_signal():
    check_complex_grad(lambda z: signal.stft(z, 8, 3, onesided=False), cplx(2, 11))


@pytest.mark.parametrize(("onesided", "center", "length"),
                         [(True, True, None), (False, True, 12), (True, False, 20)])
def test_istft_gradients_with_respect_to_spectrum_and_window(onesided, center, length):
    fft_size = 5 if onesided else 8
    re, im, w = real(2, fft_size, 7), real(2, fft_size, 7), rng.random(8) + 0.5

    def fn(a, b, window):
        return signal.istft(core.complex(a, b), 8, 2, window=window, center=center,
                            onesided=onesided, length=length)

    check_grad(fn, re, im, w)


def test_istft_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    spec, w = cplx(5, 9), rng.random(8) + 0.5
    got = check_complex_grad(lambda z, b: signal.istft(z, 8, 2, window=b), spec, w)
    _, expected = torch_grads(lambda z, b: torch.istft(z, 8, 2, window=b), spec, w)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-10)


def test_istft_return_complex_gradient():
    check_complex_grad(lambda z: signal.istft(z, 6, 2, onesided=False, return_complex=True),
                       cplx(6, 5))


@pytest.mark.parametrize("hop", [3, 5])  # 5: gaps between the frames of 4
@pytest.mark.parametrize("axis", [-1, 0])
def test_frame_and_overlap_add_gradients(axis, hop):
    check_grad(lambda x: signal.frame(x, 4, hop, axis=axis), real(13, 2) if axis == 0 else
               real(2, 13))
    check_grad(lambda x: signal.overlap_add(x, hop, axis=axis), real(3, 4, 2) if axis == 0
               else real(2, 4, 3))


# ----- bad arguments -----------------------------------------------------------------------------

def test_stft_errors_name_the_argument():
    x = t(real(2, 20))
    with pytest.raises(ValueError, match=r"n_fft must be in \[1, seq_length\] = \[1, 20\].*32"):
        signal.stft(x, 32)
    with pytest.raises(ValueError, match="n_fft must be a positive int, got 0"):
        signal.stft(x, 0)
    with pytest.raises(TypeError, match="n_fft must be a positive int, got 8.0"):
        signal.stft(x, 8.0)
    with pytest.raises(ValueError, match="hop_length must be a positive int, got 0"):
        signal.stft(x, 8, hop_length=0)
    with pytest.raises(ValueError, match=r"default n_fft // 4 is 0 for n_fft=3"):
        signal.stft(x, 3)
    with pytest.raises(ValueError, match=r"win_length must be in \[1, n_fft\] = \[1, 8\], got 9"):
        signal.stft(x, 8, win_length=9)
    with pytest.raises(ValueError, match=r"window must be a 1-D tensor of win_length=6 values, "
                                         r"got shape \[8\]"):
        signal.stft(x, 8, win_length=6, window=t(np.ones(8)))
    with pytest.raises(ValueError, match="pad_mode must be 'reflect' or 'constant', got 'edge'"):
        signal.stft(x, 8, pad_mode="edge")
    with pytest.raises(ValueError, match="onesided must be False for a complex x or window"):
        signal.stft(t(cplx(20)), 8)
    with pytest.raises(ValueError, match=r"1-D \[seq_length\] or 2-D .* got shape \[1, 2, 20\]"):
        signal.stft(t(real(1, 2, 20)), 8)
    with pytest.raises(TypeError, match="stft: 'x' must be a Tensor"):
        signal.stft(real(20), 8)
    with pytest.raises(TypeError, match="stft: 'window' must be a Tensor"):
        signal.stft(x, 8, window=np.ones(8))


def test_istft_errors_name_the_argument():
    spec = signal.stft(t(real(2, 20)), 8, 2)
    with pytest.raises(ValueError, match="the nonzero overlap-add \\(NOLA\\) condition fails"):
        signal.istft(spec, 8, 2, window=t(np.r_[0.0, np.ones(7)]), center=False)
    with pytest.raises(ValueError, match=r"hop_length must be in \[1, win_length\] = \[1, 4\]"):
        signal.istft(spec, 8, 5, win_length=4)
    with pytest.raises(ValueError, match="hop_length must be a positive int, got -1"):
        signal.istft(spec, 8, -1)
    with pytest.raises(ValueError, match=r"win_length must be in \[1, n_fft\] = \[1, 8\]"):
        signal.istft(spec, 8, 2, win_length=10)
    with pytest.raises(ValueError, match=r"x has 5 frequencies .* onesided=False with n_fft=8 "
                                         "needs 8"):
        signal.istft(spec, 8, 2, onesided=False)
    with pytest.raises(ValueError, match="return_complex=True needs onesided=False"):
        signal.istft(spec, 8, 2, return_complex=True)
    with pytest.raises(ValueError, match="window must be real when return_complex is False"):
        signal.istft(spec, 8, 2, window=t(cplx(8)))
    with pytest.raises(ValueError, match="window must be a 1-D tensor of win_length=8"):
        signal.istft(spec, 8, 2, window=t(np.ones(7)))
    with pytest.raises(TypeError, match="x must be a complex64 or complex128 tensor"):
        signal.istft(t(real(2, 5, 7)), 8, 2)
    with pytest.raises(ValueError, match=r"2-D \[fft_size, num_frames\] or 3-D .* got shape "
                                         r"\[5\]"):
        signal.istft(t(cplx(5)), 8, 2)
    with pytest.raises(ValueError, match="length must be a positive int, got 0"):
        signal.istft(spec, 8, 2, length=0)


def test_frame_and_overlap_add_errors_name_the_argument():
    x = core.arange(8)
    with pytest.raises(ValueError, match="axis must be 0 or -1.*got 1"):
        signal.frame(x, 4, 2, axis=1)
    with pytest.raises(ValueError, match=r"frame_length must be in \[1, seq_length\] = \[1, 8\]"):
        signal.frame(x, 9, 2)
    with pytest.raises(ValueError, match="hop_length must be a positive int, got 0"):
        signal.frame(x, 4, 0)
    with pytest.raises(ValueError, match="frame_length must be a positive int, got 0"):
        signal.frame(x, 0, 2)
    with pytest.raises(ValueError, match=r"at least 2 axes .* got shape \[8\]"):
        signal.overlap_add(x, 2)
    with pytest.raises(ValueError, match="axis must be 0 or -1"):
        signal.overlap_add(x.reshape([2, 4]), 2, axis=2)
    with pytest.raises(ValueError, match="hop_length must be a positive int, got 0"):
        signal.overlap_add(x.reshape([2, 4]), 0)


def test_signal_and_audio_are_loaded_on_first_use():
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = ("import sys, core; assert 'core.signal' not in sys.modules; "
            "assert 'core.audio' not in sys.modules; "
            "spec = core.signal.stft(core.ones([64]), 16); "
            "mel = core.audio.features.MelSpectrogram(sr=8000, n_fft=16, n_mels=4)("
            "core.ones([1, 64])); "
            "assert spec.shape == [9, 17] and mel.shape == [1, 4, 1]")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert core.signal is signal


def test_istft_of_too_few_frames_for_center_raises_naming_them():
    # One frame of an even n_fft covers n_fft samples and center=True drops n_fft // 2 from each
    # end: Paddle's NOLA check then fails on the empty envelope and torch raises; core says why.
    torch = pytest.importorskip("torch")
    one = cplx(5, 1)
    with pytest.raises(RuntimeError):
        torch.istft(torch.tensor(one), 8, window=torch.ones(8, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"istft: 1 frame\(s\) of n_fft=8 \(hop_length=2\) "
                                         r"cover 8 samples, and center=True drops n_fft // 2 = "
                                         r"4 from each end, which leaves no signal"):
        signal.istft(t(one), 8)
    with pytest.raises(ValueError, match=r"istft: x has no frames \(axis -1 of shape \[5, 0\]"):
        signal.istft(t(cplx(5, 0)), 8)
    assert signal.istft(t(one), 8, center=False).shape == [8]
    assert signal.istft(t(one), 8, length=3).shape == [3]
    odd = cplx(5, 1)  # n_fft 9: one sample is left, as in torch
    want = torch.istft(torch.tensor(odd), 9, window=torch.ones(9, dtype=torch.float64))
    np.testing.assert_allclose(signal.istft(t(odd), 9).numpy(), want.numpy(), rtol=1e-12)
