"""``batch_norm`` (batch normalisation), ``normalize`` (Lp normalisation), ``layer_norm``,
``group_norm``, ``instance_norm`` and ``local_response_norm``, each one fused op."""
from __future__ import annotations

import functools
import math

from core import autocast, backend
from core.higher_order import captured, needs
from core.row_blocks import for_blocks
from core.tensor import Tensor, apply

_CHANNELS_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
_CHANNELS_LAST = ("NLC", "NHWC", "NDHWC")


def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.9, epsilon: float = 1e-5,
               data_format: str = "NCHW", use_global_stats: bool | None = None,
               name: str | None = None) -> Tensor:
    """Normalise each channel by batch statistics (training) or running statistics.

    In training the running statistics are updated in place, Paddle's way:
    ``running = momentum * running + (1 - momentum) * batch``. Both the variance that normalises
    and the one folded into ``running_var`` are the biased batch variance (divided by n), as
    Paddle's batch_norm kernel does (PyTorch folds in the unbiased one; docs/paddle.md).
    ``use_global_stats`` forces the running statistics (True) or the batch statistics (False);
    None picks by ``training``.
    """
    del name
    data = x.data
    channel = _channel_axis(data.ndim, data_format)
    n_channels = data.shape[channel]
    if tuple(running_mean.data.shape) != (n_channels,) or \
            tuple(running_var.data.shape) != (n_channels,):
        raise ValueError(f"batch_norm: input of shape {x.shape} ({data_format}) has {n_channels} "
                         f"channels but the running mean/variance have shapes "
                         f"{running_mean.shape}/{running_var.shape}.")
    axes = tuple(i for i in range(data.ndim) if i != channel)
    bshape = [1] * data.ndim
    bshape[channel] = n_channels  # broadcastable per-channel shape
    xp = backend.array_module(data)
    use_global = (not training) if use_global_stats is None else use_global_stats
    count = data.size // max(n_channels, 1)
    # An empty batch has no statistics: normalise it (to an empty result) by the running ones
    # and leave them as they are, as torch does, rather than folding NaN means into them.
    use_global = use_global or count == 0
    order, back = backend.memory_order(data)
    if order[-1] == channel and data.transpose(order).flags.c_contiguous and count > 1:
        return _rows_batch_norm(x, order, back, running_mean, running_var, weight, bias,
                                training, use_global, momentum, epsilon)

    if use_global:
        mean = running_mean.data.astype(data.dtype, copy=False)
        var = running_var.data.astype(data.dtype, copy=False)
    else:
        mean = data.mean(axis=axes)
        centered = data - mean.reshape(bshape)
        var = (centered * centered).mean(axis=axes)
        if training:
            _update_running(running_mean, running_var, mean, var, momentum)
    inv_std = 1.0 / xp.sqrt(var + epsilon)
    if use_global:
        centered = data - mean.reshape(bshape)
    x_hat = centered * inv_std.reshape(bshape)
    out = x_hat if weight is None else x_hat * weight.data.reshape(bshape)
    if bias is not None:
        out = out + bias.data.reshape(bshape)

    parents = tuple(p for p in (x, weight, bias) if p is not None)

    def backward(g):
        g_bias = g.sum(axis=axes)
        g_weight = (g * x_hat).sum(axis=axes)
        gx = None
        if not x.stop_gradient:
            gain = inv_std if weight is None else inv_std * weight.data
            if use_global:  # the statistics are constants: a per-channel affine map
                gx = g * gain.reshape(bshape)
            else:  # the batch mean and variance depend on x too
                gx = (g - (g_bias / count).reshape(bshape)
                      - x_hat * (g_weight / count).reshape(bshape)) * gain.reshape(bshape)
        return _with_affine_grads(gx, weight, bias, g_weight, g_bias)

    def grad_fn(_out, g):  # create_graph: the same backward, batch statistics as Tensors
        return _batch_norm_grad(x, weight, bias, g, channel, use_global, (mean, inv_std),
                                epsilon)

    return apply(out, parents, backward, "batch_norm", grad_fn)


