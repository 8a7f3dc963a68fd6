"""Paddle's ``paddle.audio.features``: the feature-extraction layers ``Spectrogram``,
``MelSpectrogram``, ``LogMelSpectrogram`` and ``MFCC``, with the signatures, defaults,
sub-layer and buffer names of python/paddle/audio/features/layers.py (Paddle 3.x), so that
their state dicts carry the same keys (``fft_window``, ``fbank_matrix``, ``dct_matrix``).

Each forward is a composition of differentiable ops (``core.signal.stft``, ``abs``, ``pow``,
``matmul``, ``power_to_db``): the features are differentiable with respect to the waveform.
Waveforms are [N, T] or a single [T] (Paddle's ``MFCC`` takes [N, T] only).

Dtypes follow Paddle's ops: a waveform of another float dtype than the layer's meets the window
in stft's product, which promotes as Paddle's type promotion does (a float64 waveform gives a
float64 spectrogram from a float32 ``Spectrogram``; a float16 one a float32 spectrogram). The
mel layers then multiply by their filter bank with ``matmul``, which in Paddle refuses mixed
dtypes: a waveform wider than the layer's dtype is a TypeError there (``_check_input``), and a
narrower one runs in the layer's dtype.
"""
from __future__ import annotations

import numpy as np

from core.arithmetic import matmul
from core.arithmetic import pow as _pow
from core.audio.functional import compute_fbank_matrix, create_dct, get_window, power_to_db
from core.nn.layer import Layer
from core.ops import abs as _abs
from core.signal import stft

__all__ = ["MFCC", "LogMelSpectrogram", "MelSpectrogram", "Spectrogram"]


def _check_input(layer: str, x, dtype) -> None:
    """Refuse a waveform wider than the layer's ``dtype`` (float64 into a float32 layer): its
    spectrogram would meet the filter bank in a matmul of mixed dtypes, which Paddle's matmul
    refuses (core's would promote silently). Other input is left to stft's checks."""
    got = getattr(x, "dtype", None)
    if got is None or got.kind != "f":
        return
    if np.promote_types(got, dtype) != dtype:
        raise TypeError(f"{layer}: the waveform has dtype {got}, wider than the layer's dtype "
                        f"{dtype}, and Paddle's matmul with the layer's filter bank refuses "
                        f"mixed dtypes; pass x.astype('{dtype}') or build the layer with "
                        f"dtype='{got}'")


class Spectrogram(Layer):
    """Paddle's ``paddle.audio.features.Spectrogram(n_fft=512, hop_length=512,
    win_length=None, window='hann', power=1.0, center=True, pad_mode='reflect',
    dtype='float32')``: |stft(x)| ** power of waveforms [N, T] (or [T]), shape
    [N, n_fft // 2 + 1, num_frames]. ``window`` is a name or (name, *parameters) for
    ``get_window`` (a periodic window of ``win_length``, default n_fft, in ``dtype``), kept as
    the buffer ``fft_window``. The defaults are Paddle's code's (its docstring says
    hop_length=None and power=2.0)."""

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window="hann", power=1.0,
                 center=True, pad_mode="reflect", dtype="float32"):
        super().__init__()
        if isinstance(power, bool) or not isinstance(power, (int, float)) or not power > 0:
            raise ValueError(f"Spectrogram: power must be a number > 0, got {power!r}")
        self.power = power
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = n_fft if win_length is None else win_length
        self.center = center
        self.pad_mode = pad_mode
        self.register_buffer("fft_window",
                             get_window(window, self.win_length, fftbins=True, dtype=dtype))

    def forward(self, x):
        """Waveforms [N, T] (or [T]) -> spectrograms [N, n_fft // 2 + 1, num_frames]."""
        spectrum = stft(x, n_fft=self.n_fft, hop_length=self.hop_length,
                        win_length=self.win_length, window=self.fft_window, center=self.center,
                        pad_mode=self.pad_mode)
        return _pow(_abs(spectrum), self.power)


