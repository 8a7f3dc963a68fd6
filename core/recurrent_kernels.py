"""One recurrent time step's element-wise work, the part after its GEMM, for GRU, LSTM and
SimpleRNN (core.nn.functional.rnn), in the two forms ``core.backend_kernels`` hands out.

The host functions are numpy with ``out=`` buffers, the code the recurrences always ran: on a
CPU each call is a pass over a few KB that stays in cache. The device kernels compute the same
function in ONE cupy ``ElementwiseKernel`` per step and direction: a GPU step of a GRU was a
dozen launches forward and about twenty-five backward, each far longer to issue than to run, so
the recurrent networks ran at 0.13-0.15x torch's cuDNN RNN on an H200 (docs/gpu.md).

Buffers (all ``[n, ...]`` over the n rows still running at this step):

* GRU: ``g`` = h W_hh^T, gates (r, z, c) side by side; ``gx`` the step's input projection with
  every bias that adds to a gate directly; ``c_bias`` the recurrent candidate bias (it sits
  inside ``r * (.)``), added into ``g``'s candidate part, where the backward reads it.
  The sigmoid gates' rows of both weights are pre-scaled by 1/2: sigmoid(a) = (tanh(a) + 1) / 2.
* LSTM: ``a`` = h W_hh^T, gates (i, f, g, o), overwritten with the activated gates; the same
  halving for i, f and o.
* SimpleRNN: ``a`` = h W_hh^T, overwritten with the new state.

A device kernel indexes the ``raw`` gate blocks by row and unit (``i`` runs over [n, H]): they
are C-contiguous, a step's slice of a time-major buffer. No input may share memory with an
output, or cupy would copy it first: a step reads states[t] and writes states[t + 1], disjoint
blocks of one buffer.
"""
from __future__ import annotations

import numpy as np


# ----- host: numpy, into the caller's buffers -------------------------------------------------
def gru_step(gx, g, h, c_bias, rz, c, new) -> None:
    """r, z = sigmoid gates into ``rz``; ``c`` = tanh(gx_c + r * (g_c + c_bias));
    ``new`` = z * h + (1 - z) * c."""
    hid = h.shape[1]
    if c_bias is not None:
        g[:, 2 * hid:] += c_bias
    a = np.add(gx[:, :2 * hid], g[:, :2 * hid], out=rz)
    np.tanh(a, out=a)
    a += 1.0
    a *= 0.5
    r, z = a[:, :hid], a[:, hid:]
    np.multiply(r, g[:, 2 * hid:], out=c)
    c += gx[:, 2 * hid:]
    np.tanh(c, out=c)
    np.subtract(h, c, out=new)
    new *= z
    new += c  # z * h + (1 - z) * c


def gru_step_grad(hp, rz, c, gc, g_state, carry, dgx, dgh) -> None:
    """From the state's gradient ``g_state + carry``: the input-side gate gradients ``dgx``
    (r, z, c), the recurrent side's ``dgh`` (r, z, and c times r), and ``carry`` = the part of
    the previous state's gradient that skips the GEMM (dh' * z). The caller adds dgh W_hh."""
    hid = hp.shape[1]
    r, z = rz[:, :hid], rz[:, hid:]
    dnew = g_state + carry
    dz = (hp - c) * dnew
    dz *= z * (1 - z)
    dac = (1 - z) * dnew
    dac *= 1 - c * c
    dr = dac * gc
    dr *= r * (1 - r)
    dgx[:, :hid], dgx[:, hid:2 * hid], dgx[:, 2 * hid:] = dr, dz, dac
    dgh[:, :2 * hid] = dgx[:, :2 * hid]
    np.multiply(dac, r, out=dgh[:, 2 * hid:])
    np.multiply(dnew, z, out=carry)


def lstm_step(a, gx, c, half, offset, c_new, tc, h_new) -> None:
    """Gates activated in ``a`` (``tanh(a + gx) * half + offset``: sigmoid for i, f, o, tanh
    for g); ``c_new`` = f * c + i * g, ``tc`` = tanh(c_new), ``h_new`` = o * tc."""
    hid = c.shape[1]
    a += gx
    np.tanh(a, out=a)
    a *= half
    a += offset
    i, f, gg, o = (a[:, j * hid:(j + 1) * hid] for j in range(4))
    np.multiply(f, c, out=c_new)
    c_new += i * gg
    np.tanh(c_new, out=tc)
    np.multiply(o, tc, out=h_new)


def lstm_step_grad(cp, a, tc, gs_h, gs_c, dh_next, dc_next, da) -> None:
    """From the states' gradients (``gs_h + dh_next``, ``gs_c + dc_next``): the gate gradients
    ``da`` (i, f, g, o) and ``dc_next`` = dc * f. The caller sets dh_next = da W_hh."""
    hid = cp.shape[1]
    i, f, gg, o = (a[:, j * hid:(j + 1) * hid] for j in range(4))
    dh = gs_h + dh_next
    dc = gs_c + dc_next
    dc += dh * o * (1 - tc * tc)
    np.multiply(dc * gg, i * (1 - i), out=da[:, :hid])
    np.multiply(dc * cp, f * (1 - f), out=da[:, hid:2 * hid])
    np.multiply(dc * i, 1 - gg * gg, out=da[:, 2 * hid:3 * hid])
    np.multiply(dh * tc, o * (1 - o), out=da[:, 3 * hid:])
    np.multiply(dc, f, out=dc_next)


