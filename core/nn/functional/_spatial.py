"""Argument checking and output geometry shared by the 2-D windowed ops (conv and pooling).

Paddle accepts sizes as an int or a pair, and padding as an int, a pair (height, width), four
numbers (top, bottom, left, right) or the strings ``"SAME"`` / ``"VALID"``. Everything is turned
into plain ints here, once, so the ops never see the many spellings.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.backend import NotATensorError
from core.tensor import Tensor


def check_tensor(x, name: str, op: str, ndim: int = 4) -> Tensor:
    if not isinstance(x, Tensor):
        hint = " (wrap arrays with core.to_tensor)" if hasattr(x, "__array__") else ""
        raise NotATensorError(f"{op}: '{name}' must be a core.Tensor, got {type(x).__name__}"
                              + hint)
    if x.ndim != ndim:
        raise ValueError(f"{op}: '{name}' must be {ndim}-D, got shape {x.shape}")
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: '{name}' must be a floating tensor, got dtype {x.dtype}")
    return x


def pair(value, name: str, op: str, minimum: int = 1) -> tuple[int, int]:
    """An int or a pair of ints as (height, width), each at least ``minimum``."""
    items = list(value) if isinstance(value, (list, tuple)) else [value, value]
    if len(items) != 2 or not all(_is_int(v) and int(v) >= minimum for v in items):
        raise ValueError(f"{op}: '{name}' must be an int or a pair of ints >= {minimum}, "
                         f"got {value!r}")
    return int(items[0]), int(items[1])


def _is_int(value) -> bool:
    return not isinstance(value, bool) and hasattr(value, "__index__")


@dataclass(frozen=True)
class Window:
    """One spatial axis of a windowed op: sizes, stride, dilation, padding and output length."""

    size: int        # input length
    kernel: int
    stride: int
    dilation: int
    before: int      # zero padding before the first element
    after: int       # zero padding after the last element

    @property
    def span(self) -> int:
        """The kernel's extent with dilation."""
        return (self.kernel - 1) * self.dilation + 1

    @property
    def padded(self) -> int:
        return self.size + self.before + self.after

    @property
    def out(self) -> int:
        return (self.padded - self.span) // self.stride + 1


def windows(size_hw, kernel, stride, padding, dilation, op: str) -> tuple[Window, Window]:
    """The (height, width) windows for the given arguments; raises when nothing fits."""
    kernel = pair(kernel, "kernel_size", op)
    stride = pair(stride, "stride", op)
    dilation = pair(dilation, "dilation", op)
    pads = _padding(padding, size_hw, kernel, stride, dilation, op)
    axes = tuple(Window(size_hw[i], kernel[i], stride[i], dilation[i], *pads[i]) for i in (0, 1))
    return check_fits(axes, ("height", "width"), op)


def check_fits(axes: tuple, names, op: str) -> tuple:
    """``axes`` (Windows), after checking the kernel fits each padded input axis."""
    for axis, name in zip(axes, names):
        if axis.out < 1:
            raise ValueError(
                f"{op}: the kernel (extent {axis.span} with dilation) does not fit the padded "
                f"input {name} {axis.padded} (input {axis.size} + padding {axis.before}+"
                f"{axis.after}); use a smaller kernel or more padding")
    return axes


def _padding(padding, size_hw, kernel, stride, dilation, op: str):
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return (0, 0), (0, 0)
        if mode == "SAME":
            return tuple(_same(size_hw[i], kernel[i], stride[i], dilation[i]) for i in (0, 1))
        raise ValueError(f"{op}: padding string must be 'SAME' or 'VALID', got {padding!r}")
    items = list(padding) if isinstance(padding, (list, tuple)) else [padding]
    if not all(_is_int(v) and int(v) >= 0 for v in items) or len(items) not in (1, 2, 4):
        raise ValueError(
            f"{op}: padding must be 'SAME', 'VALID', an int >= 0, a pair (height, width) or "
            f"four ints (top, bottom, left, right), got {padding!r}")
    items = [int(v) for v in items]
    if len(items) == 1:
        return (items[0], items[0]), (items[0], items[0])
    if len(items) == 2:
        return (items[0], items[0]), (items[1], items[1])
    return (items[0], items[1]), (items[2], items[3])


def _same(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow/Paddle 'SAME': output ceil(size / stride), extra padding after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2
