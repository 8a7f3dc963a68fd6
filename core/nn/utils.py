"""Parameter utilities with Paddle's names (``paddle.nn.utils``).

``clip_grad_norm_`` and ``clip_grad_value_`` clip the gradients that ``backward`` left on a set
of parameters, in place, before ``optimizer.step()`` (the functional form of the optimizers'
``grad_clip=``, core/clipping.py). ``parameters_to_vector`` / ``vector_to_parameters`` flatten
parameters into one vector and back. ``weight_norm`` / ``remove_weight_norm`` and
``spectral_norm`` re-parameterise a layer's weight: the layer keeps new parameters (and
buffers) and a forward pre-hook (``Layer.register_forward_pre_hook``) recomputes the weight
from them before every forward, so gradients reach the new parameters through the layer's own
forward.

Everything is written against the backend's array module (``xp``): the math stays on the
device, and nothing is read back to the host except where Paddle raises on a value
(``error_if_nonfinite=True``).
"""
from __future__ import annotations

import math
import numbers

from core import backend
from core.clipping import _check_threshold, _sum_squares
from core.nn.common import Linear
from core.nn.conv import Conv1DTranspose, Conv2DTranspose
from core.nn.layer import Layer, _on_module_of
from core.row_sparse import RowSparseGrad
from core.tensor import Parameter, Tensor, apply, no_grad, to_tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "remove_weight_norm",
           "spectral_norm", "vector_to_parameters", "weight_norm"]


def _tensors(parameters, fn: str) -> list:
    """``parameters`` (a Tensor or an iterable of Tensors) as a list."""
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{fn}: parameters must be a Tensor or an iterable of Tensors (e.g. "
                        f"model.parameters()), got {type(parameters).__name__}") from None
    wrong = sorted({type(p).__name__ for p in params if not isinstance(p, Tensor)})
    if wrong:
        raise TypeError(f"{fn}: parameters must hold Tensors only, got {', '.join(wrong)}")
    return params


def _dense_part(grad):
    """(the array clipping acts on, a function that puts a clipped array back): a row-sparse
    gradient's coalesced rows have the norms and the elements of its dense form."""
    if isinstance(grad, RowSparseGrad):
        grad = grad.coalesce()
        return grad.values, lambda values: RowSparseGrad(grad.rows, values, grad.shape)
    return grad, lambda values: values


# ----- gradient clipping --------------------------------------------------------------------

_NORM_TYPES = (0.0, 1.0, 2.0, math.inf)  # Paddle's support_norm_type


