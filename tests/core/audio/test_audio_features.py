"""core.audio.features (paddle.audio.features): Spectrogram, MelSpectrogram, LogMelSpectrogram
and MFCC against torch.stft with scipy's window, librosa's filter-bank algorithm and decibel
formula, and scipy's orthonormal DCT-II (torchaudio when installed); Paddle's docstring
examples' shapes, defaults and state-dict keys; float64 gradients with respect to the waveform;
bad arguments named in the errors."""
import numpy as np
import pytest

import core
from core.audio import features
from core.audio import functional as AF
from tests.core.audio.test_audio_functional import librosa_mel_filters
from tests.gradcheck import check_grad

rng = np.random.default_rng(83)


def t(a, **kwargs):
    return core.to_tensor(a, **kwargs)


def reference_spectrogram(x, n_fft, hop, win_length, window, power, center=True,
                          pad_mode="reflect"):
    torch = pytest.importorskip("torch")
    scipy_signal = pytest.importorskip("scipy.signal")
    w = scipy_signal.get_window(window, win_length or n_fft, fftbins=True)
    spec = torch.stft(torch.tensor(x), n_fft, hop, win_length, torch.tensor(w), center,
                      pad_mode, return_complex=True).abs().numpy()
    return spec ** power


def reference_db(mel, ref=1.0, amin=1e-10, top_db=None):
    db = 10 * np.log10(np.maximum(amin, mel)) - 10 * np.log10(max(amin, ref))
    return db if top_db is None else np.maximum(db, db.max() - top_db)


# ----- values ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("window", "power", "center"), [("hann", 1.0, True),
                                                         ("hamming", 2.0, False),
                                                         (("kaiser", 4.0), 1.5, True)])
def test_spectrogram_matches_torch_stft_with_scipys_window(window, power, center):
    x = rng.normal(size=(2, 300))
    layer = features.Spectrogram(n_fft=64, hop_length=16, win_length=48, window=window,
                                 power=power, center=center, dtype="float64")
    got = layer(t(x))
    expected = reference_spectrogram(x, 64, 16, 48, window, power, center)
    assert got.shape == list(expected.shape) and got.dtype == np.float64
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-10)


def test_mel_spectrogram_is_the_filter_bank_times_the_power_spectrogram():
    x = rng.normal(size=(2, 500))
    layer = features.MelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=20, f_min=30.0,
                                    f_max=3500.0, dtype="float64")
    got = layer(t(x))
    spec = reference_spectrogram(x, 128, 32, None, "hann", 2.0)
    expected = librosa_mel_filters(8000, 128, 20, 30.0, 3500.0, False, "slaney") @ spec
    assert got.shape == [2, 20, 16]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-8, atol=1e-10)


def test_log_mel_spectrogram_is_the_mel_spectrogram_in_decibels():
    x = rng.normal(size=(2, 400))
    layer = features.LogMelSpectrogram(sr=8000, n_fft=128, n_mels=16, htk=True, norm=2.0,
                                       ref_value=0.5, top_db=40.0, dtype="float64")
    got = layer(t(x))
    spec = reference_spectrogram(x, 128, 32, None, "hann", 2.0)  # hop_length: n_fft // 4
    mel = librosa_mel_filters(8000, 128, 16, 50.0, 4000.0, True, 2.0) @ spec
    np.testing.assert_allclose(got.numpy(), reference_db(mel, 0.5, 1e-10, 40.0), rtol=1e-8,
                               atol=1e-8)


def test_mfcc_is_the_orthonormal_dct_of_the_log_mel_spectrogram():
    scipy_fft = pytest.importorskip("scipy.fft")
    x = rng.normal(size=(2, 400))
    layer = features.MFCC(sr=8000, n_mfcc=12, n_fft=128, n_mels=24, dtype="float64")
    got = layer(t(x))
    spec = reference_spectrogram(x, 128, 32, None, "hann", 2.0)
    log_mel = reference_db(librosa_mel_filters(8000, 128, 24, 50.0, 4000.0, False, "slaney")
                           @ spec)
    expected = scipy_fft.dct(log_mel, type=2, norm="ortho", axis=-2)[:, :12]
    assert got.shape == [2, 12, 13]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-8, atol=1e-8)


