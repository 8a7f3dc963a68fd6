"""Paddle's default audio backend, ``wave_backend``: WAV files of integer PCM samples read and
written with Python's ``wave`` module and numpy (python/paddle/audio/backends/wave_backend.py).

WAV stores 8-bit samples unsigned (128 is silence) and wider ones signed little-endian; this
backend reads and writes 8-, 16- and 32-bit samples (Paddle's reads and writes 16-bit only and
misreads the others as 16-bit). ``normalize=True`` scales samples to float32 in [-1, 1] by
dividing by 2 ** (bits - 1) after centring 8-bit ones, Paddle's ``/ 2 ** 15`` for 16-bit.
Files of float samples, 24-bit samples or compressed formats are refused naming the file.
"""
from __future__ import annotations

import numbers
import os
import sys
import wave

import numpy as np

from core.audio.backends.common import AudioInfo
from core.tensor import Tensor, to_tensor

# bytes per sample -> the little-endian dtype WAV stores them in
_STORED = {1: np.dtype("u1"), 2: np.dtype("<i2"), 4: np.dtype("<i4")}
_ENCODINGS = {8: "PCM_U", 16: "PCM_S", 32: "PCM_S"}


def _name(filepath) -> str:
    """How an error names the file: its path, or the file object's ``name``."""
    if hasattr(filepath, "read"):
        return str(getattr(filepath, "name", "the file object"))
    return os.fspath(filepath) if isinstance(filepath, (str, os.PathLike)) else repr(filepath)


# wave's "unknown format: 65534": WAVE_FORMAT_EXTENSIBLE, the header that ffmpeg and libsndfile
# write for more than two channels (ffmpeg also for more than 16 bits), even of PCM samples
_EXTENSIBLE = "unknown format: 65534"


def _unsupported(fn: str, filepath, reason: str) -> NotImplementedError:
    # Paddle's wave_backend raises NotImplementedError for a file it cannot read
    hint = ""
    if reason == _EXTENSIBLE:
        hint = (" The file has a WAVE_FORMAT_EXTENSIBLE header, which Python's wave module "
                "reads from Python 3.12 on (this is Python "
                f"{sys.version_info.major}.{sys.version_info.minor}); a plain PCM header "
                "reads on any (sox in.wav -t wavpcm out.wav).")
    return NotImplementedError(
        f"{fn}: {_name(filepath)} is not a WAV file the wave_backend reads ({reason}): it "
        "reads uncompressed integer PCM WAV files of 8-bit unsigned, 16- or 32-bit signed "
        f"samples; convert the file (e.g. sox in.flac -b 16 out.wav).{hint}")


def _open(fn: str, filepath):
    """``wave.open`` of a path or a binary file object, with the errors naming the file."""
    if not hasattr(filepath, "read"):
        if not isinstance(filepath, (str, os.PathLike)):
            raise TypeError(f"{fn}: filepath must be a path (str or os.PathLike) or a binary "
                            f"file object, got {type(filepath).__name__}.")
        if not os.path.isfile(filepath):
            raise FileNotFoundError(f"{fn}: {_name(filepath)} is not a file.")
    try:
        reader = wave.open(filepath if hasattr(filepath, "read") else os.fspath(filepath), "rb")
    except (wave.Error, EOFError) as exc:  # not RIFF/WAVE, not PCM, or a cut-off header
        raise _unsupported(fn, filepath, str(exc) or "the header ends early") from None
    width = reader.getsampwidth()
    if width not in _STORED:
        reader.close()
        raise _unsupported(fn, filepath, f"{8 * width}-bit samples")
    return reader


def info(filepath) -> AudioInfo:
    """Paddle's ``paddle.audio.info(filepath)``: the ``AudioInfo`` (sample_rate, num_samples,
    num_channels, bits_per_sample, encoding) of the WAV file at ``filepath`` (a path or a
    binary file object), read from its header."""
    with _open("info", filepath) as reader:
        bits = 8 * reader.getsampwidth()
        return AudioInfo(reader.getframerate(), reader.getnframes(), reader.getnchannels(),
                         bits, _ENCODINGS[bits])


