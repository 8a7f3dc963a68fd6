"""core versus torch eager on several networks, training (Adam) and inference, in one run.

    python benchmarks/suite.py [--quick] [--workloads a,b] [--threads all,1] [--rounds 5]
                               [--json PATH] [--no-memory] [--device cpu|gpu:N]

For each thread count, rounds interleave the two libraries (the order flips every round) on
every workload, so machine noise hits both alike; a ratio is the median of the per-round
ratios core/torch, with their range. Each timing follows an idle gap and two untimed steps
(``IDLE_S``, ``WARM_STEPS``: steady-state steps, as in a training run). Before timing, each
workload trains a few steps in both libraries from the same weights on the same batches and
the losses must agree (``numerics``). Peak memory comes from one child process per library and
workload (memory the steps need above the imports and the model). Also reported: FLOPs per
sample (torch's counter), achieved GFLOP/s against the sgemm peak measured in this run, and the
BLAS kernels (threadpoolctl).

``--device gpu:N`` runs both libraries on that GPU (core through cupy, torch on cuda:N), in IEEE
float32: one set of rows (the host thread count does not drive GPU kernels; ``threads`` names
the device), timings that wait for the queued kernels, cupy's float32 GEMM as the peak, and
device memory reserved by each library's caching allocator in place of RSS.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# core before numpy, as the runner loads them: core sets OpenBLAS's idle spin, which OpenBLAS
# reads when numpy loads it (core/blas_idle.py).
import core  # noqa: E402, I001
import numpy as np  # noqa: E402
import suite_measure as M  # noqa: E402
from workloads import MLP, ConvBN, Tutorial  # noqa: E402
from workloads_seq import EmbeddingBag, Recurrent, Transformer  # noqa: E402
from workloads_spec import ResNetSpec  # noqa: E402

from core.atomic import atomic_write  # noqa: E402

# name -> factory(quick) -> workload. One more network is one more line here (and a class).
WORKLOADS = {
    "cnn_b100": lambda quick: Tutorial(100, quick),
    "cnn_b1024": lambda quick: Tutorial(1024, quick),
    "mlp_b32": lambda quick: MLP(32, quick),
    "mlp_b256": lambda quick: MLP(256, quick),
    "cnn_bn_b64": lambda quick: ConvBN(64, quick),
    "gru_b64": lambda quick: Recurrent(64, quick, "gru"),
    "lstm_b64": lambda quick: Recurrent(64, quick, "lstm"),
    "rnn_b64": lambda quick: Recurrent(64, quick, "rnn"),
    "embed_bag_b128": lambda quick: EmbeddingBag(128, quick),
    "transformer_b32": lambda quick: Transformer(32, quick),
    "resnet_spec_b64": lambda quick: ResNetSpec(64, quick),  # conf/model/resnet.toml
}
FRAMEWORKS = ("core", "torch")


class Pair:
    """One workload's models and optimizers in one or both libraries, on shared batches."""

    def __init__(self, workload, frameworks, batches: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.workload, self.batches = workload, [workload.data(rng) for _ in range(batches)]
        # Both libraries run on core's current device (select_device): core builds its model
        # there, and torch's model and inputs follow it.
        self.device = core.device.get_device()
        workload.torch_device = M.torch_device(self.device)
        core.seed(seed)
        self.core = workload.core_model()
        self.core_opt = core.optimizer.Adam(1e-3, parameters=self.core.parameters())
        self.torch = self.torch_opts = None
        if "torch" in frameworks:
            import torch  # noqa: PLC0415

            self.torch = workload.torch_model(self.core).to(workload.torch_device)
            params = list(self.torch.parameters())
            sparse = params[:1] if workload.sparse else []
            self.torch_opts = [torch.optim.Adam(params[len(sparse):], lr=1e-3)] + (
                [torch.optim.SparseAdam(sparse, lr=1e-3)] if sparse else [])
        if "core" not in frameworks:
            self.core = self.core_opt = None

    def train(self, framework: str, steps: int) -> list[float]:
        losses, w = [], self.workload
        for i in range(steps):
            batch = self.batches[i % len(self.batches)]
            if framework == "core":
                loss = w.core_loss(self.core, batch)
                loss.backward()
                self.core_opt.step()
                self.core_opt.clear_grad()
            else:
                for opt in self.torch_opts:
                    opt.zero_grad(set_to_none=True)
                loss = w.torch_loss(self.torch, batch)
                loss.backward()
                for opt in self.torch_opts:
                    opt.step()
            losses.append(loss)
        return [float(loss.item()) for loss in losses]

    def infer(self, framework: str, steps: int):
        """``steps`` inference passes in eval mode, as evaluation and serving run (batch norm
        on its running statistics, no dropout); the model is back in training mode after.
        Returns the last pass's output (a host array): timed passes keep nothing alive."""
        model = self.core if framework == "core" else self.torch
        infer = self.workload.core_infer if framework == "core" else self.workload.torch_infer
        model.eval()
        try:
            out = None
            for i in range(steps):
                out = infer(model, self.batches[i % len(self.batches)])
            return out
        finally:
            model.train()


def make_pair(workload, framework: str, batches: int = 4) -> Pair:
    return Pair(workload, (framework,) if framework != "both" else FRAMEWORKS, batches)


def numerics(workload, steps: int = 4, rtol: float = 2e-3, atol: float = 2e-4) -> dict:
    """From the same weights on the same batches: one inference pass in both libraries (eval
    mode; the outputs must agree), then ``steps`` training steps (the losses must agree step by
    step). Inference comes first: after a few steps the weights differ within the losses'
    tolerance, and batch norm's barely warmed running statistics amplify that in eval mode."""
    pair = make_pair(workload, "both", batches=steps)
    out, want = pair.infer("core", 1), pair.infer("torch", 1)
    worst_out = float(np.max(np.abs(out - want) / (atol + rtol * np.abs(want))))
    ours, theirs = pair.train("core", steps), pair.train("torch", steps)
    worst = max(abs(a - b) / (atol + rtol * abs(b)) for a, b in zip(ours, theirs))
    return {"core": ours, "torch": theirs, "ok": max(worst, worst_out) <= 1.0,
            "worst_over_tolerance": worst, "inference_worst_over_tolerance": worst_out}


def set_threads(count: int):
    """core's and torch's thread counts; with one, numpy's BLAS at one thread as well (core
    gives BLAS its threads back at one thread of its own)."""
    import torch  # noqa: PLC0415

    core.device.set_num_threads(count)
    torch.set_num_threads(count)
    return M.blas_threads(1 if count == 1 else None)


# Idle time before each timing: both libraries leave threads spinning after a threaded call
# (OpenBLAS's workers ~0.1 s, OpenMP's a few ms), and interleaved timings would otherwise run
# one library while the other's threads still hold the cores. After the idle gap the first
# steps run slow (the VM's idle vCPUs wake slowly: core's tutorial CNN step took 33 and 27 ms,
# then 16 ms; torch's 20, then 16), so WARM_STEPS untimed steps come first: a training run's
# steps follow each other without such gaps, and the suite measures that steady state.
IDLE_S = 0.2
WARM_STEPS = 2


def time_one(pair: Pair, framework: str, mode: str, steps: int) -> float:
    time.sleep(IDLE_S)
    run = pair.train if mode == "train" else pair.infer
    run(framework, WARM_STEPS)
    M.synchronize(framework, pair.device)  # a GPU: the warm-up's kernels finish untimed
    start = time.perf_counter()
    run(framework, steps)
    M.synchronize(framework, pair.device)  # a GPU: the clock stops when the kernels are done
    return pair.workload.batch * steps / (time.perf_counter() - start)


def calibrate(pair: Pair, target_s: float) -> dict:
    """Steps per timing so that the slower library takes about ``target_s`` (after a warm-up)."""
    steps = {}
    for mode in ("train", "infer"):
        rates = []
        for framework in FRAMEWORKS:
            time_one(pair, framework, mode, 2)  # warm-up: first-call allocations, caches
            rates.append(time_one(pair, framework, mode, 2))
        steps[mode] = int(min(200, max(1, target_s * min(rates) / pair.workload.batch)))
    return steps


def progress(started: float, *what: str) -> None:
    """One line on stderr per finished stage: the table comes only at the end of minutes."""
    print(f"[{time.time() - started:5.0f} s]", *what, file=sys.stderr, flush=True)


def measure(names, thread_counts, rounds: int, quick: bool, target_s: float,
            device: str = "cpu", started: float | None = None) -> list[dict]:
    previous = core.device.get_num_threads()
    try:
        return _measure(names, thread_counts, rounds, quick, target_s, device,
                        time.time() if started is None else started)
    finally:
        set_threads(previous)


def _measure(names, thread_counts, rounds: int, quick: bool, target_s: float,
             device: str, started: float) -> list[dict]:
    if device != "cpu":  # the host thread count does not drive GPU kernels: one set of rows
        peak = functools.partial(M.device_sgemm_peak, 1024 if quick else 4096)
        report = functools.partial(progress, started, f"{device}:")
        return _rows(device, *_time_rounds(names, rounds, quick, target_s, peak, report))
    rows = []
    for count in thread_counts:
        with set_threads(count):
            peak = functools.partial(M.sgemm_peak, count, 256 if quick else 2048)
            report = functools.partial(progress, started, f"{count} threads:")
            timed = _time_rounds(names, rounds, quick, target_s, peak, report)
        rows += _rows(count, *timed)
    return rows


def _time_rounds(names, rounds: int, quick: bool, target_s: float, sgemm_peak, report):
    """Interleaved rounds over every workload; the peak before and after them."""
    peak = sgemm_peak()
    pairs = {n: make_pair(WORKLOADS[n](quick), "both") for n in names}
    steps = {n: calibrate(p, target_s) for n, p in pairs.items()}
    report(f"sgemm peak and step counts, {len(names)} workloads")
    rates = {(n, m, f): [] for n in names for m in ("train", "infer") for f in FRAMEWORKS}
    for r in range(rounds):
        for n, pair in pairs.items():
            for mode in ("train", "infer"):
                for f in FRAMEWORKS if r % 2 == 0 else FRAMEWORKS[::-1]:
                    rates[n, mode, f].append(time_one(pair, f, mode, steps[n][mode]))
        report(f"round {r + 1} of {rounds}")
    return pairs, rates, max(peak, sgemm_peak()), M.blas_libraries()


def _rows(threads, pairs, rates, peak, blas) -> list[dict]:
    """``threads``: the thread count on the CPU, the device string on a GPU."""
    rows = []
    for n, pair in pairs.items():
        flops = M.flops_per_sample(pair.workload, pair.torch, pair.batches[0])
        for mode, per_sample in zip(("train", "infer"), flops):
            ours, theirs = rates[n, mode, "core"], rates[n, mode, "torch"]
            ratios = [a / b for a, b in zip(ours, theirs)]
            gflops = per_sample * statistics.median(ours) / 1e9 if per_sample else None
            rows.append({
                "workload": n, "mode": mode, "threads": threads,
                "core": statistics.median(ours), "torch": statistics.median(theirs),
                "ratio": statistics.median(ratios), "ratio_min": min(ratios),
                "ratio_max": max(ratios), "flops_per_sample": per_sample,
                "core_gflops": gflops, "sgemm_peak_gflops": peak,
                "pct_peak": 100 * gflops / peak if gflops else None, "blas": blas})
    return rows


def print_table(rows, memory, checks) -> None:
    thr = max([4] + [len(str(row["threads"])) + 1 for row in rows])  # "gpu:0" on a GPU
    print(f"{'workload':16}{'mode':6}{'thr':>{thr}}{'core/s':>10}{'torch/s':>10}{'ratio':>7}"
          f"{'  range':12}{'GFLOP/s':>8}{'%peak':>6}{'  step MB core/torch':>21}  numerics")
    for row in rows:
        mem = memory.get(row["workload"], {}) if row["mode"] == "train" else {}
        mem_text = "/".join(f"{mem[f]['step_mb']:.0f}" if mem.get(f) else "-"
                            for f in FRAMEWORKS) if mem else ""
        ok = checks.get(row["workload"], {}).get("ok")
        gf = row["core_gflops"]
        print(f"{row['workload']:16}{row['mode']:6}{row['threads']!s:>{thr}}{row['core']:>10,.0f}"
              f"{row['torch']:>10,.0f}{row['ratio']:>6.2f}x  {row['ratio_min']:.2f}-"
              f"{row['ratio_max']:.2f}  {gf if gf is None else round(gf, 1)!s:>7}"
              f"{'' if gf is None else round(row['pct_peak'])!s:>6}{mem_text:>21}  "
              f"{'' if ok is None else ('ok' if ok else 'MISMATCH')}")


def device_arg(text: str) -> str:
    """``--device``: cpu or gpu:N (argparse reports anything else as a usage error)."""
    if not re.fullmatch(r"cpu|gpu:\d+", text):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a device: use cpu or gpu:N (N = the GPU's index, e.g. gpu:0)")
    return text


def select_device(device: str, frameworks=FRAMEWORKS) -> str | None:
    """Put core on ``device`` (models and tensors made from now on live there) and ready torch
    for it; None when both can run there, else why not, in one line."""
    try:
        core.device.set_device(device)
    except core.device.DeviceError as exc:  # no cupy, no such GPU
        return str(exc)
    return M.prepare_torch(device) if "torch" in frameworks else None


def parser_for_suite() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, 2 rounds (CI)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help=f"comma-separated subset of {', '.join(WORKLOADS)}")
    parser.add_argument("--threads", default="all,1",
                        help="comma-separated thread counts; 'all' = every available core "
                             "(ignored on a GPU)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (5)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="target seconds per timing of the slower library (0.25)")
    parser.add_argument("--json", help="also write the results as JSON to this path")
    parser.add_argument("--no-memory", action="store_true", help="skip the child processes")
    parser.add_argument("--device", type=device_arg, default="cpu",
                        help="cpu, or gpu:N: core through cupy and torch on cuda:N")
    parser.add_argument("--child-memory", help=argparse.SUPPRESS)  # framework:workload
    return parser


def main(argv=None) -> dict | None:
    parser = parser_for_suite()
    args = parser.parse_args(argv)
    framework, _, child = (args.child_memory or "").partition(":")
    previous = core.device.get_device()
    try:
        problem = select_device(args.device, (framework,) if child else FRAMEWORKS)
        if problem:
            parser.error(problem)
        if child:
            print(json.dumps(M.child_memory(framework, child, args.quick)))
            return None
        return run_suite(parser, args)
    finally:
        core.device.set_device(previous)


def run_suite(parser, args) -> dict:
    """Numerics, timings, memory children; print the table, write the JSON."""
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {', '.join(WORKLOADS)}")
    cores, device = core.device.available_cores(), args.device
    counts = [cores if t.strip() == "all" else int(t) for t in args.threads.split(",")]
    labels = counts if device == "cpu" else [device]  # the rows' "threads"
    rounds = args.rounds or (2 if args.quick else 5)
    target = args.seconds or (0.02 if args.quick else 0.25)
    started, load = time.time(), os.getloadavg()
    checks = {}
    for n in names:
        checks[n] = numerics(WORKLOADS[n](args.quick))
        progress(started, f"numerics {n}: {'ok' if checks[n]['ok'] else 'DIFFER'}")
    rows = measure(names, counts, rounds, args.quick, target, device, started)
    memory = {}
    for n in names if not args.no_memory else ():
        memory[n] = {f: M.run_memory_child(f, n, args.quick, device) for f in FRAMEWORKS}
        progress(started, f"memory {n}")
    info, step_mb = M.device_info(device), memory_measure(device)
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": cores, "rounds": rounds,
              "seconds": time.time() - started, "rows": rows, "memory": memory,
              "numerics": checks, "blas": M.blas_libraries(),
              "load_average": [load[0], os.getloadavg()[0]], "machine": platform.processor()
              or platform.machine(), "device": info, "memory_measure": step_mb}
    where = f"threads {counts}" if device == "cpu" else f"on {device}"
    print(f"{len(names)} workloads, {where}, {rounds} rounds, {cores} cores; "
          "ratio = median of per-round core/torch (range); step MB = "
          f"{step_mb}, per child process; load average {load[0]:.1f} -> "
          f"{os.getloadavg()[0]:.1f}")
    if device != "cpu":
        print(f"  {device}: {info['gpu']}, CUDA driver {info['cuda_driver']}, cupy {info['cupy']},"
              f" torch {info['torch']} ({info['torch_device']}), float32 {info['float32']}")
    for lib in rows[0]["blas"] if rows else []:
        print(f"  {lib['api']}/{lib['library']} {lib['kernels']} ({lib['file']})")
    print_table(rows, memory, checks)
    print("sgemm peak GFLOP/s: " + ", ".join(
        f"{label}{' threads' if device == 'cpu' else ' (cupy float32)'} "
        f"{max(r['sgemm_peak_gflops'] for r in rows if r['threads'] == label):.0f}"
        for label in labels) + f"; took {result['seconds']:.0f} s")
    if args.json:
        with atomic_write(args.json, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(result, indent=1))
    return result


def memory_measure(device: str) -> str:
    """What "step MB" measures on ``device`` (suite_measure.child_memory)."""
    if device == "cpu":
        return "peak RSS above the model"
    return "device memory reserved above the model (cupy pool / torch caching allocator)"


if __name__ == "__main__":
    main()
