"""``linear``, ``dropout``, ``dropout2d``, ``dropout3d``, ``flatten``, ``one_hot``, ``pad``,
``zeropad2d``, ``interpolate``, ``cosine_similarity``, ``bilinear`` (``paddle.nn.functional``
semantics)."""
from __future__ import annotations

import numpy as np

from core import autocast, backend
from core.higher_order import captured, linear_grad, needs, sum_to
from core.nn.functional._sums import column_sums
from core.tensor import Tensor, apply, unbroadcast
from core.threads import matmul_any_order, matmul_inner, matmul_transposed

_DROPOUT_MODES = ("upscale_in_train", "downscale_in_infer")


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None,
           name: str | None = None) -> Tensor:
    """``x @ weight + bias`` with ``weight`` of shape [in_features, out_features] (Paddle).

    ``x`` may have any number of leading dimensions; the last one must be ``in_features``.
    One fused op: the backward is two GEMMs and a sum, with no graph of small ops.
    """
    del name
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed, float16 inputs
        x, weight, bias = autocast.cast_inputs("linear", x, weight, bias)
    a, w = x.data, weight.data
    if w.ndim != 2 or a.ndim < 1 or a.shape[-1] != w.shape[0]:
        raise ValueError(f"linear: input of shape {list(a.shape)} does not fit weight of shape "
                         f"{list(w.shape)}; the weight must be [in_features, out_features] and "
                         "the input's last dimension must equal in_features.")
    if bias is not None and tuple(bias.data.shape) != (w.shape[1],):
        raise ValueError(f"linear: bias of shape {bias.shape} does not fit weight of shape "
                         f"{list(w.shape)}; the bias must be [out_features] = [{w.shape[1]}].")
    xp = backend.array_module(a)
    a2 = a.reshape(-1, w.shape[0])  # leading dimensions as rows: split over core's threads
    out = matmul_any_order(xp, a2, w).reshape(a.shape[:-1] + (w.shape[1],))
    if bias is not None:
        out += bias.data
    parents = (x, weight) if bias is None else (x, weight, bias)

    def backward(g):
        g2 = g.reshape(-1, w.shape[1])
        order = "F" if a2.flags.f_contiguous and not a2.flags.c_contiguous else "C"  # x's
        gx = None if x.stop_gradient else \
            matmul_transposed(xp, g2, w, order).reshape(a.shape)
        gw = matmul_inner(xp, a2, g2) if not weight.stop_gradient else None
        if bias is None:
            return gx, gw
        return gx, gw, (column_sums(xp, g2) if not bias.stop_gradient else None)

    return apply(out, parents, backward, "linear", _linear_grad)


def _linear_grad(out, g):
    """linear's backward with Tensors (create_graph): g W^T, x^T g and g's column sums."""
    x, weight, *bias = out._parents
    g2 = g.reshape([-1, weight.shape[1]])
    gx = g.matmul(weight, transpose_y=True) if needs(x) else None
    gw = x.reshape([-1, weight.shape[0]]).matmul(g2, transpose_x=True) if needs(weight) else None
    if not bias:
        return gx, gw
    return gx, gw, (g2.sum(axis=0) if needs(bias[0]) else None)


