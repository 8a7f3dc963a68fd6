"""Pooling layers around ``functional.pooling`` and ``functional.adaptive_pool`` (Paddle names)."""
from __future__ import annotations

from core.nn.functional import adaptive_pool as A
from core.nn.functional import pooling as F
from core.nn.functional import volumetric as V
from core.nn.layer import Layer
from core.tensor import Tensor


class MaxPool2D(Layer):
    """The maximum of each window, Paddle's ``MaxPool2D(kernel_size, stride=None, padding=0,
    return_mask=False, ceil_mode=False, data_format='NCHW', name=None)``; the gradient goes to
    the first maximum of each window. With ``return_mask`` the layer returns ``(out, mask)``
    (int32 indices in each channel's flattened H * W plane, what ``MaxUnPool2D`` takes)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        F.check_mask_format("MaxPool2D", return_mask, data_format)  # here, not at the first call
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def forward(self, x: Tensor):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(Layer):
    """The mean of each window; ``exclusive`` (default) leaves padding out of the divisor."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 exclusive: bool = True, divisor_override=None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(name)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor_override = ceil_mode, exclusive, \
            divisor_override
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.exclusive, self.divisor_override, self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool1D(Layer):
    """Max pooling of [N, C, L] inputs, Paddle's ``MaxPool1D(kernel_size, stride=None,
    padding=0, return_mask=False, ceil_mode=False, name=None)``; with ``return_mask`` the layer
    returns ``(out, mask)`` (int32 indices along L, what ``MaxUnPool1D`` takes)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False,
                 ceil_mode: bool = False, name: str | None = None):
        super().__init__(name)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode

    def forward(self, x: Tensor):
        return F.max_pool1d(x, self.kernel_size, self.stride, self.padding, self.return_mask,
                            self.ceil_mode)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1D(Layer):
    """Average pooling of [N, C, L] inputs, Paddle's ``AvgPool1D(kernel_size, stride=None,
    padding=0, exclusive=True, ceil_mode=False, name=None)``."""

    def __init__(self, kernel_size, stride=None, padding=0, exclusive: bool = True,
                 ceil_mode: bool = False, name: str | None = None):
        super().__init__(name)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode = exclusive, ceil_mode

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.exclusive,
                            self.ceil_mode)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2D(Layer):
    """Average pooling to a fixed ``output_size`` grid, Paddle's ``AdaptiveAvgPool2D(
    output_size, data_format='NCHW', name=None)``."""

    def __init__(self, output_size, data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        self.output_size, self.data_format = output_size, data_format

    def forward(self, x: Tensor) -> Tensor:
        return A.adaptive_avg_pool2d(x, self.output_size, self.data_format)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2D(Layer):
    """Max pooling to a fixed ``output_size`` grid, Paddle's ``AdaptiveMaxPool2D(output_size,
    return_mask=False, name=None)``."""

    def __init__(self, output_size, return_mask: bool = False, name: str | None = None):
        super().__init__(name)
        self.output_size, self.return_mask = output_size, return_mask

    def forward(self, x: Tensor) -> Tensor:
        return A.adaptive_max_pool2d(x, self.output_size, self.return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1D(Layer):
    """Average pooling of [N, C, L] inputs to ``output_size`` positions over Paddle's adaptive
    bins ``[floor(i * L / m), ceil((i + 1) * L / m))``, Paddle's ``AdaptiveAvgPool1D(output_size,
    name=None)``."""

    def __init__(self, output_size, name: str | None = None):
        super().__init__(name)
        A.output_length(output_size, "AdaptiveAvgPool1D")  # fails here, not at the first call
        self.output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        return A.adaptive_avg_pool1d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1D(Layer):
    """Max pooling of [N, C, L] inputs to ``output_size`` positions over Paddle's adaptive bins,
    Paddle's ``AdaptiveMaxPool1D(output_size, return_mask=False, name=None)``; with
    ``return_mask`` the layer returns ``(out, mask)`` (int32 indices along L)."""

    def __init__(self, output_size, return_mask: bool = False, name: str | None = None):
        super().__init__(name)
        A.output_length(output_size, "AdaptiveMaxPool1D")
        self.output_size, self.return_mask = output_size, return_mask

    def forward(self, x: Tensor) -> Tensor:
        return A.adaptive_max_pool1d(x, self.output_size, self.return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


class MaxPool3D(Layer):
    """The maximum of each [kd, kh, kw] window of [N, C, D, H, W] inputs, Paddle's
    ``MaxPool3D(kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
    data_format='NCDHW', name=None)``; with ``return_mask`` the layer returns ``(out, mask)``
    (int32 indices in each channel's flattened D * H * W volume)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(name)
        V.triple(kernel_size, "kernel_size", "MaxPool3D")  # fails here, not at the first call
        F.check_mask_format("MaxPool3D", return_mask, data_format, "NCDHW")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def forward(self, x: Tensor):
        return V.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3D(Layer):
    """The mean of each [kd, kh, kw] window of [N, C, D, H, W] inputs, Paddle's
    ``AvgPool3D(kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
    divisor_override=None, data_format='NCDHW', name=None)``; ``exclusive`` (default) leaves
    padding out of the divisor."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 exclusive: bool = True, divisor_override=None, data_format: str = "NCDHW",
                 name: str | None = None):
        super().__init__(name)
        V.triple(kernel_size, "kernel_size", "AvgPool3D")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor_override = ceil_mode, exclusive, \
            divisor_override
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        return V.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.exclusive, self.divisor_override, self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3D(Layer):
    """Average pooling of [N, C, D, H, W] inputs to a fixed ``output_size`` grid over Paddle's
    adaptive bins, Paddle's ``AdaptiveAvgPool3D(output_size, data_format='NCDHW',
    name=None)``."""

    def __init__(self, output_size, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(name)
        self.output_size, self.data_format = output_size, data_format

    def forward(self, x: Tensor) -> Tensor:
        return V.adaptive_avg_pool3d(x, self.output_size, self.data_format)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3D(Layer):
    """Max pooling of [N, C, D, H, W] inputs to a fixed ``output_size`` grid over Paddle's
    adaptive bins, Paddle's ``AdaptiveMaxPool3D(output_size, return_mask=False, name=None)``;
    with ``return_mask`` the layer returns ``(out, mask)``."""

    def __init__(self, output_size, return_mask: bool = False, name: str | None = None):
        super().__init__(name)
        self.output_size, self.return_mask = output_size, return_mask

    def forward(self, x: Tensor):
        return V.adaptive_max_pool3d(x, self.output_size, self.return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


# ----- Paddle 3: power-average (LP) pooling -------------------------------------------------
from core.nn.functional import lp_pool as LP  # noqa: E402 - kept with the layers that use it


class LPPool1D(Layer):
    """Power-average pooling of [N, C, L], Paddle 3's ``LPPool1D(norm_type, kernel_size,
    stride=None, padding=0, ceil_mode=False, data_format='NCL', name=None)``:
    ``(sum over the window of x ** norm_type) ** (1 / norm_type)``; see ``F.lp_pool1d``."""

    def __init__(self, norm_type: float, kernel_size, stride=None, padding=0,
                 ceil_mode: bool = False, data_format: str = "NCL", name: str | None = None):
        super().__init__(name)
        self.norm_type = LP.check_norm_type(norm_type, "LPPool1D")
        if data_format not in ("NCL", "NLC"):
            raise ValueError(f"LPPool1D: data_format must be 'NCL' or 'NLC', got {data_format!r}")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.data_format = ceil_mode, data_format

    def forward(self, x: Tensor) -> Tensor:
        return LP.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.padding,
                            self.ceil_mode, self.data_format)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class LPPool2D(Layer):
    """Power-average pooling of [N, C, H, W], Paddle 3's ``LPPool2D(norm_type, kernel_size,
    stride=None, padding=0, ceil_mode=False, data_format='NCHW', name=None)``:
    ``(sum over the window of x ** norm_type) ** (1 / norm_type)``; see ``F.lp_pool2d``."""

    def __init__(self, norm_type: float, kernel_size, stride=None, padding=0,
                 ceil_mode: bool = False, data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        self.norm_type = LP.check_norm_type(norm_type, "LPPool2D")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"LPPool2D: data_format must be 'NCHW' or 'NHWC', got "
                             f"{data_format!r}")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.data_format = ceil_mode, data_format

    def forward(self, x: Tensor) -> Tensor:
        return LP.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.padding,
                            self.ceil_mode, self.data_format)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")
