"""Training events, in PaddlePaddle v2's vocabulary: what handlers registered with
``Trainer.on(EventType, handler)`` receive.

Order within one pass: ``BeginPass``, then per batch ``BeginIteration`` -> ``EndForwardBackward``
(after backward, before the update: the only moment the gradients are complete; with
``trainer.accumulate > 1`` only at a step's last batch, where ``trainer.step_complete``) ->
``EndIteration``; then ``EndPass``. An event is built only when a handler listens for its type,
and ``cost`` reads the loss from the device only when a handler asks for it.

Inside an iteration, ``event.layer_outputs(name)`` (layers watched with ``trainer.watch``),
``event.parameters()`` and, in ``EndForwardBackward``, ``event.gradients()`` return host copies
by name; each copies only what it is asked for, when it is asked.
"""
from __future__ import annotations

import numpy as np

from core import backend


class Event:
    """Common to every event: where training is, and the trainer (``event.trainer.stop()``)."""

    def __init__(self, trainer, pass_id: int, batch_id: int | None = None):
        self.trainer = trainer
        self.pass_id = pass_id
        self.batch_id = batch_id

    @property
    def step(self) -> int:
        """Optimizer updates done so far."""
        return self.trainer.state.step

    @property
    def metrics(self) -> dict[str, float]:
        """The latest value of every metric reported so far (``train/loss``, ``valid/acc`` ...)."""
        return self.trainer.state.metrics

    def __repr__(self) -> str:
        return f"{type(self).__name__}(pass_id={self.pass_id}, batch_id={self.batch_id})"


class BeginPass(Event):
    """An epoch (a pass over the training data) starts."""


class EndPass(Event):
    """An epoch ended; validation metrics of this pass, if any, are in ``metrics``."""


class BeginIteration(Event):
    """A batch is about to be trained on."""


class _WithBatch(Event):
    """Events inside an iteration carry the batch's inputs, labels, logits and loss."""

    def __init__(self, trainer, pass_id: int, batch_id: int, batch):
        super().__init__(trainer, pass_id, batch_id)
        self.batch = batch

    @property
    def cost(self) -> float:
        """The batch's loss as a Python float (a device-to-host copy on a GPU)."""
        return float(backend.to_numpy(self.batch.loss.data).reshape(-1)[0])

    @property
    def model(self):
        return self.trainer.model

    def layer_outputs(self, name: str) -> np.ndarray:
        """A host copy of this batch's output of layer ``name`` (watched with
        ``trainer.watch(name)`` before ``fit``; only watched layers are hooked and copied)."""
        return self.trainer.taps.output(name)

    @property
    def gm(self) -> _GradientMachine:
        """Paddle v2's ``event.gm``: ``event.gm.getLayerOutputs("fc")["fc"]["value"]``."""
        return _GradientMachine(self)

    def parameters(self) -> dict[str, np.ndarray]:
        """Host copies of every parameter's values by dotted name (``conv1.weight`` ...)."""
        return {name: _host_copy(p.data) for name, p in self.model.named_parameters()}

    def gradients(self) -> dict[str, np.ndarray]:
        """Host copies of every gradient by parameter name (frozen parameters have none)."""
        raise RuntimeError(f"event.gradients() is only valid in EndForwardBackward (after "
                           f"backward, before the update); this is {type(self).__name__}.")


class EndForwardBackward(_WithBatch):
    """Backward is done and the update has not happened: gradients are complete here (with
    ``trainer.accumulate > 1``, at the step's last batch: ``trainer.step_complete``)."""

    def gradients(self) -> dict[str, np.ndarray]:
        return {name: _host_copy(p.grad_data) for name, p in self.model.named_parameters()
                if p.grad_data is not None}


class EndIteration(_WithBatch):
    """The parameters were updated with this batch."""


class _GradientMachine:
    """The one part of Paddle v2's GradientMachine handlers use: ``getLayerOutputs``."""

    def __init__(self, event: _WithBatch):
        self._event = event

    def getLayerOutputs(self, names) -> dict[str, dict[str, np.ndarray]]:  # noqa: N802 - Paddle
        names = [names] if isinstance(names, str) else list(names)
        return {name: {"value": self._event.layer_outputs(name)} for name in names}


def _host_copy(array) -> np.ndarray:
    return np.array(backend.to_numpy(array), copy=True)


EVENT_TYPES = (BeginPass, EndPass, BeginIteration, EndForwardBackward, EndIteration)