def dropout(x: Tensor, p: float = 0.5, axis=None, training: bool = True, inplace: bool = False,
            mode: str = "upscale_in_train", name: str | None = None) -> Tensor:
    """Zero each element with probability ``p`` (Paddle 3.x's ``dropout(x, p=0.5, axis=None,
    training=True, inplace=False, mode='upscale_in_train', name=None)``).

    ``inplace`` is accepted for Paddle's signature; the result is always a new tensor (an
    in-place write would corrupt inputs that autograd saved for another op's backward).

    ``upscale_in_train`` (Paddle's default) scales kept values by 1/(1-p) in training and is the
    identity in evaluation; ``downscale_in_infer`` keeps values unscaled in training and multiplies
    by (1-p) in evaluation. ``axis`` (an int or list) drops whole slices: the mask varies only
    along those axes. Masks come from the seeded backend generator (``core.seed``).
    """
    del name, inplace
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p={p!r} is not a probability; use a number in [0, 1].")
    if mode not in _DROPOUT_MODES:
        raise ValueError(f"dropout: mode={mode!r} is not supported; use one of {_DROPOUT_MODES}.")
    if not training:
        return x if mode == "upscale_in_train" or p == 0 else _scale(x, 1.0 - p)
    if p == 0:
        return x
    xp = backend.array_module(x.data)
    shape = _mask_shape(x.shape, axis)
    keep = backend.random_uniform(shape, dtype=x.dtype) >= p
    scale = 1.0 / (1.0 - p) if mode == "upscale_in_train" and p < 1 else 1.0
    mask = xp.multiply(keep, xp.asarray(scale, dtype=x.dtype))
    # With ``axis`` the mask broadcasts, and g * mask already has the input's shape.
    return apply(x.data * mask, (x,), lambda g: (g * mask,), "dropout", _dropout_grad)


def _dropout_grad(out, g):  # the tensor-level backward (create_graph): the same mask
    (mask,) = captured(out, "mask")
    return (g * Tensor(mask),)


def _scale(x: Tensor, factor: float) -> Tensor:
    return apply(x.data * factor, (x,), lambda g: (g * factor,), "scale", _scale_grad)


def _scale_grad(out, g):
    (factor,) = captured(out, "factor")
    return (g * factor,)


def _mask_shape(shape: list[int], axis) -> tuple[int, ...]:
    if axis is None:
        return tuple(shape)
    axes = [axis] if isinstance(axis, int) else list(axis)
    ndim = len(shape)
    if not axes or any(not isinstance(a, int) or not -ndim <= a < ndim for a in axes):
        raise ValueError(f"dropout: axis={axis!r} is not valid for an input with {ndim} "
                         f"dimension(s); use an int or a list of ints in [{-ndim}, {ndim - 1}].")
    keep = {a % ndim for a in axes}
    return tuple(n if i in keep else 1 for i, n in enumerate(shape))


def flatten(x: Tensor, start_axis: int = 0, stop_axis: int = -1, name: str | None = None) -> Tensor:
    """Merge the dimensions ``start_axis..stop_axis`` (inclusive) into one."""
    del name
    if not isinstance(x, Tensor):  # a memoryview (numpy's .data) has a shape, but no reshape
        raise backend.NotATensorError(f"flatten: {backend.NOT_A_TENSOR}")
    shape = x.data.shape
    ndim = max(len(shape), 1)
    for label, value in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not isinstance(value, int) or not -ndim <= value < ndim:
            raise ValueError(f"flatten: {label}={value!r} is out of range for an input with "
                             f"{len(shape)} dimension(s); use an integer in [{-ndim}, {ndim - 1}].")
    start, stop = start_axis % ndim, stop_axis % ndim
    if start > stop:
        raise ValueError(f"flatten: start_axis ({start_axis}) must not come after stop_axis "
                         f"({stop_axis}).")
    if not shape:
        new_shape = (1,)
    else:
        merged = 1
        for n in shape[start:stop + 1]:
            merged *= n
        new_shape = shape[:start] + (merged,) + shape[stop + 1:]
    return apply(x.data.reshape(new_shape), (x,), lambda g: (g.reshape(shape),), "flatten",
                 _flatten_grad)


def _flatten_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    return (g.reshape(out._parents[0].shape),)


