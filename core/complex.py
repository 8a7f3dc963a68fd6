"""Paddle's complex-number functions: ``real``, ``imag``, ``conj``, ``angle``, ``complex``,
``polar``, ``as_complex`` and ``as_real`` (``is_complex`` is in ``core.logic``), with the Tensor
methods of the same names.

Gradients follow Paddle's (= torch's) convention for complex tensors: the gradient array of a
complex tensor z holds dL/d(Re z) + i dL/d(Im z) for the real loss L (twice the conjugate
Wirtinger derivative dL/d(conj z)), so that ``z - lr * z.grad`` descends. A function from real
inputs to a complex output hands each real input the real part of that rule, as torch does.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.ops import as_input
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["angle", "as_complex", "as_real", "complex", "conj", "imag", "polar", "real"]

_COMPLEX_OF = {np.dtype("float32"): np.dtype("complex64"),
               np.dtype("float64"): np.dtype("complex128")}


def complex_dtype_of(dtype) -> np.dtype:
    """The complex dtype whose parts are ``dtype`` (float16 and float32 -> complex64, as
    Paddle pairs them; float64 -> complex128); a complex dtype is its own."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return dtype
    return _COMPLEX_OF.get(dtype, np.dtype("complex64"))


def join(re, im, dtype):
    """The complex array ``re + i im`` of ``dtype`` (``re`` and ``im`` broadcast), built from
    its parts so that no real array is multiplied by a Python ``1j`` (which would promote)."""
    xp = backend.array_module(re)
    out = xp.empty(np.broadcast_shapes(re.shape, im.shape), dtype=dtype)
    out.real, out.imag = re, im
    return out


def _float_input(x, fn: str, arg: str) -> Tensor:
    """``x`` checked to be a float32 or float64 tensor (the part dtypes of complex64/128)."""
    x = as_input(x, fn, arg)
    if x.dtype not in _COMPLEX_OF:
        raise TypeError(f"{fn}: '{arg}' must be a float32 or float64 tensor, got dtype "
                        f"{x.dtype}")
    return x


def real(x, name: str | None = None) -> Tensor:
    """Paddle's ``real(x, name=None)``: the real part of a complex tensor, float32 of complex64
    and float64 of complex128. A real tensor gives a copy of itself (numpy's and torch's rule;
    Paddle documents complex inputs only). The gradient g flows back as the complex g + 0i."""
    del name
    x = as_input(x, "real")
    a = x.data
    if a.dtype.kind != "c":
        return apply(a.copy(), (x,), lambda g: (g,), "real")
    dtype = a.dtype
    return apply(a.real.copy(), (x,), lambda g: (g.astype(dtype),), "real")


def imag(x, name: str | None = None) -> Tensor:
    """Paddle's ``imag(x, name=None)``: the imaginary part of a complex tensor, float32 of
    complex64 and float64 of complex128; zeros for a real tensor (numpy's and torch's rule).
    The gradient g flows back as the complex 0 + g i."""
    del name
    x = as_input(x, "imag")
    a = x.data
    xp = backend.array_module(a)
    if a.dtype.kind != "c":
        return apply(xp.zeros_like(a), (x,), lambda g: (xp.zeros_like(g),), "imag")
    dtype = a.dtype
    return apply(a.imag.copy(), (x,), lambda g: (join(xp.zeros_like(g), g, dtype),), "imag")


def conj(x, name: str | None = None) -> Tensor:
    """Paddle's ``conj(x, name=None)``: the complex conjugate, element-wise; a real tensor gives
    a copy of itself. The gradient is the conjugate of the output's."""
    del name
    x = as_input(x, "conj")
    a = x.data
    if a.dtype.kind != "c":
        return apply(a.copy(), (x,), lambda g: (g,), "conj")
    xp = backend.array_module(a)
    return apply(xp.conj(a), (x,), lambda g: (xp.conj(g),), "conj")


def angle(x, name: str | None = None) -> Tensor:
    """Paddle's ``angle(x, name=None)``: the argument atan2(Im x, Re x) of each element, in
    (-pi, pi]; for a real tensor pi where x < 0, else 0 (NaN stays NaN). Integers compute in
    float32. The gradient of a complex x is g * i x / |x|^2 (0 at x = 0, as torch's); a real x
    gets zeros (the angle is piecewise constant on the real line)."""
    del name
    x = as_input(x, "angle")
    a = x.data
    xp = backend.array_module(a)
    if a.dtype.kind != "c":
        if a.dtype.kind in "iub":
            a = a.astype("float32")
        out = xp.where(a < 0, a.dtype.type(math.pi), xp.where(xp.isnan(a), a, 0))
        return apply(out.astype(a.dtype), (x,), lambda g: (xp.zeros_like(g),), "angle")
    dtype = a.dtype

    def backward(g):
        # d angle / d Re = -Im / |x|^2 and d angle / d Im = Re / |x|^2; at x = 0 both
        # numerators vanish, so a denominator of 1 there gives the 0 torch defines.
        abs2 = a.real * a.real + a.imag * a.imag
        scale = g / xp.where(abs2 == 0, 1, abs2)
        return (join(-a.imag * scale, a.real * scale, dtype),)

    return apply(xp.angle(a), (x,), backward, "angle")


