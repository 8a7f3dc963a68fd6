"""Which image type the vision datasets return (``paddle.vision.set_image_backend``).

'pil' (the default, as Paddle) gives ``PIL.Image`` objects when Pillow is importable; Pillow is
not a tomlrun dependency, so without it 'pil' gives what the PIL image would hold instead: a
uint8 numpy array (``np.asarray(image)``: ``[H, W]`` for a grayscale image), on which
``ToTensor`` and ``Normalize`` give the same numbers as on the PIL image. 'cv2' gives numpy
arrays as Paddle's cv2 backend reads them (OpenCV's layout, ``[H, W(, C)]``; OpenCV itself is
not needed).
"""
from __future__ import annotations

BACKENDS = ("pil", "cv2")
_backend = "pil"


def check_backend(backend, owner: str) -> str:
    """``backend`` ('pil' or 'cv2'), checked."""
    if backend not in BACKENDS:
        raise ValueError(f"{owner}: backend={backend!r} must be 'pil' (PIL images; uint8 numpy "
                         "arrays without Pillow) or 'cv2' (numpy arrays).")
    return backend


def dataset_settings(owner: str, mode, modes: tuple, transform, backend) -> tuple[str, str]:
    """An image dataset's checked ``(mode, backend)``: ``mode`` one of ``modes`` (any case),
    ``transform`` callable or None, ``backend`` 'pil' / 'cv2' (None: the current image
    backend). The vision datasets share these checks and their messages."""
    if not isinstance(mode, str) or mode.lower() not in modes:
        allowed = ", ".join(repr(m) for m in modes[:-1]) + f" or {modes[-1]!r}"
        raise ValueError(f"{owner}: mode={mode!r} must be {allowed}.")
    if transform is not None and not callable(transform):
        raise TypeError(f"{owner}: transform must be callable or None, got "
                        f"{type(transform).__name__}.")
    return mode.lower(), check_backend(get_image_backend() if backend is None else backend, owner)


def pil_image_module():
    """``PIL.Image`` when Pillow is importable, else None (the 'pil' backend then gives the
    uint8 arrays a PIL image would hold)."""
    try:
        from PIL import Image  # noqa: PLC0415 - optional: looked up when an image is made
    except ImportError:
        return None
    return Image


def set_image_backend(backend: str) -> None:
    """Make ``backend`` ('pil' or 'cv2') the default of datasets built with ``backend=None``."""
    global _backend
    _backend = check_backend(backend, "set_image_backend")


def get_image_backend() -> str:
    """The default image backend of the vision datasets: 'pil' (as Paddle) unless
    set_image_backend changed it."""
    return _backend
