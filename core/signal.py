"""Paddle's ``paddle.signal``: the short-time Fourier transform ``stft`` and its inverse
``istft``, with the framing helpers ``frame`` and ``overlap_add`` that Paddle's module defines
for them. Signatures, defaults, shapes and checks follow python/paddle/signal.py (Paddle 3.x).

Framing is one op: a strided view of the signal copied into [..., num_frames, frame_length]
(no loop over frames). Its gradient is the overlap-add of the frames' gradients, and the
overlap-add's gradient is framing again, the two maps being each other's adjoints. The
overlap-add sums ``ceil(frame_length / hop_length)`` strided blocks, one per offset within a
frame, so its cost does not grow with the number of frames either.

Everything else is composed of differentiable core ops (``F.pad``, ``multiply``, ``core.fft``,
``divide``), so ``stft`` and ``istft`` are differentiable with respect to the signal and the
window, with torch's convention for complex gradients (core/complex.py).
"""
from __future__ import annotations

import math

from core import backend, fft
from core.arithmetic import divide, multiply
from core.framework import get_default_dtype
from core.manipulation import broadcast_to, moveaxis, squeeze, transpose, unsqueeze
from core.nn import functional as F
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["frame", "istft", "overlap_add", "stft"]

_PAD_MODES = ("constant", "reflect")  # Paddle's stft accepts these two
# Paddle's NOLA threshold: an overlap-added squared window below it cannot be divided by.
_NOLA_EPS = 1e-11


# ----- argument checks ---------------------------------------------------------------------------