def one_hot(x, num_classes: int = -1, name: str | None = None) -> Tensor:
    """float32 one-hot vectors of the integer ids ``x``: shape ``x.shape + [num_classes]``,
    Paddle's ``one_hot(x, num_classes=-1, name=None)``.

    Ids must lie in [0, num_classes); ``num_classes=-1`` (Paddle 3.x's default) takes
    ``max(x) + 1``. No gradient (the ids are integers), as in Paddle.
    """
    del name
    ids = x.data if isinstance(x, Tensor) else backend.asarray(x)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"one_hot: x must hold integer ids, got dtype {ids.dtype}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or not (
            num_classes >= 1 or num_classes == -1):
        raise ValueError(f"one_hot: num_classes must be an int >= 1 or -1 (max(x) + 1), got "
                         f"{num_classes!r}")
    if num_classes == -1:
        if not ids.size:
            raise ValueError("one_hot: num_classes=-1 needs at least one id to take max(x) + 1 "
                             "from; x is empty")
        num_classes = int(ids.max()) + 1
    if ids.size:
        lo, hi = (int(v) for v in backend.to_numpy(backend.array_module(ids).stack(
            [ids.min(), ids.max()])))
        if lo < 0 or hi >= num_classes:
            raise ValueError(f"one_hot: id {lo if lo < 0 else hi} is out of range for "
                             f"num_classes={num_classes}; ids must be in [0, {num_classes - 1}]")
    xp = backend.array_module(ids)
    return Tensor((ids[..., None] == xp.arange(num_classes)).astype("float32"))


def dropout2d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """Zero whole channels of [N, C, H, W] with probability ``p`` (Paddle's ``dropout2d(x,
    p=0.5, training=True, data_format='NCHW', name=None)``): dropout with the mask varying over
    the batch and channel axes only."""
    del name
    if x.ndim != 4 or data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"dropout2d: expected a 4-D NCHW or NHWC input, got shape {x.shape} "
                         f"with data_format={data_format!r}.")
    return dropout(x, p, [0, 1] if data_format == "NCHW" else [0, 3], training)


