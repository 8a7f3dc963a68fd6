"""Config-driven inspection: layer, parameter and gradient statistics logged to MLflow.

``[inspect] every = 25`` with ``layer_outputs = ["conv2", "fc"]``, ``param_stats = true`` and
``grad_stats = true`` logs, every 25 steps (at ``EndForwardBackward``, where gradients are
complete), the mean, std, min, max, L2 norm and fraction of zeros of each watched layer's output
(``inspect/conv2/out_std``), each parameter (``inspect/conv1.weight/param_l2``) and each
gradient (``inspect/conv1.weight/grad_zero_frac``). Statistics are computed where the arrays
live (on the GPU for a GPU run); only the six numbers per array come back to the host.
"""
from __future__ import annotations

from core import backend
from runner.train.events import EndForwardBackward

STATS = ("mean", "std", "min", "max", "l2", "zero_frac")


def statistics(array, divisor: float = 1.0) -> dict[str, float]:
    """The six statistics of ``array`` / ``divisor`` as Python floats (computed in float64)."""
    xp = backend.array_module(array)
    values = array.astype(xp.float64, copy=False)
    if divisor != 1.0:  # in float64: a float16 division would flush small values to zero
        values = values / divisor
    if values.size == 0:
        return dict.fromkeys(STATS, 0.0)
    return {"mean": float(values.mean()), "std": float(values.std()),
            "min": float(values.min()), "max": float(values.max()),
            "l2": float(xp.sqrt((values * values).sum())),
            "zero_frac": float((values == 0).mean())}


class Inspector:
    """Logs the statistics ``cfg`` (an ``InspectConfig``) asks for through ``trainer.report``."""

    def __init__(self, cfg):
        self.cfg = cfg

    def attach(self, trainer) -> None:
        if self.cfg.every <= 0:
            return
        trainer.watch(*self.cfg.layer_outputs)
        if self.cfg.layer_outputs or self.cfg.param_stats or self.cfg.grad_stats:
            trainer.on(EndForwardBackward, self._inspect)

    def _inspect(self, event) -> None:
        trainer = event.trainer
        if trainer.state.step % self.cfg.every:  # steps 0, every, 2 * every ... (before update)
            return
        if not trainer.step_complete:  # trainer.accumulate: a later batch adds to the gradients
            return
        metrics: dict[str, float] = {}
        # trainer.amp: the gradients are still multiplied by the loss scale here (the loop
        # unscales them after this event); the statistics are of the real gradients.
        scale = trainer.precision.loss_scale() if self.cfg.grad_stats else 1.0
        for name in self.cfg.layer_outputs:
            _add(metrics, f"inspect/{name}/out", trainer.taps.raw(name))
        for name, param in trainer.model.named_parameters():
            if self.cfg.param_stats:
                _add(metrics, f"inspect/{name}/param", param.data)
            if self.cfg.grad_stats and param.grad_data is not None:
                _add(metrics, f"inspect/{name}/grad", param.grad_data, scale)
        trainer.report(metrics)


def _add(metrics: dict, prefix: str, array, divisor: float = 1.0) -> None:
    for stat, value in statistics(array, divisor).items():
        metrics[f"{prefix}_{stat}"] = value
