"""2-D convolution (``paddle.nn.functional.conv2d``): im2col + one GEMM per block of images.

Speed choices, each measured as a same-run ratio (numbers in benchmarks/README.md):

* Channels-last arithmetic. The public layout is NCHW, but the output is NHWC memory returned
  as an NCHW *view*. Element-wise ops keep that memory order, so the next conv's
  ``x.transpose(0, 2, 3, 1)`` is contiguous again at no cost, and im2col copies runs of
  ``kw * C`` contiguous numbers instead of single ones (or, for few channels, runs of ``Wo``:
  see ``core.nn.functional._im2col``).
* Blocks of a few images (~2 MB of im2col matrix): each block's matrix is built and multiplied
  while it is still in cache (1.3x over one matrix for the whole batch).
* The input gradient is a stride-1 convolution of the (dilated, padded) output gradient with the
  flipped kernel, again im2col + one GEMM, instead of a scatter-add (col2im). The weight
  gradient then comes from that same matrix and the plain input (``_weight_from_spread``), so the
  input's im2col matrix is not rebuilt in the backward pass; only a layer whose input needs no
  gradient (the first) rebuilds it.
* The bias rides in the GEMMs: the input's im2col matrix has a column of ones and the weight
  matrix the bias as its last row, so the forward GEMM adds it and the first layer's weight
  gradient GEMM sums its gradient (the tutorial CNN's first conv: forward 1.2x, backward 1.1x).
  Outputs reuse arrays nobody references any more (see ``_parallel``).
* With ``core.set_num_threads(n)`` the batch is split over n threads (core.threads), each
  building and multiplying its own blocks with one BLAS thread.
"""
from __future__ import annotations

from core import autocast, backend
from core.nn.functional._im2col import Unfold
from core.nn.functional._parallel import recycled_empty, shared_scratch, thread_cached
from core.nn.functional._spatial import Window, check_tensor, windows
from core.nn.functional._sums import column_sums
from core.tensor import Tensor, apply, is_grad_enabled
from core.threads import host_workers, run_split

_BLOCK_BYTES = 1 << 21  # im2col bytes per block: small enough to stay in cache with its GEMM
_KEEP_BYTES = 1 << 24   # the largest whole-batch im2col matrix kept for the backward pass


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1, data_format: str = "NCHW", name=None) -> Tensor:
    """Cross-correlate ``x`` with ``weight`` [out, in/groups, kh, kw] (Paddle semantics).

    ``x`` is [N, C, H, W] (``data_format="NCHW"``) or [N, H, W, C] ("NHWC"). ``stride`` and
    ``dilation`` are ints or (height, width) pairs; ``padding`` is an int, a pair, four ints
    (top, bottom, left, right), four [before, after] pairs, one per axis of ``x`` (the batch and
    channel pairs [0, 0]), "SAME" (output ceil(in / stride); as in Paddle, it convolves without
    dilation) or "VALID". ``bias`` has shape [out].
    """
    del name
    check_tensor(x, "x", "conv2d")
    check_tensor(weight, "weight", "conv2d")
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed, float16 inputs
        x, weight, bias = autocast.cast_inputs("conv2d", x, weight, bias)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"conv2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    channels_first = data_format == "NCHW"
    xh = x.data.transpose(0, 2, 3, 1) if channels_first else x.data
    spec = _Spec(xh.shape, weight.data.shape, groups, x.dtype, weight.dtype)
    if bias is not None:
        _check_bias(bias, spec.out_channels, x.dtype)
    rows, cols = windows(xh.shape[1:3], weight.shape[2:], stride, padding, dilation, "conv2d",
                         channels_last=not channels_first)
    layer = _Layer(backend.array_module(xh), rows, cols, groups, x.dtype, bias is not None)
    w, b = weight.data, None if bias is None else bias.data
    # A first layer (its input needs no gradient) keeps its im2col matrix for the weight
    # gradient when it is small; deeper layers get theirs from the input-gradient matrix.
    weight_only = is_grad_enabled() and x.stop_gradient and not weight.stop_gradient
    out, kept = layer.forward(xh, w, b, keep=weight_only)
    parents = (x, weight) if bias is None else (x, weight, bias)

    def backward(g):
        gh = layer.xp.ascontiguousarray(g.transpose(0, 2, 3, 1) if channels_first else g)
        dx, dw, db = layer.backward(gh, xh, w, not x.stop_gradient, not weight.stop_gradient,
                                    bias is not None and not bias.stop_gradient, kept)
        if dx is not None and channels_first:
            dx = dx.transpose(0, 3, 1, 2)
        return (dx, dw) if bias is None else (dx, dw, db)

    def grad_fn(_out, g):  # create_graph: the two adjoints as recorded ops, and the bias's sum
        ops = _Adjoints(_Layer(layer.xp, rows, cols, groups, x.dtype, False), channels_first,
                        xh, w)
        gx = ops.input_grad(g, weight) if not x.stop_gradient else None
        gw = ops.weight_grad(x, g) if not weight.stop_gradient else None
        if bias is None:
            return gx, gw
        return gx, gw, (g.sum(axis=[0, 2, 3] if channels_first else [0, 1, 2])
                        if not bias.stop_gradient else None)

    return apply(out.transpose(0, 3, 1, 2) if channels_first else out, parents, backward,
                 "conv2d", grad_fn)