def _rows_batch_norm(x, order, back, running_mean, running_var, weight, bias, training,
                     use_global, momentum, epsilon):
    """Batch norm where the channels are innermost in memory (channels-last activations, which
    conv2d emits, and [N, C] features): the data is a [rows, channels] matrix, and the fused
    per-channel kernels (core.channel_kernels) need two sweeps forward and two backward.

    The output is ``x * scale + shift`` with per-channel ``scale = w / std`` and
    ``shift = b - mean * scale``; backward recomputes ``x_hat`` block by block rather than
    keeping it, and the input gradient is ``g * a + x * b + c`` with per-channel a, b, c.
    """
    data = x.data
    xm = data.transpose(order)
    x2 = xm.reshape(-1, xm.shape[-1])
    xp, kern = backend.array_module(data), backend.kernels(data)
    count = x2.shape[0]
    if use_global:
        mean = running_mean.data.astype(data.dtype, copy=False)
        var = running_var.data.astype(data.dtype, copy=False)
    else:
        mean, var = kern.channel_moments(x2)
        if training:
            _update_running(running_mean, running_var, mean, var, momentum)
    inv_std, gain, shift = batch_norm_affine(mean, var, weight, bias, epsilon, data.dtype)
    out2 = kern.channel_affine(x2, gain, shift, xp.empty_like(x2))
    out = out2.reshape(xm.shape).transpose(back)
    parents = tuple(p for p in (x, weight, bias) if p is not None)

    def backward(g):
        gm = xp.ascontiguousarray(g.transpose(order))  # a copy only if g has another layout
        g2 = gm.reshape(x2.shape)
        g_bias, g_weight = kern.channel_grad_sums(g2, x2, mean, inv_std)
        gx = None
        if not x.stop_gradient:
            if use_global:  # the statistics are constants: a per-channel affine map
                a, b, c = gain, xp.zeros_like(gain), xp.zeros_like(gain)
            else:  # gain * (g - mean(g) - x_hat * mean(g * x_hat)), expanded in x
                slope = g_weight * (inv_std / count)
                a, b = gain, -gain * slope
                c = gain * (mean * slope - g_bias / count)
            gx2 = kern.channel_affine2(g2, a, x2, b.astype(data.dtype), c.astype(data.dtype),
                                       xp.empty_like(g2))
            gx = gx2.reshape(xm.shape).transpose(back)
        return _with_affine_grads(gx, weight, bias, g_weight, g_bias)

    def grad_fn(_out, g):  # create_graph: the same backward, batch statistics as Tensors
        return _batch_norm_grad(x, weight, bias, g, order[-1], use_global, (mean, inv_std),
                                epsilon)

    return apply(out, parents, backward, "batch_norm", grad_fn)


def _batch_norm_grad(x, weight, bias, g, channel: int, use_global: bool, stats: tuple,  # noqa: PLR0913
                     epsilon: float) -> tuple:
    """batch_norm's input, weight and bias gradients built of differentiable ops. With batch
    statistics they are recomputed from ``x`` (they depend on it, so they are differentiated
    too); with the running ones, ``stats`` (the forward's mean and 1 / std arrays) are
    constants. The running statistics are only ever updated by the forward."""
    axes = [i for i in range(x.ndim) if i != channel]
    bshape = [1] * x.ndim
    bshape[channel] = x.shape[channel]
    if use_global:
        mean, inv_std = (Tensor(s.reshape(bshape)) for s in stats)
        x_hat = (x - mean) * inv_std
    else:
        centred = x - x.mean(axis=axes, keepdim=True)
        inv_std = 1.0 / ((centred * centred).mean(axis=axes, keepdim=True) + epsilon).sqrt()
        x_hat = centred * inv_std
    g_hat = g if weight is None else g * weight.reshape(bshape)
    if use_global:  # a per-channel affine map of x
        gx = g_hat * inv_std
    else:
        gx = (g_hat - g_hat.mean(axis=axes, keepdim=True)
              - x_hat * (g_hat * x_hat).mean(axis=axes, keepdim=True)) * inv_std
    grads = [gx if needs(x) else None]
    for param, term in ((weight, g * x_hat), (bias, g)):
        if param is not None:
            grads.append(term.sum(axis=axes) if needs(param) else None)
    return tuple(grads)


