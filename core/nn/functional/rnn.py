"""Recurrences over padded batches: one fused op per layer for GRU and LSTM.

The input projection of every step (``x @ W_ih^T + b_ih``) is one GEMM done by the caller; the
ops here run the recurrence, store what backpropagation through time needs, and return the
*carried* states ``[batch, T, H]``: at a padded step (``t >= length``) a row keeps its last real
state, so the last column is each row's final state, whatever its length. Gate orders follow
Paddle: GRU ``(r, z, c)``, LSTM ``(i, f, g, o)``; recurrent weights are ``[gates * H, H]``.

Why the code looks like this (a step is a small GEMM and a dozen element-wise ops on [B, H]
arrays, so Python and allocation per op matter as much as the math): every step writes into
buffers for all steps (gates, states) with ``out=``; sigmoid is ``tanh`` on half the input
(one ufunc each, no overflow) and the LSTM's four gates are activated by one ``tanh``; rows
past their length are fixed up only at the steps where some row has ended; and backward
stores each step's gate gradients so the recurrent weight gradient is ONE GEMM over all
``T * B`` rows after the loop instead of T small ones.
"""
from __future__ import annotations

from core import backend
from core.tensor import Tensor, apply


class _Lengths:
    """Which rows are still running at each step: ``ended(t)`` is None while every row runs
    (nothing to fix up), else (boolean [B, 1] of running rows, its complement as floats)."""

    def __init__(self, lengths, batch: int, steps: int, dtype, xp):
        self.first_end = steps
        if lengths is not None:
            lens = lengths.data if isinstance(lengths, Tensor) else backend.asarray(lengths)
            lens = lens.reshape(-1)
            self.first_end = min(steps, int(lens.min())) if batch else steps
            self.running = (xp.arange(steps)[None, :] < lens[:, None]).astype(dtype)

    def ended(self, t: int):
        if t < self.first_end:
            return None
        keep = self.running[:, t, None]
        return keep, 1 - keep


def _previous(xp, h0, hs):
    """[B, T, H]: the state each step started from (h0, then the carried states)."""
    return xp.concatenate([h0[:, None], hs[:, :-1]], axis=1)


def _weight_grads(xp, dgates, previous, with_bias: bool):
    rows = dgates.reshape(-1, dgates.shape[-1])
    dw = rows.T @ previous.reshape(-1, previous.shape[-1])  # one GEMM over all T * B rows
    return dw, (rows.sum(axis=0) if with_bias else None)


def gru_scan(gates_x: Tensor, h0: Tensor, weight_hh: Tensor, bias_hh: Tensor | None,
             lengths=None) -> Tensor:
    """Carried GRU states ``[B, T, H]`` from input gates ``[B, T, 3H]`` and ``h0`` ``[B, H]``.

    ``r = σ(x_r + h W_r^T + b_r)``, ``z = σ(x_z + h W_z^T + b_z)``,
    ``c = tanh(x_c + r * (h W_c^T + b_c))``, ``h' = z * h + (1 - z) * c`` (Paddle's GRU).
    """
    gx, w = gates_x.data, weight_hh.data
    xp = backend.array_module(gx)
    batch, steps, three_h = gx.shape
    hid = three_h // 3
    span = _Lengths(lengths, batch, steps, gx.dtype, xp)
    wt = xp.ascontiguousarray(w.T)
    gh = xp.empty((steps, batch, three_h), dtype=gx.dtype)  # h W^T + b per step (c part kept)
    rz = xp.empty((steps, batch, 2 * hid), dtype=gx.dtype)  # sigmoid gates r, z
    cs = xp.empty((steps, batch, hid), dtype=gx.dtype)      # candidate c
    hs = xp.empty((batch, steps, hid), dtype=gx.dtype)
    h = h0.data
    for t in range(steps):
        xp.matmul(h, wt, out=gh[t])
        if bias_hh is not None:
            gh[t] += bias_hh.data
        a = xp.add(gx[:, t, :2 * hid], gh[t, :, :2 * hid], out=rz[t])
        a *= 0.5
        xp.tanh(a, out=a)
        a += 1.0
        a *= 0.5  # sigmoid(x) = (tanh(x / 2) + 1) / 2
        r, z = a[:, :hid], a[:, hid:]
        c = xp.multiply(r, gh[t, :, 2 * hid:], out=cs[t])
        c += gx[:, t, 2 * hid:]
        xp.tanh(c, out=c)
        new = xp.subtract(h, c, out=hs[:, t])
        new *= z
        new += c  # z * h + (1 - z) * c
        ended = span.ended(t)
        if ended is not None:
            new *= ended[0]
            new += ended[1] * h
        h = new
    parents = (gates_x, h0, weight_hh) + ((bias_hh,) if bias_hh is not None else ())

    def backward(g):
        dgx = xp.empty_like(gx)
        dgh = xp.empty((batch, steps, three_h), dtype=gx.dtype)
        carry = xp.zeros_like(h0.data)
        for t in range(steps - 1, -1, -1):
            hp = hs[:, t - 1] if t else h0.data
            r, z, c = rz[t, :, :hid], rz[t, :, hid:], cs[t]
            dh = g[:, t] + carry
            ended = span.ended(t)
            dnew = dh if ended is None else dh * ended[0]
            dz = (hp - c) * dnew
            dz *= z * (1 - z)
            dac = (1 - z) * dnew
            dac *= 1 - c * c
            dr = dac * gh[t, :, 2 * hid:]
            dr *= r * (1 - r)
            dgx[:, t, :hid], dgx[:, t, hid:2 * hid], dgx[:, t, 2 * hid:] = dr, dz, dac
            dgh[:, t, :2 * hid] = dgx[:, t, :2 * hid]
            xp.multiply(dac, r, out=dgh[:, t, 2 * hid:])
            carry = dgh[:, t] @ w
            carry += dnew * z
            if ended is not None:
                carry += ended[1] * dh
        dw, db = _weight_grads(xp, dgh, _previous(xp, h0.data, hs), bias_hh is not None)
        return (dgx, carry, dw) + ((db,) if bias_hh is not None else ())

    return apply(hs, parents, backward, "gru")


