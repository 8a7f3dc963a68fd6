"""Data-parallel training throughput of the tutorial CNN: one process versus ``mpirun -n K``.

Every rank trains on its shard of the same global batch and averages gradients with
``runner.train.distributed.average_gradients`` (MPI over host buffers), exactly as the runner does
under ``trainer.distributed=true``. Rank 0 prints global samples per second (median of repeats).

    python benchmarks/data_parallel.py --batch 256 --threads 2
    mpirun -n 2 python benchmarks/data_parallel.py --batch 256 --threads 1
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import TutorialCNN  # noqa: E402

import core  # noqa: E402
from core import optimizer  # noqa: E402
from core.nn import functional as F  # noqa: E402
from runner.train import distributed  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=256, help="GLOBAL batch size")
    parser.add_argument("--steps", type=int, default=10, help="steps per timed repetition")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="core threads per rank")
    args = parser.parse_args(argv)
    from mpi4py import MPI  # noqa: PLC0415 - this benchmark is about MPI
    core.device.set_num_threads(args.threads)
    context = distributed.Context(MPI.COMM_WORLD, 0)
    rank, size = context.rank, context.size
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, args.batch)
    lo, hi = args.batch * rank // size, args.batch * (rank + 1) // size
    xs, ys, share = core.to_tensor(x[lo:hi]), core.to_tensor(y[lo:hi]), (hi - lo) / args.batch
    core.seed(0)
    model = TutorialCNN()
    opt = optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())

    def step():
        loss = F.cross_entropy(model(xs), ys)
        loss.backward()
        distributed.average_gradients(model.parameters(), share, context)
        opt.step()
        opt.clear_grad()

    for _ in range(2):
        step()
    times = []
    for _ in range(args.repeats):
        context.comm.Barrier()
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        context.comm.Barrier()
        times.append(time.perf_counter() - start)
    if rank == 0:
        rate = args.batch * args.steps / statistics.median(times)
        print(f"{size} rank(s) x {args.threads} thread(s), global batch {args.batch}: "
              f"{rate:,.0f} samples/s")


if __name__ == "__main__":
    main()
