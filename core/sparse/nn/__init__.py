"""Paddle's ``paddle.sparse.nn``: the activation layers ``ReLU``, ``ReLU6``, ``LeakyReLU`` and
``Softmax`` of sparse tensors, the point-cloud layers ``Conv3D``, ``SubmConv3D``,
``MaxPool3D``, ``BatchNorm`` and ``SyncBatchNorm`` (conv.py, pooling.py, norm.py), and
``functional``.
"""
from __future__ import annotations

from core.nn.layer import Layer
from core.sparse.nn import functional

__all__ = ["LeakyReLU", "ReLU", "ReLU6", "Softmax", "functional"]


class ReLU(Layer):
    """Paddle's ``paddle.sparse.nn.ReLU(name=None)``: ``functional.relu``."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x):
        return functional.relu(x)


class ReLU6(Layer):
    """Paddle's ``paddle.sparse.nn.ReLU6(name=None)``: ``functional.relu6``."""

    def __init__(self, name: str | None = None):
        super().__init__(name)

    def forward(self, x):
        return functional.relu6(x)


class LeakyReLU(Layer):
    """Paddle's ``paddle.sparse.nn.LeakyReLU(negative_slope=0.01, name=None)``:
    ``functional.leaky_relu``."""

    def __init__(self, negative_slope: float = 0.01, name: str | None = None):
        super().__init__(name)
        self._negative_slope = negative_slope

    def forward(self, x):
        return functional.leaky_relu(x, self._negative_slope)


class Softmax(Layer):
    """Paddle's ``paddle.sparse.nn.Softmax(axis=-1, name=None)``: ``functional.softmax``."""

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__(name)
        self._axis = axis

    def forward(self, x):
        return functional.softmax(x, self._axis)


# Paddle's point-cloud layers: sparse 3-D convolution, pooling and batch norm of voxels.
from core.sparse.nn.conv import Conv3D, SubmConv3D  # noqa: E402
from core.sparse.nn.norm import BatchNorm, SyncBatchNorm  # noqa: E402
from core.sparse.nn.pooling import MaxPool3D  # noqa: E402

__all__ += ["BatchNorm", "Conv3D", "MaxPool3D", "SubmConv3D", "SyncBatchNorm"]
