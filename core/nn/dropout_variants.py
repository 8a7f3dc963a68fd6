"""``paddle.nn.AlphaDropout`` over ``functional.dropout_variants``."""
from __future__ import annotations

from core.nn.functional import dropout_variants as F
from core.nn.layer import Layer
from core.tensor import Tensor


class AlphaDropout(Layer):
    """Dropout for SELU networks, Paddle's ``AlphaDropout(p=0.5, name=None)``: in training,
    dropped values become SELU's saturation value and an affine map restores zero mean and unit
    variance; the identity in evaluation mode (``eval()``). See ``F.alpha_dropout``."""

    def __init__(self, p: float = 0.5, name: str | None = None):
        super().__init__(name)
        self.p = F.check_probability("AlphaDropout", p)

    def forward(self, x: Tensor) -> Tensor:
        return F.alpha_dropout(x, self.p, training=self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
