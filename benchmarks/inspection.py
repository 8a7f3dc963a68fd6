"""What inspection, layer taps and profiling cost: training throughput of the tutorial CNN.

Trains the tutorial CNN (channels [20, 20], 5x5 kernels, Adam) on the bundled digits, one epoch
per measurement, with each setting in turn, repeated and interleaved; prints the median samples
per CPU second of each and its slowdown against the plain loop. Usage:
``python benchmarks/inspection.py [--repeats 5] [--threads 1]``
"""
from __future__ import annotations

import argparse
import statistics
import time

from threadpoolctl import threadpool_info, threadpool_limits

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.train.events import EndForwardBackward, EndIteration
from runner.train.inspection import Inspector
from runner.train.loop import Batch, Trainer
from runner.train.profiling import Profiler

CFG = schema.TrainerConfig(epochs=1, batch_size=32, log_every=10**6, progress=False)


def _plain(trainer):
    del trainer


def _taps_every_step(trainer):
    trainer.watch("conv2", "fc")
    trainer.on(EndIteration, lambda e: (e.layer_outputs("conv2"), e.layer_outputs("fc")))


def _params_grads_every_step(trainer):
    trainer.on(EndForwardBackward, lambda e: (e.parameters(), e.gradients()))


def _inspect(every):
    def attach(trainer):
        Inspector(schema.InspectConfig(every=every, layer_outputs=["conv2", "fc"],
                                       param_stats=True, grad_stats=True)).attach(trainer)
    return attach


def _profile(trainer):
    Profiler(trainer).attach()


SETTINGS = {"plain loop": _plain, "inspect every=25 (all stats)": _inspect(25),
            "inspect every=1 (all stats)": _inspect(1),
            "layer_outputs of 2 layers each step": _taps_every_step,
            "parameters()+gradients() each step": _params_grads_every_step,
            "profile=true": _profile}


def _speed(attach, loader) -> float:
    core.seed(0)
    shape = tuple(loader.dataset[0][0].shape)
    model = build.build_model(load_option("model", "cnn"), shape, 10)
    opt = build.build_optimizer(schema.AdamConfig(), model.parameters(), 0.001)
    trainer = Trainer(model, opt, CFG)
    attach(trainer)
    # CPU seconds of this process: other processes sharing the cores distort wall time more.
    begin = time.process_time()
    trainer.fit(loader)
    return len(loader.dataset) / (time.process_time() - begin)


def _direct_costs(loader) -> str:
    """CPU milliseconds of one training step and of each reader / one inspection, measured
    call by call (robust where throughput on a shared machine is noisy)."""
    core.seed(0)
    model = build.build_model(load_option("model", "cnn"), tuple(loader.dataset[0][0].shape), 10)
    opt = build.build_optimizer(schema.AdamConfig(), model.parameters(), 0.001)
    trainer = Trainer(model, opt, CFG)
    trainer.watch("conv2", "fc")
    inspector = Inspector(schema.InspectConfig(every=1, layer_outputs=["conv2", "fc"],
                                               param_stats=True, grad_stats=True))
    trainer.report = lambda metrics: None
    inputs, labels = next(iter(loader))

    def step():
        trainer.train_step(0, 0, Batch(inputs, labels))

    for _ in range(5):
        step()
    event = EndForwardBackward(trainer, 0, 0, Batch(inputs, labels))
    costs = {"training step": _cpu_ms(step, 40),
             "one inspection (all stats)": _cpu_ms(lambda: inspector._inspect(event), 200),
             "layer_outputs of 2 layers": _cpu_ms(
                 lambda: (event.layer_outputs("conv2"), event.layer_outputs("fc")), 200),
             "parameters() + gradients()": _cpu_ms(
                 lambda: (event.parameters(), event.gradients()), 200)}
    base = costs["training step"]
    return "\n".join(f"{name:<40}{ms:>10.3f} ms{ms / base:>8.1%} of a step"
                     for name, ms in costs.items())


def _cpu_ms(function, repeats: int) -> float:
    begin = time.process_time()
    for _ in range(repeats):
        function()
    return (time.process_time() - begin) / repeats * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--mnist-root", default="", help="IDX folder: MNIST's first 6,400 "
                        "training images instead of the digits")
    args = parser.parse_args()
    data_cfg = schema.DataConfig(name="mnist", root=args.mnist_root, valid_size=53600) \
        if args.mnist_root else schema.DataConfig()
    data = build.build_data(data_cfg, seed=0)
    loader = build.build_loaders(data, data_cfg, CFG)[0]
    with threadpool_limits(args.threads, user_api="blas"):
        kernels = {i.get("internal_api"): i.get("architecture") for i in threadpool_info()}
        speeds = {name: [] for name in SETTINGS}
        _speed(_plain, loader)  # warm-up
        for _ in range(args.repeats):
            for name, attach in SETTINGS.items():
                speeds[name].append(_speed(attach, loader))
        direct = _direct_costs(loader)
    base = statistics.median(speeds["plain loop"])
    print(f"tutorial CNN on {data_cfg.name} ({len(loader.dataset)} samples), batch 32, "
          f"{args.threads} BLAS thread(s), kernels {kernels}, median of {args.repeats}")
    for name, values in speeds.items():
        speed = statistics.median(values)
        print(f"{name:<40}{speed:>10.0f} samples/CPU-s{base / speed:>8.2f}x time")
    print(direct)


if __name__ == "__main__":
    main()
