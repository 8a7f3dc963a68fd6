"""Fused element-wise kernels, owned by the backend: one numpy and one cupy implementation each.

The ops never pick an implementation themselves: ``core.backend.kernels(array)`` hands them the
set that matches the array (``HostKernels`` for numpy, ``DeviceKernels`` for cupy), and both
sets compute the same function. Why fuse at all: on a GPU every numpy-style call is a kernel
launch plus a pass over memory, and a training step of a small network is dominated by them
(Adam alone costs 9 launches per parameter per step written with ufuncs, 1 fused). On the host,
numpy's ufuncs with ``out=`` are already close to memory speed, so ``HostKernels`` keeps the
plain numpy code.

This module never imports cupy: ``DeviceKernels`` gets the module from ``core.backend`` and
compiles each kernel on first use (cupy caches the binaries on disk).
"""
from __future__ import annotations

import math

import numpy as np

from core import channel_kernels, recurrent_kernels, threads
from core.layout import memory_order

# Arrays of fewer elements skip the layout and thread machinery below: no split would pay for
# itself, and its Python work was most of the op (a ReLU on [4, 4] took 9.9 us, numpy's
# maximum alone 0.6).
_SMALL = 1 << 14
# exp_shift: a block this large and spanning at most this much takes one scalar shift.
_SCALAR_SHIFT_MIN, _EXP_SPREAD = 1 << 12, 32.0


def _split_outermost(x, result, fn, pass_slice: bool = False):
    """``fn(x, result)`` run on slices of x's outermost memory axis over core's threads
    (core.threads; one slice, the whole array, with one thread or a small array). With
    ``pass_slice``, ``fn`` gets the slice object instead of x's part."""
    axis = memory_order(x)[0][0] if x.ndim else 0
    count = x.shape[axis] if x.ndim else 1
    workers = threads.host_workers(x, count)
    if workers == 1:
        return fn(slice(0, count) if pass_slice else x, result)
    if result is None:
        result = np.empty_like(x)

    def task(start, stop):
        rows = (slice(None),) * axis + (slice(start, stop),)
        fn(slice(start, stop) if pass_slice else x[rows], result[rows])

    threads.run_split(count, workers, task)
    return result


