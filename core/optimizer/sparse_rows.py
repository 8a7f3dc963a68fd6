"""Lazy updates of row-sparse gradients (``Embedding(sparse=True)``), shared by every rule.

Every update rule here is element-wise, so the rule applied to the gathered rows of the
parameter and of its state arrays, then scattered back, is the rule restricted to those rows.
That is *lazy* mode (Paddle's ``lazy_mode`` for Adam, and how it treats SelectedRows for the
other rules): rows the batch did not touch keep their values and their state, where a dense
update would still move them (momentum keeps going, Adam's moments decay). Consequences:

- SGD and Adagrad give exactly the dense result (a zero gradient does not move them), as long
  as there is no weight decay.
- Momentum, Adam/AdamW, RMSProp and Adadelta equal the dense update on the touched rows in any
  step after which every row has been touched as often as the dense rule stepped it; otherwise
  untouched rows lag, which is the point (and the speed) of sparse updates.
- Weight decay (the optimizer's or the parameter's regularizer, and AdamW's decoupled decay)
  is applied to the touched rows only, when they are touched.
- The step counter ``t`` (Adam's bias correction) counts the parameter's updates, as dense.

Gradient clipping sees each row-sparse gradient as its coalesced rows, which have the same
norm and elements as the dense gradient, so by-value, by-norm and by-global-norm clipping are
exact; the clipped rows go back into a row-sparse gradient.
"""
from __future__ import annotations

from core import backend, threads
from core.row_sparse import RowSparseGrad
from core.tensor import Tensor


def coalesce_all(params_grads: list) -> list:
    """Row-sparse gradients with each row once (rules assume unique rows)."""
    return [(p, g.coalesce() if isinstance(g, RowSparseGrad) else g) for p, g in params_grads]


def clip(grad_clip, params_grads: list) -> list:
    """Run ``grad_clip`` over (param, grad Tensor) pairs; row-sparse grads go in as their rows."""
    sparse = {id(p): g for p, g in params_grads if isinstance(g, RowSparseGrad)}
    clipped = grad_clip([(p, Tensor(g.values if id(p) in sparse else g))
                         for p, g in params_grads])
    out = []
    for p, g in clipped:
        if g is None:
            continue
        raw = g.data if isinstance(g, Tensor) else g
        if id(p) in sparse and not isinstance(raw, RowSparseGrad):
            raw = RowSparseGrad(sparse[id(p)].rows, raw, sparse[id(p)].shape)
        out.append((p, raw))
    return out


class _Rows:
    """A parameter seen through some of its rows: ``data`` is the gathered rows."""

    def __init__(self, param, data):
        self._param, self.data = param, data

    def __getattr__(self, name):
        return getattr(self._param, name)


def lazy_update(optimizer, param, grad: RowSparseGrad, regularizer, lr: float) -> None:
    """``optimizer``'s rule on the rows ``grad`` touched (state created dense, updated lazily).

    The touched rows are gathered from the parameter and its state, updated and scattered
    back. Those rows lie anywhere in a large table, so each gather and scatter waits on memory
    (a 100k x 64 embedding's lazy Adam with ~2,500 touched rows took ~2.5 ms of a 4.4 ms
    step); with an element-wise rule, parts of the rows run on core's threads at once, which
    overlaps those waits (that step on 2 threads: 1.2-1.34x), and give the same bits, the rows
    being distinct."""
    rows, values = grad.rows, grad.values
    xp = backend.array_module(param.data)  # gathers by take: 2x numpy's fancy indexing here
    state = optimizer._state_for(param)
    state["step"] = state.get("step", 0) + 1
    arrays = {k: v for k, v in state.items() if hasattr(v, "shape")}
    # The step and a rule's scalars, read once: each part updates its own copy, and every part
    # computes the same new scalars, so one written back while another part starts is harmless.
    numbers = {k: v for k, v in state.items() if not hasattr(v, "shape")}

    def update(start, stop):
        part = rows[start:stop]
        view = _Rows(param, xp.take(param.data, part, axis=0))
        part_values = values[start:stop]
        if regularizer is not None:
            part_values = part_values + regularizer(view.data)
        row_state = {k: xp.take(v, part, axis=0) for k, v in arrays.items()} | dict(numbers)
        optimizer._update(view, part_values, row_state, lr)
        param.data[part] = view.data
        for key, value in row_state.items():
            if hasattr(value, "shape"):
                state[key][part] = value
            elif key != "step":  # a rule's scalar (the same from every part)
                state[key] = value

    # a gather and a scatter of the parameter and of each state array, and the rule's passes
    workers = threads.host_workers(param.data, len(rows), passes=8 * values.size) \
        if optimizer._elementwise else 1
    threads.run_split(len(rows), workers, update)
