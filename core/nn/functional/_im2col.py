"""im2col plans for conv2d: a zero-bordered source buffer, the matrix, and the strided views
between them, built once per geometry and block size on each thread (conv.py caches them)."""
from __future__ import annotations


class Unfold:
    """im2col for one geometry and block size on one thread: a zero-bordered source buffer,
    the matrix, and the strided views between them, all built once.

    The matrix is stored window by window (row-major) when a window's row, ``kw * C`` numbers,
    is the longer contiguous run, else offset by offset (a transposed view of a row-major
    [kh*kw*C, b*Ho*Wo] matrix, runs of ``Wo`` numbers): numpy copies short runs slowly, and BLAS
    takes either layout at the same speed. (The first conv of an MNIST net, C = 1: runs of 28
    instead of 5, a 4.5x faster copy.)
    """

    def __init__(self, xp, shape, dtype, rows, cols, groups: int, ones: bool = False,
                 buffers=None, matrix_empty=None, source_empty=None,
                 shared_source: bool = False):
        self.xp, self._geometry = xp, (rows, cols, groups, ones)
        # A source of its own keeps the zeros written here; one from ``source_empty`` may be
        # memory other plans share, and ``place`` lays its zeros anew on every call.
        self.shared_source = shared_source or source_empty is not None
        if buffers is not None:
            self.source = buffers[0]
        elif source_empty is not None:
            self.source = source_empty(shape)
        else:
            self.source = xp.zeros(shape, dtype)
        images, per_group = self.source.shape[0], self.source.shape[3] // groups
        sn, sh, sw, sc = self.source.strides
        self.k, self.ones, self.dtype = rows.kernel * cols.kernel * per_group, ones, dtype
        self._pixel_dims = (images, rows.out, cols.out)
        self._offset_dims = (rows.kernel, cols.kernel, per_group)
        window_run = cols.kernel * per_group if cols.dilation == 1 else per_group
        self.window_major = window_run >= (cols.out if cols.stride == 1 else 1)
        pixel_strides = (sn, sh * rows.stride, sw * cols.stride)
        offset_strides = (sh * rows.dilation, sw * cols.dilation, sc)
        if self.window_major:
            view_shape = self._pixel_dims + self._offset_dims
            strides = pixel_strides + offset_strides
        else:
            view_shape = self._offset_dims + self._pixel_dims
            strides = offset_strides + pixel_strides
        as_strided = xp.lib.stride_tricks.as_strided
        self._windows = [as_strided(self.source[..., g * per_group:(g + 1) * per_group],
                                    view_shape, strides) for g in range(groups)]
        # The matrix may live in memory other plans share (``matrix_empty``, see conv.py):
        # nothing in it outlives a call, and the column of ones is rewritten by each one.
        self.matrix = self.new_matrix(
            images * rows.out * cols.out,
            matrix_empty or (lambda matrix_shape: xp.empty(matrix_shape, dtype))) \
            if buffers is None else buffers[1]
        self._target = self._target_of(self.matrix)
        self._prefixes: dict = {}

    def place(self, values, rows: slice, cols: slice) -> None:
        """Write ``values`` into the source at ``[:, rows, cols]``; a shared source also gets
        the rest zeroed (its padding, or a spread gradient's border)."""
        source = self.source
        if not self.shared_source:
            source[:, rows, cols] = values
            return
        height, width = source.shape[1:3]
        (r0, r1, row_step), (c0, c1, col_step) = rows.indices(height), cols.indices(width)
        if row_step != 1 or col_step != 1:  # holes between the values: zero it all first
            source[...] = 0
            source[:, rows, cols] = values
            return
        source[:, rows, cols] = values
        if r0:
            source[:, :r0] = 0
        if r1 < height:
            source[:, r1:] = 0
        if c0:
            source[:, r0:r1, :c0] = 0
        if c1 < width:
            source[:, r0:r1, c1:] = 0

    def first(self, images: int) -> Unfold:
        """This plan over its first ``images`` images, in its own buffers: a block's last,
        shorter part needs no plan (and no memory) of its own. A ResNet on two threads kept
        36 plans per thread, 53 MB, before partial blocks shared their full block's."""
        if images == self.source.shape[0]:
            return self
        plan = self._prefixes.get(images)
        if plan is None:
            pixels = self.matrix.shape[0] // self.source.shape[0]
            plan = self._prefixes[images] = Unfold(
                self.xp, None, self.dtype, *self._geometry,
                buffers=(self.source[:images], self.matrix[:images * pixels]),
                shared_source=self.shared_source)
        return plan

    def new_matrix(self, rows: int, empty):
        """An empty [rows, k] matrix of this plan's layout (``empty(shape)`` allocates), with
        its column of ones when the plan has one."""
        k = self.k + self.ones
        matrix = empty((rows, k)) if self.window_major else empty((k, rows)).T
        matrix[:, self.k:] = 1
        return matrix

    def _target_of(self, matrix):
        """The windows' shape over the first k columns of ``matrix`` (one block's rows)."""
        row, col = matrix.strides
        images, out_h, out_w = self._pixel_dims
        kernel_h, kernel_w, channels = self._offset_dims
        pixels = ((out_h * out_w * row, out_w * row, row), self._pixel_dims)
        offsets = ((kernel_w * channels * col, channels * col, col), self._offset_dims)
        first, second = (pixels, offsets) if self.window_major else (offsets, pixels)
        return self.xp.lib.stride_tricks.as_strided(matrix, first[1] + second[1],
                                                    first[0] + second[0])

    def fold(self, group: int = 0) -> None:
        """col2im, the adjoint of ``__call__``: add each entry of the plan's matrix into the
        source position its window read (the caller zeroes the source first). One strided add
        per kernel offset: the windows of one offset never overlap, those of two offsets may."""
        kernel_h, kernel_w = self._offset_dims[:2]
        for a in range(kernel_h):
            for b in range(kernel_w):
                if self.window_major:
                    self._windows[group][:, :, :, a, b] += self._target[:, :, :, a, b]
                else:
                    self._windows[group][a, b] += self._target[a, b]

    def __call__(self, group: int = 0, into=None):
        """The im2col matrix [b*Ho*Wo, kh*kw*C/groups] of the source's channel group: the
        plan's own, or ``into`` (a block of a ``new_matrix``) when given."""
        if into is not None:
            self.xp.copyto(self._target_of(into), self._windows[group])
            return into
        self.xp.copyto(self._target, self._windows[group])
        if self.ones:
            self.matrix[:, self.k:] = 1
        return self.matrix