class HostKernels:
    """The numpy implementations (the reference the device kernels are tested against)."""

    def __init__(self, xp):
        self.xp = xp
        self._zeros: dict = {}

    # Per-channel work over [rows, channels] views (batch norm): blocked, GEMV sums, threads.
    channel_moments = staticmethod(channel_kernels.moments)
    channel_affine = staticmethod(channel_kernels.affine)
    channel_grad_sums = staticmethod(channel_kernels.grad_sums)
    channel_affine2 = staticmethod(channel_kernels.affine2)

    # One recurrent time step after its GEMM (core.recurrent_kernels: numpy into the buffers).
    gru_step = staticmethod(recurrent_kernels.gru_step)
    gru_step_grad = staticmethod(recurrent_kernels.gru_step_grad)
    lstm_step = staticmethod(recurrent_kernels.lstm_step)
    lstm_step_grad = staticmethod(recurrent_kernels.lstm_step_grad)
    rnn_step = staticmethod(recurrent_kernels.rnn_step)
    rnn_step_grad = staticmethod(recurrent_kernels.rnn_step_grad)

    def relu(self, x, result=None):
        """max(x, 0) (NaN stays NaN), into ``result`` when given (x's shape, dtype, memory order).

        The zeros are an array, not the scalar 0: numpy's SIMD loops run only when every operand
        is contiguous, and a scalar is not. One image's worth of zeros, broadcast over the
        outermost memory axis, keeps each inner loop contiguous and stays in cache (2.8x faster
        than ``maximum(x, 0)`` on the tutorial CNN's first ReLU).
        """
        if x.size < _SMALL:
            return self.xp.maximum(x, 0, out=result)
        zeros = self._zeros_for(x)
        return _split_outermost(x, result, lambda part, out: self.xp.maximum(part, zeros, out=out))

    def _zeros_for(self, x):
        """Zeros broadcastable to ``x``: size 1 on x's outermost memory axis, x's layout else."""
        order, back = memory_order(x)
        shape = (1,) + tuple(x.shape[axis] for axis in order[1:])
        key = (shape, x.dtype.str)
        zeros = self._zeros.get(key)
        if zeros is None:
            if len(self._zeros) >= 32:  # a network has a few activation shapes
                self._zeros.clear()
            zeros = self._zeros[key] = self.xp.zeros(shape, x.dtype)
        return zeros.transpose(back)

    def relu_grad(self, g, out, result=None):
        """``g`` where ``out > 0``, else 0 (ReLU's backward from its output), into ``result``
        when given (an array of g's shape, dtype and memory order)."""
        if g.size < _SMALL:
            return self.xp.multiply(g, out > 0, out=result)

        def masked(part, target):
            rows = (slice(None),) * axis + (slice(part.start, part.stop),)
            return self.xp.multiply(g[rows], out[rows] > 0, out=target)  # bool promotes to g's

        axis = memory_order(g)[0][0]
        return _split_outermost(g, result, lambda part, target: masked(part, target),
                                pass_slice=True)

    @staticmethod
    def exp_shift(rows):
        """What to subtract from ``rows`` [N, C] before ``exp`` in a softmax: the whole block's
        maximum (a scalar) when the block spans at most ``_EXP_SPREAD``, else each row's
        maximum ([N, 1]). Either keeps every exponent <= 0 and each row's largest >= -32, so
        nothing overflows or underflows (e^-32 is a normal float32) and the softmax is the same
        up to rounding: at most 32 * 2^-24 (2e-6) relative, the error the row maximum leaves on
        an entry 32 below it.

        Why: numpy's maximum over short rows is a loop per row: 178 us on a 512 KB block of
        64-key attention rows, where the block's maximum and minimum take 13 us together.
        NaN or infinities fail the spread test, so such rows keep their own maximum, as before.
        """
        if rows.size >= _SCALAR_SHIFT_MIN:
            top = rows.max()
            if top - rows.min() <= _EXP_SPREAD:
                return top
        return rows.max(axis=1, keepdims=True)

    def softmax_xent(self, rows, labels):
        """(negative log-likelihood per row, softmax probabilities) of logits ``rows`` [N, C]
        for integer class ``labels`` [N] (each in range)."""
        xp = self.xp
        exp = rows - self.exp_shift(rows)
        picked = exp[xp.arange(rows.shape[0]), labels]  # read before exp overwrites it
        xp.exp(exp, out=exp)
        total = exp.sum(axis=1)
        exp /= total[:, None]
        return xp.log(total) - picked, exp

    def softmax_xent_grad(self, probs, labels, coef):
        """coef[i] * (probs[i] - onehot(labels[i])): the logits' gradient of coef-weighted NLL."""
        grad = probs * coef[:, None]
        grad[self.xp.arange(probs.shape[0]), labels] -= coef
        return grad

    def sum_by_index(self, values, index, count: int):
        """``out[k] = sum of values[i] where index[i] == k`` for k < count, added in the
        order of i (as ``add.at`` adds, so the bits are the same): repeated embedding rows.

        Each index's first row is copied in one fancy assignment and only the repeats go
        through ``add.at``, whose per-row generic loop was the cost: 2.1 -> 0.67 ms for 5,120
        rows of 64 with few repeats.
        """
        xp = self.xp
        out = xp.zeros((count,) + values.shape[1:], dtype=values.dtype)
        if len(index) == 0:
            return out
        order = xp.argsort(index, kind="stable")
        ranked, ordered = index[order], xp.take(values, order, axis=0)  # take: 2x faster
        first = xp.empty(len(ranked), dtype=bool)
        first[0] = True
        xp.not_equal(ranked[1:], ranked[:-1], out=first[1:])
        out[ranked[first]] = ordered[first]
        repeats = ~first
        if repeats.any():
            xp.add.at(out, ranked[repeats], ordered[repeats])
        return out

    def adam(self, param, grad, m, v, beta1: float, beta2: float, eps: float, step: float):
        """In place: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; param -= step m/(sqrt v + eps).

        ``eps`` and ``step`` already hold Adam's bias corrections (see core.optimizer.adam).
        """
        self.adam_many([(param, grad, m, v, beta1, beta2, eps, step)])

    def adam_many(self, updates) -> None:
        """``adam`` for every ``(param, grad, m, v, beta1, beta2, eps, step)`` of ``updates``.

        Large contiguous parameters go block by block (``_ADAM_BLOCK`` elements): the rule's
        passes then run on blocks that stay in cache, so memory sees each of param, grad, m and
        v once instead of ~25 whole-array passes. The blocks of all the parameters are split
        over core's threads together, one hand-off per optimizer step instead of one per
        parameter (MLP 784-1024-1024-10 on 2 threads: 2.43-2.55 -> 2.25-2.28 ms a step).
        Element-wise, so the result does not depend on the blocking or the thread count.
        """
        blocks = []  # (param, grad, m, v) block slices, then the update's scalars
        for param, grad, m, v, *scalars in updates:
            arrays = (param, grad, m, v)
            if param.size < 2 * _ADAM_BLOCK or grad.dtype != param.dtype \
                    or not all(a.flags.c_contiguous for a in arrays):
                _adam_rule(self.xp, *arrays, *scalars, None)
                continue
            flat = [a.reshape(-1) for a in arrays]
            blocks += [([a[i:i + _ADAM_BLOCK] for a in flat], scalars)
                       for i in range(0, param.size, _ADAM_BLOCK)]
        if not blocks:
            return

        def task(first, last):
            scratch = {}  # one per dtype, reused by every block of this thread
            for parts, scalars in blocks[first:last]:
                size, dtype = parts[0].size, parts[0].dtype
                buffer = scratch.get(dtype)
                if buffer is None:
                    buffer = scratch[dtype] = np.empty(_ADAM_BLOCK, dtype)
                _adam_rule(self.xp, *parts, *scalars, buffer[:size])

        # ~12 passes of the rule over the four arrays per element
        elements = sum(parts[0].size for parts, _ in blocks)
        workers = threads.host_workers(blocks[0][0][0], len(blocks), passes=12 * elements)
        threads.run_split(len(blocks), workers, task)


