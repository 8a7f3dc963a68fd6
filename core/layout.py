"""Memory layout of arrays, whatever their backend: the order of their axes in memory.

Its own module because both ``core.backend`` and the fused kernels of ``core.backend_kernels``
need it, and the kernels must not import the backend that loads them (an import cycle).
"""
from __future__ import annotations


def memory_order(array) -> tuple[list[int], list[int]]:
    """(``array``'s axes from outermost to innermost in memory, the permutation back).

    An array made in memory order, ``empty([shape[a] for a in order]).transpose(back)``, has
    ``array``'s shape and layout: element-wise ops keep the channels-last memory under an NCHW
    view that way (see core/nn/functional/conv.py).
    """
    if array.flags.c_contiguous:  # the common case, without the sort (per-op cost on small arrays)
        return list(range(array.ndim)), list(range(array.ndim))
    order = sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis]))
    return order, [order.index(axis) for axis in range(array.ndim)]
