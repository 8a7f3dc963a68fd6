"""``AudioInfo``: what ``core.audio.info`` tells of an audio file (Paddle's
``paddle.audio.backends.backend.AudioInfo``)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class AudioInfo:
    """Paddle's ``AudioInfo(sample_rate, num_samples, num_channels, bits_per_sample,
    encoding)``: the sample rate in Hz, the number of frames (samples per channel), the
    number of channels, the bits of one sample, and the encoding ('PCM_S' signed integer
    samples, 'PCM_U' unsigned 8-bit ones)."""

    sample_rate: int
    num_samples: int
    num_channels: int
    bits_per_sample: int
    encoding: str


__all__ = ["AudioInfo"]
