"""Does a network built from a TOML spec train as fast as the same network written by hand?

Builds the tutorial CNN (conf/model/cnn.toml) and the small ResNet (conf/model/resnet.toml)
twice from the same weights: once as the spec's ``GraphNet`` and once as a hand-written
``core.nn.Layer`` calling the very same layer objects in a fixed ``forward``. Training steps
(Adam, batch 100, random images) are timed interleaved over rounds; the table prints samples/s
and the median of the per-round ratios spec / hand-written with their range.

    python benchmarks/spec_overhead.py --rounds 7 --steps 20
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
from core import nn  # noqa: E402
from core.nn import functional as F  # noqa: E402
from runner import build  # noqa: E402
from runner.config.options import load_option  # noqa: E402


class ByHand(nn.Layer):
    """The spec's own layers called in its node order by a plain forward (no graph walk)."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph  # registers the same parameters
        self.steps = [(graph._layers[name], sources) for name, sources, _ in graph._order]
        self.names = [name for name, _, _ in graph._order]

    def forward(self, x):
        values = {"input": x}
        for name, (layer, sources) in zip(self.names, self.steps):
            values[name] = layer(*[values[s] for s in sources])
        return values[self.names[-1]]


def _sequential(graph):
    """A chain net (the tutorial CNN) as a Sequential of the same layer objects."""
    return nn.Sequential(*[graph._layers[name] for name, _, _ in graph._order])


def _step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()


def _rate(model, batches, steps):
    opt = core.optimizer.Adam(1e-3, parameters=model.parameters())
    _step(model, opt, *batches[0])  # warm-up
    begin = time.perf_counter()
    for i in range(steps):
        _step(model, opt, *batches[i % len(batches)])
    return steps * batches[0][0].shape[0] / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    batches = [(core.to_tensor(rng.random((args.batch, 1, 28, 28), dtype=np.float32)),
                core.to_tensor(rng.integers(0, 10, args.batch))) for _ in range(4)]
    print(f"threads {core.device.get_num_threads()}, batch {args.batch}, {args.rounds} rounds "
          f"x {args.steps} steps")
    print(f"{'network':10} {'spec/s':>9} {'by hand/s':>10} {'ratio':>6} {'range':>12}")
    for option in ("cnn", "resnet"):
        core.seed(0)
        graph = build.build_model(load_option("model", option), (1, 28, 28), 10)
        hand = _sequential(graph) if option == "cnn" else ByHand(graph)
        ratios, spec_rates, hand_rates = [], [], []
        for _ in range(args.rounds):
            spec_rates.append(_rate(graph, batches, args.steps))
            hand_rates.append(_rate(hand, batches, args.steps))
            ratios.append(spec_rates[-1] / hand_rates[-1])
        print(f"{option:10} {statistics.median(spec_rates):9,.0f} "
              f"{statistics.median(hand_rates):10,.0f} {statistics.median(ratios):5.2f}x "
              f"{min(ratios):5.2f}-{max(ratios):.2f}")


if __name__ == "__main__":
    main()
