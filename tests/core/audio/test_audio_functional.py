"""core.audio.functional (paddle.audio.functional): windows against scipy.signal.get_window, the
Slaney and HTK mel scales against librosa's formulas written out in numpy, the mel filter bank
against librosa's algorithm (a loop over the filters), power_to_db against librosa's formula,
the DCT matrix against scipy's DCT-II; gradients of the Tensor functions against float64
central differences; bad arguments named in the errors."""
import math

import numpy as np
import pytest

import core
from core.audio import functional as AF
from tests.gradcheck import check_grad

rng = np.random.default_rng(71)

ALL_WINDOWS = ["hamming", "hann", "blackman", "nuttall", "bartlett", "triang", "bohman",
               "cosine", ("kaiser", 5.0), ("gaussian", 3.0), ("general_gaussian", 1.5, 4.0),
               ("exponential", None, 2.0), "tukey", ("tukey", 0.3), ("tukey", 1.5),
               ("tukey", 0.0), "taylor", ("taylor", 5, 40, False)]


# ----- reference formulas (librosa's, written out) -----------------------------------------------

def slaney_hz_to_mel(f):
    f = np.asarray(f, dtype=np.float64)
    linear = f / (200.0 / 3)
    log_part = 15.0 + np.log(np.maximum(f, 1e-300) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log_part, linear)


def slaney_mel_to_hz(m):
    m = np.asarray(m, dtype=np.float64)
    return np.where(m >= 15.0, 1000.0 * np.exp(np.log(6.4) / 27.0 * (m - 15.0)),
                    200.0 / 3 * m)


def librosa_mel_filters(sr, n_fft, n_mels, f_min, f_max, htk, norm):
    """librosa.filters.mel's algorithm: one triangle per loop step."""
    to_mel = (lambda f: 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)) if htk \
        else slaney_hz_to_mel
    to_hz = (lambda m: 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)) if htk \
        else slaney_mel_to_hz
    fft_freqs = np.linspace(0, sr / 2, 1 + n_fft // 2)
    mel_f = to_hz(np.linspace(to_mel(f_min), to_mel(f_max), n_mels + 2))
    weights = np.zeros((n_mels, 1 + n_fft // 2))
    for i in range(n_mels):
        lower = (fft_freqs - mel_f[i]) / (mel_f[i + 1] - mel_f[i])
        upper = (mel_f[i + 2] - fft_freqs) / (mel_f[i + 2] - mel_f[i + 1])
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    if norm == "slaney":
        weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, None]
    elif norm is not None:
        weights /= np.maximum(np.linalg.norm(weights, ord=norm, axis=-1, keepdims=True), 1e-12)
    return weights


# ----- windows -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fftbins", [True, False])
@pytest.mark.parametrize("window", ALL_WINDOWS, ids=str)
def test_get_window_matches_scipy(window, fftbins):
    scipy_signal = pytest.importorskip("scipy.signal")
    for length in (1, 2, 7, 16):
        got = AF.get_window(window, length, fftbins)
        assert got.dtype == np.float64 and got.shape == [length]
        np.testing.assert_allclose(got.numpy(), scipy_signal.get_window(window, length, fftbins),
                                   rtol=1e-12, atol=1e-14, err_msg=f"length {length}")


def test_get_window_formulas_and_dtype():
    n = np.arange(8)
    np.testing.assert_allclose(AF.get_window("hann", 8).numpy(),
                               0.5 - 0.5 * np.cos(2 * np.pi * n / 8), atol=1e-15)  # periodic
    np.testing.assert_allclose(AF.get_window("hamming", 8, fftbins=False).numpy(),
                               np.hamming(8), atol=1e-15)
    np.testing.assert_allclose(AF.get_window(("kaiser", 6.0), 9, fftbins=False).numpy(),
                               np.kaiser(9, 6.0), rtol=1e-12)
    w = AF.get_window("blackman", 16, dtype="float32")
    assert w.dtype == np.float32
    assert AF.get_window("hann", 0).shape == [0]  # Paddle: an empty window


def test_get_window_errors_list_the_allowed_windows():
    with pytest.raises(ValueError, match=r"unknown window 'hanning'; allowed: bartlett, "
                                         r"blackman, bohman, cosine, exponential, gaussian, "
                                         r"general_gaussian, hamming, hann, kaiser, nuttall, "
                                         r"taylor, triang, tukey"):
        AF.get_window("hanning", 8)
    with pytest.raises(ValueError, match=r"the 'kaiser' window needs parameters: pass a tuple "
                                         r"\('kaiser', beta\)"):
        AF.get_window("kaiser", 8)
    with pytest.raises(ValueError, match=r"'gaussian' window takes the parameters \(std\), the "
                                         r"first 1 required; got 0"):
        AF.get_window(("gaussian",), 8)
    with pytest.raises(ValueError, match=r"'hann' window takes the parameters \(\); got 1"):
        AF.get_window(("hann", 2.0), 8)
    with pytest.raises(TypeError, match="window must be a window name or a tuple"):
        AF.get_window(np.ones(8), 8)
    with pytest.raises(ValueError, match="win_length must be an int >= 0, got -1"):
        AF.get_window("hann", -1)
    with pytest.raises(TypeError, match="win_length must be an int >= 0, got 8.5"):
        AF.get_window("hann", 8.5)
    with pytest.raises(TypeError, match="dtype must be a float dtype"):
        AF.get_window("hann", 8, dtype="int32")
    with pytest.raises(ValueError, match="'exponential' window's center must be None"):
        AF.get_window(("exponential", 2.0, 1.0), 8, fftbins=False)


# ----- the mel scale -----------------------------------------------------------------------------

FREQS = np.array([0.0, 50.0, 440.0, 999.0, 1000.0, 1500.0, 4000.0, 11025.0])


def test_hz_to_mel_and_back_match_librosa_formulas_for_tensors_and_numbers():
    got = AF.hz_to_mel(core.to_tensor(FREQS))
    np.testing.assert_allclose(got.numpy(), slaney_hz_to_mel(FREQS), rtol=1e-8, atol=1e-8)
    for f in FREQS:
        assert math.isclose(AF.hz_to_mel(float(f)), float(slaney_hz_to_mel(f)), rel_tol=1e-8,
                            abs_tol=1e-8)
    htk = AF.hz_to_mel(core.to_tensor(FREQS), htk=True)
    np.testing.assert_allclose(htk.numpy(), 2595.0 * np.log10(1.0 + FREQS / 700.0), rtol=1e-12)
    assert math.isclose(AF.hz_to_mel(700.0, htk=True), 2595.0 * math.log10(2.0))
    mels = slaney_hz_to_mel(FREQS)
    np.testing.assert_allclose(AF.mel_to_hz(core.to_tensor(mels)).numpy(), FREQS, rtol=1e-8,
                               atol=1e-6)
    assert math.isclose(AF.mel_to_hz(float(mels[-1])), FREQS[-1], rel_tol=1e-8)
    np.testing.assert_allclose(
        AF.mel_to_hz(AF.hz_to_mel(core.to_tensor(FREQS), htk=True), htk=True).numpy(), FREQS,
        rtol=1e-12, atol=1e-9)
    assert math.isclose(AF.mel_to_hz(10.0, htk=True), 700.0 * (10 ** (10.0 / 2595.0) - 1.0))


def test_hz_to_mel_of_an_integer_tensor_computes_in_the_default_float_dtype():
    got = AF.hz_to_mel(core.to_tensor([100, 2000]))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), slaney_hz_to_mel([100.0, 2000.0]), rtol=1e-6)


