"""2-D max and average pooling (``paddle.nn.functional.max_pool2d`` / ``avg_pool2d``).

Both run channels-last, like conv2d: an NCHW input whose memory is NHWC (a conv output) costs
no copy, and the output is again NHWC memory behind an NCHW view. A window's maximum (or sum) is
built from one strided view per kernel offset, combined with ``maximum`` (or ``+``): a handful
of whole-array operations instead of a reduction over a 6-D view, which numpy runs slowly.

After a ReLU (the usual CNN pattern), max-pooling's backward applies the ReLU's mask to its own
gradient, a quarter of the size for 2x2 windows, and the ReLU's backward then passes it through
(``activation.relu_masked``): one pass over the large activation instead of two.

Max-pool ties go to the FIRST maximum of each window in row-major order, as in Paddle and
PyTorch. Ties are common (zeros after a ReLU); a plain ``x == max`` mask would send the
gradient to every tied element and inflate the gradients of everything upstream.

``return_mask=True`` (max_pool2d / max_pool1d) also returns each window's first maximum as an
int32 index into its channel's H * W plane, Paddle's mask and PyTorch's ``return_indices``, what
``max_unpool2d`` takes. It is computed apart from the pool, from the same views, only when asked.
"""
from __future__ import annotations

from dataclasses import replace

import core
from core import backend
from core.higher_order import captured, linear_grad
from core.nn.functional._parallel import recycled_empty, thread_cached
from core.nn.functional._spatial import Window, check_tensor, windows
from core.nn.functional.activation import mark_relu_masked, relu_masked
from core.tensor import Tensor, apply
from core.threads import host_workers, run_split


