"""Paddle's graph reindexing: ``paddle.geometric.reindex_graph`` and ``reindex_heter_graph``
(python/paddle/geometric/reindex.py; CPU kernel paddle/phi/kernels/cpu/graph_reindex_kernel.cc).

Given the input nodes ``x`` and their sampled ``neighbors`` (``count[i]`` of them for x[i], one
block of counts per edge type in the heterogeneous form), the nodes are renumbered from 0: the
input nodes first, in their order, then each neighbor not seen before, in order of first
appearance. The edges come back as (neighbor, input node) pairs in the new numbering.
Vectorised with a sort (unique + searchsorted) instead of Paddle's hash map.
"""
from __future__ import annotations

from core import backend
from core.geometric._scatter import index_array
from core.tensor import Tensor

__all__ = ["reindex_graph", "reindex_heter_graph"]


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None,
                  name: str | None = None) -> tuple:
    """``paddle.geometric.reindex_graph(x, neighbors, count, value_buffer=None,
    index_buffer=None, name=None)`` -> ``(reindex_src, reindex_dst, out_nodes)``.

    ``x``: the unique input nodes; ``neighbors``: their neighbors, x[0]'s first; ``count``:
    how many neighbors each input node has. ``reindex_src[e]``/``reindex_dst[e]`` are the new
    numbers of edge e's neighbor and input node; ``out_nodes`` lists the original ids in the
    new order. ``value_buffer``/``index_buffer`` (Paddle's GPU hash-table buffers) do not
    change the result and are not used."""
    del value_buffer, index_buffer, name
    fn = "reindex_graph"
    nodes, nbrs = _nodes(x, neighbors, fn)
    counts = index_array(count, fn, "count")
    return _reindex(nodes, nbrs, counts, 1, fn)


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None,
                        name: str | None = None) -> tuple:
    """``paddle.geometric.reindex_heter_graph(x, neighbors, count, value_buffer=None,
    index_buffer=None, name=None)`` -> ``(reindex_src, reindex_dst, out_nodes)``.

    ``neighbors`` and ``count`` are lists with one entry per edge type (graph); each count
    has one entry per input node. The edges of all types are reindexed together, type by
    type, into one numbering (as ``reindex_graph`` on the concatenated neighbors)."""
    del value_buffer, index_buffer, name
    fn = "reindex_heter_graph"
    neighbors = [neighbors] if isinstance(neighbors, Tensor) else neighbors
    count = [count] if isinstance(count, Tensor) else count
    if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
        raise TypeError(f"{fn}: 'neighbors' and 'count' must be lists (one Tensor per edge "
                        f"type), got {type(neighbors).__name__} and {type(count).__name__}")
    if len(neighbors) != len(count) or not neighbors:
        raise ValueError(f"{fn}: 'neighbors' and 'count' must hold one Tensor per edge type "
                         f"each, got {len(neighbors)} and {len(count)}")
    nodes = index_array(x, fn, "x")
    xp = backend.array_module(nodes)
    parts = [_neighbors(nodes, n, fn, f"neighbors[{i}]") for i, n in enumerate(neighbors)]
    counts = [index_array(c, fn, f"count[{i}]") for i, c in enumerate(count)]
    for i, (part, c) in enumerate(zip(parts, counts)):
        _check_counts(nodes, part, c, fn, f"count[{i}]", f"neighbors[{i}]")
    return _reindex(nodes, xp.concatenate(parts), xp.concatenate(counts), len(parts), fn)


def _nodes(x, neighbors, fn: str) -> tuple:
    nodes = index_array(x, fn, "x")
    return nodes, _neighbors(nodes, neighbors, fn, "neighbors")


def _neighbors(nodes, neighbors, fn: str, arg: str):
    nbrs = index_array(neighbors, fn, arg)
    if nbrs.dtype != nodes.dtype:
        raise TypeError(f"{fn}: '{arg}' must have x's dtype {nodes.dtype}, got {nbrs.dtype}")
    return nbrs


def _check_counts(nodes, nbrs, counts, fn: str, arg: str, of: str) -> None:
    if counts.shape[0] != nodes.shape[0]:
        raise ValueError(f"{fn}: '{arg}' must hold one count per node of x ({nodes.shape[0]}), "
                         f"got {counts.shape[0]}")
    if counts.size and int(counts.min()) < 0:
        raise ValueError(f"{fn}: '{arg}' values must be >= 0, got {int(counts.min())}")
    total = int(counts.sum())
    if total != nbrs.shape[0]:
        raise ValueError(f"{fn}: '{arg}' must add up to the length of '{of}' "
                         f"({nbrs.shape[0]}), got {total}")


def _reindex(nodes, nbrs, counts, types: int, fn: str) -> tuple:
    xp = backend.array_module(nodes)
    if not nodes.size:
        raise ValueError(f"{fn}: 'x' must hold at least one node, got none")
    if types == 1:
        _check_counts(nodes, nbrs, counts, fn, "count", "neighbors")
    if xp.unique(nodes).shape[0] != nodes.shape[0]:
        raise ValueError(f"{fn}: the nodes of 'x' must be unique (Paddle's kernel maps a "
                         "repeated node to its last position)")
    # Unique ids with their first positions in x + neighbors: x comes first, so sorting the
    # unique ids by first position numbers x's nodes 0..len(x)-1, then the new neighbors.
    every = xp.concatenate([nodes, nbrs])
    unique, first = xp.unique(every, return_index=True)
    order = xp.argsort(first, kind="stable")
    number = xp.empty(order.shape, dtype=nodes.dtype)
    number[order] = xp.arange(order.shape[0], dtype=nodes.dtype)
    src = number[xp.searchsorted(unique, nbrs)]
    # Edge e belongs to the input node whose block of counts holds it (blocks repeat per type).
    ends = xp.cumsum(counts.astype("int64"))
    owner = xp.searchsorted(ends, xp.arange(nbrs.shape[0]), side="right")
    dst = (owner % nodes.shape[0]).astype(nodes.dtype)
    return Tensor(src), Tensor(dst), Tensor(unique[order])