def batch_norm_affine(mean, var, weight, bias, epsilon: float, dtype) -> tuple:
    """Batch norm as a per-channel affine map ``x * gain + shift``: ``(inv_std, gain, shift)``
    with inv_std = 1 / sqrt(var + epsilon), gain = inv_std * weight, shift = bias - mean * gain
    (``weight`` / ``bias``: Tensors or None). The rows path and core.nn.fusion's folding share
    it, so a folded convolution scales exactly as the batch norm would."""
    xp = backend.array_module(var)
    inv_std = (1.0 / xp.sqrt(var + epsilon)).astype(dtype, copy=False)
    gain = inv_std if weight is None else inv_std * weight.data
    shift = -mean * gain if bias is None else bias.data - mean * gain
    return inv_std, gain, shift


def _with_affine_grads(gx, weight, bias, g_weight, g_bias) -> tuple:
    """The input gradient, then the weight's and bias's (None when frozen), as ``apply``
    expects them for the parents (x, [weight], [bias])."""
    grads = [gx]
    if weight is not None:
        grads.append(g_weight if not weight.stop_gradient else None)
    if bias is not None:
        grads.append(g_bias if not bias.stop_gradient else None)
    return tuple(grads)


def _channel_axis(ndim: int, data_format: str) -> int:
    if data_format in _CHANNELS_FIRST and ndim >= 2:
        return 1
    if data_format in _CHANNELS_LAST and ndim >= 2:
        return ndim - 1
    raise ValueError(f"batch_norm: data_format={data_format!r} does not fit an input with {ndim} "
                     f"dimension(s); use one of {_CHANNELS_FIRST + _CHANNELS_LAST} on an input "
                     "with at least 2 dimensions.")


def _update_running(running_mean: Tensor, running_var: Tensor, mean, var,
                    momentum: float) -> None:
    """Fold the batch statistics into the buffers in place (state_dict shares their memory).
    ``var`` is the biased batch variance: Paddle keeps that one, not n / (n - 1) times it."""
    running_mean.data *= momentum
    running_mean.data += (1.0 - momentum) * mean.astype(running_mean.data.dtype, copy=False)
    running_var.data *= momentum
    running_var.data += (1.0 - momentum) * var.astype(running_var.data.dtype, copy=False)


def normalize(x: Tensor, p: float = 2, axis: int = 1, epsilon: float = 1e-12,
              name: str | None = None) -> Tensor:
    """``x / max(||x||_p, epsilon)`` along ``axis`` (Paddle's ``F.normalize``), one fused op.

    Where the norm is below ``epsilon`` the divisor is the constant ``epsilon`` and no gradient
    flows through the norm (Paddle's maximum sends a tie's gradient to epsilon as well).
    """
    del name
    data = x.data
    if not -data.ndim <= axis < max(data.ndim, 1) or not p > 0:
        raise ValueError(f"normalize: axis={axis} must be in [{-data.ndim}, {data.ndim - 1}] "
                         f"and p={p} > 0, for x of shape {x.shape}")
    xp = backend.array_module(data)
    a = abs(data)
    norm = (a ** p).sum(axis=axis, keepdims=True) ** (1.0 / p)
    through = norm > epsilon  # the norm, not epsilon, divides here
    denom = xp.where(through, norm, data.dtype.type(epsilon))
    out = data / denom

    def backward(g):
        inner = (g * data).sum(axis=axis, keepdims=True)
        safe = xp.where(through, norm, 1)
        dnorm = xp.sign(data) * (a / safe) ** (p - 1)  # d ||x||_p / d x
        return (g / denom - xp.where(through, inner / (denom * denom), 0) * dnorm,)

    return apply(out, (x,), backward, "normalize", _unit_norm_grad)


