"""Paddle's ``paddle.audio``: ``functional`` (windows, the mel scale, filter banks, decibels,
the DCT of MFCCs), ``features`` (the ``Spectrogram``, ``MelSpectrogram``,
``LogMelSpectrogram`` and ``MFCC`` layers), ``backends`` with ``load`` / ``info`` / ``save``
(WAV files through Python's ``wave``, Paddle's default 'wave_backend') and ``datasets``
(``ESC50``, ``TESS``). Differences from Paddle: docs/paddle.md, "core.signal and core.audio"
(with its "Audio files and datasets")."""
from core.audio import backends, datasets, features, functional
from core.audio.backends.backend import info, load, save

__all__ = ["backends", "datasets", "features", "functional", "info", "load", "save"]
