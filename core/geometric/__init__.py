"""core.geometric: Paddle's ``paddle.geometric`` — graph learning ops.

- segment reductions over sorted segment ids: ``segment_sum``, ``segment_mean``,
  ``segment_max``, ``segment_min`` (core/geometric/segment.py);
- message passing along an edge list: ``send_u_recv`` (gather source rows, reduce them at the
  destinations), ``send_ue_recv`` (the same, combined with edge features first), ``send_uv``
  (one message per edge from both end nodes) (core/geometric/message_passing.py);
- renumbering a sampled subgraph: ``reindex_graph``, ``reindex_heter_graph``
  (core/geometric/reindex.py);
- neighbor sampling in a CSC graph: ``sample_neighbors``, ``weighted_sample_neighbors``
  (core/geometric/sampling.py), drawn from ``core.seed``'s generator.

The reductions and messages are differentiable with respect to the node and edge features
(never the indices). Imported on first use of ``core.geometric`` (not by ``import core``).
"""
from core.geometric.message_passing import send_u_recv, send_ue_recv, send_uv
from core.geometric.reindex import reindex_graph, reindex_heter_graph
from core.geometric.sampling import sample_neighbors, weighted_sample_neighbors
from core.geometric.segment import segment_max, segment_mean, segment_min, segment_sum

__all__ = [
    "reindex_graph", "reindex_heter_graph", "sample_neighbors", "segment_max", "segment_mean",
    "segment_min", "segment_sum", "send_u_recv", "send_ue_recv", "send_uv",
    "weighted_sample_neighbors",
]
