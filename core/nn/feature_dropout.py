"""``paddle.nn.FeatureAlphaDropout`` (Paddle 3) over ``functional.feature_dropout``."""
from __future__ import annotations

from core.nn.functional.dropout_variants import check_probability
from core.nn.functional.feature_dropout import feature_alpha_dropout
from core.nn.layer import Layer
from core.tensor import Tensor

__all__ = ["FeatureAlphaDropout"]


class FeatureAlphaDropout(Layer):
    """Alpha dropout of whole channels, Paddle 3's ``FeatureAlphaDropout(p=0.5, name=None)``:
    in training each [sample, channel] slice of [N, C, ...] is dropped together to SELU's
    saturation value and alpha dropout's affine map restores zero mean and unit variance; the
    identity in evaluation mode (``eval()``). See ``F.feature_alpha_dropout``."""

    def __init__(self, p: float = 0.5, name: str | None = None):
        super().__init__(name)
        self.p = check_probability("FeatureAlphaDropout", p)

    def forward(self, x: Tensor) -> Tensor:
        return feature_alpha_dropout(x, self.p, training=self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
