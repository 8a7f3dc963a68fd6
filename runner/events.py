"""Training events, in PaddlePaddle v2's vocabulary: what handlers registered with
``Trainer.on(EventType, handler)`` receive.

Order within one pass: ``BeginPass``, then per batch ``BeginIteration`` -> ``EndForwardBackward``
(after backward, before the update: the only moment the gradients are complete) ->
``EndIteration``; then ``EndPass``. An event is built only when a handler listens for its type,
and ``cost`` reads the loss from the device only when a handler asks for it.
"""
from __future__ import annotations

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


class EndForwardBackward(_WithBatch):
    """Backward is done and the update has not happened: gradients are complete here."""


class EndIteration(_WithBatch):
    """The parameters were updated with this batch."""


EVENT_TYPES = (BeginPass, EndPass, BeginIteration, EndForwardBackward, EndIteration)
