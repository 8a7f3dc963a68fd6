"""``ExponentialFamily`` (Paddle's ``paddle.distribution.ExponentialFamily``)."""
from __future__ import annotations

from core.distribution.distribution import Distribution
from core.tensor import Tensor, enable_grad, grad

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Paddle's ``ExponentialFamily``: the base of densities
    ``exp(<t(x), theta> - F(theta) + k(x))``. A subclass gives its natural parameters theta
    (``_natural_parameters``, a tuple of Tensors), the log normaliser F
    (``_log_normalizer(*theta)``) and the mean carrier measure E[k(X)]
    (``_mean_carrier_measure``); ``entropy`` then follows from the Bregman divergence:
    ``F(theta) - <theta, grad F(theta)> - E[k(X)]``, with grad F from core.grad. As in
    Paddle, theta is detached first, so this entropy carries no gradient to the parameters
    (Paddle's ``create_graph=True`` there records a graph that ends at the detached copy;
    core.grad's create_graph would too, so the plain first-order call gives the same)."""

    @property
    def _natural_parameters(self) -> tuple:
        raise self._missing("_natural_parameters")

    def _log_normalizer(self, *natural_parameters) -> Tensor:
        raise self._missing("_log_normalizer")

    @property
    def _mean_carrier_measure(self):
        raise self._missing("_mean_carrier_measure")

    def entropy(self) -> Tensor:
        theta = []
        for parameter in self._natural_parameters:
            parameter = parameter.detach()  # a leaf of its own, as Paddle's
            parameter.stop_gradient = False
            theta.append(parameter)
        with enable_grad():  # grad F needs a graph, also when called under core.no_grad()
            log_norm = self._log_normalizer(*theta)
            grads = grad(log_norm.sum(), theta)
        entropy = log_norm.detach()
        for parameter, g in zip(theta, grads):
            entropy = entropy - parameter.detach() * g
        return entropy - self._mean_carrier_measure