def _unit_norm_grad(out, g):
    """normalize's backward with recorded ops (create_graph): the norm recomputed where it
    divides (``through``, a constant mask), the constant epsilon elsewhere, as the array
    backward; a row that epsilon divides stands in as the norm of sum + 1, never used."""
    axis, p, through, denom, data = captured(out, "axis", "p", "through", "denom", "data")
    x = out._parents[0]
    on = Tensor(through.astype(data.dtype))
    norm = ((x.abs() ** p).sum(axis=axis, keepdim=True) + (1 - on)) ** (1.0 / p)
    divisor = norm * on + Tensor(backend.array_module(data).where(through, 0, denom))
    if p == 2:
        dnorm = x / norm
    elif p == 1:  # sign(x): a constant (its power 0 would have a 0 * inf gradient at 0)
        dnorm = Tensor(backend.array_module(data).sign(data))
    else:
        dnorm = x.sign() * (x.abs() / norm) ** (p - 1)
    inner = (g * x).sum(axis=axis, keepdim=True)
    return (g / divisor - on * inner / (divisor * divisor) * dnorm,)


# ----- layer, group and instance norm: one fused op over per-sample statistics ----------------
def _normalize(x: Tensor, stat_shape: tuple, axes: tuple, weight, bias, affine_shape,
               epsilon: float, op: str) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` with the statistics of ``x`` viewed as
    ``stat_shape`` reduced over ``axes`` (biased variance, as Paddle); weight and bias are
    reshaped to ``affine_shape``, which broadcasts against ``x``."""
    data = x.data
    xp = backend.array_module(data)
    view = data.reshape(stat_shape)
    # Each row of ``rows`` is one group of statistics (they reduce over the view's last axis).
    # Row means are GEMVs with a vector of 1/d (BLAS, not numpy's reduction), and temporaries
    # are reused in place: LayerNorm over [32, 64, 128] forward 0.68 -> 0.55 ms, with its
    # backward 1.72 -> 1.41 ms.
    rows = view.reshape(math.prod(view.shape[:-1]), view.shape[-1])
    by_mean = xp.full(rows.shape[1], 1.0 / max(1, rows.shape[1]), dtype=data.dtype)
    x_hat, inv_std = xp.empty_like(rows), xp.empty(rows.shape[0], dtype=data.dtype)
    # The rows run in blocks over core's threads (core.row_blocks), and so does the affine map
    # where it is one vector per row (layer norm); group norm's per-channel one runs after.
    w = None if weight is None else weight.data.reshape(affine_shape)
    row_affine = all(m == 1 for m in affine_shape[:len(stat_shape) - 1]) and \
        math.prod(affine_shape) == rows.shape[1]
    w_row, b_row = (None if p is None or not row_affine else p.data.reshape(-1)
                    for p in (weight, bias))
    affine_here = row_affine and (weight is not None or bias is not None)
    out = xp.empty_like(rows) if affine_here else x_hat

    def forward(i, j):
        xh, std = x_hat[i:j], inv_std[i:j]
        xp.subtract(rows[i:j], (rows[i:j] @ by_mean)[:, None], out=xh)
        std[...] = 1.0 / xp.sqrt((xh * xh) @ by_mean + epsilon)
        xh *= std[:, None]
        if w_row is not None:
            xp.multiply(xh, w_row, out=out[i:j])
        elif b_row is not None:
            out[i:j] = xh
        if b_row is not None:
            out[i:j] += b_row

    for_blocks(rows, forward, passes=6)
    x_hat, out = x_hat.reshape(data.shape), out.reshape(data.shape)
    if not row_affine:
        out = x_hat if w is None else x_hat * w
        if bias is not None:
            out = out + bias.data.reshape(affine_shape)
    params = [p for p in (weight, bias) if p is not None]
    reduce = tuple(i for i, m in enumerate(affine_shape) if m == 1)  # weight broadcasts there

    def backward(g):
        g_hat = g if w is None else g * w
        gh, xh = g_hat.reshape(rows.shape), x_hat.reshape(rows.shape)
        gx = xp.empty_like(rows)

        def block(i, j):
            # d x_hat / d x of a normalisation: inv_std * (g - mean(g) - x_hat * mean(g x_hat)).
            g_b, x_b, gx_b = gh[i:j], xh[i:j], gx[i:j]
            xp.multiply(g_b, x_b, out=gx_b)
            mean_gx = gx_b @ by_mean
            xp.multiply(x_b, mean_gx[:, None], out=gx_b)
            gx_b += (g_b @ by_mean)[:, None]
            xp.subtract(g_b, gx_b, out=gx_b)
            gx_b *= inv_std[i:j, None]

        for_blocks(rows, block, passes=6)
        grads = [gx.reshape(data.shape)]
        if weight is not None:
            grads.append((g * x_hat).sum(axis=reduce).reshape(weight.data.shape))
        if bias is not None:
            grads.append(g.sum(axis=reduce).reshape(bias.data.shape))
        return tuple(grads)

    def grad_fn(_out, g):  # create_graph: the same backward, statistics recomputed as Tensors
        return _normalize_grad(x, weight, bias, g, rows.shape, affine_shape, reduce, epsilon)

    return apply(out, (x, *params), backward, op, grad_fn)


def _normalize_grad(x, weight, bias, g, rows_shape, affine_shape, reduce, epsilon) -> tuple:  # noqa: PLR0913
    """``_normalize``'s input, weight and bias gradients built of differentiable ops (x's
    mean and variance recomputed from ``x``, so that they are differentiated too)."""
    rows = x.reshape(list(rows_shape))
    centred = rows - rows.mean(axis=1, keepdim=True)
    inv_std = 1.0 / ((centred * centred).mean(axis=1, keepdim=True) + epsilon).sqrt()
    x_hat = centred * inv_std
    g_hat = (g if weight is None else g * weight.reshape(list(affine_shape))).reshape(
        list(rows_shape))
    gx = (g_hat - g_hat.mean(axis=1, keepdim=True)
          - x_hat * (g_hat * x_hat).mean(axis=1, keepdim=True)) * inv_std
    grads = [gx.reshape(x.shape) if needs(x) else None]
    for param, term in ((weight, g * x_hat.reshape(x.shape)), (bias, g)):
        if param is not None:
            summed = term.sum(axis=list(reduce)) if reduce else term
            grads.append(summed.reshape(param.shape) if needs(param) else None)
    return tuple(grads)


def layer_norm(x: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, epsilon: float = 1e-05,
               name: str | None = None) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` axes of each sample (Paddle's
    ``layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None)``);
    ``weight`` and ``bias`` have shape ``normalized_shape``."""
    del name
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        x, weight, bias = autocast.cast_inputs("layer_norm", x, weight, bias)
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    k = len(shape)
    if k == 0 or list(x.shape[x.ndim - k:]) != shape:
        raise ValueError(f"layer_norm: normalized_shape={shape} must equal the trailing "
                         f"dimensions of the input of shape {x.shape}.")
    lead = x.shape[:x.ndim - k]
    stat = tuple(lead) + (math.prod(shape),)  # spelled out: an empty batch cannot infer -1
    return _normalize(x, stat, (len(lead),), weight, bias, (1,) * len(lead) + tuple(shape),
                      epsilon, "layer_norm")


def _check_affine(first: Tensor, weight, bias, data_format: str) -> None:
    """group_norm's weight and bias must have one value per channel (axis 1 of ``first``, the
    input with its channels first); a mismatch would fail later in a bare reshape."""
    channels = first.shape[1]
    for label, param in (("weight", weight), ("bias", bias)):
        if param is not None and param.size != channels:
            axis = -1 if data_format in _CHANNELS_LAST else 1
            raise ValueError(f"group_norm: {label} has {param.size} values, but the input has "
                             f"{channels} channels (axis {axis} of its {data_format} layout); "
                             "they must match.")


def group_norm(x: Tensor, num_groups: int, epsilon: float = 1e-05, weight: Tensor | None = None,
               bias: Tensor | None = None, data_format: str = "NCHW",
               name: str | None = None) -> Tensor:
    """Normalise each sample's channel groups (Paddle's ``group_norm(x, num_groups,
    epsilon=1e-05, weight=None, bias=None, data_format='NCHW', name=None)``): [N, C, *]
    inputs, or [N, *, C] with a channels-last ``data_format`` (NLC, NHWC, NDHWC, as Paddle 3);
    per-channel ``weight`` and ``bias`` [C]."""
    del name
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        x, weight, bias = autocast.cast_inputs("group_norm", x, weight, bias)
    if data_format in _CHANNELS_LAST:
        # The channels moved first and back: a group's statistics span its channels and every
        # position, whatever the layout (two copies; channels-first inputs pay none).
        first = x.transpose([0, x.ndim - 1, *range(1, x.ndim - 1)])
        _check_affine(first, weight, bias, data_format)
        out = group_norm(first, num_groups, epsilon, weight, bias, "NCHW")
        return out.transpose([0, *range(2, x.ndim), 1])
    if data_format not in _CHANNELS_FIRST:
        raise ValueError(f"group_norm: data_format={data_format!r} is not supported; use one "
                         f"of {_CHANNELS_FIRST + _CHANNELS_LAST}.")
    channels = x.shape[1]
    if channels % num_groups:
        raise ValueError(f"group_norm: {channels} channels are not divisible by "
                         f"num_groups={num_groups}.")
    _check_affine(x, weight, bias, data_format)
    # The group size spelled out, not -1: an empty batch has nothing to infer -1 from.
    stat = (x.shape[0], num_groups, math.prod(x.shape[1:]) // num_groups)
    affine = (1, channels) + (1,) * (x.ndim - 2)
    return _normalize(x, stat, (2,), weight, bias, affine, epsilon, "group_norm")


def instance_norm(x: Tensor, running_mean=None, running_var=None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.9, eps: float = 1e-05, data_format: str = "NCHW",
                  name: str | None = None) -> Tensor:
    """Normalise each sample's channels over their spatial axes (Paddle's ``instance_norm(x,
    running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
    momentum=0.9, eps=1e-05, data_format='NCHW', name=None)``). Running statistics are not
    used (Paddle's InstanceNorm layers do not track them either)."""
    del name, running_mean, running_var, momentum
    if not use_input_stats:
        raise ValueError("instance_norm: use_input_stats=False is not supported: Paddle 3.3.1 "
                         "ignores it and normalises by the input's statistics all the same; "
                         "pass True for those numbers, or use batch_norm with the running "
                         "statistics.")
    if data_format not in _CHANNELS_FIRST or x.ndim < 3:
        raise ValueError(f"instance_norm: expected a channels-first [N, C, ...] input, got "
                         f"shape {x.shape} with data_format={data_format!r}.")
    stat = (x.shape[0], x.shape[1], -1)
    affine = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return _normalize(x, stat, (2,), weight, bias, affine, eps, "instance_norm")


# ----- local response normalisation: across neighbouring channels -----------------------------
_LRN_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


def local_response_norm(x: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0, data_format: str = "NCHW",
                        name: str | None = None) -> Tensor:
    """Local response normalisation across channels, Paddle's ``local_response_norm(x, size,
    alpha=1e-4, beta=0.75, k=1.0, data_format='NCHW', name=None)``:

        out[c] = x[c] / (k + alpha / size * sum_{j=c-size//2}^{c+(size-1)//2} x[j]^2)^beta

    with the sum clipped to the channels that exist. Paddle's documented formula omits the
    ``/ size``, but its implementation averages the squares (zero padding, then an average pool
    of ``size`` channels), as PyTorch does; this follows the implementation. ``x`` is 3-D to
    5-D; the channel axis is 1, or the last one when ``data_format`` ends in 'C'.

    One fused op. With ``base = k + alpha / size * s`` (s the window sum), the backward is
    ``g / base^beta - 2 x * T(g * x * beta * alpha / size / base^(beta + 1))``, where T sums
    over the windows that contain each channel (the window sum with its ends swapped).
    """
    del name
    if not isinstance(x, Tensor):
        raise backend.NotATensorError(f"local_response_norm: {backend.NOT_A_TENSOR}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"local_response_norm: size={size!r} must be a positive integer.")
    if data_format not in _LRN_FORMATS:
        raise ValueError(f"local_response_norm: data_format={data_format!r} is not supported; "
                         f"use one of {_LRN_FORMATS}.")
    if not 3 <= x.ndim <= 5:
        raise ValueError(f"local_response_norm: expected a 3-D to 5-D input, got shape "
                         f"{x.shape}.")
    if x.dtype.kind != "f":
        raise TypeError(f"local_response_norm: x must be a floating tensor, got dtype {x.dtype}")
    data = x.data
    axis = data.ndim - 1 if data_format[-1] == "C" else 1
    before, after = size // 2, (size - 1) // 2
    scale = alpha / size
    base = _window_sum(data * data, axis, before, after)
    base *= scale
    base += k
    div = base ** beta
    out = data / div

    def backward(g):
        inner = g * data / (div * base)
        inner *= -2.0 * beta * scale
        return (g / div + data * _window_sum(inner, axis, after, before),)

    return apply(out, (x,), backward, "local_response_norm",
                 functools.partial(_local_response_norm_grad, k=k))


def _local_response_norm_grad(out, g, k: float):
    """local_response_norm's backward with recorded ops (create_graph): the window sums are
    products with a constant [C, C] band matrix along the channel axis (its transpose for the
    windows that contain each channel), so the statistics are differentiated too."""
    axis, before, after, beta, scale = captured(out, "axis", "before", "after", "beta", "scale")
    x = out._parents[0]
    xp = backend.array_module(x.data)
    j = xp.arange(x.shape[axis])
    # band[j, c]: channel j lies in the window of channel c, [c - before, c + after]
    band = ((j[:, None] >= j[None, :] - before) & (j[:, None] <= j[None, :] + after)).astype(
        x.dtype)

    def window(t, matrix):
        return (t.moveaxis(axis, -1) @ Tensor(matrix)).moveaxis(-1, axis)

    base = window(x * x, band) * scale + k
    div = base ** beta
    inner = g * x / (div * base) * (-2.0 * beta * scale)
    return (g / div + x * window(inner, xp.ascontiguousarray(band.T)),)


def _window_sum(a, axis: int, before: int, after: int):
    """``s[c] = a[c - before] + ... + a[c + after]`` along ``axis``, channels outside left out:
    one shifted add per offset (``size`` is small, 5 in AlexNet)."""
    out = a.copy()
    n = a.shape[axis]

    def part(start, stop):
        index = [slice(None)] * a.ndim
        index[axis] = slice(start, stop)
        return tuple(index)

    for d in range(1, min(before, n - 1) + 1):  # a[c - d] into s[c]
        out[part(d, n)] += a[part(0, n - d)]
    for d in range(1, min(after, n - 1) + 1):  # a[c + d] into s[c]
        out[part(0, n - d)] += a[part(d, n)]
    return out
