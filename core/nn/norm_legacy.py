"""Paddle's older ``BatchNorm`` layer (any rank 2-5, an optional activation by name) and
``SyncBatchNorm``, both on the machinery of ``BatchNorm1D/2D`` (core/nn/norm.py) and
``core.nn.functional.batch_norm``: the same parameters (``weight``, ``bias``) and buffers
(``_mean``, ``_variance``), so state dicts read alike.

SyncBatchNorm and several processes: core trains data-parallel only through the runner
(``mpirun -n K python -m runner trainer.distributed=true``, runner/train/distributed.py), which
averages *gradients* once per step and nothing else. SyncBatchNorm does not all-reduce the batch
statistics: each rank normalises with the mean and variance of its own shard and keeps its own
running statistics (rank 0's are checkpointed). In one process, the only case core has outside
the runner, it is exactly BatchNorm over the whole batch, which is what Paddle's SyncBatchNorm
computes there too.
"""
from __future__ import annotations

from core.nn import functional as F
from core.nn.functional.norm import batch_norm
from core.nn.layer import Layer
from core.nn.norm import _BatchNormBase
from core.tensor import Tensor, no_grad

_LAYOUTS = ("NCHW", "NHWC")
_CHANNELS_LAST = ("NHWC", "NDHWC", "NLC")


def _activation(act):
    """The ``core.nn.functional`` activation named ``act`` (None: no activation)."""
    if act is None:
        return None
    fn = getattr(F, act, None) if isinstance(act, str) and act in F.__all__ else None
    if not callable(fn) or act in ("dropout", "linear", "flatten"):
        raise ValueError(f"BatchNorm: act={act!r} is not an activation of core.nn.functional; "
                         "use None or a name such as 'relu', 'sigmoid', 'tanh', 'leaky_relu'.")
    return fn


def _flag(owner: str, label: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{owner}: {label}={value!r} must be True or False.")
    return value


class BatchNorm(_BatchNormBase):
    """Batch normalisation over inputs of rank 2 to 5 with an optional activation, Paddle's
    older ``paddle.nn.BatchNorm(num_channels, act=None, is_test=False, momentum=0.9,
    epsilon=1e-05, param_attr=None, bias_attr=None, dtype='float32', data_layout='NCHW',
    in_place=False, moving_mean_name=None, moving_variance_name=None,
    do_model_average_for_mean_and_var=True, use_global_stats=False,
    trainable_statistics=False)``.

    ``y = act(weight * (x - mean) / sqrt(var + epsilon) + bias)`` per channel (axis 1, or the
    last axis with ``data_layout='NHWC'``; a 2-D input is always [N, C]). In training the batch
    statistics normalise and ``running = momentum * running + (1 - momentum) * batch`` (the
    biased variance, as Paddle). In eval mode the running statistics normalise, unless
    ``trainable_statistics`` (then the batch's, and the running ones still update, as Paddle's
    op). ``use_global_stats=True`` always uses the running statistics. ``act`` names a
    ``core.nn.functional`` activation ('relu', 'tanh', ...).

    As Paddle's dynamic graph, the mode comes from ``train()`` / ``eval()``, not ``is_test``;
    ``in_place``, ``moving_mean_name``, ``moving_variance_name`` and
    ``do_model_average_for_mean_and_var`` only matter to Paddle's static graph and are kept
    for the signature. ``param_attr`` / ``bias_attr`` False leave out the scale / shift.
    """

    _dims = (2, 3, 4, 5)
    _formats = _LAYOUTS

    def __init__(self, num_channels: int, act: str | None = None, is_test: bool = False,
                 momentum: float = 0.9, epsilon: float = 1e-05, param_attr=None, bias_attr=None,
                 dtype: str = "float32", data_layout: str = "NCHW", in_place: bool = False,
                 moving_mean_name: str | None = None, moving_variance_name: str | None = None,
                 do_model_average_for_mean_and_var: bool = True, use_global_stats: bool = False,
                 trainable_statistics: bool = False):
        if dtype not in ("float16", "float32", "float64"):
            raise ValueError(f"BatchNorm: dtype={dtype!r} must be 'float16', 'float32' or "
                             "'float64'.")
        act_fn = _activation(act)
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         None, None)
        self._act_fn = act_fn
        self.act, self.is_test = act, _flag("BatchNorm", "is_test", is_test)
        self.use_global_stats_flag = _flag("BatchNorm", "use_global_stats", use_global_stats)
        self.trainable_statistics = _flag("BatchNorm", "trainable_statistics",
                                          trainable_statistics)
        if dtype == "float64":  # parameters and statistics in float64 (float16: Paddle keeps
            self.to(dtype=dtype)  # float32 parameters and statistics)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self._dims:
            raise ValueError(f"BatchNorm: expected an input with 2 to 5 dimensions, got shape "
                             f"{x.shape}.")
        last = self.data_format == "NHWC" and x.ndim > 2
        channels = x.shape[-1 if last else 1]
        if channels != self.num_features:
            raise ValueError(f"BatchNorm: input of shape {x.shape} ({self.data_format}) has "
                             f"{channels} channels, but the layer was built for "
                             f"num_channels={self.num_features}.")
        # Paddle's op: test mode = eval and not trainable_statistics; global statistics in test
        # mode or when forced. Batch statistics always update the running ones.
        batch_stats = self.training or self.trainable_statistics
        out = batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                         training=batch_stats, momentum=self.momentum, epsilon=self.epsilon,
                         data_format="NHWC" if last else "NCHW",
                         use_global_stats=True if self.use_global_stats_flag else None)
        return out if self._act_fn is None else self._act_fn(out)

    def extra_repr(self) -> str:
        act = f", act={self.act}" if self.act else ""
        return f"num_channels={self.num_features}, momentum={self.momentum}, " \
               f"epsilon={self.epsilon}, data_layout={self.data_format}{act}"


