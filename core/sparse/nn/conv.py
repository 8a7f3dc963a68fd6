"""Paddle's sparse 3-D convolution of voxel data (point clouds):
``paddle.sparse.nn.functional.conv3d``, ``subm_conv3d`` and the layers ``Conv3D``,
``SubmConv3D``.

The input is a hybrid COO tensor of dense shape [N, D, H, W, C]: sparse over N, D, H, W (its
"active sites"), values [nnz, C]. The weight is Paddle's sparse layout [kD, kH, kW, C, M].

Both run on a rulebook (Graham's and Paddle's "second algorithm"): for every kernel offset k,
the pairs (input row, output row) that offset joins. Output sites are hashed as row-major
linear indices (``unique`` for a regular convolution, ``searchsorted`` into the input sites for
a submanifold one). For one offset each input row and each output row occurs at most once, so
an offset's work is one gather, one GEMM with its [C, M] matrix and one scatter that needs no
atomic add: out[out_rows] += x[in_rows] @ W[k]. The backward pass walks the same rulebook:
dx[in_rows] += g[out_rows] @ W[k]^T and dW[k] = x[in_rows]^T @ g[out_rows]. Every array goes
through the array module of the values (numpy or cupy).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from core import backend
from core.higher_order import needs
from core.nn import initializer
from core.nn.functional._spatial import Window, check_fits
from core.nn.functional.volumetric import padding_pairs, triple
from core.nn.layer import Layer
from core.sparse.tensor import (
    SparseCooTensor,
    SparseTensor,
    coalesced,
    linear_keys,
    link,
    unravel_keys,
    values_of,
)
from core.tensor import Tensor, apply

__all__ = ["Conv3D", "SubmConv3D", "conv3d", "subm_conv3d"]

_AXES = ("depth", "height", "width")


# ----- arguments ------------------------------------------------------------------------------
def voxels(x, fn: str) -> SparseCooTensor:
    """``x`` checked to be Paddle's point-cloud input (a COO tensor [N, D, H, W, C], sparse
    over the first four axes, floating) and stored with each site once (coalesced)."""
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{fn}: x must be a sparse COO tensor of shape [N, D, H, W, C] "
                        f"(sparse_dim 4), got {type(x).__name__}; make one with "
                        "x.to_sparse_coo(4)")
    if not x.is_sparse_coo():
        raise TypeError(f"{fn}: x must be a COO tensor (as Paddle's kernel), got a CSR tensor; "
                        "convert it with to_sparse_coo(4)")
    if x.ndim != 5 or x.sparse_dim() != 4:
        raise ValueError(f"{fn}: x must be a 5-D COO tensor [N, D, H, W, C] sparse over N, D, "
                         f"H, W (sparse_dim 4, values [nnz, C]), got shape {x.shape} with "
                         f"sparse_dim {x.sparse_dim()}")
    if x.dtype.kind != "f":
        raise TypeError(f"{fn}: x must hold floating values (float32 or float64, as Paddle's "
                        f"kernel), got dtype {x.dtype}")
    return coalesced(x)


def check_format(data_format, fn: str) -> None:
    if data_format != "NDHWC":
        raise ValueError(f"{fn}: data_format must be 'NDHWC' (the only layout of Paddle's "
                         f"sparse kernels), got {data_format!r}")


def check_groups(groups, fn: str) -> None:
    if isinstance(groups, bool) or groups != 1:
        raise ValueError(f"{fn}: groups={groups!r} is not supported: Paddle's sparse "
                         "convolution supports groups=1 only")


def geometry(sizes, kernel, stride, padding, dilation, fn: str) -> tuple:
    """The (depth, height, width) Windows of a windowed op on inputs of spatial ``sizes``."""
    kernel = triple(kernel, "kernel_size", fn)
    stride = triple(stride, "stride", fn)
    dilation = triple(dilation, "dilation", fn)
    pads = padding_pairs(padding, sizes, kernel, stride, dilation, fn, channels_first=False)
    axes = tuple(Window(sizes[i], kernel[i], stride[i], dilation[i], *pads[i])
                 for i in range(3))
    return check_fits(axes, _AXES, fn)


def subm_geometry(sizes, kernel, dilation, fn: str) -> tuple:
    """A submanifold convolution's Windows: stride 1, the kernel centred on each site (padding
    dilation * (k // 2) before, as Paddle's kernel resets stride and padding so too) and the
    rest of the padding after, so that the output grid is the input's for any kernel size."""
    kernel = triple(kernel, "kernel_size", fn)
    dilation = triple(dilation, "dilation", fn)
    axes = []
    for size, k, d in zip(sizes, kernel, dilation):
        before = d * (k // 2)
        axes.append(Window(size, k, 1, d, before, d * (k - 1) - before))
    return tuple(axes)


# ----- the rulebook ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Rulebook:
    """The pairs of one windowed op: ``in_rows[bounds[k]:bounds[k+1]]`` are the input rows
    kernel offset k (row-major over kD, kH, kW) reads for the output rows at the same places of
    ``out_rows``; ``indices`` [4, n_out] are the output sites, ``sites`` the dense shape
    [N, D, H, W] they index."""

    in_rows: object
    out_rows: object
    bounds: tuple
    indices: object
    sites: tuple

    @property
    def size(self) -> int:
        return int(self.indices.shape[1])

    def pairs(self):
        """(offset, input rows, output rows) of each offset that joins any pair."""
        for k in range(len(self.bounds) - 1):
            start, stop = self.bounds[k], self.bounds[k + 1]
            if stop > start:
                yield k, self.in_rows[start:stop], self.out_rows[start:stop]


def _reached(indices, axes, offset: tuple) -> tuple:
    """For one kernel offset: the input rows whose output site through it lies on the output
    grid, and those sites' [4, pairs] indices (batch, then the spatial output coordinates).
    One offset at a time keeps the memory at O(nnz), not O(kernel volume * nnz)."""
    xp = backend.array_module(indices)
    valid, coords = None, []
    for a, (axis, k) in enumerate(zip(axes, offset)):
        # input i = out * stride - before + k * dilation, solved for out
        numer = indices[a + 1] + (axis.before - k * axis.dilation)
        out = numer // axis.stride
        lands = (numer % axis.stride == 0) & (numer >= 0) & (out < axis.out)
        valid = lands if valid is None else valid & lands
        coords.append(out)
    rows = xp.nonzero(valid)[0]
    return rows, xp.stack([indices[0][rows]] + [c[rows] for c in coords])


def _offsets(axes):
    """The kernel offsets (kd, kh, kw), row-major: Paddle's order of the weight's kernels."""
    return itertools.product(*(range(a.kernel) for a in axes))


def regular_rulebook(indices, batch: int, axes) -> Rulebook:
    """The rulebook of a regular convolution (or pooling): every output site some input site
    reaches, sorted by linear index (Paddle's order)."""
    xp = backend.array_module(indices)
    sites = (batch, *(a.out for a in axes))
    rows, keys, bounds = [], [], [0]
    for offset in _offsets(axes):
        found, reached = _reached(indices, axes, offset)
        rows.append(found)
        keys.append(linear_keys(reached, sites))
        bounds.append(bounds[-1] + int(found.shape[0]))
    unique, out_rows = xp.unique(xp.concatenate(keys), return_inverse=True)
    return Rulebook(xp.concatenate(rows), out_rows.reshape(-1), tuple(bounds),
                    unravel_keys(unique, sites), sites)


def subm_rulebook(indices, sites: tuple, axes) -> Rulebook:
    """The rulebook of a submanifold convolution: the output sites are the input sites (in
    their order), and a pair joins two input sites one kernel offset apart."""
    xp = backend.array_module(indices)
    keys_in = linear_keys(indices, sites)
    order = xp.argsort(keys_in)
    ranked = keys_in[order]
    in_rows, out_rows, bounds = [], [], [0]
    for offset in _offsets(axes):
        found, reached = _reached(indices, axes, offset)
        keys = linear_keys(reached, sites)
        at = xp.minimum(xp.searchsorted(ranked, keys), max(len(ranked) - 1, 0))
        hit = ranked[at] == keys if len(ranked) else xp.zeros(0, dtype=bool)
        in_rows.append(found[hit])
        out_rows.append(order[at[hit]])
        bounds.append(bounds[-1] + int(in_rows[-1].shape[0]))
    return Rulebook(xp.concatenate(in_rows), xp.concatenate(out_rows), tuple(bounds), indices,
                    sites)


# A submanifold rulebook kept per ``key`` (Paddle's rulebook reuse): the entry holds the input
# indices array it was built from and the geometry, and is reused only when both match.
_SUBM_BOOKS: dict = {}


def _cached_subm_rulebook(indices, sites: tuple, axes, key) -> Rulebook:
    if key is None:
        return subm_rulebook(indices, sites, axes)
    geometry_id = (sites, tuple((a.kernel, a.dilation) for a in axes))
    entry = _SUBM_BOOKS.get(key)
    if entry is not None and entry[1] == geometry_id and _same_indices(entry[0], indices):
        return entry[2]
    book = subm_rulebook(indices, sites, axes)
    _SUBM_BOOKS[key] = (indices, geometry_id, book)
    return book


def _same_indices(cached, indices) -> bool:
    if cached is indices:  # a chain of subm convolutions passes the same array on
        return True
    if cached.shape != indices.shape or backend.array_module(cached) is not \
            backend.array_module(indices):
        return False
    return bool(backend.array_module(indices).array_equal(cached, indices))


# ----- the op ---------------------------------------------------------------------------------
def _convolve(values: Tensor, weight: Tensor, book: Rulebook) -> Tensor:
    """out[o] = sum over the pairs (k, i, o) of values[i] @ W[k], differentiable in both."""
    xp = backend.array_module(values.data)
    kernels = weight.data.reshape(-1, *weight.data.shape[-2:])
    data = values.data
    out = xp.zeros((book.size, kernels.shape[-1]), dtype=data.dtype)
    for k, in_rows, out_rows in book.pairs():
        out[out_rows] += data[in_rows] @ kernels[k]  # out_rows unique within one offset

    def backward(g):
        g_values = xp.zeros_like(data) if needs(values) else None
        g_kernels = xp.zeros_like(kernels) if needs(weight) else None
        for k, in_rows, out_rows in book.pairs():
            picked = g[out_rows]
            if g_values is not None:
                g_values[in_rows] += picked @ kernels[k].T
            if g_kernels is not None:
                g_kernels[k] = data[in_rows].T @ picked
        return g_values, None if g_kernels is None else g_kernels.reshape(weight.data.shape)

    return apply(out, (values, weight), backward, "sparse_conv3d")


def _check_weight(x, weight, bias, fn: str) -> None:
    if not isinstance(weight, Tensor) or isinstance(weight, SparseTensor) or weight.ndim != 5:
        raise ValueError(f"{fn}: weight must be a dense 5-D Tensor [kD, kH, kW, C, M] (Paddle's "
                         f"sparse layout), got {_described(weight)}")
    if weight.shape[3] != x.shape[4]:
        raise ValueError(f"{fn}: weight {weight.shape} expects {weight.shape[3]} input channels "
                         f"(weight.shape[3]), but x {x.shape} has {x.shape[4]} (its last axis); "
                         "they must be equal")
    if weight.dtype != x.dtype:
        raise TypeError(f"{fn}: weight must have x's dtype {x.dtype}, got {weight.dtype}")
    if bias is None:
        return
    if not isinstance(bias, Tensor) or isinstance(bias, SparseTensor) \
            or bias.shape != [weight.shape[4]]:
        raise ValueError(f"{fn}: bias must be a dense Tensor of shape [{weight.shape[4]}] (one "
                         f"value per output channel), got {_described(bias)}")
    if bias.dtype != x.dtype:
        raise TypeError(f"{fn}: bias must have x's dtype {x.dtype}, got {bias.dtype}")


def _described(value) -> str:
    if isinstance(value, Tensor):
        kind = "sparse tensor" if isinstance(value, SparseTensor) else "Tensor"
        return f"a {kind} of shape {value.shape}"
    return type(value).__name__


def _conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,  # noqa: PLR0913
            subm=False, key=None, data_format="NDHWC", fn="sparse.nn.functional.conv3d"):
    """Paddle's ``_conv3d``: the regular (``subm=False``) or submanifold convolution."""
    x = voxels(x, fn)
    check_format(data_format, fn)
    check_groups(groups, fn)
    _check_weight(x, weight, bias, fn)
    sizes = x.shape[1:4]
    kernel = weight.shape[:3]
    if subm:
        axes = subm_geometry(sizes, kernel, dilation, fn)
        triple(stride, "stride", fn)  # checked, then reset to 1 (as Paddle's kernel)
        book = _cached_subm_rulebook(x._indices, tuple(x.shape[:4]), axes, key)
    else:
        axes = geometry(sizes, kernel, stride, padding, dilation, fn)
        book = regular_rulebook(x._indices, x.shape[0], axes)
    result = _convolve(values_of(x), weight, book)
    if bias is not None:
        result = result + bias
    shape = [*book.sites, weight.shape[4]]
    out = SparseCooTensor(book.indices, result.data, shape,
                          coalesced=x._coalesced if subm else True)
    return link(out, (result,), lambda g: (g,), "sparse_conv3d")


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,  # noqa: PLR0913
           data_format="NDHWC", name=None):
    """Paddle's ``paddle.sparse.nn.functional.conv3d(x, weight, bias=None, stride=1,
    padding=0, dilation=1, groups=1, data_format='NDHWC', name=None)``: the 3-D convolution
    of the COO tensor ``x`` [N, D, H, W, C] (sparse over N, D, H, W) with ``weight``
    [kD, kH, kW, C, M]; ``bias`` [M] is added to every output site.

    The output is a coalesced COO tensor [N, D_out, H_out, W_out, M] (sizes as the dense
    conv3d's: (in + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1) whose
    sites are every output position the window of some input site reaches, sorted by linear
    index; its values there equal the dense convolution of ``x.to_dense()``. ``padding``: an
    int, three ints, six ints (front, back, top, bottom, left, right), five [before, after]
    pairs ([0, 0] for N and C), 'SAME' or 'VALID'. groups=1 and data_format='NDHWC' only, as
    Paddle. Differentiable in x's values, weight and bias."""
    del name
    return _conv3d(x, weight, bias, stride, padding, dilation, groups, False, None,
                   data_format, "sparse.nn.functional.conv3d")


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1,  # noqa: PLR0913
                groups=1, data_format="NDHWC", key=None, name=None):
    """Paddle's ``paddle.sparse.nn.functional.subm_conv3d(x, weight, bias=None, stride=1,
    padding=0, dilation=1, groups=1, data_format='NDHWC', key=None, name=None)``: the
    submanifold convolution (Graham et al., arXiv:1706.01307) of ``x`` [N, D, H, W, C] with
    ``weight`` [kD, kH, kW, C, M].

    The output keeps x's sites (its indices, in x's order) and x's spatial shape: at each site
    it is the dense convolution of ``x.to_dense()`` with the kernel centred there (stride 1,
    padding dilation * (k // 2) before and dilation * (k - 1) minus that after: as in Paddle's
    kernel, ``stride`` and ``padding`` are not used), so the active set does not grow. ``key``
    names a rulebook to reuse: a later call with the same key, the same indices and the same
    kernel size and dilation reuses it (e.g. a stack of SubmConv3D layers sharing one key).
    Differentiable in x's values, weight and bias."""
    del name, padding  # not used: the kernel is centred (Paddle resets padding and stride)
    return _conv3d(x, weight, bias, stride, 0, dilation, groups, True, key, data_format,
                   "sparse.nn.functional.subm_conv3d")


