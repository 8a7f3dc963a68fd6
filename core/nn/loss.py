"""Loss layers: ``CrossEntropyLoss`` and ``MSELoss`` over ``core.nn.functional``."""
from __future__ import annotations

from core.nn.functional import loss as F
from core.nn.layer import Layer
from core.tensor import Tensor


class CrossEntropyLoss(Layer):
    """Softmax cross entropy (``paddle.nn.CrossEntropyLoss``); see ``F.cross_entropy``."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                 use_softmax: bool = True, name: str | None = None):
        super().__init__(name)
        F.check_reduction(reduction, "CrossEntropyLoss")
        self.weight = weight  # class weights are a constant, not a trainable parameter
        self.ignore_index, self.reduction = ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                               self.soft_label, self.axis, self.use_softmax)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction}, ignore_index={self.ignore_index}"


class MSELoss(Layer):
    """Mean squared error (``paddle.nn.MSELoss``)."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        F.check_reduction(reduction, "MSELoss")
        self.reduction = reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.mse_loss(input, label, self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction}"
