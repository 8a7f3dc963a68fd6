"""Fractional max-pooling layers around ``functional.fractional_pool`` (Paddle 3's
``FractionalMaxPool2D`` / ``FractionalMaxPool3D``)."""
from __future__ import annotations

from core.nn.functional import fractional_pool as F
from core.nn.layer import Layer
from core.tensor import Tensor


class FractionalMaxPool2D(Layer):
    """Paddle's ``FractionalMaxPool2D(output_size, kernel_size=None, random_u=None,
    return_mask=False, name=None)``: ``F.fractional_max_pool2d`` over [N, C, H, W]. Each
    axis of length n is cut into m = output_size windows starting at ``int((i + u) * alpha) -
    int(u * alpha)`` (``alpha = n / m``, or ``(n - k) / (m - 1)`` with a ``kernel_size`` k);
    the output is each window's maximum. ``random_u`` None draws a new u at every call (in
    eval mode too, as Paddle's layer); a fixed ``random_u`` gives the same windows each time.
    With ``return_mask`` the layer returns ``(out, mask)``, the int32 index of each maximum
    in its channel's H * W plane."""

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask: bool = False,
                 name: str | None = None):
        super().__init__(name)
        F.check_arguments("FractionalMaxPool2D", 2, output_size, kernel_size)
        if random_u is not None:
            F.check_random_u(random_u, "FractionalMaxPool2D")
        self.output_size, self.kernel_size, self.random_u = output_size, kernel_size, random_u
        self.return_mask = return_mask

    def forward(self, x: Tensor):
        return F.fractional_max_pool2d(x, self.output_size, self.kernel_size, self.random_u,
                                       self.return_mask)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"random_u={self.random_u}")


class FractionalMaxPool3D(Layer):
    """Paddle's ``FractionalMaxPool3D(output_size, kernel_size=None, random_u=None,
    return_mask=False, name=None)``: ``F.fractional_max_pool3d`` over [N, C, D, H, W], the
    2-D layer's windows along D, H and W with one u for all three; the mask holds ``(d * H +
    h) * W + w``."""

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask: bool = False,
                 name: str | None = None):
        super().__init__(name)
        F.check_arguments("FractionalMaxPool3D", 3, output_size, kernel_size)
        if random_u is not None:
            F.check_random_u(random_u, "FractionalMaxPool3D")
        self.output_size, self.kernel_size, self.random_u = output_size, kernel_size, random_u
        self.return_mask = return_mask

    def forward(self, x: Tensor):
        return F.fractional_max_pool3d(x, self.output_size, self.kernel_size, self.random_u,
                                       self.return_mask)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"random_u={self.random_u}")
