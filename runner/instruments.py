"""What a run attaches to its Trainer besides training itself: checkpoints and resume
(``runner.train.resume``), the memory report (``runner.train.memory``), config-driven inspection
(``runner.train.inspection``) and the profiler (``runner.train.profiling``). Each listens to the
Trainer's events or hooks the model, so none of them changes the training loop, and what is off
costs nothing.
"""
from __future__ import annotations

from runner.track import bundle
from runner.train import resume
from runner.train.inspection import Inspector
from runner.train.memory import MemoryReport
from runner.train.profiling import Profiler


class Instruments:
    """The attached tools that have something to do when training ends."""

    def __init__(self, profiler: Profiler | None, memory: MemoryReport):
        self.profiler, self.memory = profiler, memory

    def finish(self, tracker, folder: str) -> None:
        if self.profiler is not None:
            self.profiler.finish(tracker, folder)


def attach(trainer, cfg, parts, tracker, resumption, checkpoint_folder) -> Instruments:
    """Attach what ``cfg`` asks for to ``trainer`` (restoring a checkpoint when resuming)."""
    description = bundle.describe(cfg, parts.input_shape, parts.num_classes, parts.vocab_size,
                                  parts.variable_length, getattr(parts, "preprocessing", None))
    resume.attach(trainer, cfg, parts.train, resumption, checkpoint_folder, tracker.run_id,
                  description)
    memory = MemoryReport(trainer)
    memory.attach()
    Inspector(cfg.inspect).attach(trainer)
    profiler = None
    if cfg.trainer.profile:
        profiler = Profiler(trainer)
        profiler.attach()
    return Instruments(profiler, memory)