def rnn_step(a, gx, activation: str) -> None:
    """``a`` = act(a + gx), in place."""
    a += gx
    if activation == "tanh":
        np.tanh(a, out=a)
    else:
        np.maximum(a, 0, out=a)


def rnn_step_grad(g_state, carry, out, d, activation: str) -> None:
    """``d`` = (g_state + carry) * act'(from the step's output ``out``)."""
    np.add(g_state, carry, out=d)
    if activation == "tanh":
        d *= 1 - out * out
    else:
        d *= out > 0


# ----- device: one cupy ElementwiseKernel each ((in params, out params, body, name)) ----------
_ROW = "const ptrdiff_t row = i / hid, j = i - row * hid;\n"

GRU_STEP = (
    "raw T gx, T h, T c_bias, int64 hid", "raw T g, raw T rz, T c, T h_new",
    _ROW + """
    const ptrdiff_t b3 = row * 3 * hid, b2 = row * 2 * hid;
    const T gc = g[b3 + 2 * hid + j] + c_bias;
    g[b3 + 2 * hid + j] = gc;
    const T r = (tanh(gx[b3 + j] + g[b3 + j]) + (T)1) * (T)0.5;
    const T z = (tanh(gx[b3 + hid + j] + g[b3 + hid + j]) + (T)1) * (T)0.5;
    rz[b2 + j] = r;
    rz[b2 + hid + j] = z;
    const T cc = tanh(r * gc + gx[b3 + 2 * hid + j]);
    c = cc;
    h_new = (h - cc) * z + cc;
    """, "tomlrun_gru_step")

GRU_STEP_GRAD = (
    "T hp, T r, T z, T c, T gc, T g_state, int64 hid", "T carry, raw T dgx, raw T dgh",
    _ROW + """
    const ptrdiff_t b3 = row * 3 * hid;
    const T dnew = g_state + carry;
    const T dz = ((hp - c) * dnew) * (z * ((T)1 - z));
    const T dac = (((T)1 - z) * dnew) * ((T)1 - c * c);
    const T dr = (dac * gc) * (r * ((T)1 - r));
    dgx[b3 + j] = dr;
    dgx[b3 + hid + j] = dz;
    dgx[b3 + 2 * hid + j] = dac;
    dgh[b3 + j] = dr;
    dgh[b3 + hid + j] = dz;
    dgh[b3 + 2 * hid + j] = dac * r;
    carry = dnew * z;
    """, "tomlrun_gru_step_grad")

LSTM_STEP = (
    "raw T gx, T c, int64 hid", "raw T a, T c_new, T tc, T h_new",
    _ROW + """
    const ptrdiff_t b = row * 4 * hid;
    const T ig = tanh(a[b + j] + gx[b + j]) * (T)0.5 + (T)0.5;
    const T fg = tanh(a[b + hid + j] + gx[b + hid + j]) * (T)0.5 + (T)0.5;
    const T gg = tanh(a[b + 2 * hid + j] + gx[b + 2 * hid + j]);
    const T og = tanh(a[b + 3 * hid + j] + gx[b + 3 * hid + j]) * (T)0.5 + (T)0.5;
    a[b + j] = ig;
    a[b + hid + j] = fg;
    a[b + 2 * hid + j] = gg;
    a[b + 3 * hid + j] = og;
    const T cn = fg * c + ig * gg;
    const T t = tanh(cn);
    c_new = cn;
    tc = t;
    h_new = og * t;
    """, "tomlrun_lstm_step")

LSTM_STEP_GRAD = (
    "T cp, raw T a, T tc, T gs_h, T gs_c, T dh_next, int64 hid", "T dc_next, raw T da",
    _ROW + """
    const ptrdiff_t b = row * 4 * hid;
    const T ig = a[b + j], fg = a[b + hid + j], gg = a[b + 2 * hid + j];
    const T og = a[b + 3 * hid + j];
    const T dh = gs_h + dh_next;
    const T dc = (gs_c + dc_next) + dh * og * ((T)1 - tc * tc);
    da[b + j] = (dc * gg) * (ig * ((T)1 - ig));
    da[b + hid + j] = (dc * cp) * (fg * ((T)1 - fg));
    da[b + 2 * hid + j] = (dc * ig) * ((T)1 - gg * gg);
    da[b + 3 * hid + j] = (dh * tc) * (og * ((T)1 - og));
    dc_next = dc * fg;
    """, "tomlrun_lstm_step_grad")

RNN_STEP = {
    "tanh": ("T gx", "T a", "a = tanh(a + gx)", "tomlrun_rnn_step_tanh"),
    "relu": ("T gx", "T a", "const T s = a + gx; a = (s > (T)0 || isnan(s)) ? s : (T)0",
             "tomlrun_rnn_step_relu"),  # NaN stays NaN, as numpy's maximum keeps it
}

RNN_STEP_GRAD = {
    "tanh": ("T g_state, T carry, T out", "T d", "d = (g_state + carry) * ((T)1 - out * out)",
             "tomlrun_rnn_step_grad_tanh"),
    "relu": ("T g_state, T carry, T out", "T d", "d = (g_state + carry) * (T)(out > (T)0)",
             "tomlrun_rnn_step_grad_relu"),
}
