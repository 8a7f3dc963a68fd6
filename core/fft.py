"""Paddle's ``paddle.fft``: discrete Fourier transforms with autograd.

``fft`` / ``ifft`` (complex to complex; a real input is transformed as complex), ``rfft`` /
``ihfft`` (real to one-sided complex), ``irfft`` / ``hfft`` (one-sided complex to real), their
2-D and n-D forms, ``fftfreq`` / ``rfftfreq`` and ``fftshift`` / ``ifftshift``. Signatures and
checks follow Paddle's python/paddle/fft.py (read at commit 02a5e4e0, Paddle 3.x). Values come
from the array module's ``fft`` (numpy.fft on the CPU, cupy.fft on a GPU: the same API).

Every transform is a real-linear map, so its gradient is the adjoint map applied to the output's
gradient (Paddle's and torch's convention for complex gradients, see core/complex.py):

* complex to complex, ``c * F``: the adjoint is ``c * F^H``, the opposite direction with the
  opposite norm (``fft(norm)`` -> ``ifft(swap(norm))``, which carries the same factor c);
* real to one-sided complex: the gradient zero-padded to the full length, transformed by the
  adjoint, and its real part taken;
* one-sided complex to real: the output gradient transformed back to one-sided form, with the
  entries whose mirror image the Hermitian extension added (indices 1 .. n - n//2 - 1 of the
  last axis) doubled, as torch's ``fft_c2r_backward``.

Cropping or zero-padding the input to ``n`` (or ``s``) is its own op, whose gradient pads or
crops back.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core import backend
from core.complex import complex_dtype_of
from core.framework import get_default_dtype
from core.manipulation import roll
from core.ops import as_input, normalize_axis
from core.tensor import Tensor, apply

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2",
           "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

_NORMS = ("backward", "forward", "ortho")
# The norm that gives the opposite direction the same factor: the adjoint's norm.
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ----- argument checks ---------------------------------------------------------------------------

def _check_norm(norm, fn: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"{fn}: norm must be 'backward', 'forward' or 'ortho', got {norm!r}")
    return norm


def _size(n, fn: str, arg: str) -> int:
    """A transform length: a positive int."""
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"{fn}: {arg} must be a positive int, got {n!r}")
    if int(n) < 1:
        raise ValueError(f"{fn}: {arg} must be a positive int (at least 1), got {int(n)}")
    return int(n)


def _sequence(values, fn: str, arg: str, length: int | None) -> list:
    if not isinstance(values, Sequence) or isinstance(values, str):
        raise TypeError(f"{fn}: {arg} must be a sequence of ints, got {values!r}")
    if length is not None and len(values) != length:
        raise ValueError(f"{fn}: {arg} must be a sequence of {length} ints, got {list(values)}")
    return list(values)


def _plan(x: Tensor, s, axes, fn: str, length: int | None = None) -> tuple[list, list | None]:
    """(axes, sizes) of an n-D transform, as Paddle resolves them: ``axes`` default to the last
    ``len(s)`` axes, or every axis without ``s``; ``s`` (None: the input's sizes) pairs with
    ``axes`` in order. ``length`` is the count the 2-D forms require."""
    ndim = x.ndim
    if s is not None:
        s = [_size(n, fn, f"s[{i}]") for i, n in enumerate(_sequence(s, fn, "s", length))]
        if len(s) > ndim:
            raise ValueError(f"{fn}: s {s} has more entries than the {ndim}-D input has axes")
    if axes is None:
        count = ndim if s is None else len(s)
        axes = list(range(ndim - count, ndim))
    else:
        named = _sequence(axes, fn, "axes", length)
        axes = [normalize_axis(a, ndim, fn, f"axes[{i}]") for i, a in enumerate(named)]
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fn}: axes {named} name the same axis twice")
        if s is not None and len(s) != len(axes):
            raise ValueError(f"{fn}: s {s} and axes {named} must have the same length")
    if not axes:
        raise ValueError(f"{fn}: there is no axis to transform (a 0-D input, or axes=[])")
    return axes, s


# ----- dtypes --------------------------------------------------------------------------------

def _real_input(x: Tensor, fn: str) -> Tensor:
    """A real-to-complex transform's input: float; integers become the default float dtype and
    float16 float32, as Paddle casts them (the cast is differentiable)."""
    if x.dtype.kind == "c":
        raise TypeError(f"{fn}: 'x' must be a real (float or integer) tensor, got dtype "
                        f"{x.dtype}; use fft / fftn for complex input")
    if x.dtype.kind in "iub":
        return x.astype(get_default_dtype())
    return x.astype("float32") if x.dtype == np.float16 else x


def _complex_input(x: Tensor) -> Tensor:
    """A complex-input transform's input: complex; a real one is cast to its complex dtype
    (integers via the default float dtype), as Paddle's fft_c2c and fft_c2r do."""
    if x.dtype.kind == "c":
        return x
    source = get_default_dtype() if x.dtype.kind in "iub" else x.dtype
    return x.astype(complex_dtype_of(source))


def _real_of(dtype) -> np.dtype:
    return np.dtype("float32") if np.dtype(dtype) == np.complex64 else np.dtype("float64")


# ----- the differentiable building blocks --------------------------------------------------------

def _resized(x: Tensor, sizes: list, axes: list) -> Tensor:
    """``x`` cropped or zero-padded at the end of each of ``axes`` to ``sizes``."""
    old = x.data.shape
    new = list(old)
    for axis, n in zip(axes, sizes):
        new[axis] = n
    if tuple(new) == old:
        return x
    kept = tuple(slice(0, min(a, b)) for a, b in zip(old, new))
    xp = backend.array_module(x.data)
    out = xp.zeros(new, dtype=x.dtype)
    out[kept] = x.data[kept]

    def backward(g):
        grad = xp.zeros(old, dtype=g.dtype)
        grad[kept] = g[kept]
        return (grad,)

    return apply(out, (x,), backward, "fft_resize")


def _c2c(a, axes: list, norm: str, forward: bool):
    """``a`` (complex, or real: a gradient may be) transformed over ``axes``, complex out."""
    module = backend.array_module(a).fft
    out = (module.fftn if forward else module.ifftn)(a, axes=axes, norm=norm)
    # numpy < 2 and some cupy paths compute complex64 in complex128: keep a's precision.
    return out.astype(complex_dtype_of(a.dtype), copy=False)


def _r2c(a, axes: list, norm: str, forward: bool, onesided: bool):
    """Real ``a`` transformed: the full complex result, or its one-sided half along the last
    of ``axes``. The one-sided inverse (ihfft) is conj(rfftn) with the swapped norm: for a
    real input, F^H a = conj(F a)."""
    xp = backend.array_module(a)
    dtype = complex_dtype_of(a.dtype)
    if not onesided:
        return _c2c(a, axes, norm, forward)
    if forward:
        out = xp.fft.rfftn(a, axes=axes, norm=norm)
    else:
        out = xp.conj(xp.fft.rfftn(a, axes=axes, norm=_SWAP[norm]))
    return out.astype(dtype, copy=False)


def _c2r(a, axes: list, norm: str, forward: bool, last: int):
    """One-sided complex ``a`` (Hermitian along the last of ``axes``) transformed to a real
    array whose last transformed axis has length ``last``. The forward direction (hfft) is
    irfftn of conj(a) with the swapped norm: the output is real, so F b = conj(F^H conj b)."""
    xp = backend.array_module(a)
    sizes = [a.shape[axis] for axis in axes[:-1]] + [last]
    if forward:
        out = xp.fft.irfftn(xp.conj(a), s=sizes, axes=axes, norm=_SWAP[norm])
    else:
        out = xp.fft.irfftn(a, s=sizes, axes=axes, norm=norm)
    return out.astype(_real_of(a.dtype), copy=False)


def _fft_c2c(x: Tensor, axes: list, norm: str, forward: bool) -> Tensor:
    dtype = x.dtype
    return apply(_c2c(x.data, axes, norm, forward), (x,),
                 lambda g: (_c2c(g, axes, _SWAP[norm], not forward).astype(dtype, copy=False),),
                 "fft_c2c")


def _fft_r2c(x: Tensor, axes: list, norm: str, forward: bool, onesided: bool) -> Tensor:
    shape, dtype = x.data.shape, x.dtype
    xp = backend.array_module(x.data)

    def backward(g):
        if onesided:  # the dropped half of the spectrum had no gradient: zeros
            full = xp.zeros(shape, dtype=g.dtype)
            kept = g.shape[axes[-1]]
            full[(slice(None),) * axes[-1] + (slice(0, kept),)] = g
            g = full
        return (_c2c(g, axes, _SWAP[norm], not forward).real.astype(dtype),)

    return apply(_r2c(x.data, axes, norm, forward, onesided), (x,), backward, "fft_r2c")


def _fft_c2r(x: Tensor, axes: list, norm: str, forward: bool, last: int) -> Tensor:
    dtype = x.dtype

    def backward(g):
        grad = _r2c(g, axes, _SWAP[norm], not forward, onesided=True).astype(dtype, copy=False)
        # Entries 1 .. last - half appear twice in the Hermitian extension (as themselves and
        # as their conjugate mirror): their gradient counts twice. Entry 0 and, for an even
        # length, the Nyquist entry are their own mirrors.
        doubled = last - grad.shape[axes[-1]]
        if doubled > 0:
            index = (slice(None),) * axes[-1] + (slice(1, 1 + doubled),)
            grad[index] *= 2  # in place: grad is a new array
        return (grad,)

    return apply(_c2r(x.data, axes, norm, forward, last), (x,), backward, "fft_c2r")


# ----- the transforms, by input kind -------------------------------------------------------------

def _c2c_op(x, s, axes, norm, forward: bool, fn: str) -> Tensor:
    """fftn / ifftn: complex (or real, cast) in, complex out, over ``axes``."""
    x = _complex_input(as_input(x, fn))
    norm = _check_norm(norm, fn)
    if s is not None:
        x = _resized(x, s, axes)
    return _fft_c2c(x, axes, norm, forward)


def _r2c_op(x, s, axes, norm, forward: bool, fn: str) -> Tensor:
    """rfftn / ihfftn: real in, one-sided complex out."""
    x = _real_input(as_input(x, fn), fn)
    norm = _check_norm(norm, fn)
    if s is not None:
        x = _resized(x, s, axes)
    return _fft_r2c(x, axes, norm, forward, onesided=True)


def _c2r_op(x, s, axes, norm, forward: bool, fn: str) -> Tensor:
    """irfftn / hfftn: one-sided complex in, real out; the last transformed axis has length
    s[-1] (default 2 * (k - 1) for an input of length k there) and reads s[-1] // 2 + 1
    input points."""
    x = _complex_input(as_input(x, fn))
    norm = _check_norm(norm, fn)
    if s is None:
        last = 2 * (x.data.shape[axes[-1]] - 1)
        if last < 1:
            raise ValueError(f"{fn}: the input has 1 point along axis {axes[-1]}, which gives "
                             "an output of length 0; pass n (or s) to choose the length")
    else:
        last = s[-1]
        x = _resized(x, s[:-1] + [last // 2 + 1], axes)
    return _fft_c2r(x, axes, norm, forward, last)


def _one_axis(x, n, axis, fn: str) -> tuple[list, list | None]:
    x = as_input(x, fn)
    axes = [normalize_axis(axis, x.ndim, fn)]
    return axes, None if n is None else [_size(n, fn, "n")]


def _full_or_c2c(x, s, axes, norm, forward: bool, fn: str) -> Tensor:
    """fft / ifft / fftn / ifftn: a real input gives the full (two-sided) spectrum."""
    x = as_input(x, fn)
    if x.dtype.kind == "c":
        return _c2c_op(x, s, axes, norm, forward, fn)
    x = _real_input(x, fn)
    norm = _check_norm(norm, fn)
    if s is not None:
        x = _resized(x, s, axes)
    return _fft_r2c(x, axes, norm, forward, onesided=False)


# ----- public API: 1-D ---------------------------------------------------------------------------

def fft(x, n=None, axis: int = -1, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``fft(x, n=None, axis=-1, norm="backward", name=None)``: the 1-D discrete
    Fourier transform along ``axis``, the input cropped or zero-padded to ``n`` points. A real
    input gives the full complex spectrum (complex64 from float32, complex128 from float64).
    ``norm``: "backward" (no scaling forward, 1/n on the inverse), "forward" (1/n here) or
    "ortho" (1/sqrt(n) both ways)."""
    del name
    axes, s = _one_axis(x, n, axis, "fft")
    return _full_or_c2c(x, s, axes, norm, True, "fft")


def ifft(x, n=None, axis: int = -1, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``ifft(x, n=None, axis=-1, norm="backward", name=None)``: the inverse of
    ``fft`` (1/n scaling under "backward")."""
    del name
    axes, s = _one_axis(x, n, axis, "ifft")
    return _full_or_c2c(x, s, axes, norm, False, "ifft")


def rfft(x, n=None, axis: int = -1, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``rfft(x, n=None, axis=-1, norm="backward", name=None)``: the FFT of a real
    input, only the n//2 + 1 non-negative frequencies (the rest are their conjugates)."""
    del name
    axes, s = _one_axis(x, n, axis, "rfft")
    return _r2c_op(x, s, axes, norm, True, "rfft")


def irfft(x, n=None, axis: int = -1, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``irfft(x, n=None, axis=-1, norm="backward", name=None)``: the inverse of
    ``rfft``: a real output of length ``n`` (default 2 * (k - 1) for k input points) from
    its n//2 + 1 non-negative frequencies (the input is cropped or zero-padded to those).
    The imaginary parts of the zero (and, for even n, the Nyquist) frequency are ignored."""
    del name
    axes, s = _one_axis(x, n, axis, "irfft")
    return _c2r_op(x, s, axes, norm, False, "irfft")


def hfft(x, n=None, axis: int = -1, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``hfft(x, n=None, axis=-1, norm="backward", name=None)``: the FFT of a signal
    with Hermitian symmetry given by its first half: a real spectrum of length ``n`` (default
    2 * (k - 1)), read from n//2 + 1 input points."""
    del name
    axes, s = _one_axis(x, n, axis, "hfft")
    return _c2r_op(x, s, axes, norm, True, "hfft")


def ihfft(x, n=None, axis: int = -1, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``ihfft(x, n=None, axis=-1, norm="backward", name=None)``: the inverse of
    ``hfft``: the inverse FFT of a real input, its n//2 + 1 non-negative frequencies."""
    del name
    axes, s = _one_axis(x, n, axis, "ihfft")
    return _r2c_op(x, s, axes, norm, False, "ihfft")


# ----- public API: n-D and 2-D -------------------------------------------------------------------

def fftn(x, s=None, axes=None, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``fftn(x, s=None, axes=None, norm="backward", name=None)``: the n-D FFT over
    ``axes`` (default: the last len(s) axes, or every axis), each cropped or zero-padded to
    its entry of ``s``."""
    del name
    axes, s = _plan(as_input(x, "fftn"), s, axes, "fftn")
    return _full_or_c2c(x, s, axes, norm, True, "fftn")


def ifftn(x, s=None, axes=None, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``ifftn(x, s=None, axes=None, norm="backward", name=None)``: the inverse of
    ``fftn``."""
    del name
    axes, s = _plan(as_input(x, "ifftn"), s, axes, "ifftn")
    return _full_or_c2c(x, s, axes, norm, False, "ifftn")


def rfftn(x, s=None, axes=None, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``rfftn(x, s=None, axes=None, norm="backward", name=None)``: the n-D FFT of a
    real input, one-sided along the last of ``axes``."""
    del name
    axes, s = _plan(as_input(x, "rfftn"), s, axes, "rfftn")
    return _r2c_op(x, s, axes, norm, True, "rfftn")


def irfftn(x, s=None, axes=None, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``irfftn(x, s=None, axes=None, norm="backward", name=None)``: the inverse of
    ``rfftn``: real output, s[-1] long (default 2 * (k - 1)) along the last of ``axes``."""
    del name
    axes, s = _plan(as_input(x, "irfftn"), s, axes, "irfftn")
    return _c2r_op(x, s, axes, norm, False, "irfftn")


def hfftn(x, s=None, axes=None, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``hfftn(x, s=None, axes=None, norm="backward", name=None)``: the n-D FFT of a
    signal Hermitian along the last of ``axes``, given by its first half: a real output."""
    del name
    axes, s = _plan(as_input(x, "hfftn"), s, axes, "hfftn")
    return _c2r_op(x, s, axes, norm, True, "hfftn")


def ihfftn(x, s=None, axes=None, norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``ihfftn(x, s=None, axes=None, norm="backward", name=None)``: the inverse of
    ``hfftn``: the n-D inverse FFT of a real input, one-sided along the last of ``axes``."""
    del name
    axes, s = _plan(as_input(x, "ihfftn"), s, axes, "ihfftn")
    return _r2c_op(x, s, axes, norm, False, "ihfftn")


def _plan2(x, s, axes, fn: str) -> tuple[list, list | None]:
    """The 2-D forms: an input of at least 2 axes, ``s`` and ``axes`` of 2 entries each."""
    x = as_input(x, fn)
    if x.ndim < 2:
        raise ValueError(f"{fn}: 'x' must have at least 2 axes, got shape {x.shape}")
    return _plan(x, s, (-2, -1) if axes is None else axes, fn, length=2)


def fft2(x, s=None, axes=(-2, -1), norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``fft2(x, s=None, axes=(-2, -1), norm="backward", name=None)``: ``fftn`` over
    two axes."""
    del name
    axes, s = _plan2(x, s, axes, "fft2")
    return _full_or_c2c(x, s, axes, norm, True, "fft2")


def ifft2(x, s=None, axes=(-2, -1), norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None)``."""
    del name
    axes, s = _plan2(x, s, axes, "ifft2")
    return _full_or_c2c(x, s, axes, norm, False, "ifft2")


def rfft2(x, s=None, axes=(-2, -1), norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None)``."""
    del name
    axes, s = _plan2(x, s, axes, "rfft2")
    return _r2c_op(x, s, axes, norm, True, "rfft2")


def irfft2(x, s=None, axes=(-2, -1), norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None)``."""
    del name
    axes, s = _plan2(x, s, axes, "irfft2")
    return _c2r_op(x, s, axes, norm, False, "irfft2")


def hfft2(x, s=None, axes=(-2, -1), norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None)``."""
    del name
    axes, s = _plan2(x, s, axes, "hfft2")
    return _c2r_op(x, s, axes, norm, True, "hfft2")


def ihfft2(x, s=None, axes=(-2, -1), norm: str = "backward", name: str | None = None) -> Tensor:
    """Paddle's ``ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None)``."""
    del name
    axes, s = _plan2(x, s, axes, "ihfft2")
    return _r2c_op(x, s, axes, norm, False, "ihfft2")


# ----- frequencies and shifts --------------------------------------------------------------------

def _frequency_args(n, d, dtype, fn: str) -> tuple[int, float, np.dtype]:
    n = _size(n, fn, "n")
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)) \
            or d == 0 or not math.isfinite(d):
        raise ValueError(f"{fn}: d (the sample spacing) must be a finite non-zero number, "
                         f"got {d!r}")
    dtype = np.dtype(get_default_dtype() if dtype is None else dtype)
    if dtype.kind != "f":
        raise TypeError(f"{fn}: dtype must be a float dtype, got {dtype}")
    return n, float(d), dtype


def fftfreq(n, d=1.0, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``fftfreq(n, d=1.0, dtype=None, name=None)``: the sample frequencies of an
    n-point FFT with sample spacing ``d``: [0, 1, ..., -(n//2), ..., -1] / (d * n), of
    ``dtype`` (default: the default float dtype). Paddle 3's current code ignores ``dtype``;
    it is honoured here, as its docs and earlier versions say."""
    del name
    n, d, dtype = _frequency_args(n, d, dtype, "fftfreq")
    xp = backend.xp()
    index = xp.concatenate([xp.arange(0, (n + 1) // 2), xp.arange(-(n // 2), 0)])
    return Tensor((index / (n * d)).astype(dtype))


def rfftfreq(n, d=1.0, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``rfftfreq(n, d=1.0, dtype=None, name=None)``: the n//2 + 1 non-negative
    sample frequencies [0, 1, ..., n//2] / (d * n) of an ``rfft`` of n points."""
    del name
    n, d, dtype = _frequency_args(n, d, dtype, "rfftfreq")
    return Tensor((backend.xp().arange(0, n // 2 + 1) / (n * d)).astype(dtype))


def _shift(x, axes, fn: str, inverse: bool) -> Tensor:
    x = as_input(x, fn)
    if axes is None:
        axes = list(range(x.ndim))
    elif isinstance(axes, Sequence) and not isinstance(axes, str):
        axes = [normalize_axis(a, x.ndim, fn, "axes") for a in axes]
    else:
        axes = [normalize_axis(axes, x.ndim, fn, "axes")]
    if not axes:
        return x.clone()
    # Rolling by (n + 1) // 2 undoes a roll by n // 2: they add up to n (Paddle's shifts).
    return roll(x, [(x.data.shape[a] + inverse) // 2 for a in axes], axes)


def fftshift(x, axes=None, name: str | None = None) -> Tensor:
    """Paddle's ``fftshift(x, axes=None, name=None)``: the zero frequency moved to the middle
    of each of ``axes`` (an int, a sequence, or None: every axis); a ``roll``."""
    del name
    return _shift(x, axes, "fftshift", inverse=False)


def ifftshift(x, axes=None, name: str | None = None) -> Tensor:
    """Paddle's ``ifftshift(x, axes=None, name=None)``: the inverse of ``fftshift`` (they differ
    for odd lengths)."""
    del name
    return _shift(x, axes, "ifftshift", inverse=True)
