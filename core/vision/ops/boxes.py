"""Box encodings and anchors, Paddle's ``paddle.vision.ops.box_coder`` and ``prior_box``
(SSD), following the CPU kernels of Paddle 3.x (phi/kernels/cpu/box_coder_kernel.cc,
prior_box_kernel.cc). Both work on plain arrays and record no gradient, as in Paddle.
"""
from __future__ import annotations

import math

from core import backend
from core.tensor import Tensor
from core.vision.ops._checks import tensor

_CODE_TYPES = ("encode_center_size", "decode_center_size")


def _center_size(boxes, pixel: float):
    """(center x, center y, width, height) of (x1, y1, x2, y2) boxes as Paddle's box_coder
    reads a prior: widths gain ``pixel`` (1 for unnormalised boxes, whose x2 is inclusive)
    and the centre is x1 + width / 2."""
    width = boxes[..., 2] - boxes[..., 0] + pixel
    height = boxes[..., 3] - boxes[..., 1] + pixel
    return boxes[..., 0] + width / 2, boxes[..., 1] + height / 2, width, height


def _variance(xp, prior_box_var, prior_box, dtype, op: str):
    """The [M, 4] (tensor) or [4] (list) variances, or None."""
    if prior_box_var is None:
        return None
    if isinstance(prior_box_var, Tensor):
        tensor(prior_box_var, "prior_box_var", op)
        if tuple(prior_box_var.shape) != tuple(prior_box.shape):
            raise ValueError(f"{op}: prior_box_var must have prior_box's shape "
                             f"{prior_box.shape}, got {prior_box_var.shape}")
        return prior_box_var.data.astype(dtype, copy=False)
    if isinstance(prior_box_var, (list, tuple)) and len(prior_box_var) == 4:
        return xp.asarray([float(v) for v in prior_box_var], dtype=dtype)
    raise TypeError(f"{op}: prior_box_var={prior_box_var!r} must be a Tensor of prior_box's "
                    "shape, a list or tuple of 4 numbers, or None")