def _total_norm(grads: list, norm_type: float):
    """The ``norm_type`` norm of all ``grads`` as one vector, a float64 backend scalar."""
    xp = backend.array_module(grads[0])
    if norm_type == 2.0:  # the sums of squares the optimizers' clips compute (float64)
        squares = [_sum_squares(g) for g in grads]
        return xp.sqrt(sum(squares[1:], squares[0]))
    if norm_type == math.inf:
        return xp.stack([xp.abs(g).max().astype(xp.float64) if g.size else xp.zeros((), xp.float64)
                         for g in grads]).max()
    if norm_type == 1.0:
        return xp.stack([xp.abs(g).sum(dtype=xp.float64) for g in grads]).sum()
    # 0: Paddle's (and PyTorch's) norm of the per-tensor norms: the number of non-zero
    # gradient tensors, each tensor's own 0-norm being its count of non-zero elements
    counts = xp.stack([xp.count_nonzero(g).astype(xp.float64) for g in grads])
    return xp.count_nonzero(counts).astype(xp.float64)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite: bool = False):
    """Rescale the gradients of ``parameters`` in place so that their norm, taken together as
    one vector, is at most ``max_norm``; return that total norm (before clipping) as a Tensor.

    Paddle's ``paddle.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=2.0,
    error_if_nonfinite=False)``: ``total = ||(||g_1||_p, ..., ||g_n||_p)||_p`` for ``norm_type``
    p in {0, 1, 2, inf}, and every gradient is multiplied by
    ``min(max_norm / (total + 1e-6), 1)``. Parameters without a gradient are skipped (the norm
    of none is 0). ``error_if_nonfinite=True`` raises RuntimeError when the total norm is NaN or
    infinite (a read of one scalar from the device). ``need_clip`` is not consulted (Paddle's
    function clips every parameter given; the optimizers' ``grad_clip`` honour it).
    """
    params = _tensors(parameters, "clip_grad_norm_")
    max_norm = _check_threshold("clip_grad_norm_", "max_norm", max_norm)
    if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real) \
            or float(norm_type) not in _NORM_TYPES:
        raise ValueError(f"clip_grad_norm_: norm_type={norm_type!r} is not supported: use "
                         "0, 1, 2 or float('inf') (Paddle's choices)")
    with_grads = [(p, *_dense_part(p.grad_data)) for p in params if p.grad_data is not None]
    if not with_grads:
        return to_tensor(0.0)
    grads = [g for _, g, _ in with_grads]
    total = _total_norm(grads, float(norm_type))
    xp = backend.array_module(total)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(
            f"clip_grad_norm_: the total {float(norm_type)}-norm of the gradients is "
            f"{float(total)}, so they cannot be clipped (set error_if_nonfinite=False to scale "
            "them by the non-finite norm anyway)")
    # min(., 1) rather than a branch: no host read of the norm (PyTorch and Paddle alike)
    coef = xp.minimum(max_norm / (total + 1e-6), 1.0)
    for param, grad, put_back in with_grads:
        param.grad_data = put_back(grad * coef.astype(grad.dtype))
    return Tensor(xp.asarray(total, dtype=grads[0].dtype))  # 0-D array, not a numpy scalar


def clip_grad_value_(parameters, clip_value) -> None:
    """Clip every gradient element of ``parameters`` to ``[-clip_value, clip_value]`` in
    place: Paddle's ``paddle.nn.utils.clip_grad_value_(parameters, clip_value)``. Parameters
    without a gradient are skipped; ``clip_value`` must be a finite number > 0."""
    params = _tensors(parameters, "clip_grad_value_")
    clip_value = _check_threshold("clip_grad_value_", "clip_value", clip_value)
    for param in params:
        if param.grad_data is not None:
            grad, put_back = _dense_part(param.grad_data)
            xp = backend.array_module(grad)
            param.grad_data = put_back(xp.clip(grad, -clip_value, clip_value))


# ----- parameters <-> one vector ------------------------------------------------------------

def parameters_to_vector(parameters, name: str | None = None) -> Tensor:
    """The parameters flattened (row-major) and concatenated into one 1-D Tensor, in order:
    Paddle's ``parameters_to_vector(parameters, name=None)``. It is a copy, outside autograd
    (Paddle computes it under ``no_grad``); all parameters must share one dtype."""
    del name
    params = _tensors(parameters, "parameters_to_vector")
    if not params:
        raise ValueError("parameters_to_vector: parameters is empty")
    dtypes = sorted({str(p.dtype) for p in params})
    if len(dtypes) > 1:
        raise TypeError(f"parameters_to_vector: parameters must share one dtype, got {dtypes}")
    xp = backend.array_module(params[0].data)
    return Tensor(xp.concatenate([p.data.reshape(-1) for p in params]))