def _int_arg(fn: str, name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{fn}: {name} must be an int >= {low}, got {value!r}.")
    return int(value)


def load(filepath, frame_offset: int = 0, num_frames: int = -1, normalize: bool = True,
         channels_first: bool = True):
    """Paddle's ``paddle.audio.load(filepath, frame_offset=0, num_frames=-1, normalize=True,
    channels_first=True)``: ``(waveform, sample_rate)`` of a WAV file.

    ``frame_offset``: the first frame read; ``num_frames``: how many (-1: to the end; fewer
    when the file ends first). ``normalize``: float32 samples in [-1, 1] (Paddle's default);
    False gives the stored integers in their own dtype (uint8, int16, int32).
    ``channels_first``: ``[channels, frames]``, else ``[frames, channels]``. The waveform is
    a Tensor on the current device, ``sample_rate`` an int.
    """
    frame_offset = _int_arg("load", "frame_offset", frame_offset, 0)
    if num_frames != -1:
        num_frames = _int_arg("load", "num_frames (-1: all)", num_frames, 0)
    with _open("load", filepath) as reader:
        total, channels = reader.getnframes(), reader.getnchannels()
        stored = _STORED[reader.getsampwidth()]
        if frame_offset > total:
            raise ValueError(f"load: frame_offset={frame_offset} is past the end of "
                             f"{_name(filepath)}, which holds {total} frames.")
        count = total - frame_offset if num_frames == -1 else min(num_frames,
                                                                   total - frame_offset)
        reader.setpos(frame_offset)
        data = reader.readframes(count)
        sample_rate = reader.getframerate()
    if len(data) != count * channels * stored.itemsize:
        raise ValueError(f"load: {_name(filepath)} is truncated: its header announces {total} "
                         f"frames, and frames {frame_offset}..{frame_offset + count} hold "
                         f"{len(data)} of {count * channels * stored.itemsize} bytes.")
    samples = np.frombuffer(data, dtype=stored).reshape(count, channels)
    samples = _normalized(samples) if normalize else samples.astype(stored.newbyteorder("="))
    if channels_first:
        samples = samples.T
    return to_tensor(np.ascontiguousarray(samples)), sample_rate


def _normalized(samples: np.ndarray) -> np.ndarray:
    """Stored samples as float32 in [-1, 1]: centred (8-bit), divided by 2 ** (bits - 1), in
    float64 first so that 32-bit samples round once."""
    bits = 8 * samples.dtype.itemsize
    values = samples.astype(np.float64)
    if bits == 8:
        values -= 128.0
    return (values / 2.0 ** (bits - 1)).astype(np.float32)


def _host(src) -> np.ndarray:
    if isinstance(src, Tensor):
        return src.numpy()
    if isinstance(src, np.ndarray):
        return src
    raise TypeError(f"save: src must be a Tensor or a numpy array, got {type(src).__name__}.")


def _encode(samples: np.ndarray, bits: int) -> np.ndarray:
    """``samples`` [frames, channels] as the stored integers of ``bits`` bits. Floats are
    scaled by 2 ** (bits - 1) and truncated (Paddle's ``(x * 2 ** 15).astype('<h')``), values
    outside [-1, 1) clipped; integers are taken as the stored values and must fit."""
    stored = _STORED[bits // 8]
    limits = np.iinfo(stored)
    if samples.dtype.kind == "f":
        scaled = np.trunc(samples.astype(np.float64) * 2.0 ** (bits - 1))
        if bits == 8:
            scaled += 128.0
        return np.clip(scaled, limits.min, limits.max).astype(stored)
    if samples.dtype.kind in "iu":
        if samples.size and (samples.min() < limits.min or samples.max() > limits.max):
            raise ValueError(f"save: integer samples are written as they are, and "
                             f"{bits}-bit WAV samples hold {limits.min}..{limits.max}, but src "
                             f"holds {samples.min()}..{samples.max()}; pass float samples in "
                             "[-1, 1) to have them scaled.")
        return samples.astype(stored)
    raise TypeError(f"save: src must hold float or integer samples, got dtype {samples.dtype}.")


def _bits(bits_per_sample, encoding) -> int:
    bits = 16 if bits_per_sample is None else bits_per_sample
    if isinstance(bits, bool) or bits not in _ENCODINGS:
        raise ValueError(f"save: bits_per_sample={bits_per_sample!r} must be 8, 16, 32 or "
                         "None (16); the wave_backend writes integer PCM only.")
    if encoding is not None and encoding != _ENCODINGS[bits]:
        raise ValueError(f"save: encoding={encoding!r} does not fit bits_per_sample={bits}: "
                         f"WAV stores {bits}-bit samples as {_ENCODINGS[bits]!r} (or pass "
                         "encoding=None); float, mu-law and a-law encodings are not written.")
    return bits


def save(filepath, src, sample_rate: int, channels_first: bool = True, encoding=None,
         bits_per_sample=16) -> None:
    """Paddle's ``paddle.audio.save(filepath, src, sample_rate, channels_first=True,
    encoding=None, bits_per_sample=16)``: write the 2-D waveform ``src`` (a Tensor or numpy
    array, ``[channels, frames]``, or ``[frames, channels]`` with ``channels_first=False``)
    as a PCM WAV file of ``sample_rate`` Hz.

    ``bits_per_sample``: 16 (None: 16), 8 or 32; ``encoding``: None or the one WAV uses for
    those bits ('PCM_S', 'PCM_U' for 8-bit). Float samples are scaled from [-1, 1) (clipped)
    as ``load(normalize=True)`` reads them back; integer samples are written as they are.
    """
    samples = _host(src)
    if samples.ndim != 2:
        raise ValueError(f"save: src must be 2-D ([channels, frames] with channels_first=True, "
                         f"else [frames, channels]), got shape {list(samples.shape)}.")
    rate = _int_arg("save", "sample_rate", sample_rate, 1)
    bits = _bits(bits_per_sample, encoding)
    frames = samples.T if channels_first else samples
    if frames.shape[1] == 0:
        raise ValueError(f"save: src has no channel (shape {list(samples.shape)}, "
                         f"channels_first={channels_first}).")
    data = _encode(frames, bits)
    if not hasattr(filepath, "write") and not isinstance(filepath, (str, os.PathLike)):
        raise TypeError(f"save: filepath must be a path (str or os.PathLike) or a binary file "
                        f"object, got {type(filepath).__name__}.")
    target = filepath if hasattr(filepath, "write") else os.fspath(filepath)
    with wave.open(target, "wb") as writer:
        writer.setnchannels(frames.shape[1])
        writer.setsampwidth(bits // 8)
        writer.setframerate(rate)
        writer.writeframes(np.ascontiguousarray(data).tobytes())


__all__ = ["info", "load", "save"]