class _Adjoints:
    """conv2d (without bias) and its two adjoints, each a recorded op whose gradients are the
    other two: conv(x, w) is bilinear, so d/dx <h, conv(x, w)> = input_grad(h, w) and d/dw =
    weight_grad(x, h), and likewise for the adjoints. ``grad(create_graph=True)`` through a
    conv2d builds these, to any order, on the same im2col kernels as the forward pass.
    ``x_like`` and ``w_like`` (NHWC input, kernel) give the shapes the kernels read."""

    def __init__(self, layer: _Layer, channels_first: bool, x_like, w_like):
        self.layer, self.channels_first = layer, channels_first
        self.x_like, self.w_like = x_like, w_like

    def _nhwc(self, a):
        return self.layer.xp.ascontiguousarray(a.transpose(0, 2, 3, 1) if self.channels_first
                                               else a)

    def _public(self, a):
        return a.transpose(0, 3, 1, 2) if self.channels_first else a

    def _conv(self, x, w):
        return self._public(self.layer.forward(self._nhwc(x), w, None)[0])

    def _input_grad(self, g, w):
        return self._public(self.layer.backward(self._nhwc(g), self.x_like, w, True, False,
                                                False)[0])

    def _weight_grad(self, x, g):
        return self.layer.backward(self._nhwc(g), self._nhwc(x), self.w_like, False, True,
                                   False)[1]

    def conv(self, x: Tensor, w: Tensor) -> Tensor:
        return apply(self._conv(x.data, w.data), (x, w),
                     lambda h: (self._input_grad(h, w.data), self._weight_grad(x.data, h)),
                     "conv2d", lambda _out, h: (self.input_grad(h, w), self.weight_grad(x, h)))

    def input_grad(self, g: Tensor, w: Tensor) -> Tensor:
        return apply(self._input_grad(g.data, w.data), (g, w),
                     lambda k: (self._conv(k, w.data), self._weight_grad(k, g.data)),
                     "conv2d_input_grad",
                     lambda _out, k: (self.conv(k, w), self.weight_grad(k, g)))

    def weight_grad(self, x: Tensor, g: Tensor) -> Tensor:
        return apply(self._weight_grad(x.data, g.data), (x, g),
                     lambda k: (self._input_grad(g.data, k), self._conv(x.data, k)),
                     "conv2d_weight_grad",
                     lambda _out, k: (self.input_grad(g, k), self.conv(x, k)))


class _Spec:
    """Checks that the input, the kernel and ``groups`` agree."""

    def __init__(self, x_shape, w_shape, groups, x_dtype, w_dtype):
        if x_dtype != w_dtype:
            raise TypeError(f"conv2d: x ({x_dtype}) and weight ({w_dtype}) must have the same "
                            "dtype")
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"conv2d: groups must be an int >= 1, got {groups!r}")
        channels, (out_channels, per_group) = x_shape[3], w_shape[:2]
        if out_channels % groups:
            raise ValueError(f"conv2d: the weight's {out_channels} output channels are not "
                             f"divisible by groups={groups}")
        if channels != per_group * groups:
            raise ValueError(
                f"conv2d: the input has {channels} channels but the weight {list(w_shape)} "
                f"with groups={groups} expects {per_group * groups} (weight is "
                "[out, in/groups, kh, kw]; check data_format)")
        self.out_channels = out_channels


def _check_bias(bias, out_channels: int, dtype) -> None:
    if not isinstance(bias, Tensor) or tuple(bias.shape) != (out_channels,):
        shape = bias.shape if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(f"conv2d: bias must be a Tensor of shape [{out_channels}], got {shape}")
    if bias.dtype != dtype:
        raise TypeError(f"conv2d: bias dtype {bias.dtype} differs from x's dtype {dtype}")