def _positive_int(value, fn: str, arg: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{fn}: {arg} must be a positive int, got {value!r}")
    if int(value) <= 0:
        raise ValueError(f"{fn}: {arg} must be a positive int, got {int(value)}")
    return int(value)


def _frame_axis(axis, fn: str) -> int:
    if isinstance(axis, bool) or axis not in (0, -1):
        raise ValueError(f"{fn}: axis must be 0 or -1 (the first or the last axis), got {axis!r}")
    return axis


def _hop_and_window_lengths(n_fft: int, hop_length, win_length, fn: str) -> tuple[int, int]:
    """(hop_length, win_length) with Paddle's defaults: n_fft // 4 and n_fft."""
    if hop_length is None:
        hop_length = n_fft // 4
        if hop_length == 0:
            raise ValueError(f"{fn}: hop_length must be a positive int; its default n_fft // 4 "
                             f"is 0 for n_fft={n_fft}, so pass hop_length")
    hop_length = _positive_int(hop_length, fn, "hop_length")
    win_length = n_fft if win_length is None else _positive_int(win_length, fn, "win_length")
    if win_length > n_fft:
        raise ValueError(f"{fn}: win_length must be in [1, n_fft] = [1, {n_fft}], got "
                         f"{win_length}")
    return hop_length, win_length


def _full_window(window, win_length: int, n_fft: int, dtype, fn: str) -> Tensor:
    """The analysis window as a [n_fft] tensor: ``window`` (a 1-D tensor of ``win_length``
    values; None: ones of ``dtype``), zero-padded on both sides to ``n_fft`` as Paddle and
    torch centre it (the extra zero, for an odd difference, on the right)."""
    if window is None:
        window = Tensor(backend.xp().ones(win_length, dtype=dtype))
    else:
        window = as_input(window, fn, "window")
        if window.ndim != 1 or window.shape[0] != win_length:
            raise ValueError(f"{fn}: window must be a 1-D tensor of win_length={win_length} "
                             f"values, got shape {window.shape}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = F.pad(window, [left, n_fft - win_length - left], mode="constant")
    return window


# ----- framing and overlap-add: a pair of adjoint ops ---------------------------------------------

def _frame_array(a, size: int, hop: int):
    """The ``(len - size) // hop + 1`` windows of ``size`` samples, ``hop`` apart, along the
    last axis of array ``a``: [..., num_frames, size], a copy of a strided view."""
    xp = backend.array_module(a)
    a = xp.ascontiguousarray(a)
    count = (a.shape[-1] - size) // hop + 1
    step = a.strides[-1]
    view = xp.lib.stride_tricks.as_strided(a, a.shape[:-1] + (count, size),
                                           a.strides[:-1] + (hop * step, step))
    return xp.ascontiguousarray(view)


def _overlap_add_array(frames, hop: int, length: int):
    """Frames [..., num_frames, size] added ``hop`` apart into [..., length] (length is at
    least (num_frames - 1) * hop + size; the samples after the last frame are 0). Each frame
    is cut into blocks of ``hop`` samples; block j of every frame lands on one contiguous run
    of the output, so one strided add per block offset j covers all frames."""
    xp = backend.array_module(frames)
    *lead, count, size = frames.shape
    blocks = -(-size // hop)
    if blocks * hop != size:  # pad each frame to whole blocks
        padded = xp.zeros((*lead, count, blocks * hop), dtype=frames.dtype)
        padded[..., :size] = frames
        frames = padded
    frames = frames.reshape(*lead, count, blocks, hop)
    out = xp.zeros((*lead, max(length, (count - 1 + blocks) * hop)), dtype=frames.dtype)
    for j in range(blocks):
        out[..., j * hop:(j + count) * hop] += frames[..., j, :].reshape(*lead, count * hop)
    return out[..., :length]


def _frames(x: Tensor, size: int, hop: int) -> Tensor:
    """Differentiable framing of the last axis: [..., L] -> [..., num_frames, size]."""
    length = x.data.shape[-1]
    dtype = x.dtype
    return apply(_frame_array(x.data, size, hop), (x,),
                 lambda g: (_overlap_add_array(g, hop, length).astype(dtype, copy=False),),
                 "frame")


def _overlap_add(frames: Tensor, hop: int) -> Tensor:
    """Differentiable overlap-add: [..., num_frames, size] -> [..., (num_frames-1)*hop+size]."""
    *_, count, size = frames.data.shape
    dtype = frames.dtype
    return apply(_overlap_add_array(frames.data, hop, (count - 1) * hop + size), (frames,),
                 lambda g: (_frame_array(g, size, hop).astype(dtype, copy=False),),
                 "overlap_add")


def frame(x, frame_length, hop_length, axis=-1, name=None) -> Tensor:
    """Paddle's ``paddle.signal.frame(x, frame_length, hop_length, axis=-1, name=None)``:
    ``x`` sliced into overlapping frames of ``frame_length`` samples, ``hop_length`` apart,
    along its last (``axis=-1``) or first (``axis=0``) axis. The output is
    [..., frame_length, num_frames] for axis=-1 and [num_frames, frame_length, ...] for
    axis=0, with num_frames = 1 + (seq_length - frame_length) // hop_length; samples after
    the last whole frame are dropped. Differentiable: the gradient is the overlap-add of the
    frames' gradients."""
    del name
    x = as_input(x, "frame")
    axis = _frame_axis(axis, "frame")
    size = _positive_int(frame_length, "frame", "frame_length")
    hop = _positive_int(hop_length, "frame", "hop_length")
    if x.ndim == 0:
        raise ValueError("frame: x must have at least 1 axis, got a 0-D tensor")
    seq = x.shape[axis]
    if size > seq:
        raise ValueError(f"frame: frame_length must be in [1, seq_length] = [1, {seq}] (axis "
                         f"{axis} of x, shape {x.shape}), got {size}")
    if axis == 0:  # [seq, ...] -> [..., seq] -> [..., F, size] -> [F, size, ...]
        return moveaxis(_frames(moveaxis(x, 0, -1), size, hop), [-2, -1], [0, 1])
    return moveaxis(_frames(x, size, hop), -1, -2)


def overlap_add(x, hop_length, axis=-1, name=None) -> Tensor:
    """Paddle's ``paddle.signal.overlap_add(x, hop_length, axis=-1, name=None)``: frames
    [..., frame_length, num_frames] (``axis=-1``) or [num_frames, frame_length, ...]
    (``axis=0``) added back ``hop_length`` apart into [..., seq_length] or [seq_length, ...],
    seq_length = (num_frames - 1) * hop_length + frame_length: the inverse arrangement of
    ``frame``, overlapping samples summed. Differentiable: the gradient is ``frame`` of the
    output's gradient."""
    del name
    x = as_input(x, "overlap_add")
    axis = _frame_axis(axis, "overlap_add")
    hop = _positive_int(hop_length, "overlap_add", "hop_length")
    if x.ndim < 2:
        raise ValueError(f"overlap_add: x must have at least 2 axes (frame_length and "
                         f"num_frames), got shape {x.shape}")
    if axis == 0:  # [F, size, ...] -> [..., F, size] -> [..., seq] -> [seq, ...]
        return moveaxis(_overlap_add(moveaxis(x, [0, 1], [-2, -1]), hop), -1, 0)
    return _overlap_add(moveaxis(x, -1, -2), hop)


# ----- stft and istft ----------------------------------------------------------------------------

def _signal(x, fn: str) -> Tensor:
    """stft's input: a 1-D or 2-D tensor; integers compute in the default float dtype."""
    x = as_input(x, fn)
    if x.ndim not in (1, 2):
        raise ValueError(f"{fn}: x must be a 1-D [seq_length] or 2-D [batch, seq_length] "
                         f"tensor, got shape {x.shape}")
    if x.dtype.kind in "iub":
        x = x.astype(get_default_dtype())
    return x


def _swap_last(x: Tensor) -> Tensor:
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=True, name=None) -> Tensor:
    """Paddle's ``paddle.signal.stft(x, n_fft, hop_length=None, win_length=None, window=None,
    center=True, pad_mode='reflect', normalized=False, onesided=True, name=None)``.

    The short-time Fourier transform of ``x`` ([seq_length] or [batch, seq_length], real or
    complex): X_t[f] = sum_n window[n] x[t * hop_length + n] exp(-2 pi i f n / n_fft).
    ``hop_length`` defaults to n_fft // 4 and ``win_length`` to n_fft; ``window`` (a 1-D
    tensor of win_length values, default ones) is zero-padded on both sides to n_fft. With
    ``center`` the signal is first padded by n_fft // 2 on each side (``pad_mode`` 'reflect'
    or 'constant'), so frame t is centred on sample t * hop_length. ``normalized`` scales by
    1 / sqrt(n_fft); ``onesided`` keeps the n_fft // 2 + 1 non-negative frequencies (real
    input and window only).

    Returns a complex tensor [..., n_fft // 2 + 1 (or n_fft), num_frames] (no batch axis for a
    1-D ``x``), complex64 from float32 and complex128 from float64. Differentiable with
    respect to ``x`` and ``window``.
    """
    del name
    x = _signal(x, "stft")
    n_fft = _positive_int(n_fft, "stft", "n_fft")
    seq = x.shape[-1]
    if n_fft > seq:  # Paddle's bound: the unpadded length
        raise ValueError(f"stft: n_fft must be in [1, seq_length] = [1, {seq}] (the length of "
                         f"x's last axis), got {n_fft}")
    hop, win_length = _hop_and_window_lengths(n_fft, hop_length, win_length, "stft")
    real_dtype = x.data.real.dtype
    window = _full_window(window, win_length, n_fft, real_dtype, "stft")
    if center:
        if pad_mode not in _PAD_MODES:
            raise ValueError(f"stft: pad_mode must be 'reflect' or 'constant', got {pad_mode!r}")
        half = n_fft // 2
        batched = x if x.ndim == 2 else unsqueeze(x, 0)
        padded = F.pad(unsqueeze(batched, -1), [half, half], mode=pad_mode, data_format="NLC")
        x = squeeze(padded, -1) if x.ndim == 2 else squeeze(padded, [0, 2])
    frames = multiply(_frames(x, n_fft, hop), window)  # [..., num_frames, n_fft]
    norm = "ortho" if normalized else "backward"
    if frames.dtype.kind == "c":
        if onesided:
            raise ValueError("stft: onesided must be False for a complex x or window (the "
                             "spectrum of a complex frame has no conjugate symmetry)")
        spectrum = fft.fft(frames, axis=-1, norm=norm)
    elif onesided:
        spectrum = fft.rfft(frames, axis=-1, norm=norm)
    else:
        spectrum = fft.fft(frames, axis=-1, norm=norm)
    return _swap_last(spectrum)  # [..., freq, num_frames], Paddle's layout


def _spectrogram(x, fn: str) -> Tensor:
    x = as_input(x, fn)
    if x.dtype.kind != "c":
        raise TypeError(f"{fn}: x must be a complex64 or complex128 tensor (an stft), got dtype "
                        f"{x.dtype}")
    if x.ndim not in (2, 3):
        raise ValueError(f"{fn}: x must be a 2-D [fft_size, num_frames] or 3-D [batch, "
                         f"fft_size, num_frames] tensor, got shape {x.shape}")
    return x


def _crop(x: Tensor, start: int, stop: int) -> Tensor:
    return x[..., start:stop]


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False,
          name=None) -> Tensor:
    """Paddle's ``paddle.signal.istft(x, n_fft, hop_length=None, win_length=None, window=None,
    center=True, normalized=False, onesided=True, length=None, return_complex=False,
    name=None)``.

    The inverse of ``stft`` for the same arguments: each frame of ``x`` ([fft_size,
    num_frames] or [batch, fft_size, num_frames], complex; fft_size is n_fft // 2 + 1 when
    ``onesided``, else n_fft) is inverse-transformed, multiplied by the window, overlap-added
    ``hop_length`` apart (0 < hop_length <= win_length), and divided by the overlap-added
    squared window: the least-squares (Griffin-Lim) estimate of the signal. That sum must not
    vanish on the kept samples (the NOLA condition), or a ValueError says so. ``center``
    drops the n_fft // 2 samples ``stft`` padded on each side; ``length`` crops the result
    (or pads it with zeros) to that many samples. The output is real ([..., seq_length]) unless
    ``return_complex`` (which needs ``onesided=False``). Differentiable with respect to ``x``
    and ``window``.
    """
    del name
    x = _spectrogram(x, "istft")
    n_fft = _positive_int(n_fft, "istft", "n_fft")
    hop, win_length = _hop_and_window_lengths(n_fft, hop_length, win_length, "istft")
    if hop > win_length:
        raise ValueError(f"istft: hop_length must be in [1, win_length] = [1, {win_length}] "
                         f"(frames may not leave gaps), got {hop}")
    fft_size = n_fft // 2 + 1 if onesided else n_fft
    if x.shape[-2] != fft_size:
        raise ValueError(f"istft: x has {x.shape[-2]} frequencies (axis -2 of shape {x.shape}) "
                         f"but onesided={bool(onesided)} with n_fft={n_fft} needs {fft_size}")
    if x.shape[-1] == 0:
        raise ValueError(f"istft: x has no frames (axis -1 of shape {x.shape} is 0); it needs "
                         "at least one")
    if length is not None:
        length = _positive_int(length, "istft", "length")
    real_dtype = x.data.real.dtype
    window = _full_window(window, win_length, n_fft, real_dtype, "istft")
    norm = "ortho" if normalized else "backward"
    spectrum = _swap_last(x)  # [..., num_frames, fft_size]
    if return_complex:
        if onesided:
            raise ValueError("istft: return_complex=True needs onesided=False (a one-sided "
                             "spectrum stands for a real signal)")
        frames = fft.ifft(spectrum, axis=-1, norm=norm)
    else:
        if window.dtype.kind == "c":
            raise ValueError("istft: window must be real when return_complex is False, got "
                             f"dtype {window.dtype}")
        if not onesided:  # a real signal's spectrum: its first half says everything
            spectrum = spectrum[..., :n_fft // 2 + 1]
        frames = fft.irfft(spectrum, n=n_fft, axis=-1, norm=norm)
    signal = _overlap_add(multiply(frames, window), hop)  # [..., total]
    count = x.shape[-1]
    envelope = _overlap_add(broadcast_to(multiply(window, window), [count, n_fft]), hop)
    total = signal.shape[-1]
    start = n_fft // 2 if center else 0
    if length is None:
        stop = total - start
    else:
        stop = min(start + length, total)
    if stop <= start:
        _refuse_empty_signal(count, n_fft, hop, total)
    signal, envelope = _crop(signal, start, stop), _crop(envelope, start, stop)
    _check_nola(envelope)
    out = divide(signal, envelope)
    if length is not None and out.shape[-1] < length:  # torch's rule: pad with zeros
        pairs = [0, 0] * (out.ndim - 1) + [0, length - out.shape[-1]]
        out = F.pad(out, pairs, mode="constant")
    return out


def _refuse_empty_signal(count: int, n_fft: int, hop: int, total: int) -> None:
    """Too few frames for ``center``: Paddle's slice [n_fft // 2 : -(n_fft // 2)] leaves
    nothing and its NOLA check then fails on the empty envelope (torch raises too); say why."""
    raise ValueError(
        f"istft: {count} frame(s) of n_fft={n_fft} (hop_length={hop}) cover {total} samples, "
        f"and center=True drops n_fft // 2 = {n_fft // 2} from each end, which leaves no "
        "signal; pass more frames, center=False, or length")


def _check_nola(envelope: Tensor) -> None:
    data = envelope.data
    xp = backend.array_module(data)
    smallest = float(xp.abs(data).min()) if data.size else math.inf
    if smallest < _NOLA_EPS:
        raise ValueError(
            f"istft: the nonzero overlap-add (NOLA) condition fails: the overlap-added squared "
            f"window falls to {smallest:.3g} (< {_NOLA_EPS}) on the kept samples, so the signal "
            "cannot be recovered there; use a window that does not vanish where the frames "
            "overlap (scipy.signal.check_NOLA), a smaller hop_length, or center=True")
