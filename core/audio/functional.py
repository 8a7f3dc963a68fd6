"""Paddle's ``paddle.audio.functional``: windows (``get_window``), the mel scale (``hz_to_mel``,
``mel_to_hz``, ``mel_frequencies``), FFT bin frequencies, the mel filter bank
(``compute_fbank_matrix``), decibels (``power_to_db``) and the DCT matrix of MFCCs
(``create_dct``). Signatures and defaults follow python/paddle/audio/functional/functional.py
and window.py (Paddle 3.x), themselves modified from librosa and scipy.signal.windows.

The tables (windows, filter banks, DCT matrices) are constants: they are computed in float64
on the host, as ``core.linspace`` computes, and cast to ``dtype`` once, which gives the
correctly rounded float32 values. The functions of a signal (``hz_to_mel`` and ``mel_to_hz``
of a Tensor, ``power_to_db``) are compositions of differentiable core ops.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from core import backend
from core.arithmetic import maximum
from core.elementwise import log10
from core.framework import get_default_dtype
from core.ops import as_input, exp, log
from core.ops import max as _max
from core.search import where
from core.tensor import Tensor

__all__ = ["compute_fbank_matrix", "create_dct", "fft_frequencies", "get_window", "hz_to_mel",
           "mel_frequencies", "mel_to_hz", "power_to_db"]

# The Slaney mel scale (librosa's default): linear below 1 kHz, logarithmic above.
_F_SP = 200.0 / 3  # Hz per mel in the linear part
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


# ----- argument checks ---------------------------------------------------------------------------

def _float_dtype(dtype, fn: str) -> np.dtype:
    try:
        result = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{fn}: dtype {dtype!r} is not a known dtype; use 'float32' or "
                        "'float64'") from None
    if result.kind != "f":
        raise TypeError(f"{fn}: dtype must be a float dtype ('float32', 'float64'), got "
                        f"{result}")
    return result


def _count(value, fn: str, arg: str, low: int = 1) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{fn}: {arg} must be an int >= {low}, got {value!r}")
    if int(value) < low:
        raise ValueError(f"{fn}: {arg} must be an int >= {low}, got {int(value)}")
    return int(value)


def _number(value, fn: str, arg: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: {arg} must be a number, got {value!r}")
    return float(value)


def _constant(values: np.ndarray, dtype: np.dtype) -> Tensor:
    """A host float64 table as a tensor of ``dtype`` on the current device."""
    return Tensor(backend.asarray(values.astype(dtype)))


def _scale_input(value, fn: str, arg: str):
    """A Tensor (integers in the default float dtype) or a Python number, as Paddle takes."""
    if isinstance(value, Tensor):
        return value.astype(get_default_dtype()) if value.dtype.kind in "iub" else value
    return _number(value, fn, arg)


# ----- windows -----------------------------------------------------------------------------------
# Each takes the length M (M > 1) and ``sym``; a periodic window (sym=False, ``fftbins``) is the
# symmetric one of M + 1 points without its last, as scipy.signal.windows computes them.

def _general_cosine(m: int, coefficients) -> np.ndarray:
    angle = np.linspace(-math.pi, math.pi, m)
    return sum(a * np.cos(k * angle) for k, a in enumerate(coefficients))


def _hamming(m: int) -> np.ndarray:
    return _general_cosine(m, [0.54, 0.46])


def _hann(m: int) -> np.ndarray:
    return _general_cosine(m, [0.5, 0.5])


def _blackman(m: int) -> np.ndarray:
    return _general_cosine(m, [0.42, 0.50, 0.08])


def _nuttall(m: int) -> np.ndarray:
    return _general_cosine(m, [0.3635819, 0.4891775, 0.1365995, 0.0106411])


def _bartlett(m: int) -> np.ndarray:
    n = np.arange(m, dtype=np.float64)
    return np.where(n <= (m - 1) / 2.0, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))


def _triang(m: int) -> np.ndarray:
    n = np.arange(1, (m + 1) // 2 + 1, dtype=np.float64)
    if m % 2 == 0:
        half = (2 * n - 1.0) / m
        return np.concatenate([half, half[::-1]])
    half = 2 * n / (m + 1.0)
    return np.concatenate([half, half[-2::-1]])


def _bohman(m: int) -> np.ndarray:
    fac = np.abs(np.linspace(-1, 1, m)[1:-1])
    inner = (1 - fac) * np.cos(math.pi * fac) + np.sin(math.pi * fac) / math.pi
    return np.concatenate([[0.0], inner, [0.0]])


def _cosine(m: int) -> np.ndarray:
    return np.sin(math.pi / m * (np.arange(m) + 0.5))


def _kaiser(m: int, beta) -> np.ndarray:
    n = np.arange(m, dtype=np.float64)
    alpha = (m - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(float(beta))


def _gaussian(m: int, std) -> np.ndarray:
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-(n ** 2) / (2 * std * std))


def _general_gaussian(m: int, p, sig) -> np.ndarray:
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _exponential(m: int, center=None, tau=1.0) -> np.ndarray:
    center = (m - 1) / 2 if center is None else center
    return np.exp(-np.abs(np.arange(m) - center) / tau)


def _tukey(m: int, alpha=0.5) -> np.ndarray:
    n = np.arange(m, dtype=np.float64)
    width = int(alpha * (m - 1) / 2.0)
    rise = n[:width + 1]
    fall = n[m - width - 1:]
    return np.concatenate([
        0.5 * (1 + np.cos(math.pi * (-1 + 2.0 * rise / alpha / (m - 1)))),
        np.ones(max(m - 2 * width - 2, 0)),
        0.5 * (1 + np.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * fall / alpha / (m - 1))))])


def _taylor(m: int, nbar=4, sll=30, norm=True) -> np.ndarray:
    """The Taylor window (scipy's): ``nbar`` near sidelobes held at ``sll`` dB below the peak."""
    a = math.acosh(10 ** (sll / 20)) / math.pi
    s2 = nbar ** 2 / (a ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar, dtype=np.float64)
    m2 = ma * ma
    signs = np.where(np.arange(nbar - 1) % 2 == 0, 1.0, -1.0)
    numerator = signs * np.prod(1 - m2[:, None] / s2 / (a ** 2 + (ma - 0.5) ** 2)[None, :],
                                axis=1)
    others = 1 - m2[:, None] / m2[None, :]
    np.fill_diagonal(others, 1.0)  # the product runs over the other indices only
    fm = numerator / (2 * np.prod(others, axis=1))

    def at(n):
        return 1 + 2 * fm @ np.cos(2 * math.pi * ma[:, None] * (n - m / 2.0 + 0.5) / m)

    w = at(np.arange(m, dtype=np.float64))
    return w / at(np.array([(m - 1) / 2.0]))[0] if norm else w


# name -> (function, its parameters after M, how many of them must be given)
_WINDOWS = {
    "hamming": (_hamming, (), 0), "hann": (_hann, (), 0), "blackman": (_blackman, (), 0),
    "nuttall": (_nuttall, (), 0), "bartlett": (_bartlett, (), 0), "triang": (_triang, (), 0),
    "bohman": (_bohman, (), 0), "cosine": (_cosine, (), 0),
    "kaiser": (_kaiser, ("beta",), 1), "gaussian": (_gaussian, ("std",), 1),
    "general_gaussian": (_general_gaussian, ("p", "sig"), 2),
    # Paddle requires a tuple for 'exponential' although both parameters have defaults.
    "exponential": (_exponential, ("center", "tau"), 0),
    "tukey": (_tukey, ("alpha",), 0), "taylor": (_taylor, ("nbar", "sll", "norm"), 0),
}
_NEEDS_TUPLE = ("gaussian", "general_gaussian", "exponential", "kaiser")


def _window_values(name: str, params: tuple, m: int, sym: bool) -> np.ndarray:
    function = _WINDOWS[name][0]
    if name == "exponential" and sym and params and params[0] is not None:
        raise ValueError("get_window: the 'exponential' window's center must be None for a "
                         "symmetric window (fftbins=False)")
    if m <= 1:
        return np.ones(m)
    if name == "tukey":  # alpha <= 0 is rectangular and alpha >= 1 a Hann window
        alpha = params[0] if params else 0.5
        if alpha <= 0:
            return np.ones(m)
        if alpha >= 1:
            name, function, params = "hann", _hann, ()
    size = m if sym else m + 1
    w = function(size, *params)
    return w if sym else w[:-1]


def get_window(window, win_length, fftbins=True, dtype="float64") -> Tensor:
    """Paddle's ``paddle.audio.functional.get_window(window, win_length, fftbins=True,
    dtype='float64')``: the window ``window`` of ``win_length`` samples, as
    scipy.signal.get_window computes it: periodic (``fftbins``, for spectral analysis) or
    symmetric. ``window`` is a name, or a tuple of the name and its parameters:
    'hamming', 'hann', 'blackman', 'nuttall', 'bartlett', 'triang', 'bohman', 'cosine',
    ('kaiser', beta), ('gaussian', std), ('general_gaussian', p, sig),
    ('exponential', center=None, tau=1.0), 'tukey' / ('tukey', alpha=0.5) and 'taylor' /
    ('taylor', nbar=4, sll=30, norm=True)."""
    fn = "get_window"
    if isinstance(window, tuple) and window and isinstance(window[0], str):
        name, params = window[0], tuple(window[1:])
    elif isinstance(window, str):
        name, params = window, ()
        if name in _NEEDS_TUPLE:
            raise ValueError(f"{fn}: the {name!r} window needs parameters: pass a tuple "
                             f"({name!r}, {', '.join(_WINDOWS[name][1])})")
    else:
        raise TypeError(f"{fn}: window must be a window name or a tuple (name, *parameters), "
                        f"got {window!r}")
    if name not in _WINDOWS:
        raise ValueError(f"{fn}: unknown window {name!r}; allowed: "
                         f"{', '.join(sorted(_WINDOWS))}")
    names, required = _WINDOWS[name][1], _WINDOWS[name][2]
    if not required <= len(params) <= len(names):
        raise ValueError(f"{fn}: the {name!r} window takes the parameters ({', '.join(names)})"
                         f"{f', the first {required} required' if required else ''}; got "
                         f"{len(params)}: {params}")
    m = _count(win_length, fn, "win_length", low=0)
    return _constant(_window_values(name, params, m, sym=not fftbins), _float_dtype(dtype, fn))


# ----- the mel scale -----------------------------------------------------------------------------

def hz_to_mel(freq, htk=False):
    """Paddle's ``paddle.audio.functional.hz_to_mel(freq, htk=False)``: frequencies in Hz (a
    Tensor, differentiable, or a number) in mels: 2595 log10(1 + f / 700) with ``htk``, else
    the Slaney scale (librosa's default), linear (3 f / 200) below 1 kHz and logarithmic
    above it."""
    freq = _scale_input(freq, "hz_to_mel", "freq")
    if htk:
        if isinstance(freq, Tensor):
            return 2595.0 * log10(1.0 + freq / 700.0)
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    linear = freq / _F_SP
    # Paddle adds 1e-10 inside the log (the same value as librosa's up to ~1e-9 mel).
    if isinstance(freq, Tensor):
        # The log reads max(freq, 1 kHz): the branch where() drops must stay finite for a
        # negative or zero frequency, whose gradient is then the linear part's alone.
        logarithmic = _MIN_LOG_MEL + log(maximum(freq, _MIN_LOG_HZ) / _MIN_LOG_HZ + 1e-10) \
            / _LOGSTEP
        return where(freq > _MIN_LOG_HZ, logarithmic, linear)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return linear


def mel_to_hz(mel, htk=False):
    """Paddle's ``paddle.audio.functional.mel_to_hz(mel, htk=False)``: the inverse of
    ``hz_to_mel``, for a Tensor (differentiable) or a number."""
    mel = _scale_input(mel, "mel_to_hz", "mel")
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    linear = _F_SP * mel
    if isinstance(mel, Tensor):
        return where(mel > _MIN_LOG_MEL, _MIN_LOG_HZ * exp(_LOGSTEP * (mel - _MIN_LOG_MEL)),
                     linear)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return linear


def _mel_frequencies(n_mels: int, f_min: float, f_max: float, htk: bool) -> np.ndarray:
    """float64 host values of ``mel_frequencies``."""
    mels = Tensor(np.linspace(hz_to_mel(f_min, htk), hz_to_mel(f_max, htk), n_mels))
    # the ops keep these host values on the host whatever the current device; to_numpy makes
    # sure of it, as the filter bank's numpy arithmetic needs (a no-op on a numpy array)
    return backend.to_numpy(mel_to_hz(mels, htk).data)


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32") -> Tensor:
    """Paddle's ``paddle.audio.functional.mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0,
    htk=False, dtype='float32')``: ``n_mels`` frequencies in Hz, evenly spaced in mels from
    ``f_min`` to ``f_max`` (both included)."""
    fn = "mel_frequencies"
    n_mels = _count(n_mels, fn, "n_mels", low=0)
    f_min, f_max = _number(f_min, fn, "f_min"), _number(f_max, fn, "f_max")
    return _constant(_mel_frequencies(n_mels, f_min, f_max, htk), _float_dtype(dtype, fn))


def _fft_frequencies(sr: float, n_fft: int) -> np.ndarray:
    return np.linspace(0, sr / 2, 1 + n_fft // 2)


def fft_frequencies(sr, n_fft, dtype="float32") -> Tensor:
    """Paddle's ``paddle.audio.functional.fft_frequencies(sr, n_fft, dtype='float32')``: the
    centre frequencies in Hz of the n_fft // 2 + 1 bins of a one-sided FFT: 0 to sr / 2."""
    fn = "fft_frequencies"
    sr = _number(sr, fn, "sr")
    if sr <= 0:
        raise ValueError(f"{fn}: sr (the sample rate) must be positive, got {sr}")
    n_fft = _count(n_fft, fn, "n_fft")
    return _constant(_fft_frequencies(sr, n_fft), _float_dtype(dtype, fn))


# ----- filter bank, decibels, DCT ----------------------------------------------------------------

def _fbank_norm(norm, fn: str):
    if norm is None or norm == "slaney":
        return norm
    if isinstance(norm, bool) or not isinstance(norm, numbers.Real) or not norm > 0:
        raise ValueError(f"{fn}: norm must be 'slaney', a p-norm order > 0 (e.g. 1.0, 2.0) or "
                         f"None, got {norm!r}")
    return float(norm)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False,
                         norm="slaney", dtype="float32") -> Tensor:
    """Paddle's ``paddle.audio.functional.compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0,
    f_max=None, htk=False, norm='slaney', dtype='float32')``: the [n_mels, n_fft // 2 + 1]
    mel filter bank (librosa's ``filters.mel``): triangles over the FFT bins between
    neighbouring mel frequencies (``n_mels`` + 2 of them from ``f_min`` to ``f_max``, default
    sr / 2). ``norm``: 'slaney' scales each triangle to unit area (2 / its width in Hz), a
    number p divides each row by its p-norm (``F.normalize``), None leaves the peaks at 1."""
    fn = "compute_fbank_matrix"
    sr = _number(sr, fn, "sr")
    if sr <= 0:
        raise ValueError(f"{fn}: sr (the sample rate) must be positive, got {sr}")
    n_fft = _count(n_fft, fn, "n_fft")
    n_mels = _count(n_mels, fn, "n_mels")
    f_min = _number(f_min, fn, "f_min")
    f_max = sr / 2 if f_max is None else _number(f_max, fn, "f_max")
    if not f_min < f_max:
        raise ValueError(f"{fn}: f_max must be greater than f_min, got f_min={f_min} and "
                         f"f_max={f_max}")
    norm = _fbank_norm(norm, fn)
    dtype = _float_dtype(dtype, fn)

    fft_freqs = _fft_frequencies(sr, n_fft)
    mel_f = _mel_frequencies(n_mels + 2, f_min, f_max, htk)
    widths = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]  # rising edge of each triangle
    upper = ramps[2:] / widths[1:, None]  # falling edge
    weights = np.maximum(0.0, np.minimum(lower, upper))
    if norm == "slaney":
        weights *= (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]
    elif norm is not None:  # F.normalize(weights, p=norm, axis=-1)
        if math.isinf(norm):
            lengths = np.abs(weights).max(axis=-1, keepdims=True)
        else:
            lengths = (np.abs(weights) ** norm).sum(axis=-1, keepdims=True) ** (1.0 / norm)
        weights /= np.maximum(lengths, 1e-12)
    return _constant(weights, dtype)


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0) -> Tensor:
    """Paddle's ``paddle.audio.functional.power_to_db(spect, ref_value=1.0, amin=1e-10,
    top_db=80.0)``: a power spectrogram in decibels, 10 log10(max(spect, amin)) -
    10 log10(max(ref_value, amin)); with ``top_db``, values more than top_db below the
    largest (over the whole tensor, batch included, as Paddle) are raised to it.
    Differentiable (librosa's ``power_to_db`` with a scalar ``ref``)."""
    fn = "power_to_db"
    spect = as_input(spect, fn, "spect")
    amin, ref_value = _number(amin, fn, "amin"), _number(ref_value, fn, "ref_value")
    if amin <= 0:
        raise ValueError(f"{fn}: amin must be positive, got {amin}")
    if ref_value <= 0:
        raise ValueError(f"{fn}: ref_value must be positive, got {ref_value}")
    if top_db is not None and _number(top_db, fn, "top_db") < 0:
        raise ValueError(f"{fn}: top_db must be non-negative (or None), got {top_db}")
    db = 10.0 * log10(maximum(spect, amin)) - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        db = maximum(db, _max(db) - float(top_db))
    return db


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32") -> Tensor:
    """Paddle's ``paddle.audio.functional.create_dct(n_mfcc, n_mels, norm='ortho',
    dtype='float32')``: the [n_mels, n_mfcc] DCT-II matrix that turns log-mel energies into
    MFCCs (``log_mel^T @ dct``): entry (n, k) is cos(pi / n_mels * (n + 0.5) * k), scaled to
    an orthonormal basis with ``norm='ortho'`` (column 0 by sqrt(1 / n_mels), the others by
    sqrt(2 / n_mels)) and doubled with ``norm=None`` (scipy's unnormalised DCT-II)."""
    fn = "create_dct"
    n_mfcc, n_mels = _count(n_mfcc, fn, "n_mfcc"), _count(n_mels, fn, "n_mels")
    if norm not in ("ortho", None):
        raise ValueError(f"{fn}: norm must be 'ortho' or None, got {norm!r}")
    dtype = _float_dtype(dtype, fn)
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_mels * (n + 0.5) * k)  # [n_mfcc, n_mels]
    if norm is None:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    return _constant(dct.T, dtype)
