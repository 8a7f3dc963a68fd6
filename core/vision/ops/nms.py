"""Non-maximum suppression, Paddle's ``paddle.vision.ops.nms``.

The pairwise IoU test runs on the boxes' device as one [N, N] comparison; the greedy pass that
follows is inherently sequential (a box is dropped only by a box that was itself kept), so it
walks the boxes once on the host over that boolean matrix, as torchvision's CUDA kernel does.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.tensor import Tensor
from core.vision.ops._checks import boxes_2d, tensor


def pairwise_iou(xp, boxes):
    """IoU of every pair of (x1, y1, x2, y2) rows, [N, N], Paddle's CalculateIoU: no +1 pixel
    offset; a pair with no area at all gets IoU 0 rather than 0 / 0."""
    x1, y1, x2, y2 = (boxes[:, k] for k in range(4))
    area = (x2 - x1) * (y2 - y1)
    w = xp.clip(xp.minimum(x2[:, None], x2[None]) - xp.maximum(x1[:, None], x1[None]), 0, None)
    h = xp.clip(xp.minimum(y2[:, None], y2[None]) - xp.maximum(y1[:, None], y1[None]), 0, None)
    inter = w * h
    union = area[:, None] + area[None] - inter
    return xp.where(union > 0, inter / xp.where(union > 0, union, 1), 0)


def _greedy(overlap: np.ndarray) -> np.ndarray:
    """Indices kept by greedy suppression of rows already in priority order: row i survives
    unless an earlier survivor overlaps it."""
    n = overlap.shape[0]
    removed = np.zeros(n, dtype=bool)
    kept = []
    for i in range(n):  # sequential by nature: one pass over the boxes, each row vectorised
        if removed[i]:
            continue
        kept.append(i)
        removed[i + 1:] |= overlap[i, i + 1:]
    return np.asarray(kept, dtype=np.int64)


def _check(boxes, iou_threshold, scores, category_idxs, categories, top_k) -> None:
    op = "nms"
    boxes_2d(boxes, op)
    if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, (int, float)):
        raise TypeError(f"{op}: iou_threshold={iou_threshold!r} must be a number")
    n = boxes.shape[0]
    if scores is not None:
        tensor(scores, "scores", op, ndim=1)
        if scores.shape[0] != n:
            raise ValueError(f"{op}: scores has {scores.shape[0]} entries for {n} boxes")
    if category_idxs is not None:
        if scores is None:
            raise ValueError(f"{op}: category_idxs needs scores (the batched NMS sorts each "
                             "category by score)")
        tensor(category_idxs, "category_idxs", op, ndim=1, floating=False)
        if category_idxs.shape[0] != n:
            raise ValueError(f"{op}: category_idxs has {category_idxs.shape[0]} entries for "
                             f"{n} boxes")
        if categories is None:
            raise ValueError(f"{op}: categories (the list of category ids to keep) is required "
                             "when category_idxs is given")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)
                              or not 0 < top_k <= n):
        raise ValueError(f"{op}: top_k={top_k!r} must be an int in 1 .. {n} (the number of "
                         "boxes)")


def nms(boxes: Tensor, iou_threshold: float = 0.3, scores: Tensor | None = None,
        category_idxs: Tensor | None = None, categories=None, top_k: int | None = None
        ) -> Tensor:
    """Non-maximum suppression, Paddle's ``nms(boxes, iou_threshold=0.3, scores=None,
    category_idxs=None, categories=None, top_k=None)``; returns the int64 indices of the kept
    boxes.

    ``boxes`` [N, 4] holds (x1, y1, x2, y2) rows; a box is dropped when its IoU with a kept
    box is greater than ``iou_threshold`` (areas without Paddle's old +1 pixel offset).
    Without ``scores`` the boxes are taken in the given order and the result lists kept
    indices in that order; with ``scores`` [N] they are taken by descending score (ties keep
    the given order) and the result is sorted by score. With ``category_idxs`` [N] (int) and
    ``categories`` (the ids to consider), suppression happens only within a category, boxes of
    categories not listed are dropped, and the survivors of all categories are sorted by score.
    ``top_k`` keeps the first k of the result (Paddle ignores it when ``category_idxs`` is
    None: docs/paddle.md).
    """
    _check(boxes, iou_threshold, scores, category_idxs, categories, top_k)
    xp = backend.array_module(boxes.data)
    n = boxes.shape[0]
    order = np.arange(n, dtype=np.int64)
    if scores is not None:
        order = np.argsort(-backend.to_numpy(scores.data), kind="stable")
    if category_idxs is not None:
        labels = backend.to_numpy(category_idxs.data).astype(np.int64)
        wanted = np.isin(labels[order], np.asarray(list(categories), dtype=np.int64))
        order = order[wanted]
    picked = xp.asarray(order)
    overlap = pairwise_iou(xp, boxes.data[picked]) > iou_threshold
    if category_idxs is not None:  # suppression only within one category
        same = labels[order]
        overlap = overlap & xp.asarray(same[:, None] == same[None])
    kept = order[_greedy(backend.to_numpy(overlap))]
    if top_k is not None:
        kept = kept[:top_k]
    return Tensor(xp.asarray(kept))


def _jaccard(xp, boxes, normalized: bool):
    """[K, K] IoU as Paddle's matrix_nms JaccardOverlap: +1 pixel unless ``normalized``, an
    inverted box has area 0, and boxes that do not touch have IoU 0."""
    pixel = 0.0 if normalized else 1.0
    x1, y1, x2, y2 = (boxes[:, k] for k in range(4))
    inverted = (x2 < x1) | (y2 < y1)
    area = xp.where(inverted, 0, (x2 - x1 + pixel) * (y2 - y1 + pixel))
    apart = (x1[None] > x2[:, None]) | (x2[None] < x1[:, None]) | \
        (y1[None] > y2[:, None]) | (y2[None] < y1[:, None])
    inter = (xp.minimum(x2[:, None], x2[None]) - xp.maximum(x1[:, None], x1[None]) + pixel) * \
        (xp.minimum(y2[:, None], y2[None]) - xp.maximum(y1[:, None], y1[None]) + pixel)
    union = area[:, None] + area[None] - inter
    return xp.where(apart, 0, inter / xp.where(apart, 1, union))


def _by_score(score) -> np.ndarray:
    """Host indices by descending score, ties in index order (a stable sort, which cupy's
    argsort does not promise)."""
    return np.argsort(-backend.to_numpy(score), kind="stable")


def _matrix_decay(xp, boxes, score, top_k, score_threshold, post_threshold, gaussian, sigma,
                  normalized):
    """(box indices, decayed scores) kept in one class of one image: Paddle's NMSMatrix."""
    order = _by_score(score)
    order = order[backend.to_numpy(score)[order] > score_threshold]
    if top_k > -1:
        order = order[:top_k]
    k = order.shape[0]
    order = xp.asarray(order)
    if k == 0:
        return order, score[order]
    iou = xp.tril(_jaccard(xp, boxes[order], normalized), -1)  # iou[i, j] for j < i
    iou_max = iou.max(axis=1)  # each box's largest overlap with a better-scored box
    if gaussian:
        decay = xp.exp((iou_max[None] ** 2 - iou ** 2) * sigma)
    else:
        decay = (1 - iou) / (1 - iou_max[None])
    below = xp.tril(xp.ones((k, k), dtype=bool), -1)
    decay = xp.where(below, decay, 1).min(axis=1)  # 1 for the best box
    decayed = decay * score[order]
    keep = decayed > post_threshold
    return order[keep], decayed[keep]


def matrix_nms(bboxes: Tensor, scores: Tensor, score_threshold: float, post_threshold: float,
               nms_top_k: int, keep_top_k: int, use_gaussian: bool = False,
               gaussian_sigma: float = 2.0, background_label: int = 0, normalized: bool = True,
               return_index: bool = False, return_rois_num: bool = True, name=None):
    """Matrix NMS (SOLOv2): scores decay by their overlaps instead of boxes being removed,
    Paddle's ``matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k,
    keep_top_k, use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
    return_index=False, return_rois_num=True, name=None)``.

    ``bboxes`` [N, M, 4], ``scores`` [N, C, M]. Per image and class (except
    ``background_label``; -1 keeps all), boxes scoring above ``score_threshold`` are sorted
    by score (the best ``nms_top_k``, -1: all); box i's score is multiplied by the least,
    over better boxes j, of (1 - iou_ij) / (1 - max_iou_j) (or exp((max_iou_j^2 - iou_ij^2)
    * gaussian_sigma) with ``use_gaussian``), max_iou_j being j's largest IoU with a box
    better than itself; boxes whose decayed score is above ``post_threshold`` stay, and the
    best ``keep_top_k`` of an image (-1: all) are returned by descending score.

    Returns ``(out, rois_num, index)`` as Paddle's code does: out [No, 6] rows (label, score,
    x1, y1, x2, y2); rois_num [N] int32 detections per image (None unless
    ``return_rois_num``); index [No, 1] int32 box indices counted across the batch
    (image * M + box; None unless ``return_index``).
    """
    del name
    op = "matrix_nms"
    tensor(bboxes, "bboxes", op, ndim=3)
    tensor(scores, "scores", op, ndim=3)
    n, m = bboxes.shape[0], bboxes.shape[1]
    if bboxes.shape[2] != 4 or scores.shape[0] != n or scores.shape[2] != m:
        raise ValueError(f"{op}: bboxes [N, M, 4] and scores [N, C, M] must agree, got "
                         f"{bboxes.shape} and {scores.shape}")
    for label, value in (("nms_top_k", nms_top_k), ("keep_top_k", keep_top_k),
                         ("background_label", background_label)):
        if isinstance(value, bool) or not isinstance(value, int) or value < -1:
            raise ValueError(f"{op}: {label}={value!r} must be an int >= -1 (-1: none)")
    xp = backend.array_module(bboxes.data)
    boxes_all = bboxes.data
    score_all = scores.data.astype(boxes_all.dtype, copy=False)
    rows, indices, counts = [], [], []
    for image in range(n):  # images and classes are independent: loop, each one vectorised
        found = []
        for label in range(scores.shape[1]):
            if label == background_label:
                continue
            kept, decayed = _matrix_decay(xp, boxes_all[image], score_all[image, label],
                                          nms_top_k, score_threshold, post_threshold,
                                          use_gaussian, gaussian_sigma, normalized)
            found.append((kept, decayed, label))
        kept = xp.concatenate([f[0] for f in found]) if found else xp.zeros(0, dtype=xp.int64)
        decayed = xp.concatenate([f[1] for f in found]) if found else \
            xp.zeros(0, dtype=boxes_all.dtype)
        labels = xp.concatenate([xp.full(f[0].shape, f[2], dtype=boxes_all.dtype)
                                 for f in found]) if found else decayed
        best = xp.asarray(_by_score(decayed))
        if keep_top_k > -1:
            best = best[:keep_top_k]
        rows.append(xp.concatenate([labels[best][:, None], decayed[best][:, None],
                                    boxes_all[image][kept[best]]], axis=1))
        indices.append(kept[best] + image * m)
        counts.append(int(best.shape[0]))
    out = xp.concatenate(rows) if rows else xp.zeros((0, 6), dtype=boxes_all.dtype)
    index = (xp.concatenate(indices) if indices else xp.zeros(0)).astype(xp.int32)[:, None]
    rois_num = xp.asarray(counts, dtype=xp.int32)
    return (Tensor(out), Tensor(rois_num) if return_rois_num else None,
            Tensor(index) if return_index else None)
