"""Paddle's audio backend switch (python/paddle/audio/backends/init_backend.py and
backend.py): ``list_available_backends``, ``get_current_backend``, ``set_backend``, and the
``load`` / ``info`` / ``save`` that ``core.audio`` exports, run by the current backend.

Paddle's other backends ('soundfile', 'sox_io') come from the separate paddleaudio package;
core has the standard-library one only, 'wave_backend' (Paddle's default), so it is the only
name listed and the only one ``set_backend`` takes.
"""
from __future__ import annotations

from core.audio.backends import wave_backend

_BACKENDS = {"wave_backend": wave_backend}
_current = "wave_backend"


def list_available_backends() -> list:
    """Paddle's ``list_available_backends()``: the names ``set_backend`` takes,
    ``['wave_backend']`` (paddleaudio's backends are not part of core)."""
    return list(_BACKENDS)


def get_current_backend() -> str:
    """Paddle's ``get_current_backend()``: the name of the backend ``core.audio.load`` /
    ``info`` / ``save`` use, 'wave_backend' unless ``set_backend`` chose another."""
    return _current


def set_backend(backend_name: str) -> None:
    """Paddle's ``set_backend(backend_name)``: make ``backend_name`` (one of
    ``list_available_backends()``) the backend of ``load``, ``info`` and ``save``. Another
    name is a NotImplementedError, as Paddle's (whose message is empty), naming the choices."""
    global _current
    if backend_name not in _BACKENDS:
        raise NotImplementedError(
            f"set_backend: backend_name={backend_name!r} is not available; the backends are "
            f"{list_available_backends()} ('soundfile' and 'sox_io' need Paddle's separate "
            "paddleaudio package, which core does not use).")
    _current = backend_name


def info(filepath):
    """Paddle's ``paddle.audio.info(filepath)``: the ``AudioInfo`` of an audio file, read by
    the current backend (``wave_backend.info``)."""
    return _BACKENDS[_current].info(filepath)


def load(filepath, frame_offset: int = 0, num_frames: int = -1, normalize: bool = True,
         channels_first: bool = True):
    """Paddle's ``paddle.audio.load(filepath, frame_offset=0, num_frames=-1, normalize=True,
    channels_first=True)``: ``(waveform Tensor, sample_rate)``, read by the current backend
    (``wave_backend.load``)."""
    return _BACKENDS[_current].load(filepath, frame_offset, num_frames, normalize,
                                    channels_first)


def save(filepath, src, sample_rate: int, channels_first: bool = True, encoding=None,
         bits_per_sample=16) -> None:
    """Paddle's ``paddle.audio.save(filepath, src, sample_rate, channels_first=True,
    encoding=None, bits_per_sample=16)``: write ``src`` with the current backend
    (``wave_backend.save``)."""
    _BACKENDS[_current].save(filepath, src, sample_rate, channels_first, encoding,
                             bits_per_sample)


__all__ = ["get_current_backend", "info", "list_available_backends", "load", "save",
           "set_backend"]
