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
    ``running = momentum * running + (1 - momentum) * batch``. Both the variance that normalises
    and the one folded into ``running_var`` are the biased batch variance (divided by n), as
    Paddle's batch_norm kernel does (PyTorch folds in the unbiased one; docs/paddle-layers.md).
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


def _update_running(running_mean: Tensor, running_var: Tensor, mean, var,
                    momentum: float) -> None:
    """Fold the batch statistics into the buffers in place (state_dict shares their memory).
    ``var`` is the biased batch variance: Paddle keeps that one, not n / (n - 1) times it."""
    running_mean.data *= momentum
    running_mean.data += (1.0 - momentum) * mean.astype(running_mean.data.dtype, copy=False)
    running_var.data *= momentum
    running_var.data += (1.0 - momentum) * var.astype(running_var.data.dtype, copy=False)
