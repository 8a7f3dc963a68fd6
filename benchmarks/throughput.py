"""Training and inference throughput of the PaddlePaddle tutorial CNN: core versus torch eager.

The network (float32, NCHW): conv 5x5 1->20 pad 2, ReLU, max-pool 2, conv 5x5 20->20 pad 2,
ReLU, max-pool 2, linear 980->10, softmax cross-entropy, Adam (lr 1e-3). Both libraries start
from the same weights and see the same batches (MNIST from /work/shared/data/mnist when present,
random 28x28 images otherwise). Repetitions are interleaved (ours, torch, ours, torch...) so
that machine noise hits both alike; the table reports medians and their ratio.

    python benchmarks/throughput.py --threads 2 --batch 100 --steps 20 --repeats 7
"""
from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from core import optimizer  # noqa: E402
from core.nn import Flatten, Layer, Linear, ReLU  # noqa: E402
from core.nn import functional as F  # noqa: E402
from core.nn.conv import Conv2D  # noqa: E402
from core.nn.pooling import MaxPool2D  # noqa: E402

MNIST = Path("/work/shared/data/mnist")


class TutorialCNN(Layer):
    def __init__(self):
        super().__init__()
        self.conv1, self.relu1, self.pool1 = Conv2D(1, 20, 5, padding=2), ReLU(), MaxPool2D(2)
        self.conv2, self.relu2, self.pool2 = Conv2D(20, 20, 5, padding=2), ReLU(), MaxPool2D(2)
        self.flatten, self.fc = Flatten(), Linear(980, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        return self.fc(self.flatten(x))


def load_batches(batch: int, count: int, seed: int = 0):
    """(images [count, batch, 1, 28, 28] float32, labels [count, batch] int64, source name)."""
    need = batch * count
    files = MNIST / "train-images-idx3-ubyte.gz", MNIST / "train-labels-idx1-ubyte.gz"
    rng = np.random.default_rng(seed)
    if all(f.exists() for f in files):
        with gzip.open(files[0]) as f:
            images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
        with gzip.open(files[1]) as f:
            labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
        pick = rng.choice(len(images), need, replace=need > len(images))
        x = (images[pick].astype(np.float32) / 255.0 - 0.1307) / 0.3081
        return x.reshape(count, batch, 1, 28, 28), labels[pick].reshape(count, batch), "MNIST"
    x = rng.standard_normal((count, batch, 1, 28, 28)).astype(np.float32)
    return x, rng.integers(0, 10, (count, batch)), "random"


class Ours:
    name = "core"

    def __init__(self, seed: int):
        core.seed(seed)
        self.model = TutorialCNN()
        self.opt = optimizer.Adam(learning_rate=1e-3, parameters=self.model.parameters())

    def weights(self):
        return [p.numpy().copy() for p in self.model.parameters()]

    def train(self, xs, ys) -> float:
        for x, y in zip(xs, ys):
            loss = F.cross_entropy(self.model(core.to_tensor(x)), core.to_tensor(y))
            loss.backward()
            self.opt.step()
            self.opt.clear_grad()
        return float(loss.item())

    def infer(self, xs) -> None:
        with core.no_grad():
            for x in xs:
                self.model(core.to_tensor(x)).numpy()


class Torch:
    name = "torch"

    def __init__(self, weights, device: str = "cpu"):
        import torch  # noqa: PLC0415 - optional comparison

        self.torch = torch
        # Our gpu:N is torch's cuda:N (both count the GPUs visible to the process).
        self.dev = torch.device("cpu" if device == "cpu" else "cuda:" + device.partition(":")[2])
        nn = torch.nn
        self.model = nn.Sequential(nn.Conv2d(1, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Conv2d(20, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Flatten(), nn.Linear(980, 10))
        w1, b1, w2, b2, w3, b3 = weights  # our Linear weight is [in, out], torch's [out, in]
        with torch.no_grad():
            for param, value in zip(self.model.parameters(), (w1, b1, w2, b2, w3.T, b3)):
                param.copy_(torch.from_numpy(np.ascontiguousarray(value)))
        self.model.to(self.dev)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.loss = nn.CrossEntropyLoss()

    def _in(self, array):
        return self.torch.from_numpy(array).to(self.dev)

    def train(self, xs, ys) -> float:
        for x, y in zip(xs, ys):
            loss = self.loss(self.model(self._in(x)), self._in(y))
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return float(loss.item())

    def infer(self, xs) -> None:
        with self.torch.no_grad():
            for x in xs:
                self.model(self._in(x)).cpu().numpy()


def blas_report(threads: int) -> str:
    from threadpoolctl import threadpool_info  # noqa: PLC0415

    lines = [f"threads requested: {threads}; OPENBLAS_CORETYPE="
             f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"]
    for lib in threadpool_info():
        lines.append(f"  {lib['user_api']}/{lib['internal_api']}: {lib['num_threads']} threads, "
                     f"kernels/core type {lib.get('architecture') or '-'}, "
                     f"{Path(lib['filepath']).name}")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2,
                        help="core.device.set_num_threads / torch.set_num_threads (default 2)")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--steps", type=int, default=20, help="steps per timed repetition")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repetitions")
    parser.add_argument("--no-torch", action="store_true", help="time only this library")
    parser.add_argument("--device", default="cpu",
                        help="cpu or gpu:N (torch then runs on cuda:N; batches start on the host)")
    args = parser.parse_args(argv)
    core.device.set_num_threads(args.threads)  # core's threads, BLAS at one thread per worker
    core.device.set_device(args.device)
    xs, ys, source = load_batches(args.batch, args.steps)
    ours = Ours(seed=0)
    runners = [ours]
    if not args.no_torch:
        try:
            runner = Torch(ours.weights(), args.device)
        except ImportError:
            print("torch is not importable: timing core only")
        else:
            runner.torch.set_num_threads(args.threads)
            runners.append(runner)
    times = {(r.name, kind): [] for r in runners for kind in ("train", "infer")}
    losses = {}
    for runner in runners:  # warm-up: first-call allocations, thread pools, caches
        runner.train(xs[:2], ys[:2])
        runner.infer(xs[:2])
    for _ in range(args.repeats):
        for runner in runners:
            start = time.perf_counter()
            losses[runner.name] = runner.train(xs, ys)
            times[runner.name, "train"].append(time.perf_counter() - start)
            start = time.perf_counter()
            runner.infer(xs)
            times[runner.name, "infer"].append(time.perf_counter() - start)
    samples = args.batch * args.steps
    print(f"tutorial CNN on {args.device}, {source} data, batch {args.batch}, {args.steps} steps x "
          f"{args.repeats} interleaved repeats, float32, {args.threads} threads each\n"
          f"{blas_report(args.threads)}")
    print(f"{'':8}{'core samples/s':>16}{'torch samples/s':>17}{'core/torch':>12}")
    for kind in ("train", "infer"):
        rate = {r.name: samples / statistics.median(times[r.name, kind]) for r in runners}
        theirs = rate.get("torch")
        print(f"{kind:8}{rate['core']:>16,.0f}"
              + (f"{theirs:>17,.0f}{rate['core'] / theirs:>11.2f}x" if theirs else ""))
    print("last training loss: " + ", ".join(f"{k} {v:.4f}" for k, v in losses.items()))


if __name__ == "__main__":
    main()
