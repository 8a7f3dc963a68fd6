"""Recurrences over padded batches: one fused op per layer for GRU and LSTM.

The input projection of every step (``x @ W_ih^T + b_ih``) is one GEMM done by the caller; the
ops here run the recurrence, store what backpropagation through time needs, and return the
*carried* states ``[batch, T, H]``: at a padded step (``t >= length``) a row keeps its last real
state, so the last column is each row's final state, whatever its length. Gate orders follow
Paddle: GRU ``(r, z, c)``, LSTM ``(i, f, g, o)``; recurrent weights are ``[gates * H, H]``.

Why the code looks like this (a step is a small GEMM and a dozen element-wise ops on [B, H]
arrays, so Python and allocation per op matter as much as the math): rows are sorted by length,
longest first, so the rows still running at step t are the first ``active[t]`` (torch's packed
sequences) and a step computes only those, with no fix-up of ended rows; every step writes into
buffers for all steps with ``out=``; sigmoid is ``tanh`` on half the input (one ufunc each, no
overflow) and the LSTM's four gates are activated by one ``tanh``; and backward stores each
step's gate gradients so the recurrent weight gradient is ONE GEMM over all ``T * B`` rows after
the loop instead of T small ones. The carried states come from the per-step states by one
gather at the end.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.nn.functional._sums import column_sums
from core.tensor import Tensor, apply


class _Packed:
    """The batch's rows sorted by length, longest first (a stable sort, so equal lengths keep
    their order): ``active[t]`` rows run at step t. Without lengths, or with every row full,
    nothing is reordered and every step runs every row."""

    def __init__(self, lengths, batch: int, steps: int, xp):
        self.xp, self.steps = xp, steps
        lens = None
        if lengths is not None:
            raw = lengths.data if isinstance(lengths, Tensor) else lengths
            lens = np.clip(backend.to_numpy(raw).reshape(-1).astype(np.int64), 0, steps)
        self.ragged = lens is not None and bool((lens < steps).any())
        if not self.ragged:
            self.active = [batch] * steps
            return
        order = np.argsort(-lens, kind="stable")
        self.lens = lens[order]                      # sorted, longest first
        self.active = [int((self.lens > t).sum()) for t in range(steps)]
        self.order = xp.asarray(order)
        self.position = xp.asarray(np.argsort(order))  # row b sits at position[b] when sorted
        # The state each output step carries: step t+1's, or the row's last real one.
        self.source = xp.asarray(np.minimum(np.arange(1, steps + 1)[None, :],
                                            self.lens[:, None]))
        self.running = xp.asarray(np.arange(steps)[None, :] < self.lens[:, None])

    def sort(self, array, axis: int = 0):
        """``array``'s rows (along ``axis``) in sorted order."""
        if not self.ragged:
            return array
        return self.xp.take(array, self.order, axis=axis)

    def unsort(self, array, axis: int = 0):
        """Sorted rows back in the caller's order."""
        if not self.ragged:
            return array
        return self.xp.take(array, self.position, axis=axis)

    def carried(self, states):
        """``[..., B, T, H]`` carried states in the caller's order from the sorted per-step
        states ``[..., B, T + 1, H]`` (index 0: the initial state)."""
        if not self.ragged:
            return states[..., 1:, :]
        rows = self.position[:, None]
        return states[..., rows, self.source[self.position], :]

    def state_grads(self, g_sorted):
        """Gradients w.r.t. the per-step states ``[..., B, T + 1, H]`` from those of the
        carried ones (sorted rows): a padded step's gradient goes to the row's last state."""
        xp = self.xp
        shape = g_sorted.shape[:-2] + (self.steps + 1, g_sorted.shape[-1])
        grads = xp.zeros(shape, dtype=g_sorted.dtype)
        grads[..., 1:, :] = g_sorted
        if self.ragged:
            padded = ~self.running[..., None]
            tails = xp.where(padded, g_sorted, 0).sum(axis=-2)       # [..., B, H]
            grads[..., 1:, :] *= self.running[..., None]
            rows = xp.arange(len(self.lens))
            grads[..., rows, xp.asarray(self.lens), :] += tails
        return grads


