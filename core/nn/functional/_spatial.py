"""Argument checking and output geometry shared by the 2-D windowed ops (conv and pooling).

Paddle accepts sizes as an int or a pair, and padding as an int, one int per spatial axis, two
per axis ((top, bottom, left, right) in 2-D), one [before, after] pair per axis of the data
(batch and channel axes included, those [0, 0]) or the strings ``"SAME"`` / ``"VALID"`` (any
case). Everything is turned into plain ints here, once per call, so the ops never see the many
spellings (``padding_pairs`` does it for 1-D, 2-D and 3-D alike).
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


def windows(size_hw, kernel, stride, padding, dilation, op: str,
            channels_last: bool | None = None) -> tuple[Window, Window]:
    """The (height, width) windows for the given arguments; raises when nothing fits.

    ``channels_last`` (the data's layout) places the batch and channel pairs of the per-axis
    pair form; None (callers without a layout) refuses that form. 'SAME' resets the dilation
    to 1, as Paddle's kernels do (UpdatePaddingAndDilation)."""
    kernel = pair(kernel, "kernel_size", op)
    stride = pair(stride, "stride", op)
    dilation = pair(dilation, "dilation", op)
    pads = padding_pairs(padding, 2, op, channels_last)
    if pads == "SAME":
        dilation = (1, 1)
        pads = same_pairs(size_hw, kernel, stride)
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


# What the explicit padding forms mean, per number of spatial axes (for error messages).
_PER_AXIS = {1: "[pad]", 2: "a pair (height, width)", 3: "three ints (depth, height, width)"}
_SIDES = {1: "[left, right]", 2: "[top, bottom, left, right]",
          3: "[front, back, top, bottom, left, right]"}
_LAYOUTS = {(1, False): "NCL", (1, True): "NLC", (2, False): "NCHW", (2, True): "NHWC",
            (3, False): "NCDHW", (3, True): "NDHWC"}


def padding_pairs(padding, ndim: int, op: str, channels_last: bool | None = None):
    """``padding`` as ``ndim`` (before, after) pairs of ints, or the string "SAME" (its pairs
    depend on the sizes: see ``same_pairs``), from any of Paddle's spellings
    (``_update_padding_nd``): 'SAME' / 'VALID' in any case, an int, ``ndim`` ints, ``2 * ndim``
    ints (before and after per axis, first axis first), or ``ndim + 2`` [before, after] pairs,
    one per axis of the data, whose batch and channel pairs must be [0, 0] (positions 0 and 1
    channels-first, 0 and -1 with ``channels_last``; None refuses this form). A one-int list
    counts as the int (core's 2-D ops always took it)."""
    if _is_int(padding) and padding >= 0:  # the common case first: every conv call parses
        return ((int(padding), int(padding)),) * ndim
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("SAME", "VALID"):
            raise ValueError(f"{op}: padding string must be 'SAME' or 'VALID' (any case), got "
                             f"{padding!r}")
        return "SAME" if mode == "SAME" else ((0, 0),) * ndim
    items = list(padding) if isinstance(padding, (list, tuple)) else [padding]
    if items and isinstance(items[0], (list, tuple)):
        return _axis_pairs(items, ndim, op, channels_last, padding)
    if all(_is_int(v) and int(v) >= 0 for v in items) and len(items) in {1, ndim, 2 * ndim}:
        items = [int(v) for v in items]
        if len(items) == 2 * ndim:
            return tuple((items[2 * i], items[2 * i + 1]) for i in range(ndim))
        return tuple((v, v) for v in (items * ndim if len(items) == 1 else items))
    raise ValueError(_padding_forms(padding, ndim, op, channels_last))


def _axis_pairs(items, ndim: int, op: str, channels_last, padding):
    """The spatial pairs of the per-axis form [[0, 0], [0, 0], [before, after], ...]."""
    if channels_last is None or len(items) != ndim + 2 or not all(
            isinstance(p, (list, tuple)) and len(p) == 2
            and all(_is_int(v) and int(v) >= 0 for v in p) for p in items):
        raise ValueError(_padding_forms(padding, ndim, op, channels_last))
    outer = (0, ndim + 1) if channels_last else (0, 1)
    if any(int(v) != 0 for i in outer for v in items[i]):
        layout = _LAYOUTS[ndim, bool(channels_last)]
        raise ValueError(
            f"{op}: padding must be [0, 0] on the batch and channel axes (pairs {outer[0]} and "
            f"{outer[1]} for {layout} data): Paddle pads only the spatial axes, got {padding!r}")
    return tuple((int(a), int(b)) for i, (a, b) in enumerate(items) if i not in outer)


def _padding_forms(padding, ndim: int, op: str, channels_last) -> str:
    pairs = "" if channels_last is None else (
        f", or {ndim + 2} [before, after] pairs, one per axis of the "
        f"{_LAYOUTS[ndim, bool(channels_last)]} data, with [0, 0] for the batch and channel axes")
    return (f"{op}: padding must be 'SAME', 'VALID', an int >= 0, {_PER_AXIS[ndim]}, "
            f"{2 * ndim} ints {_SIDES[ndim]}{pairs}; got {padding!r}")


def is_same(padding) -> bool:
    """Whether ``padding`` is Paddle's 'SAME' (any case)."""
    return isinstance(padding, str) and padding.upper() == "SAME"


def same_pairs(sizes, kernel, stride) -> tuple:
    """Paddle's 'SAME' padding per axis: output ceil(size / stride), the odd extra after. Paddle
    computes it, and then convolves, without dilation (UpdatePaddingAndDilation sets it to 1),
    for convolutions and transposed ones alike."""
    return tuple(_same(sizes[i], kernel[i], stride[i], 1) for i in range(len(sizes)))


def _same(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow/Paddle 'SAME': output ceil(size / stride), extra padding after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2
