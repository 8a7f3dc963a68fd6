"""Image operations on host arrays (``paddle.vision.transforms.functional``, its cv2 backend).

Images are numpy arrays laid out ``[H, W]`` or ``[H, W, C]``, as Paddle's cv2 backend reads them;
a ``PIL.Image`` is turned into one first (``np.asarray``). These run on the host, before a
batch is made, so they use numpy only (no backend arrays, no autograd): a data loader's workers
and prefetch thread call them on samples. Neither OpenCV nor Pillow is needed: resizing, padding
and gray conversion are written out in numpy following OpenCV's definitions, the colour
adjustments and the warps (rotate, affine, perspective) following Pillow's, which is what
Paddle's default 'pil' backend runs (noted per function).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

DATA_FORMATS = ("CHW", "HWC")
INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area", "lanczos")  # resize: OpenCV's
WARP_INTERPOLATIONS = ("nearest", "bilinear", "bicubic")  # rotate, affine, perspective: Pillow's
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


def check_interpolation(owner: str, interpolation, allowed=INTERPOLATIONS) -> str:
    """``interpolation`` if it is one of ``allowed`` (resize's names by default; the warps
    pass WARP_INTERPOLATIONS), else a ValueError listing them."""
    if not isinstance(interpolation, str) or interpolation not in allowed:
        raise ValueError(f"{owner}: interpolation={interpolation!r} must be one of "
                         f"{', '.join(repr(name) for name in allowed)}.")
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
    backend (``paddle.vision.transforms.resize(img, size, interpolation='bilinear')``).

    ``interpolation`` is the ``cv2.resize`` flag Paddle maps it to, computed as OpenCV 5 does
    (OpenCV is not needed): 'nearest' (INTER_NEAREST: ``s = floor(d * in / out)``),
    'bilinear' (INTER_LINEAR), 'bicubic' (INTER_CUBIC: Keys' kernel, A = -0.75, 4 taps),
    'lanczos' (INTER_LANCZOS4: 8 taps, weights scaled to sum to 1) and 'area' (INTER_AREA:
    shrinking, each output pixel is the mean of the input area it covers; enlarging, bilinear
    weights in which every input pixel keeps a flat part). The kernels read output pixel
    ``d`` at ``s = (d + 0.5) * in / out - 0.5`` with the edge pixels repeated, and are not
    widened when shrinking (no antialiasing, unlike Pillow's filters).

    uint8 images give OpenCV's pixels exactly: weights rounded to 1/2048 and OpenCV's
    rounding. Except: opencv-python's Intel IPP build computes 'bicubic' on images of at
    least 4 x 4 pixels in floating point, where a pixel can differ by 1 from OpenCV's own code
    followed here. float32 images agree to float rounding; other dtypes are computed in
    float64 and rounded back (saturated) to their dtype.
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
        # OpenCV's step is 1 / (out / in), which can sit an ulp below in / out: the pixel
        # where d * in / out is a whole number then comes from the one before, as in OpenCV
        rows = np.minimum(np.floor(np.arange(oh) * (1.0 / (oh / h))).astype(np.int64), h - 1)
        cols = np.minimum(np.floor(np.arange(ow) * (1.0 / (ow / w))).astype(np.int64), w - 1)
        return img[rows][:, cols]
    if (oh, ow) == (h, w):
        return img.copy()  # cv2.resize copies
    out = _resize_opencv(img if img.ndim == 3 else img[:, :, None], oh, ow, interpolation)
    return out if img.ndim == 3 else out[:, :, 0]


# ----- OpenCV's cv2.resize (imgproc/src/resize.cpp) on [H, W, C] arrays -----------------------
# uint8 images take OpenCV's fixed point: float32 weights rounded to 1/2048
# (INTER_RESIZE_COEF_BITS = 11), integer sums across, and the vertical pass rounded the way
# OpenCV's vectorised loops round it; that rounding is what makes every pixel agree.
_F32 = np.float32
_COEF_SCALE = 1 << 11
_TAPS = {"bilinear": 2, "area": 2, "bicubic": 4, "lanczos": 8}
_DBL_EPSILON = 2.220446049250313e-16
_SIMD_INT16_LANES = 8  # OpenCV's 128-bit baseline loops take 8 int16 lanes a step


def _resize_opencv(x: np.ndarray, oh: int, ow: int, interpolation: str) -> np.ndarray:
    h, w = x.shape[:2]
    inv_x, inv_y = ow / w, oh / h
    scale_x, scale_y = 1.0 / inv_x, 1.0 / inv_y  # OpenCV's doubles: 1 / (out / in)
    int_x, int_y = round(scale_x), round(scale_y)
    whole = abs(scale_x - int_x) < _DBL_EPSILON and abs(scale_y - int_y) < _DBL_EPSILON
    if interpolation == "bilinear" and whole and int_x == int_y == 2:
        interpolation = "area"  # OpenCV: halving both sides is the 2 x 2 mean
    if interpolation == "area" and scale_x >= 1 and scale_y >= 1:
        if whole:
            return _area_whole(x, oh, ow, int_y, int_x)
        return _area_cells(x, _area_table(h, oh, scale_y), _area_table(w, ow, scale_x))
    # float64 images get float64 weights (OpenCV rounds its weights to float32 for them too)
    ft = np.float64 if x.dtype == np.float64 else _F32
    rows = _kernel_taps(h, oh, scale_y, inv_y, interpolation, clamp=False, ft=ft)
    cols = _kernel_taps(w, ow, scale_x, inv_x, interpolation, clamp=True, ft=ft)
    if x.dtype == np.uint8:
        return _separable_uint8(x, rows, cols, interpolation)
    work = _F32 if x.dtype == np.float32 else np.float64
    across = _weighted_sum(x.astype(work), cols, axis=1)
    return _cast_like(_weighted_sum(across, rows, axis=0), x.dtype)


def _kernel_taps(n_in: int, n_out: int, scale: float, inv_scale: float, interpolation: str,
                 clamp: bool, ft=_F32):
    """OpenCV's per-output source indices ``[n_out, taps]`` (edges repeated) and weights,
    computed in ``ft`` (OpenCV's float32, or float64). ``clamp``: the horizontal table, where
    OpenCV pins 'bilinear' / 'area' sources that fall off either end to the edge pixel; its
    vertical table does not, so an edge row is summed twice there with two weights (which
    changes the rounding)."""
    d = np.arange(n_out)
    if interpolation == "area":  # enlarging: flat inside each input pixel, linear between
        start = np.floor(d * scale).astype(np.int64)
        frac = ((d + 1) - (start + 1) * inv_scale).astype(ft)
        frac = np.where(frac <= 0, ft(0), frac - np.floor(frac)).astype(ft)
    else:
        pos = ((d + 0.5) * scale - 0.5).astype(ft)
        start = np.floor(pos).astype(np.int64)
        frac = (pos - start.astype(ft)).astype(ft)
    taps = _TAPS[interpolation]
    if interpolation == "bicubic":
        weights = _cubic_weights(frac, ft)
    elif interpolation == "lanczos":
        weights = _lanczos4_weights(frac, ft)
    else:
        if clamp:
            low, high = start < 0, start >= n_in - 1
            frac = np.where(low | high, ft(0), frac)
            start = np.where(low, 0, np.where(high, n_in - 1, start))
        weights = np.stack([ft(1) - frac, frac], axis=-1)
    index = np.clip(start[:, None] - taps // 2 + 1 + np.arange(taps), 0, n_in - 1)
    return index, weights.astype(ft)


def _cubic_weights(x: np.ndarray, ft=_F32) -> np.ndarray:
    """OpenCV's interpolateCubic, in its order of operations (in ``ft``)."""
    a = ft(-0.75)
    x1, x2 = x + ft(1), ft(1) - x
    w0 = ((a * x1 - ft(5) * a) * x1 + ft(8) * a) * x1 - ft(4) * a
    w1 = ((a + ft(2)) * x - (a + ft(3))) * x * x + ft(1)
    w2 = ((a + ft(2)) * x2 - (a + ft(3))) * x2 * x2 + ft(1)
    return np.stack([w0, w1, w2, ft(1) - w0 - w1 - w2], axis=-1)


_S45 = 0.70710678118654752440084436210485
_LANCZOS_CS = np.array([[1, 0], [-_S45, -_S45], [0, 1], [_S45, -_S45], [-1, 0], [_S45, _S45],
                        [0, -1], [-_S45, _S45]])


def _lanczos4_weights(x: np.ndarray, ft=_F32) -> np.ndarray:
    """OpenCV's interpolateLanczos4: sin(pi t) sin(pi t / 4) / (pi t / 4)^2 at the 8 offsets,
    by one sin/cos pair and the rotations in _LANCZOS_CS, in ``ft`` scaled to sum to 1; a
    source on a pixel (|t| < 1e-6) gets 1e30 there, i.e. that pixel alone after scaling."""
    y0 = (-(x + ft(3))).astype(np.float64) * math.pi * 0.25
    s0 = np.array([math.sin(v) for v in y0])  # libm, as OpenCV's std::sin
    c0 = np.array([math.cos(v) for v in y0])
    t = (x[:, None] + ft(3) - np.arange(8, dtype=ft)).astype(ft)
    y = -t.astype(np.float64) * math.pi * 0.25
    with np.errstate(divide="ignore", invalid="ignore"):
        values = (_LANCZOS_CS[:, 0] * s0[:, None] + _LANCZOS_CS[:, 1] * c0[:, None]) / (y * y)
    weights = np.where(np.abs(t) >= ft(1e-6), values.astype(ft), ft(1e30))
    total = np.zeros(len(x), ft)
    for k in range(8):  # left to right, as OpenCV's loop
        total = (total + weights[:, k]).astype(ft)
    return (weights * (ft(1) / total)[:, None]).astype(ft)


def _weighted_sum(x: np.ndarray, taps, axis: int) -> np.ndarray:
    """``sum_k x[index[:, k]] * weight[:, k]`` along ``axis`` (0: rows, 1: columns)."""
    index, weights = taps
    shape = (-1, 1, 1) if axis == 0 else (1, -1, 1)
    out = None
    for k in range(index.shape[1]):
        term = np.take(x, index[:, k], axis=axis) * weights[:, k].astype(x.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


def _separable_uint8(x: np.ndarray, rows, cols, interpolation: str) -> np.ndarray:
    """OpenCV's fixed point: integer weights ``round(w * 2048)`` (cvRound: halves to even),
    exact integer sums across, then each kernel's vertical rounding."""
    def fixed(taps):
        weights = np.clip(np.rint(taps[1] * _F32(_COEF_SCALE)), -32768, 32767)
        return taps[0], weights.astype(np.int64)
    rows, cols = fixed(rows), fixed(cols)
    across = _weighted_sum(x.astype(np.int64), cols, axis=1)  # units of 1/2048
    if interpolation in ("bilinear", "area"):
        return _vertical_linear_uint8(across, rows)
    exact = _weighted_sum(across, rows, axis=0)  # units of 1/2048^2
    out = np.clip((exact + (1 << 21)) >> 22, 0, 255)  # OpenCV's FixedPtCast: half up
    if interpolation == "bicubic":
        out = _vertical_cubic_simd(across, rows, out)
    return out.astype(np.uint8)


def _vertical_linear_uint8(across: np.ndarray, rows) -> np.ndarray:
    """VResizeLinearVec_32s8u: each row sum shifted to 16 bits (>> 4, saturated), multiplied
    by its weight keeping the high 16 bits, the two added, then ``(v + 2) >> 2``."""
    index, weights = rows
    high = [(np.clip(across[index[:, k]] >> 4, -32768, 32767) * weights[:, k, None, None]) >> 16
            for k in range(2)]
    return np.clip((high[0] + high[1] + 2) >> 2, 0, 255).astype(np.uint8)


def _vertical_cubic_simd(across: np.ndarray, rows, scalar: np.ndarray) -> np.ndarray:
    """VResizeCubicVec_32s8u: the first ``8 * floor(W * C / 8)`` values of each output row are
    computed in float32 (``s0 b0 + (s1 b1 + (s2 b2 + s3 b3))``, weights / 2048^2, rounded
    half to even); the rest keep OpenCV's scalar integer result ``scalar``."""
    index, weights = rows
    scaled = (weights.astype(_F32) * _F32(1.0 / (_COEF_SCALE * _COEF_SCALE))).astype(_F32)
    acc = None
    for k in (3, 2, 1, 0):
        term = (across[index[:, k]].astype(_F32) * scaled[:, k, None, None]).astype(_F32)
        acc = term if acc is None else (term + acc).astype(_F32)
    vector = np.clip(np.rint(acc), 0, 255).astype(np.int64)
    _, ow, channels = across.shape
    flat = np.arange(ow * channels).reshape(1, ow, channels)
    return np.where(flat < (ow * channels) // _SIMD_INT16_LANES * _SIMD_INT16_LANES, vector,
                    scalar)


def _area_whole(x: np.ndarray, oh: int, ow: int, fy: int, fx: int) -> np.ndarray:
    """INTER_AREA by whole factors: the mean of each ``fy x fx`` block; uint8 2 x 2 (not
    2-channel) as ``(sum + 2) >> 2``, else OpenCV's ``sum * float32(1 / area)`` rounded."""
    channels = x.shape[2]
    blocks = x[:oh * fy, :ow * fx].reshape(oh, fy, ow, fx, channels)
    if x.dtype == np.uint8:
        total = blocks.astype(np.int64).sum(axis=(1, 3))
        if fx == fy == 2 and channels != 2:
            return ((total + 2) >> 2).astype(np.uint8)
        return _cast_like(total.astype(_F32) * _F32(1.0 / (fx * fy)), np.uint8)
    work = _F32 if x.dtype != np.float64 else np.float64
    total = blocks.astype(work).sum(axis=(1, 3), dtype=work)
    return _cast_like(total * work(1.0 / (fx * fy)), x.dtype)


def _area_table(n_in: int, n_out: int, scale: float):
    """OpenCV's computeResizeAreaTab: for each output index the input pixels its cell
    ``[d * scale, (d + 1) * scale)`` covers, weighted by the part covered / the cell width
    (float32), as ``[n_out, most]`` arrays padded with weight 0."""
    cells = []
    for d in range(n_out):
        left = d * scale
        right = left + scale
        width = min(scale, n_in - left)
        last = min(math.floor(right), n_in - 1)
        first = min(math.ceil(left), last)
        cell = [(first - 1, (first - left) / width)] if first - left > 1e-3 else []
        cell += [(s, 1.0 / width) for s in range(first, last)]
        if right - last > 1e-3:
            cell.append((last, min(min(right - last, 1.0), width) / width))
        cells.append(cell)
    most = max(len(cell) for cell in cells)
    index = np.zeros((n_out, most), np.int64)
    weights = np.zeros((n_out, most), _F32)
    for d, cell in enumerate(cells):
        for k, (source, weight) in enumerate(cell):
            index[d, k], weights[d, k] = source, weight
    return index, weights


def _area_cells(x: np.ndarray, rows, cols) -> np.ndarray:
    """INTER_AREA by other factors: weighted sums in float32 (float64 for float64 images) in
    OpenCV's order, across each row first, then down, rounded back (uint8: half to even)."""
    work = np.float64 if x.dtype == np.float64 else _F32
    values = x.astype(work)
    across = np.zeros((x.shape[0], cols[0].shape[0], x.shape[2]), work)
    for k in range(cols[0].shape[1]):  # a padded weight 0 adds +0.0: no change
        across = across + values[:, cols[0][:, k]] * cols[1][None, :, k, None].astype(work)
    out = None
    for k in range(rows[0].shape[1]):
        term = across[rows[0][:, k]] * rows[1][:, k, None, None].astype(work)
        out = term if out is None else out + term
    return _cast_like(out, x.dtype)


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


# ----- colour -----------------------------------------------------------------------------------
# Paddle's PIL backend (ImageEnhance) defines these as blends with a "degenerate" image:
# black (brightness), the mean gray level (contrast), the gray image (saturation). Integer
# images are clipped to their range and truncated, as PIL's blend (and Paddle's cv2 look-up
# tables) do; float images are neither clipped nor rounded (their range is not known).
def adjust_brightness(img, brightness_factor) -> np.ndarray:
    """``img * brightness_factor`` (``paddle.vision.transforms.adjust_brightness(img,
    brightness_factor)``): 0 gives a black image, 1 the image, 2 twice as bright."""
    img = as_image(img, "adjust_brightness")
    factor = _check_factor("adjust_brightness", "brightness_factor", brightness_factor)
    return _blend(img, 0.0, factor)


def adjust_contrast(img, contrast_factor) -> np.ndarray:
    """``mean + contrast_factor * (img - mean)`` (``paddle.vision.transforms.adjust_contrast(
    img, contrast_factor)``), ``mean`` the mean gray level (``0.299 R + 0.587 G + 0.114 B``;
    rounded to an integer for integer images, as PIL's ImageEnhance.Contrast): 0 gives a solid
    gray image of that level, 1 the image, 2 twice the contrast."""
    img = as_image(img, "adjust_contrast")
    factor = _check_factor("adjust_contrast", "contrast_factor", contrast_factor)
    mean = float(_gray(img, "adjust_contrast").mean())
    if np.issubdtype(img.dtype, np.integer):
        mean = float(int(mean + 0.5))  # PIL: int(ImageStat mean + 0.5)
    return _blend(img, mean, factor)


def adjust_saturation(img, saturation_factor) -> np.ndarray:
    """``gray + saturation_factor * (img - gray)`` per pixel (``paddle.vision.transforms.
    functional.adjust_saturation(img, saturation_factor)``): 0 gives the grayscale image (three
    equal channels), 1 the image, 2 twice the saturation. A gray image is returned as it is.

    Difference: Paddle's cv2 backend draws a random factor in
    ``[max(0, 1 - saturation_factor), 1 + saturation_factor]`` here; this is PIL's (and
    Paddle's Tensor backend's) deterministic adjustment.
    """
    img = as_image(img, "adjust_saturation")
    factor = _check_factor("adjust_saturation", "saturation_factor", saturation_factor)
    if _channels(img) == 1:
        return img.copy()
    return _blend(img, _gray(img, "adjust_saturation")[..., None], factor)


def adjust_hue(img, hue_factor) -> np.ndarray:
    """Shift the hue by ``hue_factor`` turns (``paddle.vision.transforms.adjust_hue(img,
    hue_factor)``, ``hue_factor`` in [-0.5, 0.5]): RGB -> HSV, ``h = (h + hue_factor) mod 1``,
    HSV -> RGB. 0 gives the image, +-0.5 the complementary colours. A gray image is returned
    as it is.

    The conversion is done in float64 (as Paddle's Tensor backend), integer images rounded back;
    PIL's goes through 8-bit HSV, which moves pixels by a few levels even for a 0 shift.
    """
    img = as_image(img, "adjust_hue")
    if isinstance(hue_factor, bool) or not isinstance(hue_factor, numbers.Real) \
            or not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor={hue_factor!r} must be a number in "
                         "[-0.5, 0.5].")
    if _channels(img) == 1:
        return img.copy()
    _check_rgb(img, "adjust_hue")
    hue, sat, val = _rgb_to_hsv(img.astype(np.float64))
    return _cast_like(_hsv_to_rgb(np.mod(hue + hue_factor, 1.0), sat, val), img.dtype)


def _check_factor(owner: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0 \
            or not np.isfinite(value):
        raise ValueError(f"{owner}: {name}={value!r} must be a finite number >= 0.")
    return float(value)


def _channels(img: np.ndarray) -> int:
    return 1 if img.ndim == 2 else img.shape[2]


def _check_rgb(img: np.ndarray, owner: str) -> None:
    if _channels(img) != 3:
        raise ValueError(f"{owner}: the image must be gray ([H, W] or [H, W, 1]) or RGB "
                         f"([H, W, 3]), got shape {list(img.shape)}.")


def _gray(img: np.ndarray, owner: str) -> np.ndarray:
    """The gray levels ``[H, W]`` (float64) of a gray or RGB image: for uint8, Pillow's
    ``convert('L')`` (16-bit fixed point, (19595 R + 38470 G + 7471 B + 2^15) >> 16), which
    the colour adjustments of Paddle's PIL backend blend with; else ``to_grayscale``."""
    if _channels(img) == 1:
        return img.reshape(img.shape[:2]).astype(np.float64)
    _check_rgb(img, owner)
    if img.dtype == np.uint8:
        rgb = img.astype(np.int64)
        levels = (rgb[..., 0] * 19595 + rgb[..., 1] * 38470 + rgb[..., 2] * 7471 + 0x8000) >> 16
        return levels.astype(np.float64)
    return to_grayscale(img)[:, :, 0].astype(np.float64)


def _blend(img: np.ndarray, degenerate, factor: float) -> np.ndarray:
    """PIL's ``Image.blend(degenerate, img, factor)``: ``degenerate + factor * (img -
    degenerate)``, back to the image's dtype (integers clipped, then truncated). For integer
    images in float32, as Pillow's C ImagingBlend (its alpha is a C float), so results that
    land next to an integer truncate to Pillow's level."""
    if np.issubdtype(img.dtype, np.integer):
        low = np.asarray(degenerate, dtype=np.float32)
        blended = low + np.float32(factor) * (img.astype(np.float32) - low)
        return _truncate_like(blended, img.dtype)
    return _truncate_like(degenerate + factor * (img.astype(np.float64) - degenerate),
                          img.dtype)


def _truncate_like(values: np.ndarray, dtype) -> np.ndarray:
    """Float results back to ``dtype`` as PIL does: integers clipped to their range, then
    truncated (OpenCV's saturate_cast, ``_cast_like``, rounds instead); floats cast. No
    nudge: a value just below an integer drops a level in Pillow too."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.trunc(np.clip(values, info.min, info.max)).astype(dtype)
    return values.astype(dtype, copy=False)


def _rgb_to_hsv(rgb: np.ndarray):
    """Hue in [0, 1), saturation in [0, 1] and value (the image's units) of ``[..., 3]``."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    delta = maxc - minc
    safe = np.where(delta > 0, delta, 1.0)
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    hue = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    hue = np.where(delta > 0, np.mod(hue / 6.0, 1.0), 0.0)
    sat = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1.0), 0.0)
    return hue, sat, maxc


def _hsv_to_rgb(hue, sat, val) -> np.ndarray:
    sector = np.floor(hue * 6.0)
    frac = hue * 6.0 - sector
    p, q, t = val * (1 - sat), val * (1 - sat * frac), val * (1 - sat * (1 - frac))
    sector = sector.astype(np.int64) % 6
    r = np.choose(sector, [val, q, p, p, t, val])
    g = np.choose(sector, [t, val, val, q, p, p])
    b = np.choose(sector, [p, p, t, val, val, q])
    return np.stack([r, g, b], axis=-1)


# ----- warps: rotate, affine, perspective ---------------------------------------------------------
# Geometry follows Paddle's PIL backend (and its Tensor backend): continuous coordinates in
# which pixel (row i, column j) covers [j, j + 1) x [i, i + 1) (its centre at +0.5), the default
# centre (W / 2, H / 2), and each output pixel centre mapped back into the input ("inverse
# mapping", PIL's Image.transform). So a 90-degree turn of a square image is exactly np.rot90.
# Paddle's cv2 backend (numpy input) takes pixel centres at integers and so shifts by half a
# pixel, and its affine drops the centre's translation; see docs/paddle.md. The interpolations
# are Pillow's too (WARP_INTERPOLATIONS): Pillow's transforms have no 'area' or 'lanczos', which
# Paddle's cv2 backend would hand to OpenCV's warps on its own geometry.
def rotate(img, angle, interpolation: str = "nearest", expand: bool = False, center=None,
           fill=0) -> np.ndarray:
    """Rotate by ``angle`` degrees counter-clockwise about ``center`` ((x, y), default the
    image's centre) (``paddle.vision.transforms.rotate(img, angle, interpolation='nearest',
    expand=False, center=None, fill=0)``). ``expand`` enlarges the output to hold the whole
    rotated image (PIL's rule: the rotated corners' bounding box, the centre kept in the
    middle); pixels from outside the input get ``fill`` (a number, or one per channel)."""
    img = as_image(img, "rotate")
    angle = _check_number("rotate", "angle", angle)
    check_interpolation("rotate", interpolation, WARP_INTERPOLATIONS)
    h, w = img.shape[:2]
    turns = angle % 360.0
    if center is None and (turns in (0.0, 180.0) or (turns in (90.0, 270.0)
                                                     and (expand or h == w))):
        # Pillow's Image.rotate transposes these exactly, whatever the interpolation; with
        # expand, the bounding-box rule below would add a row and a column to an odd side.
        return np.rot90(img, int(turns // 90)).copy()
    cx, cy = (w / 2.0, h / 2.0) if center is None else _check_point("rotate", "center", center)
    rad = -math.radians(angle % 360.0)
    # Rounded as PIL does, so multiples of 90 degrees map pixel centres exactly.
    a, b = round(math.cos(rad), 15), round(math.sin(rad), 15)
    matrix = [a, b, 0.0, -b, a, 0.0]
    # Pillow's order of operations, so border pixels fall on the same side as in Pillow
    matrix[2], matrix[5] = _apply_affine(matrix, -cx, -cy)
    matrix[2] += cx
    matrix[5] += cy
    if expand:
        corners = [_apply_affine(matrix, x, y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        new_w = math.ceil(max(xs)) - math.floor(min(xs))
        new_h = math.ceil(max(ys)) - math.floor(min(ys))
        matrix[2], matrix[5] = _apply_affine(matrix, -(new_w - w) / 2.0, -(new_h - h) / 2.0)
        h, w = new_h, new_w
    return _warp_affine(img, matrix, h, w, interpolation, fill, "rotate")


def affine(img, angle, translate, scale, shear, interpolation: str = "nearest", fill=0,
           center=None) -> np.ndarray:
    """Rotate by ``angle`` degrees, scale by ``scale``, shear by ``shear`` degrees (a number:
    parallel to the x axis; a pair (x, y)) about ``center`` (default the image's centre), then
    translate by ``translate`` (dx, dy) pixels (``paddle.vision.transforms.affine(img, angle,
    translate, scale, shear, interpolation='nearest', fill=0, center=None)``). The output has
    the input's size; pixels from outside it get ``fill``.

    ``angle`` turns clockwise, as the matrix of Paddle's PIL and Tensor backends (and
    torchvision) does, though Paddle's docstring says counter-clockwise: ``affine(img, a, ...)``
    equals ``rotate(img, -a)``.
    """
    img = as_image(img, "affine")
    angle = _check_number("affine", "angle", angle)
    tx, ty = _check_point("affine", "translate", translate)
    scale = _check_number("affine", "scale", scale)
    if not scale > 0:
        raise ValueError(f"affine: scale={scale!r} must be > 0.")
    shear = _check_shear(shear)
    check_interpolation("affine", interpolation, WARP_INTERPOLATIONS)
    h, w = img.shape[:2]
    point = (w * 0.5, h * 0.5) if center is None else _check_point("affine", "center", center)
    matrix = _inverse_affine_matrix(point, angle, (tx, ty), scale, shear)
    return _warp_affine(img, matrix, h, w, interpolation, fill, "affine")


def perspective(img, startpoints, endpoints, interpolation: str = "nearest",
                fill=0) -> np.ndarray:
    """Warp so that ``startpoints`` (four (x, y) corners: top-left, top-right, bottom-right,
    bottom-left) land on ``endpoints`` (``paddle.vision.transforms.perspective(img,
    startpoints, endpoints, interpolation='nearest', fill=0)``); the output has the input's
    size and pixels from outside it get ``fill``. The homography is solved as Paddle's PIL
    backend does (least squares of the eight coefficients mapping output to input)."""
    img = as_image(img, "perspective")
    start = _check_corners("startpoints", startpoints)
    end = _check_corners("endpoints", endpoints)
    check_interpolation("perspective", interpolation, WARP_INTERPOLATIONS)
    a, b, c, d, e, f, g, k = _perspective_coeffs(start, end)
    xs, ys = _output_grid(*img.shape[:2])
    with np.errstate(divide="ignore", invalid="ignore"):
        den = g * xs + k * ys + 1.0
        xin, yin = (a * xs + b * ys + c) / den, (d * xs + e * ys + f) / den
    return _sample(img, xin, yin, interpolation, fill, "perspective")


def _inverse_affine_matrix(center, angle, translate, scale, shear) -> list[float]:
    """Paddle's ``_get_affine_matrix``: the output -> input map of
    ``T(translate) C(center) R(angle) Sh(shear) S(scale) C^-1``, as six numbers (a, b, c, d, e,
    f): x_in = a x + b y + c, y_in = d x + e y + f."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    matrix = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]  # inverse of [[a, b], [c, d]] / scale
    matrix[2] += matrix[0] * (-cx - tx) + matrix[1] * (-cy - ty) + cx
    matrix[5] += matrix[3] * (-cx - tx) + matrix[4] * (-cy - ty) + cy
    return matrix


def _perspective_coeffs(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """(a, b, c, d, e, f, g, h) with input = ((a x + b y + c), (d x + e y + f)) / (g x + h y + 1)
    for output (x, y): the map taking each end point back to its start point."""
    rows = []
    for (x, y), (u, v) in zip(end, start):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    return np.linalg.lstsq(np.array(rows, dtype=np.float64), start.reshape(8), rcond=None)[0]


def _apply_affine(matrix, x, y):
    a, b, c, d, e, f = matrix
    return a * x + b * y + c, d * x + e * y + f


def _warp_affine(img: np.ndarray, matrix, h: int, w: int, interpolation: str, fill,
                 owner: str) -> np.ndarray:
    """``img`` resampled on an ``h x w`` output through the inverse affine ``matrix``."""
    if interpolation == "nearest":
        cols, rows = _nearest_affine_pixels(matrix, h, w)
        return _take(img, cols, rows, fill, owner)
    xs, ys = _output_grid(h, w)
    return _sample(img, *_apply_affine(matrix, xs, ys), interpolation, fill, owner)


def _nearest_affine_pixels(matrix, h: int, w: int):
    """The input (column, row) of each output pixel for a 'nearest' affine warp, computed as
    Pillow's ImagingTransformAffine does (libImaging/Geometry.c), so that centres landing on a
    pixel border (e.g. 1.9999999999999996 against 2.0) pick Pillow's pixel: a pure scale
    accumulates float steps (ImagingScaleAffine); otherwise 16.16 fixed point (affine_fixed)
    while the corners fit in it, else float steps again. A negative column or row is outside."""
    a, b, c, d, e, f = matrix
    if b == 0 and d == 0:
        cols = _pil_coord(np.cumsum(np.r_[c + a * 0.5, np.full(w - 1, a)]))
        rows = _pil_coord(np.cumsum(np.r_[f + e * 0.5, np.full(h - 1, e)]))
        return np.broadcast_to(cols, (h, w)), np.broadcast_to(rows[:, None], (h, w))
    corners = ((0, 0), (w, h), (0, h), (w, 0))
    if all(abs(x * a + y * b + c) < 32768.0 and abs(x * d + y * e + f) < 32768.0
           for x, y in corners):
        def fix(v: float) -> int:  # Pillow's FIX: v in 16.16, rounded half up
            return math.floor(v * 65536.0 + 0.5)
        ys, xs = np.meshgrid(np.arange(h, dtype=np.int64), np.arange(w, dtype=np.int64),
                             indexing="ij")
        col_fixed = fix(c + a * 0.5 + b * 0.5) + ys * fix(b) + xs * fix(a)
        row_fixed = fix(f + d * 0.5 + e * 0.5) + ys * fix(e) + xs * fix(d)
        return col_fixed >> 16, row_fixed >> 16  # arithmetic shift: floor, as C's >> here
    # Pillow's float fallback: steps accumulated along each row, and from row to row
    starts_x = np.cumsum(np.r_[c + b * 0.5 + a * 0.5, np.full(h - 1, b)])
    starts_y = np.cumsum(np.r_[f + e * 0.5 + d * 0.5, np.full(h - 1, e)])
    steps = np.cumsum(np.r_[0.0, np.full(w - 1, 1.0)])
    return _pil_coord(starts_x[:, None] + steps * a), _pil_coord(starts_y[:, None] + steps * d)


def _pil_coord(v: np.ndarray) -> np.ndarray:
    """Pillow's COORD: truncation, and -1 (outside) for any negative coordinate."""
    return np.where(v < 0, -1, np.trunc(np.where(v < 0, 0, v))).astype(np.int64)


def _take(img: np.ndarray, cols, rows, fill, owner: str) -> np.ndarray:
    """``img[rows, cols]``, and ``fill`` where the pixel is outside the image."""
    h, w = img.shape[:2]
    fill_value = _fill_value(img, fill, owner)
    inside = (cols >= 0) & (cols < w) & (rows >= 0) & (rows < h)
    values = img[np.clip(rows, 0, h - 1), np.clip(cols, 0, w - 1)]
    mask = inside if img.ndim == 2 else inside[..., None]
    return np.where(mask, values, fill_value).astype(img.dtype, copy=False)


def _output_grid(h: int, w: int):
    """The centres (x, y) of an ``h x w`` output's pixels, each ``[h, w]``."""
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float64) + 0.5,
                         np.arange(w, dtype=np.float64) + 0.5, indexing="ij")
    return xs, ys


def _sample(img: np.ndarray, xin, yin, interpolation: str, fill, owner: str) -> np.ndarray:
    """The input at (``xin``, ``yin``) for each output pixel, PIL's way: a point outside
    [0, W) x [0, H) gets ``fill``; 'nearest' takes the pixel the point is in, 'bilinear'
    interpolates the four pixel centres around it, 'bicubic' the sixteen (edge pixels
    repeated; integer images clipped and truncated, as PIL)."""
    h, w = img.shape[:2]
    fill_value = _fill_value(img, fill, owner)
    finite = np.isfinite(xin) & np.isfinite(yin)
    xin, yin = np.where(finite, xin, -1.0), np.where(finite, yin, -1.0)
    inside = (xin >= 0) & (xin < w) & (yin >= 0) & (yin < h)
    if interpolation == "nearest":
        rows = np.clip(np.floor(yin), 0, h - 1).astype(np.int64)
        cols = np.clip(np.floor(xin), 0, w - 1).astype(np.int64)
        values = img[rows, cols]
    else:
        kernel = _bilinear if interpolation == "bilinear" else _bicubic
        values = _truncate_like(kernel(img.astype(np.float64), xin - 0.5, yin - 0.5),
                                img.dtype)
    mask = inside if img.ndim == 2 else inside[..., None]
    return np.where(mask, values, fill_value).astype(img.dtype, copy=False)


def _bilinear(x: np.ndarray, xs, ys) -> np.ndarray:
    h, w = x.shape[:2]
    c0, r0 = np.floor(xs), np.floor(ys)
    fc, fr = xs - c0, ys - r0
    if x.ndim == 3:
        fc, fr = fc[..., None], fr[..., None]
    c0i, r0i = c0.astype(np.int64), r0.astype(np.int64)
    c1, c0i = np.clip(c0i + 1, 0, w - 1), np.clip(c0i, 0, w - 1)
    r1, r0i = np.clip(r0i + 1, 0, h - 1), np.clip(r0i, 0, h - 1)
    # Pillow's BILINEAR: a + (b - a) * d, whose rounding decides truncated integer results
    top = x[r0i, c0i] + (x[r0i, c1] - x[r0i, c0i]) * fc
    bottom = x[r1, c0i] + (x[r1, c1] - x[r1, c0i]) * fc
    return top + (bottom - top) * fr


def _bicubic(x: np.ndarray, xs, ys) -> np.ndarray:
    """Pillow's BICUBIC for transforms (libImaging/Geometry.c): the cubic through four pixel
    centres along each of four rows, then down the column, each as ``p1 + d (p2 + d (p3 + d
    p4))`` -- its kernel has a = -1 (sharper than resize's -0.5 or OpenCV's -0.75)."""
    h, w = x.shape[:2]
    c0, r0 = np.floor(xs), np.floor(ys)
    dc, dr = xs - c0, ys - r0
    if x.ndim == 3:
        dc, dr = dc[..., None], dr[..., None]
    cols = [np.clip(c0.astype(np.int64) + k - 1, 0, w - 1) for k in range(4)]
    rows = [np.clip(r0.astype(np.int64) + k - 1, 0, h - 1) for k in range(4)]
    lines = [_pil_cubic(*(x[row, col] for col in cols), dc) for row in rows]
    return _pil_cubic(*lines, dr)


def _pil_cubic(v1, v2, v3, v4, d):
    """Pillow's BICUBIC macro, in its order of operations."""
    p2 = -v1 + v3
    p3 = 2 * (v1 - v2) + v3 - v4
    p4 = -v1 + v2 - v3 + v4
    return v2 + d * (p2 + d * (p3 + d * p4))


def _fill_value(img: np.ndarray, fill, owner: str) -> np.ndarray:
    """``fill`` (a number or one value per channel) in the image's dtype and layout."""
    values = np.asarray(fill, dtype=np.float64).reshape(-1) \
        if not isinstance(fill, (str, bytes)) and fill is not None else np.array([])
    channels = _channels(img)
    if values.size not in (1, channels) or not np.all(np.isfinite(values)):
        raise ValueError(f"{owner}: fill={fill!r} must be a number or one number per channel "
                         f"({channels}).")
    if img.ndim == 2:
        return _cast_like(values[:1], img.dtype)[0]
    return _cast_like(np.broadcast_to(values, (channels,)), img.dtype)


def _check_number(owner: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not np.isfinite(value):
        raise TypeError(f"{owner}: {name}={value!r} must be a finite number.")
    return float(value)


def _check_point(owner: str, name: str, value) -> tuple[float, float]:
    """A pair (x, y) of finite numbers."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2 \
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                       and np.isfinite(v) for v in value):
        raise TypeError(f"{owner}: {name}={value!r} must be a pair (x, y) of numbers.")
    return float(value[0]), float(value[1])


def _check_shear(shear) -> tuple[float, float]:
    """Paddle's shear forms: a number (x only), one value (both) or a pair (x, y)."""
    if isinstance(shear, numbers.Real) and not isinstance(shear, bool):
        return _check_number("affine", "shear", shear), 0.0
    if isinstance(shear, Sequence) and not isinstance(shear, (str, bytes)) \
            and len(shear) in (1, 2) and all(isinstance(v, numbers.Real)
                                             and not isinstance(v, bool) for v in shear):
        values = [float(v) for v in shear]
        return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])
    raise TypeError(f"affine: shear={shear!r} must be a number (degrees along x) or a sequence "
                    "of one or two numbers (x, y).")


def _check_corners(name: str, points) -> np.ndarray:
    try:
        array = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != (4, 2) or not np.all(np.isfinite(array)):
        raise ValueError(f"perspective: {name}={points!r} must be four (x, y) points: "
                         "top-left, top-right, bottom-right, bottom-left.")
    return array


# ----- erasing ------------------------------------------------------------------------------------
def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False) -> np.ndarray:
    """``img`` with the ``h x w`` region whose top-left pixel is (row ``i``, column ``j``) set
    to ``v`` (``paddle.vision.transforms.erase(img, i, j, h, w, v, inplace=False)``): a number,
    one value per channel (shaped ``[1, 1, C]`` or ``[C]``) or an ``[h, w(, C)]`` array; it is
    cast to the image's dtype (integers rounded and clipped). ``inplace`` writes into ``img``
    (a numpy array; a PIL image is always copied)."""
    is_pil = hasattr(img, "getbands")
    img = as_image(img, "erase")
    for name, value in (("i", i), ("j", j), ("h", h), ("w", w)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"erase: {name}={value!r} must be an integer >= 0.")
    if i + h > img.shape[0] or j + w > img.shape[1]:
        raise ValueError(f"erase: the region i={i}, j={j}, h={h}, w={w} does not fit in the "
                         f"{img.shape[0]}x{img.shape[1]} image.")
    values = _cast_like(np.asarray(v, dtype=np.float64), img.dtype)
    if img.ndim == 2 and values.ndim == 3 and values.shape[2] == 1:
        values = values[:, :, 0]  # one channel's values for a gray [H, W] image
    out = img if inplace and not is_pil and img.flags.writeable else img.copy()
    try:
        out[i:i + h, j:j + w] = values
    except ValueError:
        raise ValueError(f"erase: v of shape {list(np.shape(v))} does not broadcast to the "
                         f"region {[h, w, *img.shape[2:]]}.") from None
    return out


__all__ = ["adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "affine",
           "center_crop", "crop", "erase", "hflip", "normalize", "pad", "perspective", "resize",
           "rotate", "to_grayscale", "to_tensor", "vflip"]
