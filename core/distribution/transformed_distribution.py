"""``TransformedDistribution`` (Paddle's ``paddle.distribution.TransformedDistribution``),
under Paddle's module path; it lives with the transforms (core.distribution.transform), whose
``Transform.__call__`` makes one from a distribution."""
from __future__ import annotations

from core.distribution.transform import TransformedDistribution

__all__ = ["TransformedDistribution"]
