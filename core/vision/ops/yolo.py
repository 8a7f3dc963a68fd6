"""YOLOv3 box decoding, Paddle's ``paddle.vision.ops.yolo_box``, after Paddle 3.x's CPU
kernel (phi/kernels/cpu/yolo_box_kernel.cc, funcs/yolo_box_util.h). No gradient, as Paddle."""
from __future__ import annotations

from core import backend
from core.tensor import Tensor
from core.vision.ops._checks import tensor


def _sigmoid(xp, v):
    return 1.0 / (1.0 + xp.exp(-v))


def _check(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, iou_aware):
    op = "yolo_box"
    tensor(x, "x", op, ndim=4)
    tensor(img_size, "img_size", op, ndim=2, floating=False)
    if img_size.shape != [x.shape[0], 2]:
        raise ValueError(f"{op}: img_size must be [N, 2] = [{x.shape[0]}, 2] (height, width "
                         f"of each image), got {img_size.shape}")
    if not isinstance(anchors, (list, tuple)) or not anchors or len(anchors) % 2 or not all(
            not isinstance(a, bool) and isinstance(a, int) for a in anchors):
        raise ValueError(f"{op}: anchors={anchors!r} must be a list of ints, (width, height) "
                         "pairs")
    if isinstance(class_num, bool) or not isinstance(class_num, int) or class_num <= 0:
        raise ValueError(f"{op}: class_num={class_num!r} must be a positive int")
    if isinstance(conf_thresh, bool) or not isinstance(conf_thresh, (int, float)):
        raise TypeError(f"{op}: conf_thresh={conf_thresh!r} must be a number")
    if isinstance(downsample_ratio, bool) or not isinstance(downsample_ratio, int) \
            or downsample_ratio <= 0:
        raise ValueError(f"{op}: downsample_ratio={downsample_ratio!r} must be a positive int")
    per_anchor = class_num + (6 if iou_aware else 5)
    channels = len(anchors) // 2 * per_anchor
    if x.shape[1] != channels:
        raise ValueError(f"{op}: x has {x.shape[1]} channels; {len(anchors) // 2} anchors of "
                         f"{class_num} classes need {channels} (anchors * (class_num + "
                         f"{per_anchor - class_num}) with iou_aware={iou_aware})")


def yolo_box(x: Tensor, img_size: Tensor, anchors, class_num: int, conf_thresh: float,
             downsample_ratio: int, clip_bbox: bool = True, name=None, scale_x_y: float = 1.0,
             iou_aware: bool = False, iou_aware_factor: float = 0.5):
    """Decode a YOLOv3 head into boxes and class scores, Paddle's ``yolo_box(x, img_size,
    anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
    scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5)``.

    ``x`` [N, A * (5 + class_num), H, W] holds, per anchor, (tx, ty, tw, th, objectness,
    class logits); with ``iou_aware`` A IoU logits come first ([N, A * (6 + class_num), H, W]).
    ``img_size`` [N, 2] ints is each image's (height, width). Cell (row k, column l), anchor a
    gives centre ((l + s * sigmoid(tx) - (s - 1) / 2) * W_img / W, likewise y) with
    s = ``scale_x_y``, size (exp(tw) * anchor_w * W_img / (ratio * W), likewise h), and box
    (x1, y1, x2, y2), clipped to [0, W_img - 1] x [0, H_img - 1] with ``clip_bbox``.
    Confidence is sigmoid(objectness) (times sigmoid(iou) ** f over
    sigmoid(objectness) ** f with ``iou_aware``, f = ``iou_aware_factor``); boxes under
    ``conf_thresh`` get zero boxes and scores. Returns boxes [N, A * H * W, 4] and scores
    [N, A * H * W, class_num] (confidence * sigmoid(class logit)), anchor-major.
    """
    del name
    _check(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, iou_aware)
    data = x.data
    xp = backend.array_module(data)
    n, _, h, w = x.shape
    count = len(anchors) // 2
    if iou_aware:
        iou, data = data[:, :count], data[:, count:]
    head = data.reshape(n, count, class_num + 5, h, w)
    conf = _sigmoid(xp, head[:, :, 4])  # [N, A, H, W]
    if iou_aware:
        conf = conf ** (1.0 - iou_aware_factor) * _sigmoid(xp, iou) ** iou_aware_factor
    size = xp.asarray(backend.to_numpy(img_size.data)).astype(data.dtype)
    img_h, img_w = size[:, 0][:, None, None, None], size[:, 1][:, None, None, None]
    anchor = xp.asarray(anchors, dtype=data.dtype).reshape(count, 2)
    bias = -0.5 * (scale_x_y - 1.0)
    col = xp.arange(w, dtype=data.dtype)[None, None, None]
    row = xp.arange(h, dtype=data.dtype)[None, None, :, None]
    cx = (col + _sigmoid(xp, head[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (row + _sigmoid(xp, head[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = xp.exp(head[:, :, 2]) * anchor[:, 0][None, :, None, None] * img_w / (
        downsample_ratio * w)
    bh = xp.exp(head[:, :, 3]) * anchor[:, 1][None, :, None, None] * img_h / (
        downsample_ratio * h)
    x1, y1, x2, y2 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
    if clip_bbox:
        x1, y1 = xp.maximum(x1, 0), xp.maximum(y1, 0)
        x2, y2 = xp.minimum(x2, img_w - 1), xp.minimum(y2, img_h - 1)
    keep = conf >= conf_thresh  # Paddle leaves boxes under the threshold at zero
    boxes = xp.where(keep[..., None], xp.stack([x1, y1, x2, y2], axis=-1), 0)
    scores = xp.where(keep[:, :, None], conf[:, :, None] * _sigmoid(xp, head[:, :, 5:]), 0)
    return (Tensor(boxes.reshape(n, count * h * w, 4)),
            Tensor(scores.transpose(0, 1, 3, 4, 2).reshape(n, count * h * w, class_num)))
