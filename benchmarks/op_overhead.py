"""Per-op cost on tiny tensors: microseconds per call, core versus torch eager, in one run.

On a [4, 4] tensor an op's arithmetic takes a few nanoseconds, so what is measured is
everything around it: argument checks, picking the backend and kernels, allocation, recording
the graph (and, for ``fwd+bwd``, running it backwards). That cost is paid once per op whatever
the tensor's size, so it is what bounds small batches and recurrent steps.

Each op is first checked to give the same values in both libraries; then core and torch are
timed in alternating repetitions (best of ``--repeats``, ``--calls`` calls each), one thread.

    python benchmarks/op_overhead.py [--size 4] [--calls 20000] [--repeats 5] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# core before numpy, as the runner and suite.py load them (core/blas_idle.py)
import core  # noqa: E402, I001
import numpy as np  # noqa: E402

from core.atomic import atomic_write  # noqa: E402
from core.nn import functional as F  # noqa: E402


def _core_graph(a, b):
    loss = core.sum(F.relu(core.matmul(a, b) + a))
    loss.backward()
    return loss


def _torch_graph(torch, a, b):
    loss = torch.relu(a @ b + a).sum()
    loss.backward()
    return loss


def ops(torch):
    """name -> (core call, torch call), each taking the pair of inputs of its library; every
    call records the graph (inputs need gradients) unless its name says no_grad."""
    return {
        "add": (lambda a, b: a + b, lambda a, b: a + b),
        "multiply": (lambda a, b: a * b, lambda a, b: a * b),
        "matmul": (core.matmul, torch.matmul),
        "relu": (lambda a, b: F.relu(a), lambda a, b: torch.relu(a)),
        "tanh": (lambda a, b: core.tanh(a), lambda a, b: torch.tanh(a)),
        "softmax": (lambda a, b: F.softmax(a, axis=-1), lambda a, b: torch.softmax(a, -1)),
        "sum": (lambda a, b: core.sum(a), lambda a, b: a.sum()),
        "mean (axis)": (lambda a, b: core.mean(a, axis=1), lambda a, b: a.mean(1)),
        "reshape": (lambda a, b: core.reshape(a, [-1]), lambda a, b: a.reshape(-1)),
        "transpose": (lambda a, b: core.transpose(a, [1, 0]), lambda a, b: a.permute(1, 0)),
        "index a[1]": (lambda a, b: a[1], lambda a, b: a[1]),
        "add, no_grad": (lambda a, b: _no_grad(core.no_grad, lambda: a + b),
                         lambda a, b: _no_grad(torch.no_grad, lambda: a + b)),
        "fwd+bwd (4 ops)": (_core_graph, lambda a, b: _torch_graph(torch, a, b)),
    }


def _no_grad(context, fn):
    with context():
        return fn()


def _values(result) -> np.ndarray:
    return result.detach().numpy() if hasattr(result, "detach") else result.numpy()


def _us_per_call(fn, a, b, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn(a, b)
    return (time.perf_counter() - start) / calls * 1e6


def measure(size: int = 4, calls: int = 20000, repeats: int = 5) -> list[dict]:
    """One row per op: core's and torch's best microseconds per call, and whether their
    values agreed."""
    import torch  # noqa: PLC0415 - the baseline, only when measuring

    before = core.device.get_num_threads(), torch.get_num_threads()
    core.device.set_num_threads(1)
    torch.set_num_threads(1)
    try:
        return _measure(torch, size, calls, repeats)
    finally:  # the caller's thread counts again
        core.device.set_num_threads(before[0])
        torch.set_num_threads(before[1])


def _measure(torch, size: int, calls: int, repeats: int) -> list[dict]:
    data = np.random.default_rng(0).standard_normal((2, size, size)).astype(np.float32)
    ours = [core.to_tensor(d, stop_gradient=False) for d in data]
    theirs = [torch.tensor(d, requires_grad=True) for d in data]
    rows = []
    for name, (ours_fn, theirs_fn) in ops(torch).items():
        agree = bool(np.allclose(_values(ours_fn(*ours)), _values(theirs_fn(*theirs)),
                                 rtol=1e-5, atol=1e-6))
        for fn, args in ((ours_fn, ours), (theirs_fn, theirs)):
            _us_per_call(fn, *args, max(1, calls // 10))  # warm-up
        best = {"core": float("inf"), "torch": float("inf")}
        for _ in range(repeats):  # alternating, so both see the same machine state
            best["core"] = min(best["core"], _us_per_call(ours_fn, *ours, calls))
            best["torch"] = min(best["torch"], _us_per_call(theirs_fn, *theirs, calls))
        for mine, torch_tensor in zip(ours, theirs):  # fwd+bwd accumulated gradients
            mine.clear_grad()
            torch_tensor.grad = None
        rows.append({"op": name, "core_us": best["core"], "torch_us": best["torch"],
                     "speed_vs_torch": best["torch"] / best["core"], "values_agree": agree})
    return rows


def table(rows: list[dict], size: int) -> str:
    lines = [f"Per-op cost on [{size}, {size}] float32, one thread (best of the repetitions)",
             "", "| op | core us | torch us | speed vs torch | values agree |",
             "|---|---:|---:|---:|:---:|"]
    lines += [f"| {r['op']} | {r['core_us']:.2f} | {r['torch_us']:.2f} | "
              f"{r['speed_vs_torch']:.2f}x | {'yes' if r['values_agree'] else 'NO'} |"
              for r in rows]
    return "\n".join(lines)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4, help="tensor side (default 4)")
    parser.add_argument("--calls", type=int, default=20000, help="calls per timing")
    parser.add_argument("--repeats", type=int, default=5, help="timings per op and library")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    rows = measure(args.size, args.calls, args.repeats)
    print(table(rows, args.size))
    if args.json:
        with atomic_write(args.json, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(rows, indent=1) + "\n")
    if not all(r["values_agree"] for r in rows):
        raise SystemExit("op_overhead: some ops gave different values in core and torch")
    return rows


if __name__ == "__main__":
    main()
