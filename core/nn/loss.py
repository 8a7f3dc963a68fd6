"""Loss layers (``paddle.nn`` names and arguments) over the functions of ``core.nn.functional``."""
from __future__ import annotations

from core.nn.functional import loss as F
from core.nn.functional import loss_elementwise as E
from core.nn.layer import Layer
from core.tensor import Tensor


class CrossEntropyLoss(Layer):
    """Softmax cross entropy (``paddle.nn.CrossEntropyLoss``); see ``F.cross_entropy``."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                 use_softmax: bool = True, label_smoothing: float = 0.0,
                 name: str | None = None):
        super().__init__(name)
        F.check_reduction(reduction, "CrossEntropyLoss")
        if label_smoothing:
            F.check_smoothing(label_smoothing)  # fail at construction, not at the first step
        self.weight = weight  # class weights are a constant, not a trainable parameter
        self.ignore_index, self.reduction = ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                               self.soft_label, self.axis, self.use_softmax,
                               self.label_smoothing)

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


class _Reduced(Layer):
    """A loss layer that stores ``reduction`` (checked here) and shows it in its repr."""

    _reductions = ("mean", "sum", "none")

    def __init__(self, reduction: str, name: str | None = None):
        super().__init__(name)
        if reduction not in self._reductions:
            raise ValueError(f"{type(self).__name__}: reduction={reduction!r} is not supported; "
                             f"use one of {self._reductions}.")
        self.reduction = reduction

    def extra_repr(self) -> str:
        return f"reduction={self.reduction}"


class L1Loss(_Reduced):
    """Absolute error (``paddle.nn.L1Loss``); see ``F.l1_loss``."""

    def __init__(self, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Reduced):
    """Paddle's smooth L1 / Huber loss (``paddle.nn.SmoothL1Loss``); see ``F.smooth_l1_loss``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, name: str | None = None):
        super().__init__(reduction, name)
        self.delta = delta

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.smooth_l1_loss(input, label, self.reduction, self.delta)


class NLLLoss(_Reduced):
    """Negative log-likelihood (``paddle.nn.NLLLoss``); see ``F.nll_loss``."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        self.weight, self.ignore_index = weight, ignore_index  # constants, not parameters

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class BCELoss(_Reduced):
    """Binary cross entropy of probabilities (``paddle.nn.BCELoss``); see
    ``F.binary_cross_entropy``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 name: str | None = None):
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Reduced):
    """Sigmoid plus binary cross entropy (``paddle.nn.BCEWithLogitsLoss``); see
    ``F.binary_cross_entropy_with_logits``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None, name: str | None = None):
        super().__init__(reduction, name)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit: Tensor, label: Tensor) -> Tensor:
        return E.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Reduced):
    """Kullback-Leibler divergence (``paddle.nn.KLDivLoss``); see ``F.kl_div``."""

    _reductions = ("mean", "batchmean", "sum", "none")

    def __init__(self, reduction: str = "mean", log_target: bool = False):
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.kl_div(input, label, self.reduction, self.log_target)