def vector_to_parameters(vec, parameters, name: str | None = None) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into ``parameters`` (each reshaped to its
    parameter's shape, cast to its dtype and copied to its device): Paddle's
    ``vector_to_parameters(vec, parameters, name=None)``, the inverse of
    ``parameters_to_vector``. The parameters keep their arrays (written in place), so an
    optimizer holding them sees the new values."""
    del name
    if not isinstance(vec, Tensor):
        raise TypeError(f"vector_to_parameters: vec must be a Tensor, got {type(vec).__name__}")
    params = _tensors(parameters, "vector_to_parameters")
    total = sum(p.size for p in params)
    if vec.ndim != 1 or vec.size != total:
        raise ValueError(f"vector_to_parameters: vec must be 1-D with {total} elements (the "
                         f"parameters' total size), got shape {vec.shape}")
    offset = 0
    for param in params:
        piece = vec.data[offset:offset + param.size].reshape(param.data.shape)
        param.data[...] = _on_module_of(param.data, piece)  # its dtype and device
        offset += param.size


# ----- weight normalisation -----------------------------------------------------------------

_EPS = 1e-12  # Paddle's epsilon under the square root of ||v||^2 (its norm op)


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """``w = g * v / sqrt(||v||^2 + 1e-12)``, the norm over every axis but ``dim`` (over all
    axes for ``dim == -1``, with ``g`` a scalar), as one differentiable op."""
    data = v.data
    axes = None if dim == -1 else tuple(i for i in range(data.ndim) if i != dim)
    xp = backend.array_module(data)
    norm = xp.sqrt((data * data).sum(axis=axes, keepdims=True) + _EPS)
    shape = [1] * data.ndim
    if dim != -1:
        shape[dim] = data.shape[dim]
    gain = g.data.reshape(shape)
    unit = data / norm
    out = gain * unit

    def backward(grad):
        along = (grad * unit).sum(axis=axes, keepdims=True)  # d loss / d g
        return gain / norm * (grad - unit * along), along.reshape(g.data.shape)

    return apply(out, (v, g), backward, "weight_norm")


def _check_layer(fn: str, layer, name) -> Parameter:
    """The Parameter ``layer.<name>`` that ``fn`` re-parameterises."""
    if not isinstance(layer, Layer):
        raise TypeError(f"{fn}: layer must be a core.nn.Layer, got {type(layer).__name__}")
    param = layer._parameters.get(name) if isinstance(name, str) else None
    if param is None:
        raise ValueError(f"{fn}: name={name!r} is not a parameter of {type(layer).__name__} "
                         f"(its parameters: {sorted(layer._parameters)})")
    return param


def _like(param: Parameter, data) -> Parameter:
    """A new Parameter holding ``data`` with ``param``'s trainability, clipping, regulariser
    and learning rate (a frozen weight stays frozen)."""
    return Parameter(data, trainable=param.trainable, regularizer=param.regularizer,
                     need_clip=param.need_clip,
                     learning_rate=param.optimize_attr.get("learning_rate", 1.0))


class WeightNorm:
    """The forward pre-hook ``weight_norm`` registers: it sets ``layer.<name>`` from
    ``<name>_g`` and ``<name>_v`` before each forward."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, dim

    def compute_weight(self, layer: Layer) -> Tensor:
        return _weight_norm(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"),
                            self.dim)

    def __call__(self, layer: Layer, inputs) -> None:
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer: Layer, name: str = "weight", dim: int | None = 0) -> Layer:
    """Re-parameterise ``layer.<name>`` as ``w = g * v / ||v||`` (Salimans & Kingma 2016):
    Paddle's ``paddle.nn.utils.weight_norm(layer, name='weight', dim=0)``.

    The parameter ``<name>`` is replaced by two: ``<name>_v`` (the direction, a copy of the
    weight) and ``<name>_g`` (the magnitude, ``||w||`` per slice along ``dim``, shape
    ``[w.shape[dim]]``), so the layer's output is unchanged at first. ``||v||`` is taken over
    every axis except ``dim``; ``dim=None`` or ``dim=-1`` normalise the whole tensor (then
    ``<name>_g`` is a 0-D scalar), and another negative ``dim`` counts from the end (Paddle's
    rule). A forward pre-hook recomputes ``layer.<name>`` before each forward, so gradients
    reach ``<name>_g`` and ``<name>_v``. Returns ``layer``.

    core's Linear weight is [in, out] (Paddle's layout), so ``dim=0`` normalises per input
    feature; ``dim=1`` gives PyTorch's per-output-unit normalisation of Linear.
    """
    param = _check_layer("weight_norm", layer, name)
    if any(isinstance(h, WeightNorm) and h.name == name for h in layer._forward_pre_hooks):
        raise RuntimeError(f"weight_norm: {type(layer).__name__}.{name} already has a "
                           "weight_norm hook")
    rank = param.ndim
    if dim is None:
        dim = -1
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
        raise ValueError(f"weight_norm: dim={dim!r} must be an integer in [{-rank}, {rank - 1}] "
                         f"or None, for {name} of shape {param.shape}")
    if dim != -1:
        dim %= rank
    data = param.data
    xp = backend.array_module(data)
    axes = None if dim == -1 else tuple(i for i in range(rank) if i != dim)
    norm = xp.sqrt((data * data).sum(axis=axes) + _EPS).astype(data.dtype)
    hook = WeightNorm(name, dim)
    del layer._parameters[name]
    setattr(layer, name + "_v", _like(param, data.copy()))  # Paddle's order: v, then g
    setattr(layer, name + "_g", _like(param, xp.asarray(norm)))
    with no_grad():
        setattr(layer, name, hook.compute_weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer: Layer, name: str = "weight") -> Layer:
    """Undo ``weight_norm``: ``layer.<name>`` becomes a plain Parameter again, holding the
    current ``g * v / ||v||``, and ``<name>_g``, ``<name>_v`` and the hook go. Paddle's
    ``remove_weight_norm(layer, name='weight')``; ValueError when ``layer.<name>`` has no
    weight_norm. Returns ``layer``."""
    hooks = layer._forward_pre_hooks if isinstance(layer, Layer) else ()
    for hook in hooks:
        if isinstance(hook, WeightNorm) and hook.name == name:
            with no_grad():
                weight = hook.compute_weight(layer)
            template = getattr(layer, name + "_v")
            delattr(layer, name)
            delattr(layer, name + "_g")
            delattr(layer, name + "_v")
            setattr(layer, name, _like(template, weight.data))
            hooks.remove(hook)
            return layer
    raise ValueError(f"remove_weight_norm: weight_norm of '{name}' not found in "
                     f"{type(layer).__name__}")