def max_pool2d(x: Tensor, kernel_size, stride=None, padding=0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCHW", name=None) -> Tensor:
    """The maximum of each ``kernel_size`` window, Paddle's ``max_pool2d(x, kernel_size,
    stride=None, padding=0, return_mask=False, ceil_mode=False, data_format='NCHW', name=None)``:
    out[n, c, h, w] = max over (i, j) of x_pad[n, c, h*sh + i, w*sw + j]; padding never wins (it
    is -inf). The gradient goes to the FIRST maximum of each window in row-major order.

    ``return_mask=True`` returns ``(out, mask)``: mask[n, c, h, w] is the int32 index ``row * W
    + col`` of that first maximum in its channel's unpadded H * W plane (Paddle's mask, PyTorch's
    ``return_indices``), what ``max_unpool2d`` takes. As in Paddle, the mask needs NCHW data.
    """
    del name
    check_mask_format("max_pool2d", return_mask, data_format)
    pool = _Pool("max_pool2d", x, kernel_size, stride, padding, ceil_mode, data_format)
    xp = pool.xp
    src = pool.padded(-xp.inf)
    out = pool.reduce(xp.maximum, src)
    views = pool.views(src)

    def backward(g):
        gh = pool.channels_last(g)
        masked = relu_masked(x)  # decided now: a hook may have been added since the forward
        if masked:
            gh = gh * (out > 0)
        dx = pool.gradient_buffer(src)
        grads = pool.views(dx)

        def route(start, stop):
            """Send images start..stop-1's gradient to the first maximum of each window."""
            part, grad = out[start:stop], gh[start:stop]
            # `free` marks the windows whose maximum no earlier offset has claimed; the buffers
            # are this thread's, reused call after call (no fresh pages to fault in).
            hit, free = (thread_cached(("max_pool2d", name, part.shape, xp.__name__),
                                       lambda: xp.empty(part.shape, dtype=bool))
                         for name in ("hit", "free"))
            for index, view in enumerate(views):
                if index == 0:
                    xp.equal(view[start:stop], part, out=hit)
                    xp.logical_not(hit, out=free)
                elif index < len(views) - 1:
                    xp.equal(view[start:stop], part, out=hit)
                    xp.logical_and(hit, free, out=hit)
                    xp.logical_xor(free, hit, out=free)  # free and not hit (hit is within free)
                _add(xp, grads[index][start:stop], grad, hit if index < len(views) - 1 or
                     index == 0 else free, pool.overlapping)

        # A few images at a time, so that their output, gradient and masks stay in cache
        # through every window offset's passes instead of streaming from memory each time;
        # three or four passes over the output's size per window offset.
        run_split(gh.shape[0], host_workers(gh, gh.shape[0], passes=4 * gh.size * len(views)),
                  _in_blocks(out, xp, route))
        dx = pool.unpad(dx)
        if masked:
            mark_relu_masked(dx)
        return (dx,)

    result = apply(pool.public(out), (x,), backward, "max_pool2d", _max_pool2d_grad)
    if not return_mask:
        return result
    return result, Tensor(_first_max_index(pool, views, out))


def _max_pool2d_grad(out, g):  # create_graph: the gradient routed as the forward routed x
    pool, views, pooled = captured(out, "pool", "views", "out")
    mask = _first_max_index(pool, views, pooled)  # the first maximum of each window, NCHW
    n, c, ho, wo = mask.shape
    plane = pool.rows.size * pool.cols.size
    xp = pool.xp
    flat = mask + (xp.arange(n * c, dtype="int64") * plane).reshape(n, c, 1, 1)

    def routed(h):  # the pool's Jacobian: h at each window's first maximum
        h = h if pool.channels_first else h.transpose([0, 3, 1, 2])
        picked = h.reshape([-1])[flat]
        return picked if pool.channels_first else picked.transpose([0, 2, 3, 1])

    return (linear_grad(apply, g, out._backward, routed, "max_pool2d_grad"),)


def check_mask_format(op: str, return_mask, data_format, channels_first: str = "NCHW") -> None:
    """Paddle's rule: a mask only for channels-first data (its Python API raises for NHWC and
    NDHWC)."""
    if return_mask and data_format != channels_first:
        raise ValueError(f"{op}: return_mask=True needs data_format='{channels_first}' (as in "
                         f"Paddle), got data_format={data_format!r}")


def _first_max_index(pool: _Pool, views: list, out):
    """The int32 [N, C, Ho, Wo] index ``row * W + col`` of each window's first maximum in the
    unpadded input plane: what ``return_mask`` returns.

    Only computed when asked, from the forward's own views, so the plain pool pays nothing.
    Offsets are visited in row-major order as in the backward: ``free`` marks the windows no
    earlier offset has claimed, so ties go to the first maximum; the last offset takes what
    is still free without a comparison. Each offset (i, j) adds the constant ``i * W + j`` to
    the windows it claims, and the windows' top-left corners are added at the end. Padding
    offsets are kept out (an all -inf window would otherwise point into the padding), and a NaN
    counts as the maximum, as in the output (``maximum`` propagates NaN) and PyTorch's kernel.
    """
    xp = pool.xp
    rows, cols = pool.rows, pool.cols
    shifts = [xp.int32(i * cols.size + j) for i in range(rows.kernel) for j in range(cols.kernel)]
    inside = None
    if rows.before or rows.after or cols.before or cols.after:
        r, c = _inside(xp, rows), _inside(xp, cols)  # [kernel, out] bools per axis
        inside = [r[i][None, :, None, None] & c[j][None, None, :, None]
                  for i in range(rows.kernel) for j in range(cols.kernel)]
    nan = bool(xp.isnan(out).any())  # one pass; spares a NaN test per offset when there is none
    found = xp.zeros(out.shape, dtype="int32")  # channels-last, like out and the views
    last = len(views) - 1

    def find(start, stop):
        """Images start..stop-1: the sum of the claiming offsets' shifts."""
        part, acc, free = out[start:stop], found[start:stop], None
        for index, view in enumerate(views):
            if index == last and free is not None:
                hit = free  # no earlier offset holds the maximum: this one does
            else:
                v = view[start:stop]
                hit = v == part
                if nan:
                    hit |= v != v
                if inside is not None:
                    hit &= inside[index]
                if free is None:
                    free = ~hit
                else:
                    hit &= free
                    free ^= hit  # free and not hit (hit is within free)
            if index:  # offset (0, 0) adds nothing
                acc += hit * shifts[index]

    # a few images at a time, as the backward: the blocks' output and masks stay in cache
    run_split(out.shape[0], host_workers(out, out.shape[0], passes=4 * out.size * len(views)),
              _in_blocks(out, xp, find))
    # add each window's top-left corner in the unpadded plane while going to NCHW (the only
    # layout with a mask, check_mask_format): one pass
    top = xp.arange(rows.out, dtype="int32") * rows.stride - rows.before
    left = xp.arange(cols.out, dtype="int32") * cols.stride - cols.before
    corner = (top[:, None] * cols.size + left[None, :]).astype("int32", copy=False)
    n, ho, wo, c = found.shape
    mask = xp.empty((n, c, ho, wo), dtype="int32")
    xp.add(found.transpose(0, 3, 1, 2), corner, out=mask)
    return mask


def _inside(xp, axis: Window):
    """[kernel, out] bools: whether kernel offset k of output position o reads a real (not
    padding) element along ``axis``."""
    start = xp.arange(axis.out)[None, :] * axis.stride - axis.before
    at = start + xp.arange(axis.kernel)[:, None]
    return (at >= 0) & (at < axis.size)


def avg_pool2d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override=None, data_format: str = "NCHW",
               name=None) -> Tensor:
    """The mean of each window, Paddle's ``avg_pool2d(x, kernel_size, stride=None, padding=0,
    ceil_mode=False, exclusive=True, divisor_override=None, data_format='NCHW', name=None)``.
    ``exclusive`` (the default) leaves padding out of the divisor; ``divisor_override``
    replaces the divisor altogether (Paddle instead rescales the exclusive mean by
    kernel_area / divisor_override: docs/paddle.md)."""
    del name
    pool = _Pool("avg_pool2d", x, kernel_size, stride, padding, ceil_mode, data_format)
    xp = pool.xp
    src = pool.padded(0)
    divisor = pool.divisor(exclusive, divisor_override)
    out = pool.reduce(xp.add, src)
    out /= divisor

    def backward(g):
        share = pool.channels_last(g) / divisor
        dx = pool.gradient_buffer(src)
        for grad in pool.views(dx):
            if pool.overlapping:
                grad += share
            else:
                grad[...] = share
        return (pool.unpad(dx),)

    def grad_fn(_out, g):  # create_graph: linear in x, so its Jacobian is the pool itself
        return (linear_grad(apply, g, backward, lambda h: avg_pool2d(
            h, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
            data_format), "avg_pool2d_grad"),)

    return apply(pool.public(out), (x,), backward, "avg_pool2d", grad_fn)


