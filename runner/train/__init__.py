"""The training loop and what listens to it: events, the NaN/Inf checks and their policy,
monitoring and early stopping, checkpoints and resume, data parallelism, layer taps, inspection,
profiling and the memory report.

May import ``core``, ``runner.config`` and ``runner.errors``; never building, tracking or sweeps
(the loop talks to a tracker only through the object it is handed).
"""
from runner.train.loop import Batch, Trainer, evaluate, fit

__all__ = ["Batch", "Trainer", "evaluate", "fit"]