def _weight_grads(xp, dgates, previous, with_bias: bool):
    rows = dgates.reshape(-1, dgates.shape[-1])
    dw = rows.T @ previous.reshape(-1, previous.shape[-1])  # one GEMM over all T * B rows
    return dw, (column_sums(xp, rows) if with_bias else None)


def _buffer(xp, packed: _Packed, shape, dtype):
    """Per-step storage; zeros where rows may be skipped (their entries enter the weight
    gradient's GEMM, so they must be zero, not garbage)."""
    return (xp.zeros if packed.ragged else xp.empty)(shape, dtype=dtype)


def gru_scan(gates_x: Tensor, h0: Tensor, weight_hh: Tensor, bias_hh: Tensor | None,
             lengths=None) -> Tensor:
    """Carried GRU states ``[B, T, H]`` from input gates ``[B, T, 3H]`` and ``h0`` ``[B, H]``.

    ``r = σ(x_r + h W_r^T + b_r)``, ``z = σ(x_z + h W_z^T + b_z)``,
    ``c = tanh(x_c + r * (h W_c^T + b_c))``, ``h' = z * h + (1 - z) * c`` (Paddle's GRU).
    """
    w = weight_hh.data
    xp = backend.array_module(gates_x.data)
    batch, steps, three_h = gates_x.shape
    hid = three_h // 3
    packed = _Packed(lengths, batch, steps, xp)
    gx = packed.sort(gates_x.data)
    wt = xp.ascontiguousarray(w.T)
    dtype = gx.dtype
    gh = xp.empty((steps, batch, three_h), dtype=dtype)  # h W^T + b per step (c part kept)
    rz = xp.empty((steps, batch, 2 * hid), dtype=dtype)  # sigmoid gates r, z
    cs = xp.empty((steps, batch, hid), dtype=dtype)      # candidate c
    states = _buffer(xp, packed, (batch, steps + 1, hid), dtype)  # [:, 0] = h0
    states[:, 0] = packed.sort(h0.data)
    for t in range(steps):
        n = packed.active[t]
        if n == 0:
            break
        h = states[:n, t]
        xp.matmul(h, wt, out=gh[t, :n])
        if bias_hh is not None:
            gh[t, :n] += bias_hh.data
        a = xp.add(gx[:n, t, :2 * hid], gh[t, :n, :2 * hid], out=rz[t, :n])
        a *= 0.5
        xp.tanh(a, out=a)
        a += 1.0
        a *= 0.5  # sigmoid(x) = (tanh(x / 2) + 1) / 2
        r, z = a[:, :hid], a[:, hid:]
        c = xp.multiply(r, gh[t, :n, 2 * hid:], out=cs[t, :n])
        c += gx[:n, t, 2 * hid:]
        xp.tanh(c, out=c)
        new = xp.subtract(h, c, out=states[:n, t + 1])
        new *= z
        new += c  # z * h + (1 - z) * c
    parents = (gates_x, h0, weight_hh) + ((bias_hh,) if bias_hh is not None else ())

    def backward(g):
        g_states = packed.state_grads(packed.sort(g))
        dgx = _buffer(xp, packed, gx.shape, dtype)
        dgh = _buffer(xp, packed, (batch, steps, three_h), dtype)
        carry = xp.zeros((batch, hid), dtype=dtype)
        for t in range(steps - 1, -1, -1):
            n = packed.active[t]
            if n == 0:
                continue
            hp, r, z, c = states[:n, t], rz[t, :n, :hid], rz[t, :n, hid:], cs[t, :n]
            dnew = g_states[:n, t + 1] + carry[:n]
            dz = (hp - c) * dnew
            dz *= z * (1 - z)
            dac = (1 - z) * dnew
            dac *= 1 - c * c
            dr = dac * gh[t, :n, 2 * hid:]
            dr *= r * (1 - r)
            dgx[:n, t, :hid], dgx[:n, t, hid:2 * hid], dgx[:n, t, 2 * hid:] = dr, dz, dac
            dgh[:n, t, :2 * hid] = dgx[:n, t, :2 * hid]
            xp.multiply(dac, r, out=dgh[:n, t, 2 * hid:])
            back = dgh[:n, t] @ w
            back += dnew * z
            carry[:n] = back
        carry += g_states[:, 0]  # rows of length 0 carry h0 itself
        dw, db = _weight_grads(xp, dgh, states[:, :steps], bias_hh is not None)
        return (packed.unsort(dgx), packed.unsort(carry), dw) + \
            ((db,) if bias_hh is not None else ())

    return apply(packed.carried(states), parents, backward, "gru")


