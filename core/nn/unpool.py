"""Max unpooling layers (``paddle.nn.MaxUnPool1D`` / ``MaxUnPool2D`` / ``MaxUnPool3D``) over
``functional.unpool``: ``forward(x, indices)``, where ``indices`` are max pooling's
``return_mask`` output."""
from __future__ import annotations

from core.nn.functional import unpool as F
from core.nn.layer import Layer
from core.tensor import Tensor


class _MaxUnPool(Layer):
    """Arguments checked once, at construction; ``forward`` calls the functional form."""

    _dims = 0

    def __init__(self, kernel_size, stride, padding, data_format, output_size, name):
        super().__init__(name)
        F.unpool_arguments(type(self).__name__, self._dims, kernel_size, stride, padding,
                           data_format)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size = data_format, output_size

    def forward(self, x: Tensor, indices: Tensor) -> Tensor:
        fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._dims - 1]
        return fn(x, indices, self.kernel_size, self.stride, self.padding, self.data_format,
                  self.output_size)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, output_size={self.output_size}")


class MaxUnPool1D(_MaxUnPool):
    """[N, C, L_in] -> [N, C, L_out], Paddle's ``MaxUnPool1D(kernel_size, stride=None,
    padding=0, data_format='NCL', output_size=None, name=None)``: each value goes to the
    position ``indices`` gives (``MaxPool1D``'s mask), zeros elsewhere; ``L_out = (L_in - 1) *
    stride - 2 * padding + kernel_size`` unless ``output_size`` is given."""

    _dims = 1

    def __init__(self, kernel_size, stride=None, padding=0, data_format: str = "NCL",
                 output_size=None, name: str | None = None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPool):
    """[N, C, H_in, W_in] -> [N, C, H_out, W_out], Paddle's ``MaxUnPool2D(kernel_size,
    stride=None, padding=0, data_format='NCHW', output_size=None, name=None)``: each value goes
    to the flat position ``h * W_out + w`` that ``indices`` gives, zeros elsewhere; ``H_out =
    (H_in - 1) * stride - 2 * padding + kernel_size`` unless ``output_size`` is given."""

    _dims = 2

    def __init__(self, kernel_size, stride=None, padding=0, data_format: str = "NCHW",
                 output_size=None, name: str | None = None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPool):
    """[N, C, D_in, H_in, W_in] -> [N, C, D_out, H_out, W_out], Paddle's
    ``MaxUnPool3D(kernel_size, stride=None, padding=0, data_format='NCDHW', output_size=None,
    name=None)``: each value goes to the flat position ``(d * H_out + h) * W_out + w`` that
    ``indices`` gives, zeros elsewhere."""

    _dims = 3

    def __init__(self, kernel_size, stride=None, padding=0, data_format: str = "NCDHW",
                 output_size=None, name: str | None = None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)
