"""Paddle's sparse batch normalisation: ``paddle.sparse.nn.BatchNorm`` and ``SyncBatchNorm``.

A sparse tensor of voxels [N, D, H, W, C] (sparse over all but the channel axis) is normalised
over its stored values [nnz, C]: the statistics of each channel are those of the active sites
only (implicit zeros take no part), as Paddle's kernel, which runs the dense batch norm on the
values. So these are core's dense batch norm layers, fed the values: the same parameters
(``weight``, ``bias``), running statistics (``_mean``, ``_variance``), defaults (momentum 0.9,
epsilon 1e-5) and state_dict keys.
"""
from __future__ import annotations

from core.nn.functional.norm import batch_norm
from core.nn.layer import Layer
from core.nn.norm import BatchNorm1D, _BatchNormBase
from core.nn.norm_legacy import SyncBatchNorm as DenseSyncBatchNorm
from core.nn.norm_legacy import batch_norm_sharing
from core.sparse.tensor import SparseTensor, coalesced, values_of, with_values

__all__ = ["BatchNorm", "SyncBatchNorm"]


def _normalised(layer, x, use_global_stats):
    """``x`` with its values [nnz, C] batch-normalised by ``layer``'s parameters and running
    statistics (updated in training)."""
    kind = f"sparse.nn.{type(layer).__name__}"
    if not isinstance(x, SparseTensor) or not x.is_sparse_coo():
        raise TypeError(f"{kind}: x must be a sparse COO tensor whose last axis (the channels) "
                        f"is dense, e.g. [N, D, H, W, C] with sparse_dim 4; got "
                        f"{type(x).__name__ if not isinstance(x, SparseTensor) else 'CSR'}")
    if x.dense_dim() != 1 or x.shape[-1] != layer.num_features:
        raise ValueError(f"{kind}: x must store values [nnz, C] with C = num_features = "
                         f"{layer.num_features} (sparse over every axis but the last), got "
                         f"shape {x.shape} with sparse_dim {x.sparse_dim()}")
    x = coalesced(x)  # the statistics are of the value each site holds
    values = values_of(x)
    if values.shape[0] == 0:
        # No active site (an empty cloud, or one a strided layer emptied): no statistics to
        # take, and the mean of nothing would turn the running ones into NaN for good; the
        # output is empty and the running statistics stay as they were, as torch's batch norm
        # of an empty batch.
        return with_values(x, values)
    out = batch_norm(values, layer._mean, layer._variance, layer.weight, layer.bias,
                     training=layer.training, momentum=layer.momentum, epsilon=layer.epsilon,
                     data_format="NC", use_global_stats=use_global_stats)
    return with_values(x, out)


class BatchNorm(BatchNorm1D):
    """Paddle's ``paddle.sparse.nn.BatchNorm(num_features, momentum=0.9, epsilon=1e-05,
    weight_attr=None, bias_attr=None, data_format='NDHWC', use_global_stats=None,
    name=None)``: batch norm of each channel over the active sites of a COO tensor
    [N, D, H, W, C] ('NDHWC') or [N, H, W, C] ('NHWC'), i.e. over its values [nnz, C]. In
    training the batch statistics (biased variance) normalise and update the running ones
    (``running = momentum * running + (1 - momentum) * batch``); in eval mode the running
    ones normalise. The output keeps x's sites."""

    _formats = ("NDHWC", "NHWC")

    def __init__(self, num_features: int, momentum: float = 0.9,  # noqa: PLR0913
                 epsilon: float = 1e-05, weight_attr=None, bias_attr=None,
                 data_format: str = "NDHWC", use_global_stats: bool | None = None,
                 name: str | None = None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)

    def forward(self, x):
        return _normalised(self, x, self.use_global_stats)


class SyncBatchNorm(DenseSyncBatchNorm):
    """Paddle's ``paddle.sparse.nn.SyncBatchNorm(num_features, momentum=0.9, epsilon=1e-05,
    weight_attr=None, bias_attr=None, data_format='NCHW', name=None)``: in one process
    exactly ``BatchNorm`` (the statistics of the whole batch's active sites), which is what
    Paddle computes on a single card; core does not synchronise statistics across processes
    (see core.nn.SyncBatchNorm)."""

    def forward(self, x):
        return _normalised(self, x, None)

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """Paddle's ``SyncBatchNorm.convert_sync_batchnorm(layer)``: ``layer`` with every
        sparse ``BatchNorm`` in it (itself included) replaced by a sparse ``SyncBatchNorm`` and
        every dense batch norm by ``core.nn.SyncBatchNorm``, each sharing the old layer's
        weight, bias and running statistics. Returns the converted layer."""
        if not isinstance(layer, Layer):
            raise TypeError(f"sparse.nn.SyncBatchNorm.convert_sync_batchnorm: layer must be a "
                            f"core.nn.Layer, got {type(layer).__name__}")
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, BatchNorm):
            return layer if isinstance(layer, cls) else \
                DenseSyncBatchNorm.convert_sync_batchnorm(layer)
        out = layer
        if isinstance(layer, BatchNorm):
            out = batch_norm_sharing(layer, cls, layer.data_format)
        for name, sub in list(layer.named_children()):
            out.add_sublayer(name, cls.convert_sync_batchnorm(sub))
        return out
