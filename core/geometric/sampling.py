"""Paddle's neighbor sampling: ``paddle.geometric.sample_neighbors`` and
``weighted_sample_neighbors`` (python/paddle/geometric/sampling/neighbors.py; CPU kernels
paddle/phi/kernels/cpu/graph_sample_neighbors_kernel.cc and weighted_sample_neighbors_kernel.cc).

The graph is in CSC form: the neighbors of node n are ``row[colptr[n]:colptr[n + 1]]``. Each
input node keeps all its neighbors, in order, when it has at most ``sample_size`` (or when
sample_size is -1); otherwise ``sample_size`` of them are drawn without replacement, uniformly
or with probability growing with ``edge_weight`` (Efraimidis-Spirakis keys log(u) / w, the
largest kept, as Paddle's kernel). The draws come from core's host generator
(``core.backend.rng()``, seeded by ``core.seed``), so a seed repeats them; the work is
vectorised on the host (one sort of the candidate edges) and the results go to the current
device.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.geometric._scatter import index_array
from core.tensor import Tensor

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]


def sample_neighbors(row, colptr, input_nodes, sample_size: int = -1, eids=None,
                     return_eids: bool = False, perm_buffer=None,
                     name: str | None = None) -> tuple:
    """``paddle.geometric.sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None,
    return_eids=False, perm_buffer=None, name=None)`` -> ``(out_neighbors, out_count)``, or
    ``(out_neighbors, out_count, out_eids)`` with ``return_eids``.

    ``out_neighbors`` concatenates the sampled neighbors of each input node; ``out_count``
    (int32) says how many each has; ``out_eids`` the ids (from ``eids``) of the sampled edges.
    ``perm_buffer`` (Paddle's GPU Fisher-Yates buffer) does not change the result and is not
    used."""
    del perm_buffer, name
    return _sample("sample_neighbors", row, colptr, None, input_nodes, sample_size, eids,
                   return_eids)


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size: int = -1,
                              eids=None, return_eids: bool = False,
                              name: str | None = None) -> tuple:
    """``paddle.geometric.weighted_sample_neighbors(row, colptr, edge_weight, input_nodes,
    sample_size=-1, eids=None, return_eids=False, name=None)``: as ``sample_neighbors``, with
    each neighbor drawn with a probability that grows with its ``edge_weight`` (non-negative,
    in CSC order like ``row``; a 0-weight edge is picked only when too few others remain)."""
    del name
    return _sample("weighted_sample_neighbors", row, colptr, edge_weight, input_nodes,
                   sample_size, eids, return_eids)


def _sample(fn: str, row, colptr, edge_weight, input_nodes, sample_size, eids,
            return_eids: bool) -> tuple:
    if return_eids and eids is None:
        raise ValueError(f"{fn}: 'eids' should not be None if 'return_eids' is True")
    if isinstance(sample_size, bool) or not isinstance(sample_size, (int, np.integer)) \
            or sample_size < -1:
        raise ValueError(f"{fn}: 'sample_size' must be -1 (every neighbor) or an int >= 0, got "
                         f"{sample_size!r}")
    rows, ptr, nodes = _graph(fn, row, colptr, input_nodes)
    edge_ids = _same_length(fn, "eids", eids, rows) if return_eids else None
    weights = _weights(fn, edge_weight, rows) if edge_weight is not None else None
    picked, counts = _pick(ptr, nodes, int(sample_size), weights)
    out = (Tensor(backend.asarray(rows[picked])), Tensor(backend.asarray(counts)))
    return out + (Tensor(backend.asarray(edge_ids[picked])),) if return_eids else out


def _host_index(fn: str, arg: str, value):
    return backend.to_numpy(index_array(value, fn, arg, column=True))


def _graph(fn: str, row, colptr, input_nodes) -> tuple:
    """The CSC graph and the input nodes as host arrays, checked."""
    rows = _host_index(fn, "row", row)
    ptr = _host_index(fn, "colptr", colptr)
    nodes = _host_index(fn, "input_nodes", input_nodes)
    for arg, array in (("colptr", ptr), ("input_nodes", nodes)):
        if array.dtype != rows.dtype:
            raise TypeError(f"{fn}: '{arg}' must have row's dtype {rows.dtype}, got "
                            f"{array.dtype}")
    if not ptr.size or int(ptr[0]) < 0 or (ptr[1:] < ptr[:-1]).any() \
            or int(ptr[-1]) > rows.shape[0]:
        raise ValueError(f"{fn}: 'colptr' must be a non-decreasing [num_nodes + 1] offset list "
                         f"into row (0..{rows.shape[0]}), got {ptr.tolist()[:20]}")
    if nodes.size and (int(nodes.min()) < 0 or int(nodes.max()) >= ptr.shape[0] - 1):
        raise IndexError(f"{fn}: 'input_nodes' values must lie in 0..{ptr.shape[0] - 2} (the "
                         f"nodes colptr describes), got {int(nodes.min())}..{int(nodes.max())}")
    return rows, ptr, nodes


def _same_length(fn: str, arg: str, value, rows):
    array = _host_index(fn, arg, value)
    if array.shape[0] != rows.shape[0]:
        raise ValueError(f"{fn}: '{arg}' must hold one entry per edge of row ({rows.shape[0]}), "
                         f"got {array.shape[0]}")
    return array


def _weights(fn: str, edge_weight, rows):
    w = edge_weight.data if isinstance(edge_weight, Tensor) else backend.asarray(edge_weight)
    w = backend.to_numpy(w)
    if w.dtype.kind != "f":
        raise TypeError(f"{fn}: 'edge_weight' must be a float tensor, got dtype {w.dtype}")
    if w.ndim == 2 and w.shape[1] == 1:
        w = w.reshape(-1)
    if w.ndim != 1 or w.shape[0] != rows.shape[0]:
        raise ValueError(f"{fn}: 'edge_weight' must have shape [{rows.shape[0]}] (or "
                         f"[{rows.shape[0]}, 1]), one weight per edge, got {list(w.shape)}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"{fn}: 'edge_weight' values must be finite and >= 0")
    return w.astype(np.float64)


def _pick(ptr, nodes, sample_size: int, weights) -> tuple:
    """Positions in row of the kept edges (input node by input node) and the count of each."""
    starts = ptr[nodes].astype(np.int64)
    caps = ptr[nodes + 1].astype(np.int64) - starts
    keep = caps if sample_size < 0 else np.minimum(caps, sample_size)
    offsets = np.concatenate([[0], np.cumsum(caps)])
    owner = np.repeat(np.arange(nodes.shape[0]), caps)  # input node of each candidate edge
    local = np.arange(owner.shape[0]) - offsets[owner]
    position = starts[owner] + local
    drawn = caps[owner] > keep[owner]  # candidates of nodes that must sample
    # Sort keys: ascending within an input node, the kept ones first. Nodes that keep every
    # neighbor keep row's order; the others draw.
    key = local.astype(np.float64)
    if drawn.any():
        if weights is None:
            key[drawn] = backend.rng().random(int(drawn.sum()))
        else:
            u = 1.0 - backend.rng().random(int(drawn.sum()))  # in (0, 1]: log(u) is finite
            w = weights[position[drawn]]
            with np.errstate(divide="ignore"):
                # the largest log(u) / w win; negated so that they sort first (0 weight: last)
                key[drawn] = np.where(w > 0, -np.log(u) / np.where(w > 0, w, 1), np.inf)
    order = np.lexsort((key, owner))
    rank = np.arange(order.shape[0]) - offsets[owner[order]]
    chosen = order[rank < keep[owner[order]]]
    return position[chosen], keep.astype(np.int32)
