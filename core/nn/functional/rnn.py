"""Recurrences over padded batches: one fused op per layer for GRU and LSTM.

The input projection of every step (``x @ W_ih^T + b_ih``) is one GEMM done by the caller; the
ops here run the recurrence, store what backpropagation through time needs, and return the
*carried* states ``[batch, T, H]``: at a padded step (``t >= length``) a row keeps its last real
state, so the last column is each row's final state, whatever its length. Gate orders follow
Paddle: GRU ``(r, z, c)``, LSTM ``(i, f, g, o)``; recurrent weights are ``[gates * H, H]``.
"""
from __future__ import annotations

from core import backend
from core.tensor import Tensor, apply


def _sigmoid(xp, a):
    return 0.5 * (xp.tanh(0.5 * a) + 1.0)  # never overflows


def _mask(lengths, batch: int, steps: int, dtype, xp):
    if lengths is None:
        return xp.ones((batch, steps, 1), dtype=dtype)
    lens = lengths.data if isinstance(lengths, Tensor) else backend.asarray(lengths)
    return (xp.arange(steps)[None, :] < lens.reshape(-1, 1)).astype(dtype)[:, :, None]


def gru_scan(gates_x: Tensor, h0: Tensor, weight_hh: Tensor, bias_hh: Tensor | None,
             lengths=None) -> Tensor:
    """Carried GRU states ``[B, T, H]`` from input gates ``[B, T, 3H]`` and ``h0`` ``[B, H]``.

    ``r = σ(x_r + h W_r^T + b_r)``, ``z = σ(x_z + h W_z^T + b_z)``,
    ``c = tanh(x_c + r * (h W_c^T + b_c))``, ``h' = z * h + (1 - z) * c`` (Paddle's GRU).
    """
    gx, w = gates_x.data, weight_hh.data
    xp = backend.array_module(gx)
    batch, steps, three_h = gx.shape
    hidden = three_h // 3
    mask = _mask(lengths, batch, steps, gx.dtype, xp)
    b = bias_hh.data if bias_hh is not None else xp.zeros(three_h, dtype=gx.dtype)
    hs = xp.empty((batch, steps, hidden), dtype=gx.dtype)
    saved = []
    h = h0.data
    for t in range(steps):
        gh = h @ w.T + b
        r = _sigmoid(xp, gx[:, t, :hidden] + gh[:, :hidden])
        z = _sigmoid(xp, gx[:, t, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
        c = xp.tanh(gx[:, t, 2 * hidden:] + r * gh[:, 2 * hidden:])
        new = z * h + (1 - z) * c
        saved.append((h, r, z, c, gh[:, 2 * hidden:]))
        h = mask[:, t] * new + (1 - mask[:, t]) * h
        hs[:, t] = h
    parents = (gates_x, h0, weight_hh) + ((bias_hh,) if bias_hh is not None else ())

    def backward(g):
        dgx = xp.empty_like(gx)
        dw, db = xp.zeros_like(w), xp.zeros_like(b)
        carry = xp.zeros_like(h0.data)
        for t in range(steps - 1, -1, -1):
            hp, r, z, c, hc = saved[t]
            m = mask[:, t]
            dh = g[:, t] + carry
            dnew = m * dh
            dhp = (1 - m) * dh + dnew * z
            dz = dnew * (hp - c) * z * (1 - z)
            dac = dnew * (1 - z) * (1 - c * c)
            dr = dac * hc * r * (1 - r)
            dgx[:, t, :hidden], dgx[:, t, hidden:2 * hidden], dgx[:, t, 2 * hidden:] = dr, dz, dac
            dgh = xp.concatenate([dr, dz, dac * r], axis=1)
            dw += dgh.T @ hp
            db += dgh.sum(axis=0)
            carry = dhp + dgh @ w
        grads = (dgx, carry, dw)
        return grads + ((db,) if bias_hh is not None else ())

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
    hidden = four_h // 4
    mask = _mask(lengths, batch, steps, gx.dtype, xp)
    b = bias_hh.data if bias_hh is not None else xp.zeros(four_h, dtype=gx.dtype)
    out = xp.empty((2, batch, steps, hidden), dtype=gx.dtype)
    saved = []
    h, c = h0.data, c0.data
    for t in range(steps):
        a = gx[:, t] + h @ w.T + b
        i = _sigmoid(xp, a[:, :hidden])
        f = _sigmoid(xp, a[:, hidden:2 * hidden])
        gg = xp.tanh(a[:, 2 * hidden:3 * hidden])
        o = _sigmoid(xp, a[:, 3 * hidden:])
        c_new = f * c + i * gg
        tc = xp.tanh(c_new)
        saved.append((h, c, i, f, gg, o, tc))
        m = mask[:, t]
        h = m * (o * tc) + (1 - m) * h
        c = m * c_new + (1 - m) * c
        out[0, :, t], out[1, :, t] = h, c
    parents = (gates_x, h0, c0, weight_hh) + ((bias_hh,) if bias_hh is not None else ())

    def backward(g):
        dgx = xp.empty_like(gx)
        dw, db = xp.zeros_like(w), xp.zeros_like(b)
        dh_next, dc_next = xp.zeros_like(h0.data), xp.zeros_like(c0.data)
        for t in range(steps - 1, -1, -1):
            hp, cp, i, f, gg, o, tc = saved[t]
            m = mask[:, t]
            dh = g[0, :, t] + dh_next
            dc = g[1, :, t] + dc_next
            dhn, dcn = m * dh, m * dc
            dcn = dcn + dhn * o * (1 - tc * tc)
            da = xp.concatenate([dcn * gg * i * (1 - i), dcn * cp * f * (1 - f),
                                 dcn * i * (1 - gg * gg), dhn * tc * o * (1 - o)], axis=1)
            dgx[:, t] = da
            dw += da.T @ hp
            db += da.sum(axis=0)
            dh_next = (1 - m) * dh + da @ w
            dc_next = (1 - m) * dc + dcn * f
        grads = (dgx, dh_next, dc_next, dw)
        return grads + ((db,) if bias_hh is not None else ())

    return apply(out, parents, backward, "lstm")