_BLOCK_BYTES = 1 << 18  # of pooled output per block of images (both passes of max-pooling)


def _images_per_block(out, xp) -> int:
    """Images per block of a pooling pass: about _BLOCK_BYTES of output on a CPU
    (``backend.block_bytes``: a GPU takes the whole batch at once)."""
    return max(1, backend.block_bytes(xp, _BLOCK_BYTES) // max(1, out[0].nbytes))


def _in_blocks(out, xp, fn):
    """A ``task(start, stop)`` for ``run_split`` that runs ``fn`` over images start..stop-1
    in blocks of ``_images_per_block``."""
    step = _images_per_block(out, xp)

    def task(start, stop):
        for first in range(start, stop, step):
            fn(first, min(stop, first + step))

    return task


def _add(xp, target, grad, hit, overlapping: bool) -> None:
    """target += grad where hit (windows overlap) or target = grad * hit (they do not)."""
    if overlapping:
        target += grad * hit
    else:
        xp.multiply(grad, hit, out=target)


def _ceil(axis: Window) -> Window:
    """``axis`` with the output length rounded up, Paddle's ceil_mode: out = ceil((size + pads -
    kernel) / stride) + 1. The last, partial window reads extra padding after the input; that
    padding is -inf (max) or left out of the exclusive divisor (avg), so only real elements
    count. As in PyTorch, a window that would start beyond the input and the padding before it
    is dropped (Paddle's formula never produces one for padding <= kernel / 2)."""
    out = -(-(axis.padded - axis.kernel) // axis.stride) + 1
    if (out - 1) * axis.stride >= axis.size + axis.before:
        out -= 1
    extra = max((out - 1) * axis.stride + axis.kernel - axis.padded, 0)
    return replace(axis, after=axis.after + extra)


class _Pool:
    """Arguments, geometry and layout of one pooling call."""

    def __init__(self, op, x, kernel_size, stride, padding, ceil_mode, data_format):
        check_tensor(x, "x", op)
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.channels_first = data_format == "NCHW"
        self.xh = x.data.transpose(0, 2, 3, 1) if self.channels_first else x.data
        self.xp = backend.array_module(self.xh)
        stride = kernel_size if stride is None else stride
        self.rows, self.cols = windows(self.xh.shape[1:3], kernel_size, stride, padding, 1, op)
        for axis in (self.rows, self.cols):
            if max(axis.before, axis.after) > axis.kernel // 2:
                raise ValueError(f"{op}: padding ({axis.before}, {axis.after}) must be at most "
                                 f"half the kernel size {axis.kernel}, so that no window is "
                                 "all padding")
        # the padding the caller asked for: ceil_mode's extra padding after it is not part of
        # the inclusive (exclusive=False) divisor, as in Paddle
        self.asked_after = (self.rows.after, self.cols.after)
        if ceil_mode and isinstance(padding, str) and padding.upper() == "VALID":
            raise ValueError(f"{op}: padding='VALID' takes ceil_mode=False, got ceil_mode=True "
                             "(Paddle: 'VALID' means no window reaches past the input)")
        if ceil_mode:
            self.rows, self.cols = _ceil(self.rows), _ceil(self.cols)
        self.h_end = (self.rows.out - 1) * self.rows.stride + 1
        self.w_end = (self.cols.out - 1) * self.cols.stride + 1
        self.overlapping = self.rows.stride < self.rows.kernel or \
            self.cols.stride < self.cols.kernel

    def channels_last(self, g):
        return g.transpose(0, 2, 3, 1) if self.channels_first else g

    def public(self, out):
        return out.transpose(0, 3, 1, 2) if self.channels_first else out

    def padded(self, fill):
        rows, cols = self.rows, self.cols
        if not (rows.before or rows.after or cols.before or cols.after):
            return self.xh
        n, _, _, c = self.xh.shape
        src = self.xp.full((n, rows.padded, cols.padded, c), fill, dtype=self.xh.dtype)
        src[:, rows.before:rows.before + rows.size, cols.before:cols.before + cols.size] = self.xh
        return src

    def unpad(self, dx):
        rows, cols = self.rows, self.cols
        dx = dx[:, rows.before:rows.before + rows.size, cols.before:cols.before + cols.size]
        return dx.transpose(0, 3, 1, 2) if self.channels_first else dx

    def views(self, array) -> list:
        """One strided view [N, Ho, Wo, C] per kernel offset, in row-major offset order."""
        return [rows[:, :, j:j + self.w_end:self.cols.stride]
                for rows in self._row_views(array) for j in range(self.cols.kernel)]

    def _row_views(self, array) -> list:
        return [array[:, i:i + self.h_end:self.rows.stride] for i in range(self.rows.kernel)]

    def reduce(self, op, src):
        """``op`` (maximum or add) over each window, as a new [N, Ho, Wo, C] array.

        Kernel rows are combined first: those views keep whole image rows contiguous, so the
        bulk of the work runs over long runs (per-offset views have runs of only C numbers;
        1.2x slower for 2x2 max-pooling). The batch is split over host threads.
        """
        n = src.shape[0]
        out = recycled_empty(self.xp, (n, self.rows.out, self.cols.out, src.shape[3]), src.dtype)

        def combine(start, stop):
            rows = self._row_views(src[start:stop])
            acc = rows[0] if len(rows) == 1 else op(rows[0], rows[1])
            for view in rows[2:]:
                op(acc, view, out=acc)
            cols = [acc[:, :, j:j + self.w_end:self.cols.stride] for j in range(self.cols.kernel)]
            if len(cols) == 1:
                out[start:stop] = cols[0]
                return
            op(cols[0], cols[1], out=out[start:stop])
            for view in cols[2:]:
                op(out[start:stop], view, out=out[start:stop])

        # a few images at a time: the row maxima stay in cache
        run_split(n, host_workers(src, n, passes=2 * src.size), _in_blocks(out, self.xp, combine))
        return out

    def gradient_buffer(self, src):
        """The input-gradient array: uninitialised when the windows tile the input exactly
        (every element is then written), zeros otherwise."""
        rows, cols = self.rows, self.cols
        tiles = all(a.stride == a.kernel and a.out * a.stride == a.padded for a in (rows, cols))
        dx = recycled_empty(self.xp, src.shape, src.dtype)
        if not tiles:
            dx.fill(0)
        return dx

    def divisor(self, exclusive: bool, override):
        if override is not None:
            if not isinstance(override, (int, float)) or isinstance(override, bool) \
                    or override <= 0:
                raise ValueError(f"avg_pool2d: divisor_override must be a positive number, "
                                 f"got {override!r}")
            return float(override)
        rows, cols = self.rows, self.cols
        if not exclusive:
            if self.asked_after == (rows.after, cols.after):
                return float(rows.kernel * cols.kernel)
            # ceil_mode's last windows: their padding counts, the extra beyond it does not
            counts = [self._count(axis, axis.before, axis.size + after)
                      for axis, after in zip((rows, cols), self.asked_after)]
        else:
            counts = [self._count(axis, 0, axis.size) for axis in (rows, cols)]
        return (counts[0][:, None] * counts[1][None, :])[:, :, None].astype(self.xh.dtype)

    def _count(self, axis, before: int, end: int):
        """How many elements each window covers along ``axis`` between ``-before`` and ``end``
        (input positions): the real ones for (0, size), those and the asked padding too for
        (pad before, size + pad after)."""
        start = self.xp.arange(axis.out) * axis.stride - axis.before
        return self.xp.minimum(start + axis.kernel, end) - self.xp.maximum(start, -before)


# ----- 1-D pooling --------------------------------------------------------------
def max_pool1d(x: Tensor, kernel_size, stride=None, padding=0, return_mask: bool = False,
               ceil_mode: bool = False, name=None) -> Tensor:
    """Max pooling of [N, C, L] inputs, Paddle's ``max_pool1d(x, kernel_size, stride=None,
    padding=0, return_mask=False, ceil_mode=False, name=None)``: ``max_pool2d`` over a height
    of 1, so ties also send the gradient to the first maximum. ``return_mask=True`` returns
    ``(out, mask)`` with the int32 index along L of each window's first maximum."""
    del name
    check_tensor(x, "x", "max_pool1d", ndim=3)
    kernel = _single(kernel_size)
    stride = kernel if stride is None else _single(stride)
    out = max_pool2d(core.unsqueeze(x, 2), (1, kernel), (1, stride), _pads_1d(padding),
                     return_mask, ceil_mode)
    if not return_mask:
        return core.squeeze(out, 2)
    out, mask = out
    return core.squeeze(out, 2), Tensor(mask.data[:, :, 0])  # the plane is 1 x L: index in L


def avg_pool1d(x: Tensor, kernel_size, stride=None, padding=0, exclusive: bool = True,
               ceil_mode: bool = False, name=None) -> Tensor:
    """Average pooling of [N, C, L] inputs, Paddle's ``avg_pool1d(x, kernel_size, stride=None,
    padding=0, exclusive=True, ceil_mode=False, name=None)``: ``avg_pool2d`` over a height of
    1; ``exclusive`` (the default) leaves padding out of each window's divisor."""
    del name
    check_tensor(x, "x", "avg_pool1d", ndim=3)
    out = avg_pool2d(core.unsqueeze(x, 2), (1, _single(kernel_size)),
                     None if stride is None else (1, _single(stride)), _pads_1d(padding),
                     ceil_mode, exclusive)
    return core.squeeze(out, 2)


def _pads_1d(padding):
    """A 1-D ``padding`` (an int, [p], [left, right] or a string) as 2-D pooling's."""
    if isinstance(padding, str):
        return padding
    pads = list(padding) if isinstance(padding, (list, tuple)) else [padding]
    return [0, 0, pads[0], pads[-1]]


def _single(value):
    return value[0] if isinstance(value, (list, tuple)) and len(value) == 1 else value
