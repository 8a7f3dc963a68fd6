"""Paddle's ``paddle.audio.backends``: ``list_available_backends``, ``get_current_backend`` and
``set_backend`` over the one backend core has, Paddle's default 'wave_backend' (WAV files of
integer PCM samples through Python's ``wave`` module); ``AudioInfo`` is what ``info`` gives."""
# wave_backend and AudioInfo are attributes here, as in Paddle, but not in Paddle's __all__
from core.audio.backends import wave_backend  # noqa: F401
from core.audio.backends.backend import get_current_backend, list_available_backends, set_backend
from core.audio.backends.common import AudioInfo  # noqa: F401

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]
