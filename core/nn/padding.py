"""Paddle 3's fixed-mode padding layers: ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``
and ``CircularPad*`` (1-D, 2-D and 3-D).

Each is ``Pad1D`` / ``Pad2D`` / ``Pad3D`` with its ``mode`` fixed, as in Paddle 3, where they are
thin subclasses too; the padding itself is ``F.pad`` (one differentiable op for every mode).
Paddle names the padding of an axis from the last one: [left, right], then [top, bottom], then
[front, back].
"""
from __future__ import annotations

from core.nn.common import Pad1D, Pad2D, Pad3D

__all__ = ["CircularPad1D", "CircularPad2D", "CircularPad3D", "ConstantPad1D", "ConstantPad2D",
           "ConstantPad3D", "ReflectionPad1D", "ReflectionPad2D", "ReflectionPad3D",
           "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D"]


class _FixedMode:
    """Shared repr: the mode is in the class name, so only padding and layout are shown."""

    def extra_repr(self) -> str:
        value = f", value={self.value}" if self.mode == "constant" else ""
        return f"padding={self.padding}{value}, data_format={self.data_format}"


class ConstantPad1D(_FixedMode, Pad1D):
    """Pad the length of [N, C, L] with ``value``, Paddle 3's ``ConstantPad1D(padding, value=0.0,
    data_format='NCL', name=None)``; ``padding`` is an int or [left, right]."""

    def __init__(self, padding, value: float = 0.0, data_format: str = "NCL",
                 name: str | None = None):
        super().__init__(padding, "constant", value, data_format, name)


class ConstantPad2D(_FixedMode, Pad2D):
    """Pad height and width of [N, C, H, W] with ``value``, Paddle 3's ``ConstantPad2D(padding,
    value=0.0, data_format='NCHW', name=None)``; ``padding`` is an int or [left, right, top,
    bottom]."""

    def __init__(self, padding, value: float = 0.0, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(padding, "constant", value, data_format, name)


class ConstantPad3D(_FixedMode, Pad3D):
    """Pad depth, height and width of [N, C, D, H, W] with ``value``, Paddle 3's
    ``ConstantPad3D(padding, value=0.0, data_format='NCDHW', name=None)``; ``padding`` is an int
    or [left, right, top, bottom, front, back]."""

    def __init__(self, padding, value: float = 0.0, data_format: str = "NCDHW",
                 name: str | None = None):
        super().__init__(padding, "constant", value, data_format, name)


class ReflectionPad1D(_FixedMode, Pad1D):
    """Pad the length of [N, C, L] by reflecting the input at its edges (the edge itself is not
    repeated); each padding must be smaller than its axis: Paddle 3's
    ``ReflectionPad1D(padding, data_format='NCL', name=None)``, ``Pad1D`` with
    ``mode='reflect'``; ``padding`` is an int or [left, right]."""

    def __init__(self, padding, data_format: str = "NCL", name: str | None = None):
        super().__init__(padding, "reflect", 0.0, data_format, name)


class ReflectionPad2D(_FixedMode, Pad2D):
    """Pad height and width of [N, C, H, W] by reflecting the input at its edges (the edge
    itself is not repeated); each padding must be smaller than its axis: Paddle 3's
    ``ReflectionPad2D(padding, data_format='NCHW', name=None)``, ``Pad2D`` with
    ``mode='reflect'``; ``padding`` is an int or [left, right, top, bottom]."""

    def __init__(self, padding, data_format: str = "NCHW", name: str | None = None):
        super().__init__(padding, "reflect", 0.0, data_format, name)


class ReflectionPad3D(_FixedMode, Pad3D):
    """Pad depth, height and width of [N, C, D, H, W] by reflecting the input at its edges (the
    edge itself is not repeated); each padding must be smaller than its axis: Paddle 3's
    ``ReflectionPad3D(padding, data_format='NCDHW', name=None)``, ``Pad3D`` with
    ``mode='reflect'``; ``padding`` is an int or [left, right, top, bottom, front, back]."""

    def __init__(self, padding, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(padding, "reflect", 0.0, data_format, name)


class ReplicationPad1D(_FixedMode, Pad1D):
    """Pad the length of [N, C, L] by repeating the edge values: Paddle 3's
    ``ReplicationPad1D(padding, data_format='NCL', name=None)``, ``Pad1D`` with
    ``mode='replicate'``; ``padding`` is an int or [left, right]."""

    def __init__(self, padding, data_format: str = "NCL", name: str | None = None):
        super().__init__(padding, "replicate", 0.0, data_format, name)


class ReplicationPad2D(_FixedMode, Pad2D):
    """Pad height and width of [N, C, H, W] by repeating the edge values: Paddle 3's
    ``ReplicationPad2D(padding, data_format='NCHW', name=None)``, ``Pad2D`` with
    ``mode='replicate'``; ``padding`` is an int or [left, right, top, bottom]."""

    def __init__(self, padding, data_format: str = "NCHW", name: str | None = None):
        super().__init__(padding, "replicate", 0.0, data_format, name)


class ReplicationPad3D(_FixedMode, Pad3D):
    """Pad depth, height and width of [N, C, D, H, W] by repeating the edge values: Paddle 3's
    ``ReplicationPad3D(padding, data_format='NCDHW', name=None)``, ``Pad3D`` with
    ``mode='replicate'``; ``padding`` is an int or [left, right, top, bottom, front, back]."""

    def __init__(self, padding, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(padding, "replicate", 0.0, data_format, name)


class CircularPad1D(_FixedMode, Pad1D):
    """Pad the length of [N, C, L] by wrapping the input around; each padding must be at most
    its axis: Paddle 3's ``CircularPad1D(padding, data_format='NCL', name=None)``, ``Pad1D``
    with ``mode='circular'``; ``padding`` is an int or [left, right]."""

    def __init__(self, padding, data_format: str = "NCL", name: str | None = None):
        super().__init__(padding, "circular", 0.0, data_format, name)


class CircularPad2D(_FixedMode, Pad2D):
    """Pad height and width of [N, C, H, W] by wrapping the input around; each padding must be
    at most its axis: Paddle 3's ``CircularPad2D(padding, data_format='NCHW', name=None)``,
    ``Pad2D`` with ``mode='circular'``; ``padding`` is an int or [left, right, top, bottom]."""

    def __init__(self, padding, data_format: str = "NCHW", name: str | None = None):
        super().__init__(padding, "circular", 0.0, data_format, name)


class CircularPad3D(_FixedMode, Pad3D):
    """Pad depth, height and width of [N, C, D, H, W] by wrapping the input around; each
    padding must be at most its axis: Paddle 3's ``CircularPad3D(padding, data_format='NCDHW',
    name=None)``, ``Pad3D`` with ``mode='circular'``; ``padding`` is an int or [left, right,
    top, bottom, front, back]."""

    def __init__(self, padding, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(padding, "circular", 0.0, data_format, name)