# Elements per block: 512 KB of float32 per array, the five arrays within a 2 MB L2. Larger
# blocks mean fewer ufunc calls, and on two threads every call hands the GIL over: on 1.86M
# parameters (an MLP 784-1024-1024-10) one step took 3.5 ms with 16K-element blocks and 3.0
# with these on one thread, 5.0 and 2.2 ms on two (torch's default Adam: 3.9 and 2.2 ms).
_ADAM_BLOCK = 1 << 17


def _adam_rule(xp, param, grad, m, v, beta1, beta2, eps, step, scratch) -> None:
    """Adam's update with one temporary (``scratch``, or a new one), reused for every term."""
    scratch = xp.multiply(grad, 1.0 - beta1, out=scratch)
    m *= beta1
    m += scratch
    xp.multiply(grad, grad, out=scratch)
    scratch *= 1.0 - beta2
    v *= beta2
    v += scratch
    xp.sqrt(v, out=scratch)
    scratch += eps
    xp.divide(m, scratch, out=scratch)
    scratch *= step
    param -= scratch


# g and out may differ in dtype (auto_cast: a float16 output meets a float32 gradient).
_RELU_GRAD = ("T g, O out", "T dx", "dx = out > (O)0 ? g : (T)0", "tomlrun_relu_grad")

# One thread per row: rows of a classifier are short (tens to a few thousand classes), and a
# thread that owns its row needs no cross-thread reduction. probs is written in the same pass.
_SOFTMAX_XENT = (
    "raw T x, int64 label, int64 classes", "T nll, raw T probs",
    """
    const ptrdiff_t base = (ptrdiff_t)i * classes;
    T top = x[base];
    for (ptrdiff_t j = 1; j < classes; ++j) top = max(top, x[base + j]);
    T total = 0;
    for (ptrdiff_t j = 0; j < classes; ++j) {
        T e = exp(x[base + j] - top);
        probs[base + j] = e;
        total += e;
    }
    for (ptrdiff_t j = 0; j < classes; ++j) probs[base + j] /= total;
    nll = log(total) - (x[base + label] - top);
    """, "tomlrun_softmax_xent")

