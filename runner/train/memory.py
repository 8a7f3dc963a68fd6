"""The memory report at the start of training: what parameters, gradients, optimizer state and
one step's activations take (the FAQ's point that adadelta needs several times the parameters'
memory, in numbers).

Parameters, gradients and optimizer state are counted from the arrays' sizes before training
(the optimizer state from the arrays its rule keeps per trainable parameter). Activations are
measured on the first training batch: the bytes of every tensor the autograd graph holds when
the forward pass ends (what backward needs; temporary buffers inside ops are not counted). All
are logged as ``memory/*_bytes`` metrics at the first step and printed in one line.
"""
from __future__ import annotations

import logging

from core.tensor import Tensor
from runner.train.events import EndForwardBackward

log = logging.getLogger(__name__)
METRICS = ("memory/params_bytes", "memory/buffers_bytes", "memory/grads_bytes",
           "memory/optimizer_state_bytes", "memory/activation_bytes")


def static_bytes(model, optimizer) -> dict[str, int]:
    """Bytes of parameters, buffers, gradients and optimizer state (before the first step)."""
    params = model.parameters()
    trainable = [p for p in params if not p.stop_gradient and getattr(p, "trainable", True)]
    state = optimizer.state_nbytes() or sum(
        len(optimizer._accumulators_for(p)) * p.data.nbytes for p in trainable)
    return {"memory/params_bytes": sum(int(p.data.nbytes) for p in params),
            "memory/buffers_bytes": sum(int(b.data.nbytes) for b in model.buffers()),
            "memory/grads_bytes": sum(int(p.data.nbytes) for p in trainable),
            "memory/optimizer_state_bytes": int(state)}


def graph_bytes(output: Tensor) -> int:
    """Bytes of the arrays of every interior tensor reachable from ``output`` in the graph."""
    seen, stack, total = set(), [output], 0
    while stack:
        node = stack.pop()
        if id(node) in seen or node._backward is None:
            continue
        seen.add(id(node))
        total += int(node.data.nbytes)
        stack.extend(node._parents)
    return total


class MemoryReport:
    """Reports the static sizes and, after the first forward pass, the activation bytes."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.result = static_bytes(trainer.model, trainer.optimizer)
        self._handle = None
        self._reported = False

    def attach(self) -> None:
        self._handle = self.trainer.model.register_forward_post_hook(self._measure)
        self.trainer.on(EndForwardBackward, self._report)

    def _measure(self, layer, inputs, output) -> None:
        del layer, inputs
        if isinstance(output, Tensor) and self.trainer.model.training:
            self.result["memory/activation_bytes"] = graph_bytes(output)
            self._handle.remove()

    def _report(self, event) -> None:
        if self._reported or "memory/activation_bytes" not in self.result:
            return
        self._reported = True
        event.trainer.off(EndForwardBackward, self._report)  # later steps build no event for it
        metrics = self.result
        event.trainer.report({k: float(v) for k, v in metrics.items()})
        log.info("memory: params %s, grads %s, optimizer state %s, buffers %s, activations of "
                 "one batch %s", *(_mb(metrics[f"memory/{k}_bytes"]) for k in
                                   ("params", "grads", "optimizer_state", "buffers",
                                    "activation")))


def _mb(n: int) -> str:
    return f"{n / 2**20:.2f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB"
