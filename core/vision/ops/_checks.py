"""Argument checks shared by the detection operators: box tensors, ``boxes_num`` (boxes per
image), ``output_size``, and the box chunks that bound the ops' scratch memory."""
from __future__ import annotations

import numpy as np

from core import backend
from core.backend import NotATensorError
from core.tensor import Tensor

# The most elements an op's per-chunk scratch array may hold (float64: 128 MiB): the RoI ops
# walk their boxes in chunks that stay under it instead of materialising every box at once.
SCRATCH_ELEMENTS = 1 << 24


def tensor(value, name: str, op: str, ndim: int | None = None, floating: bool = True) -> Tensor:
    """``value`` after checking it is a core.Tensor of ``ndim`` dimensions (floating unless
    ``floating=False``)."""
    if not isinstance(value, Tensor):
        hint = " (wrap arrays with core.to_tensor)" if hasattr(value, "__array__") else ""
        raise NotATensorError(f"{op}: '{name}' must be a core.Tensor, got "
                              f"{type(value).__name__}" + hint)
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{op}: '{name}' must be {ndim}-D, got shape {value.shape}")
    if floating and value.dtype.kind != "f":
        raise TypeError(f"{op}: '{name}' must be a floating tensor, got dtype {value.dtype}")
    return value


def boxes_2d(boxes, op: str, name: str = "boxes") -> Tensor:
    """A [num_boxes, 4] floating tensor of (x1, y1, x2, y2) rows."""
    tensor(boxes, name, op, ndim=2)
    if boxes.shape[1] != 4:
        raise ValueError(f"{op}: '{name}' must have shape [num_boxes, 4] (x1, y1, x2, y2), "
                         f"got {boxes.shape}")
    return boxes


def output_size(value, op: str) -> tuple[int, int]:
    """Paddle's ``output_size``: an int or an (h, w) pair of positive ints."""
    items = list(value) if isinstance(value, (list, tuple)) else [value, value]
    if len(items) != 2 or not all(not isinstance(v, bool) and hasattr(v, "__index__")
                                  and int(v) > 0 for v in items):
        raise ValueError(f"{op}: output_size={value!r} must be a positive int or a pair "
                         "(height, width) of positive ints")
    return int(items[0]), int(items[1])


def batch_ids(boxes_num, num_boxes: int, batch: int, op: str) -> np.ndarray:
    """The image index of every box (host int64 [num_boxes]) from ``boxes_num``, the number
    of boxes of each image of the batch, as Paddle's kernels read it."""
    if boxes_num is None:
        raise ValueError(f"{op}: boxes_num must be given: a 1-D int tensor with the number of "
                         f"boxes of each of the {batch} images")
    tensor(boxes_num, "boxes_num", op, ndim=1, floating=False)
    if boxes_num.dtype.kind not in "iu":
        raise TypeError(f"{op}: 'boxes_num' must be an int tensor, got dtype {boxes_num.dtype}")
    counts = backend.to_numpy(boxes_num.data).astype(np.int64)
    if counts.shape[0] != batch:
        raise ValueError(f"{op}: boxes_num has {counts.shape[0]} entries but x holds {batch} "
                         "images: give one count per image")
    if (counts < 0).any() or counts.sum() != num_boxes:
        raise ValueError(f"{op}: boxes_num={counts.tolist()} must be counts >= 0 that add up "
                         f"to the number of boxes, {num_boxes}")
    return np.repeat(np.arange(batch, dtype=np.int64), counts)


def scale(value, name: str, op: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{op}: {name}={value!r} must be a positive number")
    return float(value)


def chunks(indices: np.ndarray, per_item: int):
    """``indices`` cut into runs whose scratch (``per_item`` elements each) fits
    SCRATCH_ELEMENTS; at least one index a run."""
    step = max(1, SCRATCH_ELEMENTS // max(per_item, 1))
    for start in range(0, len(indices), step):
        yield indices[start:start + step]