_SOFTMAX_XENT_GRAD = (
    "T p, raw int64 label, raw T coef, int64 classes", "T grad",
    """
    const ptrdiff_t row = i / classes;
    const T c = coef[row];
    grad = c * (p - (T)((i - row * classes) == label[row] ? 1 : 0));
    """, "tomlrun_softmax_xent_grad")

_ADAM = (
    "T g, float64 beta1, float64 beta2, float64 eps, float64 step", "T param, T m, T v",
    """
    const double mm = beta1 * (double)m + (1 - beta1) * (double)g;
    const double vv = beta2 * (double)v + (1 - beta2) * (double)g * (double)g;
    m = (T)mm;
    v = (T)vv;
    param = (T)((double)param - step * mm / (sqrt(vv) + eps));
    """, "tomlrun_adam")


# cupy's atomic adds take these dtypes only; numpy's add.at takes every dtype.
_ATOMIC_ADD_KINDS = {"int32", "int64", "uint32", "uint64", "float16", "float32", "float64"}


def add_at(xp, target, index, values) -> None:
    """numpy's ``xp.add.at(target, index, values)`` for every dtype: cupy scatters only the
    dtypes it has atomics for, so a complex target takes its real and imaginary parts apart, a
    bool one ORs (as numpy's add does) and a narrow integer one adds in int64 (wrapping as
    numpy's does). ``core.backend.add_at`` is the ops' entry."""
    if xp is np or target.dtype.name in _ATOMIC_ADD_KINDS:
        xp.add.at(target, index, values)
        return
    values = xp.asarray(values)
    if target.dtype.kind == "c":
        parts = []
        for part in (values.real, values.imag):
            acc = xp.zeros(target.shape, dtype=part.dtype if part.dtype.kind == "f"
                           else target.real.dtype)
            xp.add.at(acc, index, part.astype(acc.dtype, copy=False))
            parts.append(acc)
        target += (parts[0] + 1j * parts[1]).astype(target.dtype, copy=False)
        return
    acc = xp.zeros(target.shape, dtype=xp.int64)
    xp.add.at(acc, index, values.astype(xp.int64))
    if target.dtype.kind == "b":
        target |= acc != 0
    else:
        target += acc.astype(target.dtype)