def lstm_scan(gates_x: Tensor, h0: Tensor, c0: Tensor, weight_hh: Tensor,
              bias_hh: Tensor | None, lengths=None) -> Tensor:
    """Carried LSTM states stacked as ``[2, B, T, H]`` (hidden, cell) from gates ``[B, T, 4H]``.

    ``i, f, o = σ(.)``, ``g = tanh(.)`` of ``x + h W^T + b``; ``c' = f * c + i * g``,
    ``h' = o * tanh(c')`` (Paddle's LSTM, gate order i, f, g, o).
    """
    w = weight_hh.data
    xp = backend.array_module(gates_x.data)
    batch, steps, four_h = gates_x.shape
    hid = four_h // 4
    packed = _Packed(lengths, batch, steps, xp)
    gx = packed.sort(gates_x.data)
    dtype = gx.dtype
    wt = xp.ascontiguousarray(w.T)
    # One tanh activates all four gates: sigmoid(x) = tanh(x / 2) / 2 + 1 / 2 for i, f, o.
    half = xp.full(four_h, 0.5, dtype=dtype)
    half[2 * hid:3 * hid] = 1.0
    offset = xp.where(half == 0.5, half, 0).astype(dtype)
    acts = xp.empty((steps, batch, four_h), dtype=dtype)
    tcs = xp.empty((steps, batch, hid), dtype=dtype)
    states = _buffer(xp, packed, (2, batch, steps + 1, hid), dtype)  # hidden, cell; [:, :, 0]
    states[0, :, 0], states[1, :, 0] = packed.sort(h0.data), packed.sort(c0.data)
    for t in range(steps):
        n = packed.active[t]
        if n == 0:
            break
        h, c = states[0, :n, t], states[1, :n, t]
        a = xp.matmul(h, wt, out=acts[t, :n])
        a += gx[:n, t]
        if bias_hh is not None:
            a += bias_hh.data
        a *= half
        xp.tanh(a, out=a)
        a *= half
        a += offset
        i, f, gg, o = (a[:, k * hid:(k + 1) * hid] for k in range(4))
        c_new = xp.multiply(f, c, out=states[1, :n, t + 1])
        c_new += i * gg
        tc = xp.tanh(c_new, out=tcs[t, :n])
        xp.multiply(o, tc, out=states[0, :n, t + 1])
    parents = (gates_x, h0, c0, weight_hh) + ((bias_hh,) if bias_hh is not None else ())

    def backward(g):
        g_states = packed.state_grads(packed.sort(g, axis=1))
        dgx = _buffer(xp, packed, gx.shape, dtype)
        dh_next, dc_next = (xp.zeros((batch, hid), dtype=dtype) for _ in range(2))
        for t in range(steps - 1, -1, -1):
            n = packed.active[t]
            if n == 0:
                continue
            cp, a, tc = states[1, :n, t], acts[t, :n], tcs[t, :n]
            i, f, gg, o = (a[:, k * hid:(k + 1) * hid] for k in range(4))
            dh = g_states[0, :n, t + 1] + dh_next[:n]
            dc = g_states[1, :n, t + 1] + dc_next[:n]
            dc += dh * o * (1 - tc * tc)
            da = dgx[:n, t]
            xp.multiply(dc * gg, i * (1 - i), out=da[:, :hid])
            xp.multiply(dc * cp, f * (1 - f), out=da[:, hid:2 * hid])
            xp.multiply(dc * i, 1 - gg * gg, out=da[:, 2 * hid:3 * hid])
            xp.multiply(dh * tc, o * (1 - o), out=da[:, 3 * hid:])
            dh_next[:n] = da @ w
            xp.multiply(dc, f, out=dc_next[:n])
        dh_next += g_states[0, :, 0]  # rows of length 0 carry the initial states themselves
        dc_next += g_states[1, :, 0]
        dw, db = _weight_grads(xp, dgx, states[0, :, :steps], bias_hh is not None)
        return (packed.unsort(dgx), packed.unsort(dh_next), packed.unsort(dc_next), dw) + \
            ((db,) if bias_hh is not None else ())

    return apply(packed.carried(states), parents, backward, "lstm")