def box_coder(prior_box: Tensor, prior_box_var, target_box: Tensor,
              code_type: str = "encode_center_size", box_normalized: bool = True,
              axis: int = 0, name=None) -> Tensor:
    """Encode boxes as offsets from priors or decode them back, Paddle's ``box_coder(
    prior_box, prior_box_var, target_box, code_type='encode_center_size',
    box_normalized=True, axis=0, name=None)``.

    ``prior_box`` [M, 4] (x1, y1, x2, y2); ``prior_box_var`` a [M, 4] tensor, 4 numbers or
    None (no division). ``'encode_center_size'``: ``target_box`` [N, 4] gives [N, M, 4],
    ``((tx - px) / pw / vx, (ty - py) / ph / vy, log|tw / pw| / vw, log|th / ph| / vh)``.
    ``'decode_center_size'``: ``target_box`` [N, M, 4] gives the [N, M, 4] boxes; the priors
    (and tensor variances) run along axis 1 of the target (``axis=0``, prior_box [M, 4]) or
    along axis 0 (``axis=1``, prior_box [N, 4]).

    With ``box_normalized=False`` widths count x2 as inclusive (+1) and decoded x2 / y2 lose
    1 again, exactly as Paddle's kernel; its encoder takes the target's centre as
    (x1 + x2) / 2 but the prior's as x1 + (x2 - x1 + 1) / 2, so an unnormalised
    encode-decode round trip shifts boxes by -0.5 pixel (normalised boxes come back exactly).
    """
    del name
    op = "box_coder"
    tensor(prior_box, "prior_box", op, ndim=2)
    if prior_box.shape[1] != 4:
        raise ValueError(f"{op}: prior_box must be [M, 4], got {prior_box.shape}")
    tensor(target_box, "target_box", op)
    if code_type not in _CODE_TYPES:
        raise ValueError(f"{op}: code_type={code_type!r} is not supported; use one of "
                         f"{_CODE_TYPES}")
    if not isinstance(box_normalized, bool):
        raise ValueError(f"{op}: box_normalized={box_normalized!r} must be True or False")
    if axis not in (0, 1) or isinstance(axis, bool):
        raise ValueError(f"{op}: axis={axis!r} must be 0 or 1")
    prior = prior_box.data
    xp = backend.array_module(prior)
    target = target_box.data.astype(prior.dtype, copy=False)
    var = _variance(xp, prior_box_var, prior_box, prior.dtype, op)
    pixel = 0.0 if box_normalized else 1.0
    if code_type == "encode_center_size":
        if target_box.ndim != 2 or target_box.shape[1] != 4:
            raise ValueError(f"{op}: encode_center_size needs target_box [N, 4], got "
                             f"{target_box.shape}")
        px, py, pw, ph = _center_size(prior[None], pixel)  # [1, M]
        tw = (target[:, 2] - target[:, 0] + pixel)[:, None]
        th = (target[:, 3] - target[:, 1] + pixel)[:, None]
        tx = ((target[:, 0] + target[:, 2]) / 2)[:, None]
        ty = ((target[:, 1] + target[:, 3]) / 2)[:, None]
        out = xp.stack([(tx - px) / pw, (ty - py) / ph, xp.log(xp.abs(tw / pw)),
                        xp.log(xp.abs(th / ph))], axis=-1)
        return Tensor(out if var is None else out / var)
    m = prior_box.shape[0]
    if target_box.ndim != 3 or target_box.shape[2] != 4 or target_box.shape[1 - axis] != m:
        want = "[N, M, 4]" if axis == 0 else "[M, N, 4]"
        raise ValueError(f"{op}: decode_center_size with axis={axis} needs target_box {want} "
                         f"with M = {m} priors, got {target_box.shape}")
    spread = (lambda a: a[None]) if axis == 0 else (lambda a: a[:, None])
    px, py, pw, ph = (spread(v) for v in _center_size(prior, pixel))
    v = xp.ones(4, dtype=prior.dtype) if var is None else var
    v = v if v.ndim == 1 else spread(v)
    cx = v[..., 0] * target[..., 0] * pw + px
    cy = v[..., 1] * target[..., 1] * ph + py
    w = xp.exp(v[..., 2] * target[..., 2]) * pw
    h = xp.exp(v[..., 3] * target[..., 3]) * ph
    return Tensor(xp.stack([cx - w / 2, cy - h / 2, cx + w / 2 - pixel, cy + h / 2 - pixel],
                           axis=-1))


def _floats(value, name: str, op: str, allow_empty: bool = False) -> list[float]:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if (not items and not allow_empty) or not all(
            not isinstance(v, bool) and isinstance(v, (int, float)) for v in items):
        raise ValueError(f"{op}: {name}={value!r} must be a number or a list of numbers")
    return [float(v) for v in items]


def _expand_aspect_ratios(ratios, flip: bool) -> list[float]:
    """Paddle's ExpandAspectRatios: 1 first, then each new ratio (and 1 / ratio with
    ``flip``); ratios within 1e-6 of one already listed are skipped."""
    out = [1.0]
    for ratio in ratios:
        if any(abs(ratio - seen) < 1e-6 for seen in out):
            continue
        out.append(ratio)
        if flip:
            out.append(1.0 / ratio)
    return out


def _prior_sizes(min_sizes, max_sizes, ratios, min_max_order: bool):
    """The (half width, half height) of each prior of a cell, in Paddle's order."""
    sizes = []
    for s, low in enumerate(min_sizes):
        shaped = [(low * math.sqrt(r) / 2, low / math.sqrt(r) / 2) for r in ratios]
        square = [(math.sqrt(low * max_sizes[s]) / 2,) * 2] if max_sizes else []
        if min_max_order:  # Caffe's order: min square, max square, the other ratios
            sizes += [(low / 2, low / 2)] + square + [wh for r, wh in zip(ratios, shaped)
                                                      if abs(r - 1.0) >= 1e-6]
        else:
            sizes += shaped + square
    return sizes


