"""Paddle's sparse 3-D max pooling of voxel data: ``paddle.sparse.nn.functional.max_pool3d``
and the layer ``MaxPool3D``.

Pooling runs on the rulebook of a regular convolution (core.sparse.nn.conv): the output sites
are those some input site's window reaches, and each output is the maximum of the ACTIVE input
sites in its window (implicit zeros take no part, as in Paddle's kernel), per channel. Within
one kernel offset each output row occurs once, so the maximum is taken offset by offset with
plain indexing (no scatter-max, which neither numpy's nor cupy's array API has for rows).
"""
from __future__ import annotations

from core import backend
from core.higher_order import needs
from core.nn.functional.volumetric import triple
from core.nn.layer import Layer
from core.sparse.nn.conv import check_format, geometry, regular_rulebook, voxels
from core.sparse.tensor import SparseCooTensor, link, values_of
from core.tensor import Tensor, apply

__all__ = ["MaxPool3D", "max_pool3d"]


def _pool_max(values: Tensor, book) -> Tensor:
    """out[o] = the largest values[i] over the pairs (k, i, o); the gradient goes to every
    input equal to its output's maximum (Paddle's ``dx += dy * (x == y)``)."""
    xp = backend.array_module(values.data)
    data = values.data
    out = xp.full((book.size, data.shape[1]), -xp.inf, dtype=data.dtype)
    for _, in_rows, out_rows in book.pairs():
        out[out_rows] = xp.maximum(out[out_rows], data[in_rows])

    def backward(g):
        if not needs(values):
            return (None,)
        grad = xp.zeros_like(data)
        for _, in_rows, out_rows in book.pairs():  # in_rows unique within one offset
            grad[in_rows] += g[out_rows] * (data[in_rows] == out[out_rows])
        return (grad,)

    return apply(out, (values,), backward, "sparse_max_pool3d")


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: PLR0913
               data_format="NDHWC", name=None):
    """Paddle's ``paddle.sparse.nn.functional.max_pool3d(x, kernel_size, stride=None,
    padding=0, ceil_mode=False, data_format='NDHWC', name=None)``: max pooling of the COO
    tensor ``x`` [N, D, H, W, C] (sparse over N, D, H, W) over windows of ``kernel_size``
    moved by ``stride`` (default: the kernel size) on the input padded by ``padding`` (an int,
    three ints, six ints, five [before, after] pairs, 'SAME' or 'VALID').

    The output is a coalesced COO tensor [N, D_out, H_out, W_out, C] whose sites are the
    windows holding some active input site (sorted by linear index); each holds, per channel,
    the maximum over the active sites in its window. ``ceil_mode`` must be False (Paddle's
    sparse kernel computes floor-sized outputs only). Differentiable in x's values."""
    del name
    fn = "sparse.nn.functional.max_pool3d"
    x = voxels(x, fn)
    check_format(data_format, fn)
    if ceil_mode is not False:
        raise ValueError(f"{fn}: ceil_mode={ceil_mode!r} is not supported: only ceil_mode=False "
                         "(Paddle's sparse kernel computes floor-sized outputs)")
    kernel = triple(kernel_size, "kernel_size", fn)
    stride = kernel if stride is None else triple(stride, "stride", fn)
    axes = geometry(x.shape[1:4], kernel, stride, padding, 1, fn)
    book = regular_rulebook(x._indices, x.shape[0], axes)
    result = _pool_max(values_of(x), book)
    out = SparseCooTensor(book.indices, result.data, [*book.sites, x.shape[4]],
                          coalesced=True)
    return link(out, (result,), lambda g: (g,), "sparse_max_pool3d")


class MaxPool3D(Layer):
    """Paddle's ``paddle.sparse.nn.MaxPool3D(kernel_size, stride=None, padding=0,
    return_mask=False, ceil_mode=False, data_format='NDHWC', name=None)``:
    ``functional.max_pool3d``. ``return_mask`` must be False (Paddle's sparse layer ignores
    it and returns no mask)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,  # noqa: PLR0913
                 ceil_mode=False, data_format="NDHWC", name=None):
        super().__init__(name)
        if return_mask is not False:
            raise ValueError(f"sparse.nn.MaxPool3D: return_mask={return_mask!r} is not "
                             "supported: Paddle's sparse max pooling returns no mask")
        check_format(data_format, "sparse.nn.MaxPool3D")
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def forward(self, x):
        return max_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                          self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"
