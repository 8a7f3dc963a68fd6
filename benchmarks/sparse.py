"""Sparse versus dense embedding updates: training steps/s, gradient and optimizer memory.

The network is the FAQ's sparse-training shape: a 100,000 x 256 embedding looked up with a
context of 4 ids per sample (batch 100), summed, then a linear layer to 10 classes with softmax
cross-entropy. The only difference between the two runs is ``Embedding(sparse=...)``: a dense
gradient is the whole 100 MB table and the optimizer updates every row; a row-sparse gradient
holds the <= 400 looked-up rows and the optimizer updates only those (lazily, see
``core/optimizer/sparse_rows.py``). Repetitions are interleaved (dense, sparse, dense, ...) and
the table shows medians and the sparse/dense ratio measured in this run.

    python benchmarks/sparse.py --optimizers sgd adam --steps 10 --repeats 3
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from core import nn, optimizer  # noqa: E402
from core.nn import functional as F  # noqa: E402

OPTIMIZERS = {
    "sgd": lambda params: optimizer.SGD(learning_rate=0.1, parameters=params),
    "momentum": lambda params: optimizer.Momentum(learning_rate=0.1, parameters=params),
    "adagrad": lambda params: optimizer.Adagrad(learning_rate=0.1, parameters=params),
    "adam": lambda params: optimizer.Adam(learning_rate=1e-3, parameters=params),
}


class BagOfWords(nn.Layer):
    def __init__(self, vocab: int, dim: int, classes: int, sparse: bool):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, sparse=sparse)
        self.out = nn.Linear(dim, classes)

    def forward(self, ids):
        return self.out(self.embedding(ids).sum(axis=1))


def measure(args, opt_name: str, sparse: bool, batches) -> tuple[float, int, int]:
    """(steps per second, gradient bytes of the table, optimizer state bytes)."""
    core.seed(0)
    model = BagOfWords(args.vocab, args.dim, 10, sparse)
    opt = OPTIMIZERS[opt_name](model.parameters())
    grad_bytes = 0
    start = None
    for step, (ids, labels) in enumerate(batches):
        if step == 1:
            start = time.perf_counter()  # the first step creates the optimizer state
        loss = F.cross_entropy(model(ids), labels)
        loss.backward()
        grad_bytes = int(model.embedding.weight.grad_data.nbytes)
        opt.step()
        opt.clear_grad()
    seconds = time.perf_counter() - start
    return (len(batches) - 1) / seconds, grad_bytes, opt.state_nbytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--context", type=int, default=4)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--optimizers", nargs="+", default=list(OPTIMIZERS),
                        choices=list(OPTIMIZERS))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    batches = [(core.to_tensor(rng.integers(0, args.vocab, (args.batch, args.context))),
                core.to_tensor(rng.integers(0, 10, args.batch))) for _ in range(args.steps + 1)]
    print(f"vocab {args.vocab}, dim {args.dim}, batch {args.batch}, context {args.context}, "
          f"{args.steps} timed steps x {args.repeats} interleaved repeats (medians)")
    header = (f"{'optimizer':<10}{'dense steps/s':>15}{'sparse steps/s':>16}{'speed-up':>10}"
              f"{'dense grad MB':>15}{'sparse grad MB':>16}{'state MB d/s':>14}")
    print(header)
    print("-" * len(header))
    for name in args.optimizers:
        runs = {False: [], True: []}
        facts = {}
        for _ in range(args.repeats):
            for sparse in (False, True):
                speed, grad_bytes, state_bytes = measure(args, name, sparse, batches)
                runs[sparse].append(speed)
                facts[sparse] = (grad_bytes, state_bytes)
        dense, sparse = statistics.median(runs[False]), statistics.median(runs[True])
        print(f"{name:<10}{dense:>15.1f}{sparse:>16.1f}{sparse / dense:>9.1f}x"
              f"{facts[False][0] / 1e6:>15.1f}{facts[True][0] / 1e6:>16.3f}"
              f"{facts[False][1] / 1e6:>7.0f}/{facts[True][1] / 1e6:<6.0f}")
    print("state MB: optimizer state of the whole model; lazy updates keep it dense (touched "
          "rows are updated in place), so it is the same size for both.")


if __name__ == "__main__":
    main()