# ----- layers ---------------------------------------------------------------------------------
class _Conv3D(Layer):
    """What Conv3D and SubmConv3D share: Paddle's ``_Conv3D``."""

    _subm = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,  # noqa: PLR0913
                 padding=0, dilation=1, groups=1, key=None, padding_mode="zeros",
                 weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__()
        kind = f"sparse.nn.{type(self).__name__}"
        for arg, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{kind}: {arg} must be a positive int, got {value!r}")
        if padding_mode != "zeros":
            raise ValueError(f"{kind}: padding_mode must be 'zeros' (the only mode of Paddle's "
                             f"sparse convolution), got {padding_mode!r}")
        if weight_attr is False:
            raise ValueError(f"{kind}: weight_attr=False is not allowed: a convolution needs "
                             "its weight (as in Paddle)")
        check_groups(groups, kind)
        check_format(data_format, kind)
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = list(triple(kernel_size, "kernel_size", kind))
        self._stride = list(triple(stride, "stride", kind))
        self._dilation = list(triple(dilation, "dilation", kind))
        self._padding, self._padding_mode = padding, padding_mode
        self._groups, self._key, self._data_format = groups, key, data_format
        fan_in = math.prod(self._kernel_size) * self._in_channels
        self.weight = self.create_parameter(
            [*self._kernel_size, self._in_channels, self._out_channels], attr=weight_attr,
            default_initializer=initializer.Normal(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return _conv3d(x, self.weight, self.bias, self._stride, self._padding, self._dilation,
                       self._groups, self._subm, self._key, self._data_format,
                       f"sparse.nn.{type(self).__name__}")

    def extra_repr(self) -> str:
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1, 1, 1]:
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._dilation != [1, 1, 1]:
            text += f", dilation={self._dilation}"
        return text + f", data_format={self._data_format}"


class Conv3D(_Conv3D):
    """Paddle's ``paddle.sparse.nn.Conv3D(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, padding_mode='zeros', weight_attr=None, bias_attr=None,
    data_format='NDHWC')``: ``functional.conv3d`` with a weight [kD, kH, kW, in_channels,
    out_channels] (initialised N(0, 2 / (kD * kH * kW * in_channels)), as Paddle's) and a bias
    [out_channels] (zeros; ``bias_attr=False`` leaves it out)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,  # noqa: PLR0913
                 padding=0, dilation=1, groups=1, padding_mode="zeros", weight_attr=None,
                 bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, None, padding_mode, weight_attr, bias_attr, data_format)


class SubmConv3D(_Conv3D):
    """Paddle's ``paddle.sparse.nn.SubmConv3D(in_channels, out_channels, kernel_size,
    stride=1, padding=0, dilation=1, groups=1, padding_mode='zeros', key=None,
    weight_attr=None, bias_attr=None, data_format='NDHWC')``: ``functional.subm_conv3d`` (the
    output keeps the input's sites; ``stride`` and ``padding`` are not used, as in Paddle),
    parameters as ``Conv3D``'s; ``key`` reuses a rulebook across layers."""

    _subm = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,  # noqa: PLR0913
                 padding=0, dilation=1, groups=1, padding_mode="zeros", key=None,
                 weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, key, padding_mode, weight_attr, bias_attr, data_format)