def lstm_scan(gates_x: Tensor, h0: Tensor, c0: Tensor, weight_hh: Tensor,
              bias_hh: Tensor | None, lengths=None) -> Tensor:
    """Carried LSTM states stacked as ``[2, B, T, H]`` (hidden, cell) from gates ``[B, T, 4H]``.

    ``i, f, o = σ(.)``, ``g = tanh(.)`` of ``x + h W^T + b``; ``c' = f * c + i * g``,
    ``h' = o * tanh(c')`` (Paddle's LSTM, gate order i, f, g, o).
    """
    gx, w = gates_x.data, weight_hh.data
    xp = backend.array_module(gx)
    batch, steps, four_h = gx.shape
    hid = four_h // 4
    span = _Lengths(lengths, batch, steps, gx.dtype, xp)
    wt = xp.ascontiguousarray(w.T)
    # One tanh activates all four gates: sigmoid(x) = tanh(x / 2) / 2 + 1 / 2 for i, f, o.
    half = xp.full(four_h, 0.5, dtype=gx.dtype)
    half[2 * hid:3 * hid] = 1.0
    offset = xp.where(half == 0.5, half, 0).astype(gx.dtype)
    acts = xp.empty((steps, batch, four_h), dtype=gx.dtype)
    tcs = xp.empty((steps, batch, hid), dtype=gx.dtype)
    out = xp.empty((2, batch, steps, hid), dtype=gx.dtype)
    h, c = h0.data, c0.data
    for t in range(steps):
        a = xp.matmul(h, wt, out=acts[t])
        a += gx[:, t]
        if bias_hh is not None:
            a += bias_hh.data
        a *= half
        xp.tanh(a, out=a)
        a *= half
        a += offset
        i, f, gg, o = (a[:, k * hid:(k + 1) * hid] for k in range(4))
        c_new = xp.multiply(f, c, out=out[1, :, t])
        c_new += i * gg
        tc = xp.tanh(c_new, out=tcs[t])
        h_new = xp.multiply(o, tc, out=out[0, :, t])
        ended = span.ended(t)
        if ended is not None:
            for new, old in ((h_new, h), (c_new, c)):
                new *= ended[0]
                new += ended[1] * old
        h, c = h_new, c_new
    parents = (gates_x, h0, c0, weight_hh) + ((bias_hh,) if bias_hh is not None else ())

    def backward(g):
        dgx = xp.empty_like(gx)
        dh_next, dc_next = xp.zeros_like(h0.data), xp.zeros_like(c0.data)
        for t in range(steps - 1, -1, -1):
            cp = out[1, :, t - 1] if t else c0.data
            a, tc = acts[t], tcs[t]
            i, f, gg, o = (a[:, k * hid:(k + 1) * hid] for k in range(4))
            dh = g[0, :, t] + dh_next
            dc = g[1, :, t] + dc_next
            ended = span.ended(t)
            dhn, dcn = (dh, dc) if ended is None else (dh * ended[0], dc * ended[0])
            dcn = dcn + dhn * o * (1 - tc * tc)
            da = dgx[:, t]
            xp.multiply(dcn * gg, i * (1 - i), out=da[:, :hid])
            xp.multiply(dcn * cp, f * (1 - f), out=da[:, hid:2 * hid])
            xp.multiply(dcn * i, 1 - gg * gg, out=da[:, 2 * hid:3 * hid])
            xp.multiply(dhn * tc, o * (1 - o), out=da[:, 3 * hid:])
            dh_next = da @ w
            dc_next = dcn * f
            if ended is not None:
                dh_next += ended[1] * dh
                dc_next += ended[1] * dc
        dw, db = _weight_grads(xp, dgx, _previous(xp, h0.data, out[0]), bias_hh is not None)
        return (dgx, dh_next, dc_next, dw) + ((db,) if bias_hh is not None else ())

    return apply(out, parents, backward, "lstm")
