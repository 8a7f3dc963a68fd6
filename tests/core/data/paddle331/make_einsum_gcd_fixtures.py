"""Produce tests/core/data/paddle331/misc/einsum_gcd.npz with real Paddle 3.3.1 (CPU):

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_einsum_gcd_fixtures.py

Not collected by pytest and never imported by the tests (the project does not depend on
Paddle). ``einsum/<i>/...``: an equation using '...' (or a diagonal, a size-1 broadcast or
upper-case labels), its float64 operands ``x<k>``, Paddle's output ``out`` and the gradients
``dx<k>`` of ``sum(out * w)``; replayed by tests/core/test_einsum_ellipsis.py.
``gcd/<i>/...``, ``lcm/<i>/...`` and ``ldexp/<i>/...``: inputs ``x`` and ``y`` (their dtypes
kept), Paddle's ``out`` and, where Paddle has them, the gradients of ``sum(out * w)``; replayed
by tests/core/test_gcd_lcm_float.py. Cases where Paddle 3.3.1 loops forever (a NaN or an
infinity that reaches its Euclid loop) or crashes are left out; the tests say what core does.
"""
from __future__ import annotations

import os

import numpy as np
import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "misc", "einsum_gcd.npz")
RNG = np.random.default_rng(3318)
DATA: dict[str, np.ndarray] = {}