# ----- spectral normalisation ---------------------------------------------------------------

def _as_matrix(weight, dim: int):
    """``weight`` with axis ``dim`` moved first and the rest flattened: [h, w]."""
    xp = backend.array_module(weight)
    if dim != 0:
        weight = xp.moveaxis(weight, dim, 0)
    return weight.reshape(weight.shape[0], -1)


def _unit(x, eps: float):
    """``x / max(||x||, eps)`` (Paddle's F.normalize over the only axis)."""
    xp = backend.array_module(x)
    return x / xp.maximum(xp.sqrt((x * x).sum()), eps)


def power_iteration(matrix, u, v, steps: int, normalize):
    """``(u, v)`` after ``steps`` rounds of ``v = normalize(W^T u)``, ``u = normalize(W v)``
    on the matrix ``W`` [h, w] (arrays, outside autograd). ``normalize`` is the caller's:
    ``spectral_norm`` divides by ``max(||x||, eps)``, the ``SpectralNorm`` layer (Paddle's
    spectral_norm op) by ``||x|| + eps``."""
    for _ in range(steps):
        v = normalize(matrix.T @ u)
        u = normalize(matrix @ v)
    return u, v


def _spectral_divide(weight: Tensor, u, v, dim: int) -> Tensor:
    """``W / sigma`` with ``sigma = u^T W_mat v`` for fixed ``u``, ``v`` (one op); the gradient
    flows through ``sigma`` as well: ``G / sigma - <G, W> / sigma^2 * d sigma / d W``."""
    data = weight.data
    xp = backend.array_module(data)
    sigma = u @ (_as_matrix(data, dim) @ v)
    out = data / sigma

    def backward(grad):
        outer = xp.outer(u, v)  # d sigma / d W_mat
        moved = [data.shape[dim]] + [n for i, n in enumerate(data.shape) if i != dim]
        d_sigma = xp.moveaxis(outer.reshape(moved), 0, dim)
        return (grad / sigma - (grad * data).sum() / (sigma * sigma) * d_sigma,)

    return apply(out, (weight,), backward, "spectral_norm")