@pytest.mark.parametrize("htk", [False, True])
def test_mel_scale_gradients(htk):
    freqs = np.array([30.0, 700.0, 1200.0, 6000.0])
    check_grad(lambda f: AF.hz_to_mel(f, htk=htk), freqs)
    check_grad(lambda m: AF.mel_to_hz(m, htk=htk), AF.hz_to_mel(core.to_tensor(freqs),
                                                                htk=htk).numpy())


def test_hz_to_mel_stays_finite_for_non_positive_frequencies():
    f = core.to_tensor(np.array([-100.0, 0.0]), stop_gradient=False)
    out = AF.hz_to_mel(f)
    np.testing.assert_allclose(out.numpy(), [-1.5, 0.0])
    out.sum().backward()
    np.testing.assert_allclose(f.gradient(), [0.015, 0.015])


def test_mel_frequencies_and_fft_frequencies():
    got = AF.mel_frequencies(10, 20.0, 8000.0, dtype="float64")
    expected = slaney_mel_to_hz(np.linspace(slaney_hz_to_mel(20.0), slaney_hz_to_mel(8000.0), 10))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-8)
    htk = AF.mel_frequencies(5, 0.5, 10000, htk=True, dtype="float64").numpy()
    mels = np.linspace(2595 * np.log10(1 + 0.5 / 700), 2595 * np.log10(1 + 10000 / 700), 5)
    np.testing.assert_allclose(htk, 700 * (10 ** (mels / 2595) - 1), rtol=1e-12)
    default = AF.mel_frequencies()
    assert default.shape == [64] and default.dtype == np.float32
    np.testing.assert_allclose(default.numpy()[[0, -1]], [0.0, 11025.0], rtol=1e-6)
    freqs = AF.fft_frequencies(16000, 128)
    assert freqs.shape == [65] and freqs.dtype == np.float32
    np.testing.assert_allclose(freqs.numpy(), np.fft.rfftfreq(128, 1 / 16000), rtol=1e-6)


# ----- filter bank -------------------------------------------------------------------------------

@pytest.mark.parametrize(("htk", "norm"), [(False, "slaney"), (True, "slaney"), (False, None),
                                           (True, 2.0), (False, 1.0)])