EINSUM_CASES = [
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 3, 4), (2, 4, 5)]),                # implicit: '...' then i, k
    ("...ij,jk->...ik", [(2, 3), (3, 2)]),                 # '...' of no dimension
    ("...ij,...jk->...ik", [(1, 3, 4), (2, 4, 5)]),        # size-1 '...' broadcast
    ("...ij,...jk->...ik", [(3, 1, 3, 4), (2, 4, 5)]),     # different ranks
    ("...ij,...jk->ik...", [(3, 1, 3, 4), (2, 4, 5)]),     # '...' last in the output
    ("i...->...", [(3, 4, 5)]),
    ("...", [(3, 4)]),
    ("...->...", [(3, 4)]),
    ("...,...->...", [(3, 4), (4,)]),
    ("...ii->...i", [(2, 3, 3)]),                          # diagonal
    ("i...i->...i", [(3, 2, 3)]),
    ("...ii", [(2, 3, 3)]),                                # trace under implicit output
    ("...ii,...i->...i", [(2, 3, 3), (3,)]),
    ("ba...,...c", [(2, 3, 4), (4, 5)]),                   # implicit: '...', a, b, c
    ("a...b->...", [(2, 3)]),
    ("a...b", [(2, 3)]),
    ("... ij , ...jk -> ...ik", [(2, 3, 4), (2, 4, 5)]),   # spaces
    ("...ij,...jk->...", [(2, 3, 4), (2, 4, 5)]),
    ("i...,j...->ij...", [(2, 3), (4, 3)]),
    ("i...,j...->...ij", [(2, 3), (4, 1)]),
    ("...i,...i->...", [(2, 3, 4), (4,)]),
    ("ij...,jk...->ik...", [(2, 3, 4), (3, 4, 1)]),
    ("i...j,j...k->i...k", [(2, 3, 4), (4, 3, 5)]),        # '...' in the middle
    ("ij,jk->ik...", [(2, 3), (3, 4)]),
    ("Ab...,Ab...", [(2, 3, 1), (2, 1, 4)]),               # case-insensitive, label broadcast
    ("...i,...i,...i->...", [(2, 3), (1, 3), (2, 3)]),     # three operands
    ("...ij,...jk,...kl->...il", [(2, 2, 3), (1, 3, 4), (2, 4, 2)]),
    ("ij,jk", [(2, 3), (1, 4)]),                           # a letter of size 1 broadcasts
    ("ij,ij->ij", [(2, 1), (1, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("IJ,JK->IK", [(2, 3), (3, 4)]),
    ("i...,j", [(2, 3), (3,)]),
    ("ij->ji...", [(2, 3)]),
]


def einsum_cases() -> None:
    for i, (eq, shapes) in enumerate(EINSUM_CASES):
        key = f"einsum/{i}"
        arrays = [RNG.standard_normal(s) for s in shapes]
        ts = []
        for k, a in enumerate(arrays):
            t = paddle.to_tensor(a)
            t.stop_gradient = False
            ts.append(t)
            DATA[f"{key}/x{k}"] = a
        out = paddle.einsum(eq, *ts)
        w = RNG.standard_normal(out.shape)
        DATA[f"{key}/eq"] = np.array(eq)
        DATA[f"{key}/out"] = out.numpy()
        DATA[f"{key}/w"] = w
        try:
            (out * paddle.to_tensor(w)).sum().backward()
        except RuntimeError as err:  # a few backward passes fail inside Paddle 3.3.1
            print(f"{key} {eq!r}: no gradients, Paddle's backward failed: "
                  f"{str(err).splitlines()[0][:120]}")
            continue
        for k, t in enumerate(ts):
            DATA[f"{key}/dx{k}"] = t.grad.numpy()


INF = np.inf
GCD_CASES = [  # (x, y, x dtype, y dtype)
    ([4, 6, -4, 0, 0, 2.5, 1.0, 7.5, 3, -6, 1e30, 0.1, -0.0, 5.0, 1e-3, 3.3, 10, 12],
     [6, 9, 6, 5, 0, 1.0, 2.5, 2.5, 3, -9, 7, 0.3, 3.0, -0.0, 7e-4, 1.1, 4, -18],
     "float32", "float32"),
    ([4, 6, -4, 0, 0, 2.5, 1.0, 7.5, 3, -6, 1e30, 0.1, -0.0, 5.0, 1e-3, 3.3, 10, 12],
     [6, 9, 6, 5, 0, 1.0, 2.5, 2.5, 3, -9, 7, 0.3, 3.0, -0.0, 7e-4, 1.1, 4, -18],
     "float64", "float64"),
    ([-2.5, 2.5, -7.5, -1.0, 0.0], [1.0, -1.0, -2.5, 0.0, -3.0], "float64", "float64"),
    ([INF, 0.0, -INF, 1e200, 3e7, np.nan], [0.0, INF, 0.0, 3e200, 7e7, 0.0],
     "float64", "float64"),
    # Paddle's float "!= 0" is |y| >= 1e-15: a smaller remainder ends Euclid's loop
    ([5.0, 1e-16, 1e-15, 2e-15, 0.1, 1e-3], [1e-16, 5.0, 3.0, 0.0, 0.3, 7e-4],
     "float64", "float64"),
    ([[4.0], [6.0]], [6.0, 9.0, 12.0], "float32", "float32"),        # broadcast
    ([4.0], [[6.0, 9.0], [2.0, 3.0]], "float32", "float32"),
    ([4.0, 6.0], [6.0, 9.0], "float32", "float64"),                  # promotes to float64
    (4.0, 6.0, "float32", "float32"),                                # 0-D
    ([12, 0, -9, 7], [8, 0, 6, -21], "int64", "int64"),
    ([12, 0, -9, 7], [8, 0, 6, -21], "int32", "int32"),
]


def gcd_lcm_cases() -> None:
    for fn in ("gcd", "lcm"):
        for i, (x, y, xd, yd) in enumerate(GCD_CASES):
            key = f"{fn}/{i}"
            xa, ya = np.array(x, dtype=xd), np.array(y, dtype=yd)
            xt, yt = paddle.to_tensor(xa), paddle.to_tensor(ya)
            floating = xa.dtype.kind == "f"
            xt.stop_gradient = yt.stop_gradient = not floating
            out = getattr(paddle, fn)(xt, yt)
            DATA.update({f"{key}/x": xa, f"{key}/y": ya, f"{key}/out": out.numpy()})
            if floating and not out.stop_gradient:
                w = RNG.standard_normal(out.shape).astype(out.numpy().dtype)
                DATA[f"{key}/w"] = w
                (out * paddle.to_tensor(w)).sum().backward()
                DATA[f"{key}/dx"] = xt.grad.numpy()
                DATA[f"{key}/dy"] = yt.grad.numpy()


LDEXP_CASES = [  # (x, y, x dtype, y dtype)
    ([1, 3, -2, 5], [2, -1, 3, 0], "float32", "int32"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "float32", "int64"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "int32", "int32"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "int64", "int64"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "float64", "int32"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "int32", "float64"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "float16", "int32"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "float32", "float64"),
    ([1, 3, -2, 5], [2, -1, 3, 0], "int64", "float32"),
    ([1, 0, 1, 1], [2, -1, 3, 0], "bool", "int32"),
    ([1.0, 3.0], [0.5, -1.5], "float32", "float32"),             # fractional exponents
    ([1.0, 3.0, 1.5], [200, -200, -3], "float32", "int32"),      # overflow, underflow
    ([[1.0], [3.0]], [1, 2, 3], "float32", "int64"),              # broadcast
    ([0.75, -1.25, 3.0], [1.5, -2.0, 0.25], "float64", "float64"),
]


def ldexp_cases() -> None:
    for i, (x, y, xd, yd) in enumerate(LDEXP_CASES):
        key = f"ldexp/{i}"
        xa, ya = np.array(x, dtype=xd), np.array(y, dtype=yd)
        xt, yt = paddle.to_tensor(xa), paddle.to_tensor(ya)
        floating = xa.dtype.kind == "f" and ya.dtype.kind == "f"
        xt.stop_gradient = yt.stop_gradient = not floating
        out = paddle.ldexp(xt, yt)
        DATA.update({f"{key}/x": xa, f"{key}/y": ya, f"{key}/out": out.numpy()})
        if floating:
            w = RNG.standard_normal(out.shape).astype(out.numpy().dtype)
            DATA[f"{key}/w"] = w
            (out * paddle.to_tensor(w)).sum().backward()
            DATA[f"{key}/dx"] = xt.grad.numpy()
            DATA[f"{key}/dy"] = yt.grad.numpy()


def main() -> None:
    paddle.set_device("cpu")
    einsum_cases()
    gcd_lcm_cases()
    ldexp_cases()
    np.savez_compressed(OUT, **DATA)
    print(f"wrote {len(DATA)} arrays to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
