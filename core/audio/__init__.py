"""Paddle's ``paddle.audio``: ``functional`` (windows, the mel scale, filter banks, decibels,
the DCT of MFCCs) and ``features`` (the ``Spectrogram``, ``MelSpectrogram``,
``LogMelSpectrogram`` and ``MFCC`` layers). Paddle's audio file I/O and downloads
(``datasets``, ``backends``, ``load``, ``info``, ``save``) are not part of core: docs/paddle.md,
"core.signal and core.audio"."""
from core.audio import features, functional

__all__ = ["features", "functional"]
