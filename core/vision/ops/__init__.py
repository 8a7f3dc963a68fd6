"""``paddle.vision.ops``: detection operators.

``nms``, ``matrix_nms``; ``roi_align`` / ``RoIAlign``, ``roi_pool`` / ``RoIPool``, ``psroi_pool`` /
``PSRoIPool`` (differentiable with respect to the feature map); ``box_coder`` and
``prior_box`` (SSD); ``yolo_box`` (YOLOv3 decoding); ``deform_conv2d`` / ``DeformConv2D``
(deformable convolution v1 and v2, differentiable in every input). Each follows the
signature, defaults and kernel semantics of Paddle 3.x; differences: docs/paddle.md, section
"core.vision.ops".
"""
from core.vision.ops.boxes import box_coder, prior_box
from core.vision.ops.deform import DeformConv2D, deform_conv2d
from core.vision.ops.nms import matrix_nms, nms
from core.vision.ops.roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool
from core.vision.ops.yolo import yolo_box

__all__ = ["DeformConv2D", "PSRoIPool", "RoIAlign", "RoIPool", "box_coder", "deform_conv2d",
           "matrix_nms", "nms", "prior_box", "psroi_pool", "roi_align", "roi_pool", "yolo_box"]
