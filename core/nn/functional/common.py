"""``linear``, ``dropout`` and ``flatten`` (``paddle.nn.functional`` names and semantics)."""
from __future__ import annotations

from core import backend
from core.tensor import Tensor, apply
from core.threads import matmul_inner, matmul_rows

_DROPOUT_MODES = ("upscale_in_train", "downscale_in_infer")


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None,
           name: str | None = None) -> Tensor:
    """``x @ weight + bias`` with ``weight`` of shape [in_features, out_features] (Paddle).

    ``x`` may have any number of leading dimensions; the last one must be ``in_features``.
    One fused op: the backward is two GEMMs and a sum, with no graph of small ops.
    """
    del name
    a, w = x.data, weight.data
    if w.ndim != 2 or a.ndim < 1 or a.shape[-1] != w.shape[0]:
        raise ValueError(f"linear: input of shape {list(a.shape)} does not fit weight of shape "
                         f"{list(w.shape)}; the weight must be [in_features, out_features] and "
                         "the input's last dimension must equal in_features.")
    if bias is not None and tuple(bias.data.shape) != (w.shape[1],):
        raise ValueError(f"linear: bias of shape {bias.shape} does not fit weight of shape "
                         f"{list(w.shape)}; the bias must be [out_features] = [{w.shape[1]}].")
    xp = backend.array_module(a)
    a2 = a.reshape(-1, w.shape[0])  # leading dimensions as rows: split over core's threads
    out = matmul_rows(xp, a2, w).reshape(a.shape[:-1] + (w.shape[1],))
    if bias is not None:
        out += bias.data
    parents = (x, weight) if bias is None else (x, weight, bias)

    def backward(g):
        g2 = g.reshape(-1, w.shape[1])
        gx = matmul_rows(xp, g2, w.T).reshape(a.shape) if not x.stop_gradient else None
        gw = matmul_inner(xp, a2, g2) if not weight.stop_gradient else None
        if bias is None:
            return gx, gw
        return gx, gw, (g2.sum(axis=0) if not bias.stop_gradient else None)

    return apply(out, parents, backward, "linear")


def dropout(x: Tensor, p: float = 0.5, axis=None, training: bool = True, inplace: bool = False,
            mode: str = "upscale_in_train", name: str | None = None) -> Tensor:
    """Zero each element with probability ``p`` (Paddle 3.x's ``dropout(x, p=0.5, axis=None,
    training=True, inplace=False, mode='upscale_in_train', name=None)``).

    ``inplace`` is accepted for Paddle's signature; the result is always a new tensor (an
    in-place write would corrupt inputs that autograd saved for another op's backward).

    ``upscale_in_train`` (Paddle's default) scales kept values by 1/(1-p) in training and is the
    identity in evaluation; ``downscale_in_infer`` keeps values unscaled in training and multiplies
    by (1-p) in evaluation. ``axis`` (an int or list) drops whole slices: the mask varies only
    along those axes. Masks come from the seeded backend generator (``core.seed``).
    """
    del name, inplace
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p={p!r} is not a probability; use a number in [0, 1].")
    if mode not in _DROPOUT_MODES:
        raise ValueError(f"dropout: mode={mode!r} is not supported; use one of {_DROPOUT_MODES}.")
    if not training:
        return x if mode == "upscale_in_train" or p == 0 else _scale(x, 1.0 - p)
    if p == 0:
        return x
    xp = backend.array_module(x.data)
    shape = _mask_shape(x.shape, axis)
    keep = backend.random_uniform(shape, dtype=x.dtype) >= p
    scale = 1.0 / (1.0 - p) if mode == "upscale_in_train" and p < 1 else 1.0
    mask = xp.multiply(keep, xp.asarray(scale, dtype=x.dtype))
    # With ``axis`` the mask broadcasts, and g * mask already has the input's shape.
    return apply(x.data * mask, (x,), lambda g: (g * mask,), "dropout")


def _scale(x: Tensor, factor: float) -> Tensor:
    return apply(x.data * factor, (x,), lambda g: (g * factor,), "scale")


def _mask_shape(shape: list[int], axis) -> tuple[int, ...]:
    if axis is None:
        return tuple(shape)
    axes = [axis] if isinstance(axis, int) else list(axis)
    ndim = len(shape)
    if not axes or any(not isinstance(a, int) or not -ndim <= a < ndim for a in axes):
        raise ValueError(f"dropout: axis={axis!r} is not valid for an input with {ndim} "
                         f"dimension(s); use an int or a list of ints in [{-ndim}, {ndim - 1}].")
    keep = {a % ndim for a in axes}
    return tuple(n if i in keep else 1 for i, n in enumerate(shape))


def flatten(x: Tensor, start_axis: int = 0, stop_axis: int = -1, name: str | None = None) -> Tensor:
    """Merge the dimensions ``start_axis..stop_axis`` (inclusive) into one."""
    del name
    shape = x.data.shape
    ndim = max(len(shape), 1)
    for label, value in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not isinstance(value, int) or not -ndim <= value < ndim:
            raise ValueError(f"flatten: {label}={value!r} is out of range for an input with "
                             f"{len(shape)} dimension(s); use an integer in [{-ndim}, {ndim - 1}].")
    start, stop = start_axis % ndim, stop_axis % ndim
    if start > stop:
        raise ValueError(f"flatten: start_axis ({start_axis}) must not come after stop_axis "
                         f"({stop_axis}).")
    if not shape:
        new_shape = (1,)
    else:
        merged = 1
        for n in shape[start:stop + 1]:
            merged *= n
        new_shape = shape[:start] + (merged,) + shape[stop + 1:]
    return apply(x.data.reshape(new_shape), (x,), lambda g: (g.reshape(shape),), "flatten")