def batch_norm_sharing(layer, cls, data_format: str):
    """A ``cls`` batch norm with ``layer``'s settings that shares its weight, bias and running
    statistics (the same Tensors) and its training mode: what the ``convert_sync_batchnorm``
    conversions (dense here, sparse in core.sparse.nn.norm) put in ``layer``'s place."""
    out = cls(layer.num_features, layer.momentum, layer.epsilon,
              False if layer.weight is None else None,
              False if layer.bias is None else None, data_format)
    with no_grad():
        if layer.weight is not None:
            out.weight = layer.weight
        if layer.bias is not None:
            out.bias = layer.bias
    out._mean, out._variance = layer._mean, layer._variance
    out.training = layer.training
    return out


class SyncBatchNorm(_BatchNormBase):
    """Batch normalisation whose statistics Paddle synchronises across data-parallel devices,
    ``paddle.nn.SyncBatchNorm(num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
    bias_attr=None, data_format='NCHW', name=None)``; inputs of rank 2 to 5.

    In one process it is BatchNorm1D/2D/3D: batch statistics in training (and the running ones
    updated with ``momentum``), running statistics in eval mode. core does **not** synchronise
    the statistics across processes: under the runner's data-parallel training each rank
    normalises with its own shard's statistics (module docstring). ``data_format`` is
    channels-first ('NC', 'NCL', 'NCHW', 'NCDHW') or channels-last ('NLC', 'NHWC', 'NDHWC'),
    whatever the input's rank, as in Paddle.
    """

    _dims = (2, 3, 4, 5)
    _formats = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr=None, bias_attr=None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         None, name)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self._dims:
            raise ValueError(f"SyncBatchNorm: expected an input with 2 to 5 dimensions, got "
                             f"shape {x.shape}.")
        last = self.data_format in _CHANNELS_LAST and x.ndim > 2
        channels = x.shape[-1 if last else 1]
        if channels != self.num_features:
            raise ValueError(f"SyncBatchNorm: input of shape {x.shape} ({self.data_format}) has "
                             f"{channels} channels, but the layer was built for "
                             f"num_features={self.num_features}.")
        return batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                          training=self.training, momentum=self.momentum, epsilon=self.epsilon,
                          data_format="NHWC" if last else "NCHW")

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """``layer`` with every BatchNorm1D / 2D / 3D in it (itself included) replaced by a
        SyncBatchNorm with the same settings, sharing its weight, bias and running statistics
        (the same Tensors), Paddle's ``SyncBatchNorm.convert_sync_batchnorm(layer)``. Returns
        the converted layer (a new one when ``layer`` itself is a batch norm). Paddle's older
        ``BatchNorm`` is not converted (nor by Paddle: it is no ``_BatchNormBase``)."""
        if not isinstance(layer, Layer):
            raise TypeError(f"SyncBatchNorm.convert_sync_batchnorm: layer must be a "
                            f"core.nn.Layer, got {type(layer).__name__}")
        out = layer
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, BatchNorm):
            fmt = layer.data_format
            out = batch_norm_sharing(layer, cls, fmt if fmt in cls._formats else "NCHW")
        for name, sub in list(layer.named_children()):
            out.add_sublayer(name, cls.convert_sync_batchnorm(sub))
        return out
