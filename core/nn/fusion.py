"""Inference folding: a batch norm that uses its running statistics is an affine map per
channel, so ``bn(conv(x))`` is one convolution with a rescaled kernel and a new bias.

Why: at inference a batch norm after a convolution reads and writes the whole activation once
more, for a result the convolution's GEMM can produce itself (its bias rides in the GEMM,
core.nn.functional.conv). The spec's ResNet spent 2.6 of 26 ms of its inference on one thread
in its nine batch norms and 4.7 of 21 ms on two. Paddle Inference does the same fold
(``conv_bn_fuse_pass``); here the containers do it on the fly, on every forward, so the folded
kernel always matches the current weights and running statistics.

When: ``conv_bn`` answers None, and the caller runs both layers as usual, unless the fold
changes nothing a user can see: no gradient is being recorded, the batch norm uses its running
statistics, both layers are the plain ``Conv2D`` and ``BatchNorm2D`` in one data format, and no
hook is registered on either (a hook reads or replaces the convolution's output or the batch
norm's input, which the fold never makes; ``core.inference.Inference`` reads layer outputs
through such hooks). The folded result equals the two layers' up to float rounding.
"""
from __future__ import annotations

from core.nn.conv import Conv2D
from core.nn.functional.conv import conv2d
from core.nn.functional.norm import batch_norm_affine
from core.nn.norm import BatchNorm2D
from core.tensor import Tensor, is_grad_enabled


def conv_bn(conv, bn, x: Tensor) -> Tensor | None:
    """``bn(conv(x))`` as one convolution when the fold is invisible (see the module), else
    None."""
    if not _foldable(conv, bn):
        return None
    weight, bias = _folded(conv, bn)
    return conv2d(x, weight, bias, conv.stride, conv.padding, conv.dilation, conv.groups,
                  conv.data_format)


def _foldable(conv, bn) -> bool:
    if not (isinstance(conv, Conv2D) and isinstance(bn, BatchNorm2D)) or is_grad_enabled():
        return False
    global_stats = (not bn.training) if bn.use_global_stats is None else bn.use_global_stats
    return (global_stats and type(conv).forward is Conv2D.forward
            and type(bn).forward is BatchNorm2D.forward
            and conv.data_format == bn.data_format and conv.out_channels == bn.num_features
            and _one_dtype(conv, bn)
            and not (conv._forward_pre_hooks or conv._forward_post_hooks
                     or bn._forward_pre_hooks or bn._forward_post_hooks))


def _one_dtype(conv, bn) -> bool:
    """Whether the batch norm's tensors have the kernel's dtype. After ``core.amp.decorate``
    at O2 the kernel is float16 and the batch norm float32: the separate layers then give a
    float32 result, which a float16 folded kernel would not (and a float32 one would not take
    the float16 input), so such a pair is left apart."""
    dtype = conv.weight.dtype
    return all(t is None or t.dtype == dtype for t in (bn.weight, bn.bias, bn._mean, bn._variance))


def _folded(conv, bn) -> tuple[Tensor, Tensor]:
    """(kernel * gain per output channel, conv bias * gain + shift), with the batch norm's own
    gain and shift on its running statistics (``batch_norm_affine``), in the kernel's dtype."""
    w = conv.weight.data
    _, gain, shift = batch_norm_affine(bn._mean.data.astype(w.dtype, copy=False),
                                       bn._variance.data.astype(w.dtype, copy=False),
                                       bn.weight, bn.bias, bn.epsilon, w.dtype)
    if conv.bias is not None:
        shift = shift + conv.bias.data * gain
    return Tensor(w * gain.reshape(-1, 1, 1, 1)), Tensor(shift)
