"""Which image type the vision datasets return (``paddle.vision.set_image_backend``).

'cv2' gives numpy arrays (OpenCV's layout, ``[H, W(, C)]``; OpenCV itself is not needed);
'pil' gives ``PIL.Image`` objects and needs Pillow, which tomlrun does not depend on. The
default is 'cv2' (Paddle's is 'pil'), so a dataset behaves the same with or without Pillow.
"""
from __future__ import annotations

BACKENDS = ("pil", "cv2")
_backend = "cv2"


def check_backend(backend, owner: str) -> str:
    """``backend`` ('pil' or 'cv2'); for 'pil', Pillow must be importable."""
    if backend not in BACKENDS:
        raise ValueError(f"{owner}: backend={backend!r} must be 'pil' or 'cv2' (numpy arrays).")
    if backend == "pil":
        try:
            import PIL.Image  # noqa: F401, PLC0415 - optional: only the 'pil' backend needs it
        except ImportError:
            raise ImportError(f"{owner}: backend='pil' needs Pillow, which is not installed "
                              "(pip install pillow); backend='cv2' gives numpy arrays without "
                              "it.") from None
    return backend


def set_image_backend(backend: str) -> None:
    """Make ``backend`` ('pil' or 'cv2') the default of datasets built with ``backend=None``."""
    global _backend
    _backend = check_backend(backend, "set_image_backend")


def get_image_backend() -> str:
    """The default image backend of the vision datasets: 'cv2' unless set_image_backend changed
    it."""
    return _backend