class DeviceKernels:
    """The same functions as ``HostKernels``, each one cupy ``ElementwiseKernel``."""

    def __init__(self, cupy):
        self.xp = cupy
        self._compiled: dict = {}
        self._zeros: dict = {}

    # The per-channel functions as whole-array operations: a GPU needs no cache blocking.
    @staticmethod
    def channel_moments(x2):
        mean = x2.mean(axis=0)
        centered = x2 - mean
        return mean, (centered * centered).mean(axis=0)

    @staticmethod
    def channel_affine(x2, scale, shift, out2):
        out2[...] = x2 * scale + shift
        return out2

    @staticmethod
    def channel_grad_sums(g2, x2, mean, inv_std):
        return g2.sum(axis=0), (g2 * ((x2 - mean) * inv_std)).sum(axis=0)

    @staticmethod
    def channel_affine2(g2, a, x2, b, c, out2):
        out2[...] = g2 * a + x2 * b + c
        return out2

    def _kernel(self, spec):
        kernel = self._compiled.get(spec[3])
        if kernel is None:
            kernel = self._compiled[spec[3]] = self.xp.ElementwiseKernel(*spec)
        return kernel

    def relu(self, x, result=None):
        return self.xp.maximum(x, 0, out=result)  # one launch already; maximum keeps NaN

    def relu_grad(self, g, out, result=None):
        kernel = self._kernel(_RELU_GRAD)
        return kernel(g, out) if result is None else kernel(g, out, result)

    @staticmethod
    def exp_shift(rows):
        return rows.max(axis=1, keepdims=True)  # one reduction kernel; no host round trip

    def softmax_xent(self, rows, labels):
        rows = self.xp.ascontiguousarray(rows)
        probs = self.xp.empty_like(rows)
        nll = self.xp.empty(rows.shape[0], dtype=rows.dtype)
        labels = labels.astype(self.xp.int64, copy=False)
        self._kernel(_SOFTMAX_XENT)(rows, labels, rows.shape[1], nll, probs)
        return nll, probs

    def softmax_xent_grad(self, probs, labels, coef):
        labels = self.xp.ascontiguousarray(labels.astype(self.xp.int64, copy=False))
        coef = self.xp.ascontiguousarray(coef.astype(probs.dtype, copy=False))
        return self._kernel(_SOFTMAX_XENT_GRAD)(probs, labels, coef, probs.shape[1])

    def sum_by_index(self, values, index, count: int):
        out = self.xp.zeros((count,) + values.shape[1:], dtype=values.dtype)
        add_at(self.xp, out, index, values)  # atomic adds: a GPU scatters them in parallel
        return out

    def adam(self, param, grad, m, v, beta1: float, beta2: float, eps: float, step: float):
        if not (param.flags.c_contiguous and m.flags.c_contiguous and v.flags.c_contiguous):
            _adam_rule(self.xp, param, grad, m, v, beta1, beta2, eps, step, None)
            return
        self._kernel(_ADAM)(grad, float(beta1), float(beta2), float(eps), float(step),
                            param, m, v)

    def adam_many(self, updates) -> None:
        for update in updates:  # one fused kernel each: a GPU has no thread hand-off to save
            self.adam(*update)

    # ----- recurrent steps: one launch each (core.recurrent_kernels) --------------------------
    def gru_step(self, gx, g, h, c_bias, rz, c, new) -> None:
        hid = h.shape[1]
        if c_bias is None:
            c_bias = self._zero_bias(hid, h.dtype)
        self._kernel(recurrent_kernels.GRU_STEP)(gx, h, c_bias, hid, g, rz, c, new)

    def _zero_bias(self, hid: int, dtype):
        """A GRU without recurrent biases adds these: one kernel serves both cases."""
        key = (hid, np.dtype(dtype).str)
        zeros = self._zeros.get(key)
        if zeros is None:
            zeros = self._zeros[key] = self.xp.zeros(hid, dtype)
        return zeros

    def gru_step_grad(self, hp, rz, c, gc, g_state, carry, dgx, dgh) -> None:
        hid = hp.shape[1]
        self._kernel(recurrent_kernels.GRU_STEP_GRAD)(
            hp, rz[:, :hid], rz[:, hid:], c, gc, g_state, hid, carry, dgx, dgh)

    def lstm_step(self, a, gx, c, half, offset, c_new, tc, h_new) -> None:
        del half, offset  # the kernel's constants: 1/2 for i, f, o; 1 for g
        self._kernel(recurrent_kernels.LSTM_STEP)(gx, c, c.shape[1], a, c_new, tc, h_new)

    def lstm_step_grad(self, cp, a, tc, gs_h, gs_c, dh_next, dc_next, da) -> None:
        self._kernel(recurrent_kernels.LSTM_STEP_GRAD)(cp, a, tc, gs_h, gs_c, dh_next,
                                                       cp.shape[1], dc_next, da)

    def rnn_step(self, a, gx, activation: str) -> None:
        self._kernel(recurrent_kernels.RNN_STEP[activation])(gx, a)

    def rnn_step_grad(self, g_state, carry, out, d, activation: str) -> None:
        self._kernel(recurrent_kernels.RNN_STEP_GRAD[activation])(g_state, carry, out, d)


def adam_factors(lr: float, beta1: float, beta2: float, epsilon: float, step: int):
    """(eps, step size) of Paddle's Adam with its bias corrections folded in."""
    correction2 = math.sqrt(1.0 - beta2 ** step)
    return epsilon * correction2, lr * correction2 / (1.0 - beta1 ** step)