class SpectralNorm:
    """The forward pre-hook ``spectral_norm`` registers: ``n_power_iterations`` steps of power
    iteration on ``<name>_u`` / ``<name>_v`` (training only), then ``layer.<name> =
    <name>_orig / sigma``."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float):
        self.name, self.n_power_iterations, self.dim, self.eps = \
            name, n_power_iterations, dim, eps

    def compute_weight(self, layer: Layer, do_power_iteration: bool) -> Tensor:
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        if do_power_iteration:  # updates the buffers in place, outside autograd
            u.data[...], v.data[...] = power_iteration(
                _as_matrix(weight.data, self.dim), u.data, v.data, self.n_power_iterations,
                lambda x: _unit(x, self.eps))
        # copies: a later in-place update must not change what this forward's backward reads
        return _spectral_divide(weight, u.data.copy(), v.data.copy(), self.dim)

    def __call__(self, layer: Layer, inputs) -> None:
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))


def spectral_norm(layer: Layer, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Layer:
    """Divide ``layer.<name>`` by its largest singular value, estimated by power iteration
    (Miyato et al. 2018): Paddle's ``paddle.nn.utils.spectral_norm(layer, name='weight',
    n_power_iterations=1, eps=1e-12, dim=None)``.

    W is seen as the matrix ``W_mat`` [h, w] (axis ``dim`` moved first, the rest flattened).
    ``u`` [h] and ``v`` [w] start as normalised standard-normal draws (``core.seed`` repeats
    them) and are buffers ``<name>_u``, ``<name>_v``; the weight becomes the parameter
    ``<name>_orig``. Before each forward in training mode ``n_power_iterations`` times
    ``v = normalize(W_mat^T u)``, ``u = normalize(W_mat v)`` (``normalize(x) = x /
    max(||x||, eps)``); then, in training and eval alike, ``sigma = u^T W_mat v`` and
    ``layer.<name> = <name>_orig / sigma``, with the gradient through ``sigma`` (not through
    ``u``, ``v``). ``dim=None`` means 1 for Linear (whose weight is [in, out]) and the
    transposed convolutions (weight [in, out, k...]), 0 otherwise: the output axis either way.
    Until the first forward ``layer.<name>`` is a plain copy of the weight (Paddle's rule).
    Returns ``layer``.
    """
    param = _check_layer("spectral_norm", layer, name)
    if isinstance(n_power_iterations, bool) or not isinstance(n_power_iterations, int) \
            or n_power_iterations <= 0:
        raise ValueError(f"spectral_norm: n_power_iterations must be a positive integer, got "
                         f"{n_power_iterations!r}")
    eps = _check_threshold("spectral_norm", "eps", eps)
    if any(isinstance(h, SpectralNorm) and h.name == name for h in layer._forward_pre_hooks):
        raise RuntimeError(f"spectral_norm: {type(layer).__name__}.{name} already has a "
                           "spectral_norm hook")
    rank = param.ndim
    if dim is None:  # the output axis (a 1-D parameter has only axis 0)
        dim = 1 if rank > 1 and isinstance(layer, (Linear, Conv1DTranspose, Conv2DTranspose)) \
            else 0
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
        raise ValueError(f"spectral_norm: dim={dim!r} must be an integer in [{-rank}, "
                         f"{rank - 1}] or None, for {name} of shape {param.shape}")
    dim %= rank
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    h, w = _as_matrix(param.data, dim).shape
    rng = backend.rng()  # host draws, then on the weight's device in its dtype
    u = _unit(_on_module_of(param.data, rng.standard_normal(h)), eps)
    v = _unit(_on_module_of(param.data, rng.standard_normal(w)), eps)
    del layer._parameters[name]
    setattr(layer, name + "_orig", param)
    setattr(layer, name, Tensor(param.data.copy()))  # a plain copy until the first forward
    layer.register_buffer(name + "_u", Tensor(u))
    layer.register_buffer(name + "_v", Tensor(v))
    layer.register_forward_pre_hook(hook)
    return layer