def prior_box(input: Tensor, image: Tensor, min_sizes, max_sizes=None,
              aspect_ratios=(1.0,), variance=(0.1, 0.1, 0.2, 0.2), flip: bool = False,
              clip: bool = False, steps=(0.0, 0.0), offset: float = 0.5,
              min_max_aspect_ratios_order: bool = False, name=None):
    """SSD prior (anchor) boxes, Paddle's ``prior_box(input, image, min_sizes,
    max_sizes=None, aspect_ratios=[1.0], variance=[0.1, 0.1, 0.2, 0.2], flip=False,
    clip=False, steps=[0.0, 0.0], offset=0.5, min_max_aspect_ratios_order=False,
    name=None)``; returns (boxes, variances), each [H, W, num_priors, 4].

    Cell (h, w) of the feature map ``input`` [N, C, H, W] is centred at
    ((w + offset) * step_w, (h + offset) * step_h) in the ``image`` [N, C, H_img, W_img];
    steps of 0 mean image size / feature size. Each min size gives one box per aspect ratio
    (1 first, then the others, and their inverses with ``flip``) and, with ``max_sizes``, a
    square of side sqrt(min * max); ``min_max_aspect_ratios_order`` lists the min square,
    the max square, then the other ratios (Caffe's order). Boxes are (x1, y1, x2, y2)
    divided by the image size, clipped to [0, 1] with ``clip``.
    """
    del name
    op = "prior_box"
    tensor(input, "input", op, ndim=4, floating=False)
    tensor(image, "image", op, ndim=4, floating=False)
    lows = _floats(min_sizes, "min_sizes", op)
    highs = [] if max_sizes is None else _floats(max_sizes, "max_sizes", op, allow_empty=True)
    if highs and highs[0] <= 0:
        highs = []  # Paddle ignores max_sizes whose first entry is not positive
    if highs and len(highs) != len(lows):
        raise ValueError(f"{op}: max_sizes={max_sizes!r} must have one entry per min size "
                         f"({len(lows)})")
    ratios = _expand_aspect_ratios(_floats(aspect_ratios, "aspect_ratios", op), flip)
    variances = _floats(variance, "variance", op)
    step = _floats(steps, "steps", op)
    if len(step) != 2:
        raise ValueError(f"{op}: steps={steps!r} must be (step_w, step_h)")
    dtype = input.dtype if input.dtype.kind == "f" else "float32"
    xp = backend.array_module(input.data)
    feature_h, feature_w = input.shape[2:]
    image_h, image_w = image.shape[2:]
    step_w, step_h = step
    if step_w == 0 or step_h == 0:
        step_w, step_h = image_w / feature_w, image_h / feature_h
    half = xp.asarray(_prior_sizes(lows, highs, ratios, min_max_aspect_ratios_order),
                      dtype=dtype)  # [P, 2]
    cx = (xp.arange(feature_w, dtype=dtype) + offset) * step_w  # [W]
    cy = (xp.arange(feature_h, dtype=dtype) + offset) * step_h  # [H]
    shape = (feature_h, feature_w, half.shape[0])
    x1 = (cx[None, :, None] - half[None, None, :, 0]) / image_w
    y1 = (cy[:, None, None] - half[None, None, :, 1]) / image_h
    x2 = (cx[None, :, None] + half[None, None, :, 0]) / image_w
    y2 = (cy[:, None, None] + half[None, None, :, 1]) / image_h
    boxes = xp.stack([xp.broadcast_to(v, shape) for v in (x1, y1, x2, y2)], axis=-1)
    if clip:
        boxes = xp.clip(boxes, 0.0, 1.0)
    var = xp.broadcast_to(xp.asarray(variances, dtype=dtype), (*shape, len(variances)))
    return Tensor(xp.ascontiguousarray(boxes.astype(dtype))), Tensor(xp.array(var))