def test_features_match_torchaudio_where_installed():
    torch = pytest.importorskip("torch")
    torchaudio = pytest.importorskip("torchaudio")
    x = rng.normal(size=(2, 400))
    ours = features.MelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=20, f_min=0.0,
                                   dtype="float64")(t(x)).numpy()
    theirs = torchaudio.transforms.MelSpectrogram(
        sample_rate=8000, n_fft=128, hop_length=32, n_mels=20, f_min=0.0, f_max=4000.0,
        norm="slaney", mel_scale="slaney", pad_mode="reflect").double()(torch.tensor(x))
    # rtol 1e-5, not 1e-6: some torchaudio versions space the mel points in float32
    # (torch.linspace's default dtype) before .double(); ours are float64 throughout
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-5, atol=1e-8)


def test_a_single_waveform_gives_features_without_a_batch_axis():
    x = rng.normal(size=300)
    for layer, size in ((features.Spectrogram(n_fft=64, hop_length=16, dtype="float64"), 33),
                        (features.MFCC(sr=8000, n_mfcc=8, n_fft=64, n_mels=10,
                                       dtype="float64"), 8)):
        single, batch = layer(t(x)), layer(t(x[None]))
        assert single.shape == [size, 19]
        np.testing.assert_allclose(single.numpy(), batch.numpy()[0], rtol=1e-12, atol=1e-12)


# ----- Paddle's examples, defaults and state dicts -----------------------------------------------

def test_paddles_docstring_examples_shapes_and_float32():
    waveform = core.linspace(-1.0, 1.0, 8000).tile([1, 1]) * 0.1  # 0.5 s at 16 kHz
    spect = features.Spectrogram(n_fft=512, window="hann", power=1.0)(waveform)
    assert spect.shape == [1, 257, 16] and spect.dtype == np.float32  # hop_length 512
    mel = features.MelSpectrogram(sr=16000, n_fft=512, window="hann", power=1.0)(waveform)
    assert mel.shape == [1, 64, 16]
    log_mel = features.LogMelSpectrogram(sr=16000, n_fft=512, window="hann", power=1.0)(waveform)
    assert log_mel.shape == [1, 64, 63]  # hop_length None: n_fft // 4
    mfcc = features.MFCC(sr=16000, n_fft=512, window="hann")(waveform)
    assert mfcc.shape == [1, 40, 63] and mfcc.dtype == np.float32
    np.testing.assert_allclose(spect.numpy(), reference_spectrogram(
        waveform.numpy().astype(np.float64), 512, 512, None, "hann", 1.0), rtol=1e-4, atol=1e-4)


def test_defaults_buffers_and_state_dict_keys_follow_paddle():
    spect = features.Spectrogram()
    assert (spect.n_fft, spect.hop_length, spect.power) == (512, 512, 1.0)
    np.testing.assert_allclose(spect.fft_window.numpy(), AF.get_window("hann", 512,
                                                                       dtype="float32").numpy())
    mel = features.MelSpectrogram()
    assert mel.fbank_matrix.shape == [64, 1025]  # n_fft 2048
    np.testing.assert_allclose(mel.fbank_matrix.numpy(), AF.compute_fbank_matrix(
        22050, 2048, 64, 50.0, 11025, dtype="float32").numpy())
    mfcc = features.MFCC()
    assert mfcc.dct_matrix.shape == [64, 40]
    assert sorted(mfcc.state_dict()) == [
        "_log_melspectrogram._melspectrogram._spectrogram.fft_window",
        "_log_melspectrogram._melspectrogram.fbank_matrix", "dct_matrix"]
    assert list(mfcc.parameters()) == []
    assert sorted(features.LogMelSpectrogram().state_dict()) == [
        "_melspectrogram._spectrogram.fft_window", "_melspectrogram.fbank_matrix"]