def complex(real, imag, name: str | None = None) -> Tensor:  # noqa: A001 - Paddle's name
    """Paddle's ``complex(real, imag, name=None)``: the complex tensor real + i imag, complex64
    from float32 parts and complex128 from float64 ones (both the same dtype; shapes
    broadcast). Each part receives its half of the output's gradient: Re g and Im g."""
    del name
    re = _float_input(real, "complex", "real")
    im = _float_input(imag, "complex", "imag")
    if re.dtype != im.dtype:
        raise TypeError(f"complex: 'real' and 'imag' must have the same dtype, got {re.dtype} "
                        f"and {im.dtype}")
    a, b = re.data, im.data

    def backward(g):
        return unbroadcast(g.real, a.shape), unbroadcast(g.imag, b.shape)

    return apply(join(a, b, _COMPLEX_OF[re.dtype]), (re, im), backward, "complex")


def polar(abs, angle, name: str | None = None) -> Tensor:  # noqa: A002 - Paddle's names
    """Paddle's ``polar(abs, angle, name=None)``: the complex tensor abs * (cos angle + i sin
    angle), complex64 from float32 and complex128 from float64 (both the same dtype; shapes
    broadcast). Gradients: Re(conj(g) e^{i angle}) for abs and Re(conj(g) i abs e^{i angle})
    for angle, the chain rule through the real and imaginary parts."""
    del name
    r = _float_input(abs, "polar", "abs")
    t = _float_input(angle, "polar", "angle")
    if r.dtype != t.dtype:
        raise TypeError(f"polar: 'abs' and 'angle' must have the same dtype, got {r.dtype} and "
                        f"{t.dtype}")
    xp = backend.array_module(r.data)
    radius, theta = r.data, t.data
    cos, sin = xp.cos(theta), xp.sin(theta)

    def backward(g):
        return (unbroadcast(g.real * cos + g.imag * sin, radius.shape),
                unbroadcast(radius * (g.imag * cos - g.real * sin), theta.shape))

    return apply(join(radius * cos, radius * sin, _COMPLEX_OF[r.dtype]), (r, t), backward,
                 "polar")


def as_complex(x, name: str | None = None) -> Tensor:
    """Paddle's ``as_complex(x, name=None)``: a float32 (float64) tensor whose last axis has
    size 2 read as (real, imaginary) pairs: a complex64 (complex128) tensor without that axis.
    The gradient g comes back as the pairs (Re g, Im g)."""
    del name
    x = _float_input(x, "as_complex", "x")
    a = x.data
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ValueError(f"as_complex: the last axis of 'x' must have size 2 (real, imaginary), "
                         f"got shape {list(a.shape)}")
    xp = backend.array_module(a)
    dtype = a.dtype
    return apply(join(a[..., 0], a[..., 1], _COMPLEX_OF[dtype]), (x,),
                 lambda g: (xp.stack([g.real, g.imag], axis=-1).astype(dtype, copy=False),),
                 "as_complex")


def as_real(x, name: str | None = None) -> Tensor:
    """Paddle's ``as_real(x, name=None)``: a complex64 (complex128) tensor as float32 (float64)
    with a new last axis of size 2 holding (real, imaginary); ``as_complex`` undoes it."""
    del name
    x = as_input(x, "as_real")
    a = x.data
    if a.dtype.kind != "c":
        raise TypeError(f"as_real: 'x' must be a complex64 or complex128 tensor, got dtype "
                        f"{a.dtype}")
    xp = backend.array_module(a)
    dtype = a.dtype
    return apply(xp.stack([a.real, a.imag], axis=-1), (x,),
                 lambda g: (join(g[..., 0], g[..., 1], dtype),), "as_real")


# Tensor methods (see the note at the end of core/ops.py): x.real(), x.conj(), ...; in Paddle
# ``real`` and ``imag`` are methods too, not numpy's properties.
for _fn in (real, imag, conj, angle, as_complex, as_real):
    setattr(Tensor, _fn.__name__, _fn)
del _fn
