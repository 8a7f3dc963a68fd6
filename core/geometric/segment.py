"""Paddle's segment reductions: ``paddle.geometric.segment_sum / segment_mean / segment_max /
segment_min(data, segment_ids, name=None)`` (python/paddle/geometric/math.py).

Row i of ``data`` belongs to segment ``segment_ids[i]``; the ids are sorted (Paddle's kernel
enforces it) and the output has ``segment_ids[-1] + 1`` rows, one per segment. A segment no row
belongs to (a gap in the ids) is 0. The gradient goes to ``data``: the sum's to every row, the
mean's divided by the segment's size, the max's / min's whole to every row equal to its
segment's extreme (Paddle's rule: ties each receive the full gradient).
"""
from __future__ import annotations

from core import backend
from core.geometric._scatter import features, index_array, reduce_rows
from core.tensor import Tensor

__all__ = ["segment_max", "segment_mean", "segment_min", "segment_sum"]


def _sorted_ids(data: Tensor, segment_ids, fn: str):
    """The checked ids and the number of segments."""
    ids = index_array(segment_ids, fn, "segment_ids")
    rows = data.shape[0]
    if ids.shape[0] != rows:
        raise ValueError(f"{fn}: 'segment_ids' must hold one id per row of 'data' ({rows}), got "
                         f"{ids.shape[0]}")
    if not ids.size:
        return ids, 0
    low = int(ids.min())
    if low < 0:
        raise IndexError(f"{fn}: 'segment_ids' values must be >= 0, got {low}")
    xp = backend.array_module(ids)
    falls = ids[1:] < ids[:-1]
    if bool(falls.any()):
        i = int(xp.argmax(falls))
        raise ValueError(f"{fn}: 'segment_ids' must be sorted in ascending order, but "
                         f"segment_ids[{i}] = {int(ids[i])} > segment_ids[{i + 1}] = "
                         f"{int(ids[i + 1])}")
    return ids, int(ids[-1]) + 1


def _segment(data, segment_ids, reduce_op: str, fn: str) -> Tensor:
    data = features(data, fn, "data")
    ids, segments = _sorted_ids(data, segment_ids, fn)
    return reduce_rows(data, ids, segments, reduce_op, fn)


def segment_sum(data, segment_ids, name: str | None = None) -> Tensor:
    """``paddle.geometric.segment_sum(data, segment_ids, name=None)``: out[i] = the sum of the
    rows j of ``data`` with segment_ids[j] == i."""
    del name
    return _segment(data, segment_ids, "sum", "segment_sum")


def segment_mean(data, segment_ids, name: str | None = None) -> Tensor:
    """``paddle.geometric.segment_mean(data, segment_ids, name=None)``: out[i] = the mean of
    the rows j of ``data`` with segment_ids[j] == i (0 for an empty segment)."""
    del name
    return _segment(data, segment_ids, "mean", "segment_mean")


def segment_max(data, segment_ids, name: str | None = None) -> Tensor:
    """``paddle.geometric.segment_max(data, segment_ids, name=None)``: out[i] = the element-wise
    maximum of the rows j of ``data`` with segment_ids[j] == i (0 for an empty segment)."""
    del name
    return _segment(data, segment_ids, "max", "segment_max")


def segment_min(data, segment_ids, name: str | None = None) -> Tensor:
    """``paddle.geometric.segment_min(data, segment_ids, name=None)``: out[i] = the element-wise
    minimum of the rows j of ``data`` with segment_ids[j] == i (0 for an empty segment)."""
    del name
    return _segment(data, segment_ids, "min", "segment_min")
