"""``paddle.static.InputSpec``: the shape, dtype and name of a network input, as ``core.Model``
takes them. core runs eagerly only, so a spec describes inputs; it compiles nothing."""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class InputSpec:
    """``shape``: a list of sizes, None or -1 for a size that varies (the batch). ``dtype``: a
    numpy dtype name. ``name``: the input's name."""

    shape: tuple
    dtype: str = "float32"
    name: str | None = None
    stop_gradient: bool = False

    def __post_init__(self):
        shape = (self.shape,) if isinstance(self.shape, numbers.Integral) else self.shape
        try:
            shape = tuple(None if s is None or s == -1 else int(s) for s in shape)
        except (TypeError, ValueError):
            raise ValueError(f"InputSpec: shape={self.shape!r} must be a list of sizes (None or "
                             "-1 where the size varies).") from None
        if any(s is not None and s < 0 for s in shape):
            raise ValueError(f"InputSpec: shape={self.shape!r} has a negative size other than -1.")
        try:
            dtype = np.dtype(self.dtype).name
        except TypeError:
            raise ValueError(f"InputSpec: dtype={self.dtype!r} is not a dtype.") from None
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", dtype)

    def example_shape(self) -> tuple:
        """The shape with each varying size as 1 (a one-sample example)."""
        return tuple(1 if s is None else s for s in self.shape)
