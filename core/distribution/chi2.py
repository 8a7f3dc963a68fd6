"""``Chi2`` (Paddle's ``paddle.distribution.Chi2``)."""
from __future__ import annotations

from core.distribution.distribution import params
from core.distribution.gamma import Gamma, check_positive
from core.tensor import Tensor

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Paddle's ``Chi2(df)``: the chi-squared distribution with ``df`` degrees of freedom
    (positive), which is ``Gamma(df / 2, 1 / 2)``; every method is Gamma's."""

    def __init__(self, df):
        df, = params("Chi2", df=df)
        check_positive("Chi2", df=df)
        super().__init__(0.5 * df, 0.5)

    @property
    def df(self) -> Tensor:
        """The degrees of freedom: ``2 concentration``."""
        return self.concentration * 2