class _Layer:
    """The geometry of one call, with its forward and backward passes on raw NHWC arrays."""

    def __init__(self, xp, rows, cols, groups: int, dtype, bias: bool):
        self.xp, self.rows, self.cols, self.groups, self.dtype = xp, rows, cols, groups, dtype
        self.interior = (slice(None), slice(rows.before, rows.before + rows.size),
                         slice(cols.before, cols.before + cols.size))
        # The input's im2col matrix gets a column of ones (written once per cached plan) and the
        # weight matrix the bias as its last row: the GEMM adds the bias, and the weight
        # gradient's GEMM sums the bias gradient, with no pass of their own over the output.
        self.fold_bias = bias and groups == 1

    # ----- forward ---------------------------------------------------------------------------
    def forward(self, xh, w, b, keep: bool = False):
        """(output, the whole batch's im2col matrix when ``keep`` and it is small, else None)."""
        xp, rows, cols, groups = self.xp, self.rows, self.cols, self.groups
        n, channels = xh.shape[0], xh.shape[3]
        out_c, per_group = w.shape[0], w.shape[1]
        k = rows.kernel * cols.kernel * per_group
        wmats = [self._group(w, g).transpose(2, 3, 1, 0).reshape(k, -1) for g in range(groups)]
        if self.fold_bias:
            wmats = [xp.concatenate([wmats[0], b[None, :]])]
        out = recycled_empty(xp, (n, rows.out, cols.out, out_c), xh.dtype)
        out2d = out.reshape(-1, out_c)
        pixels = rows.out * cols.out
        block = self._block(k * pixels * xh.dtype.itemsize)
        # Grouped convolutions add the bias along whole output rows: [rows, Wo*out] runs numpy's
        # loop over Wo*out numbers instead of out (2.5x faster for 20 channels).
        row_bias = None if b is None or self.fold_bias else xp.tile(b, cols.out)
        kept = None
        if keep and groups == 1 and n * pixels * (k + 1) * xh.dtype.itemsize <= _KEEP_BYTES:
            plan = self._unfold("x", min(block, n), channels, rows, cols, min(block, n))
            kept = plan.new_matrix(n * pixels, lambda shape: recycled_empty(xp, shape, xh.dtype))

        def task(start, stop):
            for b0 in range(start, stop, block):
                b1 = min(b0 + block, stop)
                unfold = self._unfold("x", b1 - b0, channels, rows, cols, min(block, n))
                unfold.place(xh[b0:b1], *self.interior[1:])
                target = out2d[b0 * pixels:b1 * pixels]
                into = None if kept is None else kept[b0 * pixels:b1 * pixels]
                for g, wmat in enumerate(wmats):
                    if groups == 1:
                        xp.matmul(unfold(g, into), wmat, out=target)
                    else:
                        target[:, self._slice(g, out_c)] = unfold(g) @ wmat
                if row_bias is not None:
                    by_row = target.reshape(-1, row_bias.shape[0])
                    by_row += row_bias

        run_split(n, host_workers(xh, n, macs=n * pixels * k * out_c), task)
        return out, kept

    # ----- backward --------------------------------------------------------------------------
    def backward(self, gh, xh, w, need_x: bool, need_w: bool, need_b: bool, kept=None):
        xp, rows, cols, groups = self.xp, self.rows, self.cols, self.groups
        n, channels, (out_c, per_group) = xh.shape[0], xh.shape[3], w.shape[:2]
        og = out_c // groups
        g2d = gh.reshape(-1, out_c)
        pixels, in_pixels = rows.out * cols.out, rows.size * cols.size
        k = rows.kernel * cols.kernel * per_group
        dx = recycled_empty(xp, xh.shape, xh.dtype) if need_x else None
        dx2d = None if dx is None else dx.reshape(-1, channels)
        flipped = [self._group(w, g)[:, :, ::-1, ::-1].transpose(2, 3, 0, 1).reshape(-1, per_group)
                   for g in range(groups)] if need_x else []
        back_k = rows.kernel * cols.kernel * og if need_x else 0
        block = self._block(max(k * pixels, back_k * in_pixels) * xh.dtype.itemsize)
        back_rows, back_cols = self._back_windows()
        (to_r, from_r), (to_c, from_c) = _placement(rows, back_rows), _placement(cols, back_cols)

        # With dx wanted, dw comes from the gradient's im2col matrix as well (spread^T @ x, see
        # _weight_from_spread): the input's im2col matrix is then never rebuilt. Without, dw^T
        # = g^T @ unfold(x), from the matrix the forward pass kept or a rebuilt one (that
        # orientation runs 1.2x faster than unfold^T @ g here); its last column is the bias
        # gradient when the bias is folded in.
        # A strided conv's spread gradient is mostly holes (3/4 of it at stride 2), and its
        # GEMMs would multiply them all: there dx is col2im(g @ w^T) instead (the forward GEMM's
        # size) and dw comes from the input's im2col matrix, rebuilt.
        scatter = need_x and (rows.stride > 1 or cols.stride > 1)
        spread_dw = need_x and not scatter
        folded = self.fold_bias and not spread_dw
        dw_shape = (groups, back_k, per_group) if spread_dw else (groups, og, k + folded)
        if scatter:
            block = self._block(2 * k * pixels * xh.dtype.itemsize)
            wmats = [self._group(w, g).transpose(0, 2, 3, 1).reshape(og, k) for g in range(groups)]

        kept = kept if need_w and not need_x else None
        # The input's plan is the forward pass's (backward blocks are never larger).
        x_capacity = min(self._block(k * pixels * xh.dtype.itemsize), n)

        def task(start, stop):
            dw = xp.zeros(dw_shape, dtype=xh.dtype) if need_w else None
            if kept is not None:  # the forward pass's matrix: one GEMM, nothing rebuilt
                span = slice(start * pixels, stop * pixels)
                dw[0] += _grad_times_matrix(g2d[span], kept[span])
                return dw
            for b0 in range(start, stop, block):
                b1 = min(b0 + block, stop)
                gb = g2d[b0 * pixels:b1 * pixels]
                if need_w and not spread_dw:
                    unfold = self._unfold("x", b1 - b0, channels, rows, cols, x_capacity)
                    unfold.place(xh[b0:b1], *self.interior[1:])
                    for g in range(groups):
                        dw[g] += _grad_times_matrix(gb[:, self._slice(g, out_c)], unfold(g))
                if scatter:
                    self._fold_input_grad(gb, wmats, channels, dx[b0:b1], min(block, n))
                elif need_x:
                    spread = self._unfold("g", b1 - b0, out_c, back_rows, back_cols,
                                          min(block, n))
                    spread.place(gh[b0:b1, from_r, from_c], to_r, to_c)
                    target = dx2d[b0 * in_pixels:b1 * in_pixels]
                    x2d = xh[b0:b1].reshape(-1, channels) if need_w else None
                    for g, wflip in enumerate(flipped):
                        matrix = spread(g)
                        if groups == 1:
                            xp.matmul(matrix, wflip, out=target)
                        else:
                            target[:, self._slice(g, channels)] = matrix @ wflip
                        if need_w:
                            dw[g] += matrix.T @ x2d[:, self._slice(g, channels)]
            return dw

        # dx's and dw's GEMMs: each about the forward's size
        macs = n * pixels * k * out_c * (need_x + need_w)
        partials = run_split(n, host_workers(xh, n, macs=macs), task)
        dw = None
        if need_w:
            total = partials[0]
            for part in partials[1:]:
                total += part  # fixed order: deterministic for a given thread count
            if folded:
                total, db_folded = total[..., :k], total[0, :, k]
            dw = _weight_from_spread(total, rows, cols, og) if spread_dw else \
                _weight_from_unfold(total, rows, cols, per_group, og)
        # A matrix-vector product sums the rows ~10x faster than g2d.sum(axis=0) here.
        db = None
        if need_b and need_w and folded:
            db = db_folded.copy()
        elif need_b:
            db = column_sums(xp, g2d)
        return dx, dw, db

    def _fold_input_grad(self, gb, wmats, channels: int, target, capacity: int) -> None:
        """``target`` (a block's dx, NHWC) = col2im(gb @ w^T) per group: each output
        position's gradient spread back over the input window it read."""
        images = target.shape[0]
        plan = self._unfold("dx", images, channels, self.rows, self.cols, capacity)
        plan.source[...] = 0
        out_c = gb.shape[1]
        for g, wmat in enumerate(wmats):
            self.xp.matmul(gb[:, self._slice(g, out_c)], wmat, out=plan.matrix)
            plan.fold(g)
        target[...] = plan.source[self.interior]

    # ----- pieces ----------------------------------------------------------------------------
    def _block(self, bytes_per_image: int) -> int:
        limit = backend.block_bytes(self.xp, _BLOCK_BYTES)  # cache-sized on a CPU only
        return max(1, limit // max(1, bytes_per_image))

    def _group(self, w, g: int):
        og = w.shape[0] // self.groups
        return w[g * og:(g + 1) * og]

    def _slice(self, g: int, channels: int) -> slice:
        size = channels // self.groups
        return slice(g * size, (g + 1) * size)

    def _back_windows(self):
        """Windows of the input-gradient convolution: stride 1 over the spread gradient, whose
        output (i, j) sits at (i*stride + span-1-pad_before) in each axis, zeros elsewhere."""
        rows, cols = self.rows, self.cols
        return (Window(rows.size + rows.span - 1, rows.kernel, 1, rows.dilation, 0, 0),
                Window(cols.size + cols.span - 1, cols.kernel, 1, cols.dilation, 0, 0))

    def _unfold(self, tag: str, images: int, channels: int, rows, cols, capacity: int):
        """This thread's im2col plan for ``images`` images, over the buffers of its plan for
        blocks of ``capacity`` images (built on first use).

        The key holds the forward geometry too: a plan's strided views, and where its
        source's zeros go (padding, the border of a spread gradient), are laid out by it.
        """
        ones = tag == "x" and self.fold_bias
        key = ("conv2d", tag, capacity, channels, self.groups, self.rows, self.cols, self.dtype,
               ones, self.xp.__name__)
        shape = (capacity, rows.padded, cols.padded, channels)
        xp, dtype = self.xp, self.dtype
        # Every plan's matrix lives in this thread's shared scratch (see shared_scratch): a
        # thread fills and multiplies one at a time. So do the sources that need no zeros
        # kept between calls: col2im's, zeroed before each use, and an unpadded input's, which
        # the input fills whole (a 1x1 shortcut's: the largest); a padded source keeps its own
        # zeros (laying them anew on each call cost the tutorial CNN 2-4%).
        unpadded = tag == "x" and rows.padded == rows.size and cols.padded == cols.size
        shared = (lambda s: shared_scratch(xp, s, dtype, "source")) \
            if tag == "dx" or unpadded else None
        plan = thread_cached(key, lambda: Unfold(
            xp, shape, dtype, rows, cols, self.groups, ones,
            matrix_empty=lambda s: shared_scratch(xp, s, dtype), source_empty=shared))
        return plan.first(images)


def _grad_times_matrix(g_rows, matrix):
    """``g_rows^T @ matrix`` ([out, k]: a weight gradient from an im2col matrix), in the
    orientation OpenBLAS runs faster for the matrix's layout: offset by offset (few input
    channels; the matrix a transposed view) as ``(matrix^T @ g_rows)^T``, a plain product of
    two row-major arrays (the tutorial CNN's first conv, [78400, 26] and [78400, 20]: 40 -> 60
    GFLOP/s on one thread); window by window (row-major) as it reads, which ran 1.2x faster than
    ``(unfold^T @ g)^T`` there."""
    if matrix.strides[0] == matrix.itemsize:  # offset-major: matrix.T is row-major
        return (matrix.T @ g_rows).T
    return g_rows.T @ matrix


def _weight_from_unfold(total, rows, cols, per_group: int, og: int):
    """The weight gradient [out, in/groups, kh, kw] from sum(g^T @ unfold(x)): [groups, o,
    (kh, kw, c)]."""
    groups = total.shape[0]
    dw = total.reshape(groups, og, rows.kernel, cols.kernel, per_group)
    return dw.transpose(0, 1, 4, 2, 3).reshape(groups * og, per_group, rows.kernel, cols.kernel)


def _weight_from_spread(total, rows, cols, og: int):
    """The weight gradient from sum(spread^T @ x): [groups, (a, b, o), c].

    The spread matrix U gives the input gradient as dx[p, c] = sum U[p, (a, b, o)] *
    w[o, c, kh-1-a, kw-1-b]; both gradients pair the same (input position, output position)
    entries, so dw[o, c, i, j] = sum_p x[p, c] * U[p, (kh-1-i, kw-1-j, o)]: the input itself, not
    its im2col matrix, times the matrix the input gradient needed anyway.
    """
    groups, per_group = total.shape[0], total.shape[2]
    dw = total.reshape(groups, rows.kernel, cols.kernel, og, per_group)[:, ::-1, ::-1]
    return dw.transpose(0, 3, 4, 1, 2).reshape(groups * og, per_group, rows.kernel, cols.kernel)


def _placement(axis, back) -> tuple[slice, slice]:
    """Destination and source slices that put output positions into the spread gradient."""
    length = back.size
    start = axis.span - 1 - axis.before
    first = -(start // axis.stride) if start < 0 else 0  # ceil(-start / stride)
    last = min(axis.out - 1, (length - 1 - start) // axis.stride)
    if last < first:
        return slice(0, 0), slice(0, 0)
    dst = slice(start + first * axis.stride, start + last * axis.stride + 1, axis.stride)
    return dst, slice(first, last + 1)
