"""``batch_norm``: batch normalisation as one fused op (Paddle's ``F.batch_norm``)."""
from __future__ import annotations

from core import backend
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
    ``running = momentum * running + (1 - momentum) * batch``. The batch variance that normalises
    is the biased one; the variance folded into ``running_var`` is the unbiased one (n / (n-1)),
    as cuDNN (Paddle's GPU kernel) and PyTorch do. ``use_global_stats`` forces the running
    statistics (True) or the batch statistics (False); None picks by ``training``.
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
            _update_running(running_mean, running_var, mean, var, momentum, count)
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
        grads = [gx]
        if weight is not None:
            grads.append(g_weight if not weight.stop_gradient else None)
        if bias is not None:
            grads.append(g_bias if not bias.stop_gradient else None)
        return tuple(grads)

    return apply(out, parents, backward, "batch_norm")


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
            _update_running(running_mean, running_var, mean, var, momentum, count)
    inv_std = (1.0 / xp.sqrt(var + epsilon)).astype(data.dtype, copy=False)
    gain = inv_std if weight is None else inv_std * weight.data
    shift = -mean * gain if bias is None else bias.data - mean * gain
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
        grads = [gx]
        if weight is not None:
            grads.append(g_weight if not weight.stop_gradient else None)
        if bias is not None:
            grads.append(g_bias if not bias.stop_gradient else None)
        return tuple(grads)

    return apply(out, parents, backward, "batch_norm")


def _channel_axis(ndim: int, data_format: str) -> int:
    if data_format in _CHANNELS_FIRST and ndim >= 2:
        return 1
    if data_format in _CHANNELS_LAST and ndim >= 2:
        return ndim - 1
    raise ValueError(f"batch_norm: data_format={data_format!r} does not fit an input with {ndim} "
                     f"dimension(s); use one of {_CHANNELS_FIRST + _CHANNELS_LAST} on an input "
                     "with at least 2 dimensions.")


def _update_running(running_mean: Tensor, running_var: Tensor, mean, var, momentum: float,
                    count: int) -> None:
    """Fold the batch statistics into the buffers in place (state_dict shares their memory)."""
    unbiased = var * (count / max(count - 1, 1))
    running_mean.data *= momentum
    running_mean.data += (1.0 - momentum) * mean.astype(running_mean.data.dtype, copy=False)
    running_var.data *= momentum
    running_var.data += (1.0 - momentum) * unbiased.astype(running_var.data.dtype, copy=False)
