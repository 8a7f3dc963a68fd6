"""Samples -> one batch: stacking fields (``default_collate``) and wrapping batches as Tensors.

Shared by ``core.io.DataLoader`` and the data pipeline it drives, so neither imports the other.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from core import backend
from core.tensor import Tensor, to_tensor


def default_collate(samples: Sequence):
    """Stack a list of samples field by field: tuples and dicts keep their structure. Array
    fields give numpy arrays, Tensor fields a Tensor (as Paddle's ``default_collate_fn``)."""
    first = samples[0]
    if isinstance(first, Mapping):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    if isinstance(first, (tuple, list)):
        widths = {len(s) for s in samples}
        if len(widths) != 1:
            raise ValueError(f"cannot collate samples with different numbers of fields {widths}.")
        return tuple(default_collate([s[i] for s in samples]) for i in range(len(first)))
    # A dataset may return Tensors (paddle.to_tensor in __getitem__, as Paddle's PointNet
    # tutorial does): Paddle stacks them into a Tensor batch, which the tutorial then hands to
    # paddle.transpose; so does this. Other fields stay numpy arrays.
    arrays = [np.asarray(backend.to_numpy(s.data if isinstance(s, Tensor) else s))
              for s in samples]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(
            f"cannot stack samples of different shapes {sorted(shapes)} into one batch: make the "
            "dataset return equal shapes or pass a collate_fn that pads them."
        )
    return to_tensor(np.stack(arrays)) if isinstance(first, Tensor) else np.stack(arrays)


def to_tensors(batch):
    """``batch`` with every array a Tensor (on the current device); structure kept."""
    if isinstance(batch, Mapping):
        return {key: to_tensors(value) for key, value in batch.items()}
    if isinstance(batch, (tuple, list)):
        return tuple(to_tensors(value) for value in batch)
    return to_tensor(batch)