def test_compute_fbank_matrix_matches_librosas_algorithm(htk, norm):
    got = AF.compute_fbank_matrix(16000, 512, n_mels=40, f_min=50.0, f_max=7000.0, htk=htk,
                                  norm=norm, dtype="float64")
    expected = librosa_mel_filters(16000, 512, 40, 50.0, 7000.0, htk, norm)
    assert got.shape == [40, 257]
    # atol: Paddle's 1e-10 inside the Slaney log moves the mel frequencies by ~1e-9 Hz
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-9, atol=1e-9)


def test_compute_fbank_matrix_defaults_follow_paddle():
    got = AF.compute_fbank_matrix(23, 51)  # Paddle's docstring example
    assert got.shape == [64, 26] and got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), librosa_mel_filters(23, 51, 64, 0.0, 11.5, False,
                                                                "slaney"), rtol=1e-5, atol=1e-6)


def test_compute_fbank_matrix_errors_name_the_argument():
    with pytest.raises(ValueError, match="norm must be 'slaney', a p-norm order > 0 .* got 'l2'"):
        AF.compute_fbank_matrix(16000, 512, norm="l2")
    with pytest.raises(ValueError, match="f_max must be greater than f_min, got f_min=9000.0 "
                                         "and f_max=8000.0"):
        AF.compute_fbank_matrix(16000, 512, f_min=9000.0)
    with pytest.raises(ValueError, match="sr .* must be positive, got 0"):
        AF.compute_fbank_matrix(0, 512)
    with pytest.raises(ValueError, match="n_mels must be an int >= 1, got 0"):
        AF.compute_fbank_matrix(16000, 512, n_mels=0)
    with pytest.raises(TypeError, match="n_fft must be an int >= 1, got 512.0"):
        AF.compute_fbank_matrix(16000, 512.0)


# ----- decibels and the DCT ----------------------------------------------------------------------

@pytest.mark.parametrize(("ref", "amin", "top_db"), [(1.0, 1e-10, 80.0), (0.5, 1e-5, None),
                                                    (2.0, 1e-3, 10.0)])
def test_power_to_db_matches_librosas_formula(ref, amin, top_db):
    spect = rng.random((2, 6, 5)) ** 6  # spans several decades
    spect[0, 0, 0] = 0.0
    got = AF.power_to_db(core.to_tensor(spect), ref_value=ref, amin=amin, top_db=top_db)
    expected = 10 * np.log10(np.maximum(amin, spect)) - 10 * np.log10(max(amin, ref))
    if top_db is not None:  # over the whole tensor, as Paddle
        expected = np.maximum(expected, expected.max() - top_db)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_power_to_db_gradient():
    spect = rng.random((3, 4)) + 0.05
    check_grad(lambda s: AF.power_to_db(s, top_db=None), spect)
    spect[0, 0] = 1e-3  # clipped by top_db=10 below the peak: no gradient there
    check_grad(lambda s: AF.power_to_db(s, top_db=10.0), spect, rtol=1e-4)


def test_power_to_db_errors_name_the_argument():
    x = core.to_tensor(np.ones(3))
    with pytest.raises(ValueError, match="amin must be positive, got 0.0"):
        AF.power_to_db(x, amin=0.0)
    with pytest.raises(ValueError, match="ref_value must be positive, got -1.0"):
        AF.power_to_db(x, ref_value=-1.0)
    with pytest.raises(ValueError, match="top_db must be non-negative .* got -5"):
        AF.power_to_db(x, top_db=-5)
    with pytest.raises(TypeError, match="'spect' must be a Tensor"):
        AF.power_to_db(np.ones(3))


@pytest.mark.parametrize("norm", ["ortho", None])
def test_create_dct_matches_scipys_dct_ii(norm):
    scipy_fft = pytest.importorskip("scipy.fft")
    got = AF.create_dct(13, 40, norm=norm, dtype="float64")
    assert got.shape == [40, 13]
    # log_mel^T @ dct is the DCT-II along the mel axis, its first n_mfcc coefficients
    log_mel = rng.normal(size=(40, 7))
    expected = scipy_fft.dct(log_mel, type=2, norm=norm, axis=0)[:13]
    np.testing.assert_allclose(got.numpy().T @ log_mel, expected, rtol=1e-10, atol=1e-10)
    if norm == "ortho":
        full = AF.create_dct(40, 40, dtype="float64").numpy()
        np.testing.assert_allclose(full.T @ full, np.eye(40), atol=1e-12)
    assert AF.create_dct(23, 257).dtype == np.float32  # Paddle's docstring example


def test_create_dct_errors_name_the_argument():
    with pytest.raises(ValueError, match="norm must be 'ortho' or None, got 'forward'"):
        AF.create_dct(13, 40, norm="forward")
    with pytest.raises(ValueError, match="n_mfcc must be an int >= 1, got 0"):
        AF.create_dct(0, 40)