def dropout3d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: str | None = None) -> Tensor:
    """Zero whole channels of [N, C, D, H, W] with probability ``p`` (Paddle's ``dropout3d(x,
    p=0.5, training=True, data_format='NCDHW', name=None)``): dropout with the mask varying over
    the batch and channel axes only, the kept channels scaled by 1 / (1 - p) in training."""
    del name
    if x.ndim != 5 or data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"dropout3d: expected a 5-D NCDHW or NDHWC input, got shape {x.shape} "
                         f"with data_format={data_format!r}.")
    return dropout(x, p, [0, 1] if data_format == "NCDHW" else [0, 4], training)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(x: Tensor, pad, mode: str = "constant", value: float = 0.0,
        data_format: str | None = None, pad_from_left_axis: bool = True,
        name: str | None = None) -> Tensor:
    """Pad ``x`` (Paddle's ``pad(x, pad, mode='constant', value=0.0, data_format=None,
    pad_from_left_axis=True, name=None)``; ``data_format=None`` is the channel-first layout of
    the input's rank, 'NCL', 'NCHW' or 'NCDHW', as Paddle 3.x picks it).

    ``pad`` of length 2 * ndim pads every axis, first axis first (pad_from_left_axis); a list of
    2 per spatial axis pads the spatial axes of an NC... or N...C input from the last one
    backwards, Paddle's [left, right, top, bottom] for NCHW and NHWC; in ``constant`` mode a
    list of any other even length pads from the last axis backwards, as Paddle.
    ``reflect`` mirrors without repeating the edge, ``replicate`` repeats it, ``circular``
    wraps around.
    """
    del name
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode={mode!r} is not supported; use one of {_PAD_MODES}.")
    pad = [int(v) for v in (pad.tolist() if isinstance(pad, Tensor) else
                            (pad if isinstance(pad, (list, tuple)) else [pad]))]
    if any(v < 0 for v in pad):
        # a negative amount used to crash (constant) or be ignored silently (other modes)
        raise ValueError(f"pad: pad amounts must be non-negative, got pad={pad}; crop with "
                         "slicing (x[..., 1:-1]) instead.")
    ndim = x.ndim
    if data_format is None:
        data_format = {3: "NCL", 5: "NCDHW"}.get(ndim, "NCHW")
    if len(pad) == 2 * ndim:
        pairs = [tuple(pad[2 * i:2 * i + 2]) for i in range(ndim)]
        if not pad_from_left_axis:
            pairs = pairs[::-1]
    elif mode == "constant" and len(pad) % 2 == 0 and len(pad) < 2 * ndim \
            and len(pad) != 2 * (ndim - 2):
        # Paddle's constant pad of any other even length pads from the last axis backwards,
        # batch and channel axes included: pad=[1, 0, 0, 1] on [1, 1, 3] gives [1, 2, 4]
        pairs = [(0, 0)] * ndim
        for i in range(len(pad) // 2):
            pairs[ndim - 1 - i] = tuple(pad[2 * i:2 * i + 2])
    elif len(pad) % 2 == 0 and len(pad) // 2 <= ndim - 2 and "C" in (data_format[1],
                                                                       data_format[-1]):
        # The spatial axes are 2..ndim-1 (NC...) or 1..ndim-2 (N...C, e.g. NHWC, NLC); Paddle
        # pads them from the last one backwards in either layout.
        last = ndim - 1 if data_format[1] == "C" else ndim - 2
        pairs = [(0, 0)] * ndim
        for i in range(len(pad) // 2):
            pairs[last - i] = tuple(pad[2 * i:2 * i + 2])
    else:
        raise ValueError(f"pad: pad={pad} does not fit an input of {ndim} dimensions "
                         f"({data_format}); give 2 * ndim values or 2 per spatial axis.")
    data = x.data
    xp = backend.array_module(data)
    if mode == "constant":
        out = xp.full([n + a + b for n, (a, b) in zip(data.shape, pairs)], value,
                      dtype=data.dtype)
        inner = tuple(slice(a, a + n) for n, (a, _) in zip(data.shape, pairs))
        out[inner] = data
        return apply(out, (x,), lambda g: (g[inner],), "pad", _constant_pad_grad)
    # Other modes: gather each axis through an index map; the backward adds the gradient of
    # every copy back onto its source element.
    maps = [_pad_index(xp, n, a, b, mode) for n, (a, b) in zip(data.shape, pairs)]
    out = data
    for axis, index in enumerate(maps):
        out = xp.take(out, index, axis=axis)

    def backward(g):
        for axis in reversed(range(ndim)):
            shape = list(g.shape)
            shape[axis] = data.shape[axis]
            acc = xp.zeros(shape, dtype=g.dtype)
            backend.add_at(acc, (slice(None),) * axis + (maps[axis],), g)
            g = acc
        return (g,)

    return apply(out, (x,), backward, "pad", _gathered_pad_grad)


def _constant_pad_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    (inner,) = captured(out, "inner")
    return (g[inner],)


def _gathered_pad_grad(out, g):  # the pad's Jacobian gathers through the same index maps
    (maps,) = captured(out, "maps")

    def gathered(h):
        for axis, index in enumerate(maps):
            h = h[(slice(None),) * axis + (index,)]
        return h

    return (linear_grad(apply, g, out._backward, gathered, "pad_grad"),)


def zeropad2d(x: Tensor, padding, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Pad the height and width of a 4-D input with zeros, Paddle's ``zeropad2d(x, padding,
    data_format='NCHW', name=None)``; ``padding`` is an int or [left, right, top, bottom]
    (a list or a Tensor)."""
    del name
    if x.ndim != 4 or data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"zeropad2d: expected a 4-D NCHW or NHWC input, got shape {x.shape} "
                         f"with data_format={data_format!r}.")
    values = [int(v) for v in padding.tolist()] if isinstance(padding, Tensor) else padding
    values = [values] * 4 if isinstance(values, int) and not isinstance(values, bool) else values
    if not isinstance(values, (list, tuple)) or len(values) != 4 or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        raise ValueError(f"zeropad2d: padding={padding!r} must be an int >= 0 or four such ints "
                         "[left, right, top, bottom].")
    return pad(x, list(values), "constant", 0.0, data_format)


def _pad_index(xp, size: int, before: int, after: int, mode: str):
    index = xp.arange(-before, size + after)
    if mode == "replicate":
        return xp.clip(index, 0, size - 1)
    if mode == "circular":
        return index % size
    if before >= size or after >= size:
        raise ValueError(f"pad: reflect padding ({before}, {after}) must be smaller than the "
                         f"axis size {size}.")
    index = xp.abs(index)  # reflect: -1 -> 1 (no repeated edge)
    return xp.where(index >= size, 2 * (size - 1) - index, index)


def interpolate(x: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format: str | None = None,
                recompute_scale_factor: bool | None = None, name: str | None = None) -> Tensor:
    """Resize [N, C, *spatial] inputs, Paddle's ``interpolate(x, size=None, scale_factor=None,
    mode='nearest', align_corners=False, align_mode=0, data_format=None,
    recompute_scale_factor=None, name=None)``: ``mode`` 'nearest' (3-D, 4-D or 5-D inputs),
    'linear' (3-D), 'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D) or 'area' (3-D to 5-D:
    adaptive average pooling to the output size). ``data_format=None`` is the channel-first
    layout of the input's rank (NCW, NCHW, NCDHW), as Paddle; the channel-last ones (NWC,
    NHWC, NDHWC) work too. ``recompute_scale_factor=True`` turns ``scale_factor`` into output
    sizes (floor(in * s)) and then maps coordinates by in / out, as if those sizes had been
    given.

    Each axis is resampled by a constant [out, in] matrix (one-hot rows for nearest, two
    weights for (bi/tri)linear, four for bicubic, a window's mean for area) and a matmul, so
    the gradient is the transposed resampling and no separate backward is needed. Source
    coordinates follow Paddle: nearest floor(dst * ratio) (``align_corners=True`` is refused
    there and for 'area', as Paddle 3 refuses it); linear
    modes (dst + 0.5) * ratio - 0.5 clipped at 0 (align_mode 0), dst * ratio (align_mode 1) or
    dst * (in - 1) / (out - 1) (align_corners); bicubic (dst + 0.5) * ratio - 0.5 unclipped
    (or the align_corners map) with Keys' kernel, a = -0.75, and edge indices clamped; ratio
    is in / out, or 1 / scale_factor when that is given.
    """
    del name
    ranks = _INTERPOLATE_RANKS.get(mode)
    if ranks is None:
        raise ValueError(f"interpolate: mode={mode!r} is not supported; use one of "
                         f"{sorted(_INTERPOLATE_RANKS)}.")
    formats = _INTERPOLATE_FORMATS.get(x.ndim, ())
    data_format = formats[0] if data_format is None and formats else data_format
    if x.ndim not in ranks or data_format not in formats:
        wanted = " or ".join(f"{n}-D ({', '.join(_INTERPOLATE_FORMATS[n])})" for n in ranks)
        raise ValueError(f"interpolate: mode={mode!r} expects a {wanted} input, got shape "
                         f"{x.shape} with data_format={data_format!r}.")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor.")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(f"interpolate: align_corners=True needs an interpolating mode "
                         f"('linear', 'bilinear', 'bicubic', 'trilinear'), not mode={mode!r} "
                         "(as in Paddle)")
    size = _plain_sizes(size)
    if isinstance(scale_factor, Tensor):  # Paddle takes a Tensor of factors too
        scale_factor = [float(v) for v in scale_factor.numpy().reshape(-1)]
    if recompute_scale_factor and size is not None:
        raise ValueError(f"interpolate: recompute_scale_factor={recompute_scale_factor!r} needs "
                         f"scale_factor, not an explicit size={size!r}.")
    import core  # noqa: PLC0415 - core imports this package while it initialises

    last = data_format != formats[0]  # channels last
    k = x.ndim - 2
    if last:
        x = core.transpose(x, [0, x.ndim - 1, *range(1, x.ndim - 1)])
    sizes_in = x.shape[2:]
    scales = None if scale_factor is None else (
        list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * k)
    sizes = list(size) if size is not None and isinstance(size, (list, tuple)) else \
        [size] * k if size is not None else [int(n * s) for n, s in zip(sizes_in, scales)]
    if recompute_scale_factor or mode == "area":
        scales = None  # the sizes alone set the ratio, in / out (area: adaptive pooling)
    mats = [_resample_matrix(x, n_in, n_out, None if scales is None else scales[i], mode,
                             align_corners, align_mode)
            for i, (n_in, n_out) in enumerate(zip(sizes_in, sizes))]
    if k == 2:  # images, the common case: both axes by two batched matmuls
        out = core.matmul(core.matmul(mats[0], x), mats[1], transpose_y=True)
    else:
        out = x
        for i, mat in enumerate(mats):  # axis 2 + i to the end, resampled, and back
            perm = [a for a in range(x.ndim) if a != 2 + i] + [2 + i]
            moved = core.matmul(core.transpose(out, perm), mat, transpose_y=True)
            out = core.transpose(moved, [perm.index(a) for a in range(x.ndim)])
    return core.transpose(out, [0, *range(2, x.ndim), 1]) if last else out


def _plain_sizes(size):
    """``size`` with Tensors read as ints, as Paddle takes them: a 1-D Tensor of sizes, or a
    list mixing ints and one-element Tensors."""
    if isinstance(size, Tensor):
        return [int(v) for v in size.numpy().reshape(-1)]
    if isinstance(size, (list, tuple)):
        return [int(v.item()) if isinstance(v, Tensor) else v for v in size]
    return size


# mode -> the input ranks it takes; rank -> (channels-first, channels-last) layouts
_INTERPOLATE_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,),
                      "bicubic": (4,), "trilinear": (5,), "area": (3, 4, 5)}
_INTERPOLATE_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_CUBIC_A = -0.75  # Keys' kernel parameter in Paddle's (and OpenCV's, torch's) bicubic


def _cubic_weights(t):
    """The four weights of Keys' cubic kernel at offsets -1, 0, 1, 2 from floor(src)."""
    a = _CUBIC_A

    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _resample_matrix(x: Tensor, n_in: int, n_out: int, scale, mode: str, align_corners: bool,
                     align_mode: int) -> Tensor:
    import numpy as np  # noqa: PLC0415 - small host-side table, uploaded once per call

    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale else n_in / n_out
    matrix = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode == "nearest":
        src = np.floor(dst * ratio)  # (interpolate refuses align_corners here)
        matrix[rows, np.minimum(src.astype(int), n_in - 1)] = 1.0
    elif mode == "area":  # adaptive average pooling: window [floor(i in/out), ceil((i+1) in/out))
        start = (rows * n_in) // n_out
        stop = -((-(rows + 1) * n_in) // n_out)
        for i in range(n_out):
            matrix[i, start[i]:stop[i]] = 1.0 / (stop[i] - start[i])
    elif mode == "bicubic":
        src = dst * ratio if align_corners else (dst + 0.5) * ratio - 0.5
        low = np.floor(src).astype(int)
        for offset, weight in zip(range(-1, 3), _cubic_weights(src - low)):
            np.add.at(matrix, (rows, np.clip(low + offset, 0, n_in - 1)), weight)
    else:
        if align_corners or align_mode == 1:
            src = dst * ratio
        else:
            src = np.maximum((dst + 0.5) * ratio - 0.5, 0.0)
        low = np.minimum(np.floor(src).astype(int), n_in - 1)
        high = np.minimum(low + 1, n_in - 1)
        frac = src - low
        np.add.at(matrix, (np.arange(n_out), low), 1.0 - frac)
        np.add.at(matrix, (np.arange(n_out), high), frac)
    return Tensor(backend.asarray(matrix.astype(x.dtype)))


def cosine_similarity(x1: Tensor, x2: Tensor, axis: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine of the angle between ``x1`` and ``x2`` along ``axis`` (Paddle's
    ``cosine_similarity(x1, x2, axis=1, eps=1e-8)``): ``<x1, x2> / sqrt(max(|x1|^2 |x2|^2,
    eps^2))``. The inputs broadcast; ``axis`` is dropped from the result.

    One fused op: the forward keeps the three sums, and the backward is the closed form
    ``d/dx1 = x2 / n - cos * x1 / |x1|^2`` (``n`` the clipped norm product; only the first
    term where the clip holds), and the same for ``x2``.
    """
    xp = backend.array_module(x1.data)
    backend.array_module(x2.data)
    shape = np.broadcast_shapes(x1.data.shape, x2.data.shape)  # shapes only: either backend
    ndim = len(shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"cosine_similarity: axis={axis!r} is out of range for inputs of "
                         f"shape {x1.shape} and {x2.shape}")
    axis %= ndim
    a, b = xp.broadcast_to(x1.data, shape), xp.broadcast_to(x2.data, shape)
    w12, w1, w2 = (a * b).sum(axis=axis), (a * a).sum(axis=axis), (b * b).sum(axis=axis)
    product = w1 * w2
    floor = eps * eps
    unclipped = product > floor
    norm = xp.sqrt(xp.maximum(product, floor))
    out = w12 / norm

    def backward(g):
        scale = xp.expand_dims(g / norm, axis)
        gx1 = gx2 = None
        if not x1.stop_gradient:
            k1 = xp.expand_dims(xp.where(unclipped, out / xp.where(unclipped, w1, 1), 0), axis)
            gx1 = unbroadcast(scale * b - xp.expand_dims(g, axis) * k1 * a, x1.data.shape)
        if not x2.stop_gradient:
            k2 = xp.expand_dims(xp.where(unclipped, out / xp.where(unclipped, w2, 1), 0), axis)
            gx2 = unbroadcast(scale * a - xp.expand_dims(g, axis) * k2 * b, x2.data.shape)
        return gx1, gx2

    return apply(out, (x1, x2), backward, "cosine_similarity", _cosine_similarity_grad)


def _cosine_similarity_grad(out, g):
    """The closed form of the array backward with recorded ops (create_graph). Where the clip
    holds, the norm product is the constant eps and the squared norms are replaced by 1, so
    only the first term remains and nothing divides by zero."""
    x1, x2 = out._parents
    axis, shape, unclipped, clipped = captured(out, "axis", "a", "unclipped", "norm")
    shape = list(shape.shape)
    a, b = x1.broadcast_to(shape), x2.broadcast_to(shape)
    kept = Tensor(unclipped.astype(out.data.dtype))
    w1, w2 = (a * a).sum(axis=axis), (b * b).sum(axis=axis)
    norm = (w1 * w2 * kept + (1 - kept)).sqrt() * kept + (1 - kept) * Tensor(clipped)
    scale, cos = (g / norm).unsqueeze(axis), g * out * kept
    gx1 = gx2 = None
    if needs(x1):
        gx1 = sum_to(scale * b - (cos / (w1 * kept + (1 - kept))).unsqueeze(axis) * a, x1.shape)
    if needs(x2):
        gx2 = sum_to(scale * a - (cos / (w2 * kept + (1 - kept))).unsqueeze(axis) * b, x2.shape)
    return gx1, gx2


def bilinear(x1: Tensor, x2: Tensor, weight: Tensor, bias: Tensor | None = None,
             name: str | None = None) -> Tensor:
    """The bilinear form of two inputs, Paddle's ``bilinear(x1, x2, weight, bias=None,
    name=None)``: ``out[b, o] = sum_ij x1[b, i] * weight[o, i, j] * x2[b, j] + bias[0, o]``.

    ``x1`` is [batch, in1_features], ``x2`` [batch, in2_features], ``weight`` [out_features,
    in1_features, in2_features] and ``bias`` [1, out_features] (or [out_features]); leading
    dimensions beyond one batch axis are accepted as well, the same on both inputs. One fused
    op: the forward keeps ``x1 W`` ([batch, out, in2]), from which the x2 gradient follows; the
    x1 and weight gradients are one GEMM each.
    """
    del name
    a, b, w = x1.data, x2.data, weight.data
    if w.ndim != 3 or min(a.ndim, b.ndim) < 1 or a.shape[-1] != w.shape[1] \
            or b.shape[-1] != w.shape[2] or a.shape[:-1] != b.shape[:-1]:
        raise ValueError(f"bilinear: inputs of shape {list(a.shape)} and {list(b.shape)} do not "
                         f"fit weight of shape {list(w.shape)}; the weight must be "
                         "[out_features, in1_features, in2_features], x1 [batch, in1_features] "
                         "and x2 [batch, in2_features] with the same batch.")
    n_out, n1, n2 = w.shape
    if bias is not None and bias.data.size != n_out:
        raise ValueError(f"bilinear: bias of shape {bias.shape} does not fit weight of shape "
                         f"{list(w.shape)}; the bias must be [1, {n_out}] or [{n_out}].")
    xp = backend.array_module(a)
    lead = a.shape[:-1]
    a2, b2 = a.reshape(-1, n1), b.reshape(-1, n2)
    rows = a2.shape[0]
    # W as [in1, out * in2]: x1 W for every output at once, then the dot with x2 per output.
    w_in1 = w.transpose(1, 0, 2).reshape(n1, n_out * n2)
    left = (a2 @ w_in1).reshape(rows, n_out, n2)
    out = xp.einsum("roj,rj->ro", left, b2)
    if bias is not None:
        out = out + bias.data.reshape(1, n_out)
    parents = (x1, x2, weight) if bias is None else (x1, x2, weight, bias)

    def backward(g):
        g2 = g.reshape(rows, n_out)
        grads = [None, None, None]
        if not x1.stop_gradient:  # sum over o, j of g[r, o] W[o, i, j] x2[r, j]
            spread = (g2[:, :, None] * b2[:, None, :]).reshape(rows, n_out * n2)
            grads[0] = (spread @ w_in1.T).reshape(a.shape)
        if not x2.stop_gradient:  # sum over o of g[r, o] (x1 W)[r, o, j]
            grads[1] = xp.einsum("ro,roj->rj", g2, left).reshape(b.shape)
        if not weight.stop_gradient:  # sum over r of g[r, o] x1[r, i] x2[r, j]
            outer = (a2[:, :, None] * b2[:, None, :]).reshape(rows, n1 * n2)
            grads[2] = (g2.T @ outer).reshape(w.shape)
        if bias is not None:
            grads.append(None if bias.stop_gradient else g2.sum(axis=0).reshape(bias.data.shape))
        return tuple(grads)

    return apply(out.reshape(*lead, n_out), parents, backward, "bilinear", _bilinear_grad)


def _bilinear_grad(out, g):
    """bilinear's backward with recorded ops (create_graph): the array backward's three
    products, with W as [in1, out * in2]."""
    x1, x2, weight, *bias = out._parents
    n_out, n1, n2 = weight.shape
    a, b = x1.reshape([-1, n1]), x2.reshape([-1, n2])
    rows = a.shape[0]
    g2 = g.reshape([rows, n_out])
    w_in1 = weight.transpose([1, 0, 2]).reshape([n1, n_out * n2])
    grads = [None, None, None]
    if needs(x1):
        spread = (g2.unsqueeze(2) * b.unsqueeze(1)).reshape([rows, n_out * n2])
        grads[0] = (spread @ w_in1.transpose([1, 0])).reshape(x1.shape)
    if needs(x2):
        grads[1] = (g2.unsqueeze(2) * (a @ w_in1).reshape([rows, n_out, n2])).sum(
            axis=1).reshape(x2.shape)
    if needs(weight):
        outer = (a.unsqueeze(2) * b.unsqueeze(1)).reshape([rows, n1 * n2])
        grads[2] = (g2.transpose([1, 0]) @ outer).reshape(weight.shape)
    if bias:
        grads.append(g2.sum(axis=0).reshape(bias[0].shape) if needs(bias[0]) else None)
    return tuple(grads)