# ----- gradients ---------------------------------------------------------------------------------

def test_feature_gradients_with_respect_to_the_waveform():
    x = rng.normal(size=(1, 40))
    kwargs = {"n_fft": 16, "hop_length": 5, "dtype": "float64"}
    check_grad(features.Spectrogram(power=2.0, **kwargs), x)
    check_grad(features.Spectrogram(window=("gaussian", 4.0), **kwargs), x)
    mel_kwargs = {"sr": 8000, "n_mels": 5, "f_min": 100.0, **kwargs}
    check_grad(features.MelSpectrogram(**mel_kwargs), x)
    check_grad(features.LogMelSpectrogram(**mel_kwargs), x, rtol=1e-4)
    check_grad(features.MFCC(n_mfcc=4, **mel_kwargs), x, rtol=1e-4)


# ----- bad arguments -----------------------------------------------------------------------------

def test_feature_errors_name_the_argument():
    with pytest.raises(ValueError, match="Spectrogram: power must be a number > 0, got 0"):
        features.Spectrogram(power=0)
    with pytest.raises(ValueError, match="MFCC: n_mfcc must be at most n_mels=20, got 40"):
        features.MFCC(n_mels=20)
    with pytest.raises(ValueError, match="unknown window 'hanning'"):
        features.MelSpectrogram(window="hanning")
    with pytest.raises(ValueError, match="amin and ref_value must be positive .* amin=0"):
        features.LogMelSpectrogram(amin=0)
    with pytest.raises(ValueError, match="norm must be 'slaney', a p-norm order"):
        features.MelSpectrogram(norm="l1")
    with pytest.raises(ValueError, match=r"stft: n_fft must be in \[1, seq_length\] = "
                                         r"\[1, 100\]"):
        features.Spectrogram()(t(rng.normal(size=(1, 100)).astype(np.float32)))


# ----- input dtypes ------------------------------------------------------------------------------

def test_a_waveform_wider_than_the_mel_layers_dtype_is_refused_as_paddles_matmul_does():
    # Paddle: stft's window product promotes (type promotion), so Spectrogram of a float64
    # waveform is float64 even from a float32 layer; the mel layers' matmul with the float32
    # filter bank then meets a float64 spectrogram, which Paddle's matmul refuses.
    x = rng.normal(size=(2, 300))
    kwargs = {"sr": 8000, "n_fft": 64, "hop_length": 16, "n_mels": 10}
    spect = features.Spectrogram(n_fft=64, hop_length=16)(t(x))
    wide = features.Spectrogram(n_fft=64, hop_length=16, dtype="float64")(t(x))
    assert spect.dtype == np.float64  # the float32 window, promoted with the waveform
    np.testing.assert_allclose(spect.numpy(), wide.numpy(), rtol=1e-5, atol=1e-6)
    for name, layer in (("MelSpectrogram", features.MelSpectrogram(**kwargs)),
                        ("LogMelSpectrogram", features.LogMelSpectrogram(**kwargs)),
                        ("MFCC", features.MFCC(n_mfcc=8, **kwargs))):
        with pytest.raises(TypeError, match=rf"{name}: the waveform has dtype float64, wider "
                                            r"than the layer's dtype float32.*x.astype\("
                                            r"'float32'\) or build the layer with "
                                            r"dtype='float64'"):
            layer(t(x))
        narrow = layer(t(x.astype(np.float32)))
        assert narrow.dtype == np.float32 and layer(t(x.astype(np.float16))).dtype == np.float32
    # a narrower waveform through a float64 layer runs in float64, as Paddle promotes it
    mel64 = features.MelSpectrogram(dtype="float64", **kwargs)
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(mel64(t(x32)).numpy(), mel64(t(x32.astype(np.float64))).numpy(),
                               rtol=1e-12)
    assert mel64(t(x32)).dtype == np.float64