class MelSpectrogram(Layer):
    """Paddle's ``paddle.audio.features.MelSpectrogram(sr=22050, n_fft=2048, hop_length=512,
    win_length=None, window='hann', power=2.0, center=True, pad_mode='reflect', n_mels=64,
    f_min=50.0, f_max=None, htk=False, norm='slaney', dtype='float32')``: a ``Spectrogram``
    (the sub-layer ``_spectrogram``) multiplied by the mel filter bank
    (``compute_fbank_matrix``, the buffer ``fbank_matrix``; f_max defaults to sr // 2):
    [N, n_mels, num_frames]."""

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window="hann",
                 power=2.0, center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None,
                 htk=False, norm="slaney", dtype="float32"):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length,
                                        win_length=win_length, window=window, power=power,
                                        center=center, pad_mode=pad_mode, dtype=dtype)
        self.n_mels = n_mels
        self.f_min = f_min
        self.f_max = f_max
        self.htk = htk
        self.norm = norm
        self.register_buffer("fbank_matrix", compute_fbank_matrix(
            sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=f_min,
            f_max=sr // 2 if f_max is None else f_max, htk=htk, norm=norm, dtype=dtype))

    def forward(self, x):
        """Waveforms [N, T] (or [T]) -> mel spectrograms [N, n_mels, num_frames]."""
        _check_input("MelSpectrogram", x, self.fbank_matrix.dtype)
        return matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(Layer):
    """Paddle's ``paddle.audio.features.LogMelSpectrogram(sr=22050, n_fft=512,
    hop_length=None, win_length=None, window='hann', power=2.0, center=True,
    pad_mode='reflect', n_mels=64, f_min=50.0, f_max=None, htk=False, norm='slaney',
    ref_value=1.0, amin=1e-10, top_db=None, dtype='float32')``: a ``MelSpectrogram`` (the
    sub-layer ``_melspectrogram``) in decibels (``power_to_db`` with ``ref_value``, ``amin``,
    ``top_db``): [N, n_mels, num_frames]."""

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window="hann",
                 power=2.0, center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None,
                 htk=False, norm="slaney", ref_value=1.0, amin=1e-10, top_db=None,
                 dtype="float32"):
        super().__init__()
        self._melspectrogram = MelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
            power=power, center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
            f_max=f_max, htk=htk, norm=norm, dtype=dtype)
        # power_to_db's checks, at construction rather than at the first forward
        if amin <= 0 or ref_value <= 0 or (top_db is not None and top_db < 0):
            raise ValueError(f"LogMelSpectrogram: amin and ref_value must be positive and top_db "
                             f"non-negative (or None), got amin={amin}, ref_value={ref_value}, "
                             f"top_db={top_db}")
        self.ref_value = ref_value
        self.amin = amin
        self.top_db = top_db

    def forward(self, x):
        """Waveforms [N, T] (or [T]) -> log mel spectrograms [N, n_mels, num_frames]."""
        _check_input("LogMelSpectrogram", x, self._melspectrogram.fbank_matrix.dtype)
        return power_to_db(self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin,
                           top_db=self.top_db)


class MFCC(Layer):
    """Paddle's ``paddle.audio.features.MFCC(sr=22050, n_mfcc=40, n_fft=512, hop_length=None,
    win_length=None, window='hann', power=2.0, center=True, pad_mode='reflect', n_mels=64,
    f_min=50.0, f_max=None, htk=False, norm='slaney', ref_value=1.0, amin=1e-10, top_db=None,
    dtype='float32')``: mel-frequency cepstral coefficients, the orthonormal DCT-II
    (``create_dct``, the buffer ``dct_matrix`` [n_mels, n_mfcc]) of a ``LogMelSpectrogram``
    (the sub-layer ``_log_melspectrogram``) along the mel axis: [N, n_mfcc, num_frames].
    ``n_mfcc`` may not exceed ``n_mels``."""

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None,
                 window="hann", power=2.0, center=True, pad_mode="reflect", n_mels=64,
                 f_min=50.0, f_max=None, htk=False, norm="slaney", ref_value=1.0, amin=1e-10,
                 top_db=None, dtype="float32"):
        super().__init__()
        if n_mfcc > n_mels:
            raise ValueError(f"MFCC: n_mfcc must be at most n_mels={n_mels}, got {n_mfcc}")
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
            power=power, center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
            f_max=f_max, htk=htk, norm=norm, ref_value=ref_value, amin=amin, top_db=top_db,
            dtype=dtype)
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype))

    def forward(self, x):
        """Waveforms [N, T] (or [T]) -> MFCCs [N, n_mfcc, num_frames]."""
        _check_input("MFCC", x, self.dct_matrix.dtype)
        # dct^T @ log_mel, Paddle's (log_mel^T @ dct)^T without the two transposes
        return matmul(self.dct_matrix, self._log_melspectrogram(x), transpose_x=True)
