"""Image operations on host arrays (``paddle.vision.transforms.functional``, its cv2 backend).

Images are numpy arrays laid out ``[H, W]`` or ``[H, W, C]``, as Paddle's cv2 backend reads them;
a ``PIL.Image`` is turned into one first (``np.asarray``). These run on the host, before a
batch is made, so they use numpy only (no backend arrays, no autograd): a data loader's workers
and prefetch thread call them on samples. OpenCV is not needed: resizing, padding and colour
conversion are written out in numpy, following OpenCV's definitions (noted per function).
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

DATA_FORMATS = ("CHW", "HWC")
INTERPOLATIONS = ("nearest", "bilinear")
PADDING_MODES = ("constant", "edge", "reflect", "symmetric")
_NUMPY_PAD_MODE = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}
_GRAY_WEIGHTS = np.array([0.299, 0.587, 0.114])  # ITU-R BT.601, OpenCV's RGB2GRAY


# ----- argument checks --------------------------------------------------------------------------
def as_image(img, owner: str) -> np.ndarray:
    """``img`` as a numpy ``[H, W]`` / ``[H, W, C]`` array (a PIL image is converted)."""
    if hasattr(img, "getbands") and hasattr(img, "size"):  # a PIL.Image, without importing PIL
        img = np.asarray(img)
    if not isinstance(img, np.ndarray):
        hint = " (a core.Tensor: pass tensor.numpy())" if hasattr(img, "stop_gradient") else ""
        raise TypeError(f"{owner}: the image must be a numpy array [H, W] or [H, W, C] (or a "
                        f"PIL image), got {type(img).__name__}{hint}.")
    if img.ndim not in (2, 3):
        raise ValueError(f"{owner}: the image must be [H, W] or [H, W, C], got shape "
                         f"{list(img.shape)}.")
    return img


def check_data_format(owner: str, data_format) -> str:
    if data_format not in DATA_FORMATS:
        raise ValueError(f"{owner}: data_format={data_format!r} must be 'CHW' or 'HWC'.")
    return data_format


def check_size(owner: str, size, name: str = "size") -> tuple[int, int] | int:
    """An int, or a pair ``(h, w)`` of positive ints."""
    if _positive_int(size):
        return int(size)
    if isinstance(size, Sequence) and not isinstance(size, str) and len(size) == 2 \
            and all(_positive_int(s) for s in size):
        return int(size[0]), int(size[1])
    raise ValueError(f"{owner}: {name}={size!r} must be a positive integer or a pair (h, w) of "
                     "positive integers.")


def check_padding(owner: str, padding) -> tuple[int, int, int, int]:
    """Paddle's padding forms -> (left, top, right, bottom): an int (all four sides), a pair
    (left/right, top/bottom) or four values (left, top, right, bottom), each >= 0."""
    if _non_negative_int(padding):
        return (int(padding),) * 4
    if isinstance(padding, Sequence) and not isinstance(padding, str) \
            and len(padding) in (2, 4) and all(_non_negative_int(p) for p in padding):
        values = [int(p) for p in padding]
        return tuple(values * 2) if len(values) == 2 else tuple(values)
    raise ValueError(f"{owner}: padding={padding!r} must be an integer >= 0, a pair (left/right, "
                     "top/bottom) or four integers (left, top, right, bottom), each >= 0.")


def check_padding_mode(owner: str, padding_mode) -> str:
    if padding_mode not in PADDING_MODES:
        raise ValueError(f"{owner}: padding_mode={padding_mode!r} must be one of "
                         f"{', '.join(PADDING_MODES)}.")
    return padding_mode


def check_interpolation(owner: str, interpolation) -> str:
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"{owner}: interpolation={interpolation!r} must be one of "
                         f"{', '.join(INTERPOLATIONS)} (OpenCV's 'area', 'bicubic' and 'lanczos' "
                         "are not implemented).")
    return interpolation


def _positive_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0


def _non_negative_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0


# ----- conversions ------------------------------------------------------------------------------
def to_tensor(pic, data_format: str = "CHW") -> np.ndarray:
    """``[H, W(, C)]`` -> ``[C, H, W]`` (``data_format='CHW'``) or ``[H, W, C]``; uint8 pixels
    are scaled to float32 in [0, 1] (``x / 255``), any other dtype is kept unscaled, as Paddle.

    Paddle returns a ``paddle.Tensor``; this returns a contiguous numpy array (host data), which
    ``core.io.DataLoader`` stacks and hands over as Tensors.
    """
    check_data_format("to_tensor", data_format)
    img = as_image(pic, "to_tensor")
    if img.ndim == 2:
        img = img[:, :, None]
    if data_format == "CHW":
        img = img.transpose(2, 0, 1)
    if img.dtype == np.uint8:
        return np.ascontiguousarray(img, dtype=np.float32) / np.float32(255.0)
    return np.ascontiguousarray(img)


def normalize(img, mean, std, data_format: str = "CHW", to_rgb: bool = False) -> np.ndarray:
    """``(img - mean) / std`` per channel, mean and std broadcast as Paddle's cv2 backend:
    shaped ``[C, 1, 1]`` for 'CHW' and ``[1, 1, C]`` for 'HWC'. So an ``[H, W]`` image with
    'CHW' comes out ``[C, H, W]`` (``[1, H, W]`` for one mean), and three means on it give three
    channels. ``to_rgb`` reverses the channel axis first (BGR -> RGB).

    Difference: Paddle reverses the *last* axis (``img[..., ::-1]``) whatever the layout, which
    on a 'CHW' image mirrors the width; here the channel axis of ``data_format`` is reversed.
    """
    check_data_format("normalize", data_format)
    if not (isinstance(img, np.ndarray) and img.ndim > 3):  # a stack [N, C, H, W] works too
        img = as_image(img, "normalize")
    mean_arr, std_arr = _channel_values("mean", mean), _channel_values("std", std)
    if np.any(std_arr == 0):
        raise ValueError(f"normalize: std={std!r} has a zero: the output would be infinite.")
    if to_rgb:
        axis = 0 if data_format == "CHW" and img.ndim == 3 else -1
        img = np.flip(img, axis=axis)
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    return (img - mean_arr.reshape(shape)) / std_arr.reshape(shape)


def _channel_values(name: str, value) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64).reshape(-1) if not isinstance(value, str) else None
    if array is None or array.size == 0 or not np.all(np.isfinite(array)):
        raise ValueError(f"normalize: {name}={value!r} must be a number or a sequence of finite "
                         "numbers, one per channel.")
    return array.astype(np.float32)  # Paddle's np.float32(...): a uint8 image gives float32


def to_grayscale(img, num_output_channels: int = 1) -> np.ndarray:
    """RGB ``[H, W, 3]`` -> gray ``[H, W, 1]`` (``num_output_channels=1``) or ``[H, W, 3]`` with
    R = G = B (3), ``Y = 0.299 R + 0.587 G + 0.114 B`` as OpenCV's RGB2GRAY (rounded for
    integer images)."""
    img = as_image(img, "to_grayscale")
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels={num_output_channels!r} must be 1 "
                         "or 3.")
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"to_grayscale: the image must be RGB [H, W, 3], got shape "
                         f"{list(img.shape)}.")
    gray = _cast_like(img.astype(np.float64) @ _GRAY_WEIGHTS, img.dtype)[:, :, None]
    return np.repeat(gray, 3, axis=2) if num_output_channels == 3 else gray


def _cast_like(values: np.ndarray, dtype) -> np.ndarray:
    """Float results back to the image's dtype: integers are rounded and clipped to their range
    (OpenCV's saturate_cast), floats are cast."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    return values.astype(dtype, copy=False)


# ----- geometry ---------------------------------------------------------------------------------
def resize(img, size, interpolation: str = "bilinear") -> np.ndarray:
    """Resize to ``size``: ``(h, w)``, or an int that the shorter side becomes (the longer one
    ``int(size * long / short)``, an image already that size returned as is), as Paddle's cv2
    backend.

    'bilinear' is OpenCV's INTER_LINEAR: the source of output pixel ``d`` is
    ``s = (d + 0.5) * in / out - 0.5`` (clamped at 0), interpolated between ``floor(s)`` and the
    next pixel (edge repeated); no antialiasing (torch's ``interpolate(mode='bilinear',
    align_corners=False)``). 'nearest' is INTER_NEAREST: ``s = floor(d * in / out)``. Integer
    images are rounded back to their dtype.
    """
    img = as_image(img, "resize")
    size = check_size("resize", size)
    check_interpolation("resize", interpolation)
    h, w = img.shape[:2]
    if isinstance(size, int):
        if min(h, w) == size:
            return img
        oh, ow = (int(size * h / w), size) if w < h else (size, int(size * w / h))
    else:
        oh, ow = size
    if interpolation == "nearest":
        rows = np.minimum((np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        cols = np.minimum((np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return img[rows][:, cols]
    r0, r1, fr = _linear_taps(h, oh)
    c0, c1, fc = _linear_taps(w, ow)
    x = img.astype(np.float64)
    if x.ndim == 3:
        fr, fc = fr[:, None, None], fc[None, :, None]
    else:
        fr, fc = fr[:, None], fc[None, :]
    top = x[r0][:, c0] * (1 - fc) + x[r0][:, c1] * fc
    bottom = x[r1][:, c0] * (1 - fc) + x[r1][:, c1] * fc
    return _cast_like(top * (1 - fr) + bottom * fr, img.dtype)


def _linear_taps(n_in: int, n_out: int):
    """For each output index: the two source indices and the weight of the second."""
    source = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
    first = np.minimum(np.floor(source).astype(np.int64), n_in - 1)
    second = np.minimum(first + 1, n_in - 1)
    return first, second, source - first


def pad(img, padding, fill=0, padding_mode: str = "constant") -> np.ndarray:
    """Pad the borders: ``padding`` is an int, (left/right, top/bottom) or (left, top, right,
    bottom). Modes as Paddle (OpenCV's borders): 'constant' (``fill``: a number, or one value
    per channel), 'edge' (repeat the edge pixel), 'reflect' (mirror without the edge:
    [1, 2, 3, 4] padded by 2 -> [3, 2, 1, 2, 3, 4, 3, 2]) and 'symmetric' (mirror with it:
    [2, 1, 1, 2, 3, 4, 4, 3])."""
    img = as_image(img, "pad")
    left, top, right, bottom = check_padding("pad", padding)
    check_padding_mode("pad", padding_mode)
    widths = [(top, bottom), (left, right)] + ([(0, 0)] if img.ndim == 3 else [])
    if padding_mode != "constant":
        if padding_mode == "reflect" and (max(top, bottom) >= img.shape[0]
                                          or max(left, right) >= img.shape[1]):
            raise ValueError(f"pad: padding={padding!r} in 'reflect' mode must be smaller than "
                             f"the image ({img.shape[0]}x{img.shape[1]}).")
        return np.pad(img, widths, mode=_NUMPY_PAD_MODE[padding_mode])
    fill_values = np.asarray(fill, dtype=np.float64).reshape(-1) \
        if not isinstance(fill, str) else np.array([])
    channels = img.shape[2] if img.ndim == 3 else 1
    if fill_values.size not in (1, channels):
        raise ValueError(f"pad: fill={fill!r} must be a number or one value per channel "
                         f"({channels}).")
    out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right, *img.shape[2:]),
                   dtype=img.dtype)
    out[...] = _cast_like(fill_values if img.ndim == 3 else fill_values[0], img.dtype)
    out[top:top + img.shape[0], left:left + img.shape[1]] = img
    return out


def crop(img, top: int, left: int, height: int, width: int) -> np.ndarray:
    """The ``height x width`` window whose top-left pixel is (``top``, ``left``)."""
    img = as_image(img, "crop")
    if top < 0 or left < 0 or top + height > img.shape[0] or left + width > img.shape[1]:
        raise ValueError(f"crop: the window top={top}, left={left}, height={height}, "
                         f"width={width} does not fit in the {img.shape[0]}x{img.shape[1]} "
                         "image.")
    return img[top:top + height, left:left + width]


def center_crop(img, output_size) -> np.ndarray:
    """The centred ``output_size`` window (an int: square): top = ``round((H - h) / 2)``, left
    likewise, with Python's round (halves to even) as Paddle."""
    img = as_image(img, "center_crop")
    size = check_size("center_crop", output_size, "output_size")
    th, tw = (size, size) if isinstance(size, int) else size
    h, w = img.shape[:2]
    if th > h or tw > w:
        raise ValueError(f"center_crop: output_size={output_size!r} is larger than the "
                         f"{h}x{w} image; pad it first (Pad).")
    return crop(img, round((h - th) / 2), round((w - tw) / 2), th, tw)


def hflip(img) -> np.ndarray:
    """Mirror left-right (the width axis)."""
    return as_image(img, "hflip")[:, ::-1]


def vflip(img) -> np.ndarray:
    """Mirror top-bottom (the height axis)."""
    return as_image(img, "vflip")[::-1]


__all__ = ["center_crop", "crop", "hflip", "normalize", "pad", "resize", "to_grayscale",
           "to_tensor", "vflip"]
