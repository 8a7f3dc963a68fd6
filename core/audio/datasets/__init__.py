"""Paddle's ``paddle.audio.datasets``: ``ESC50`` and ``TESS``, audio classification sets read
from Paddle's archives (fetched md5-checked and unpacked into a data home under
``~/.cache/tomlrun``), each sample the waveform or a ``core.audio.features`` feature of it."""
from core.audio.datasets.esc50 import ESC50
from core.audio.datasets.tess import TESS

__all__ = ["ESC50", "TESS"]
