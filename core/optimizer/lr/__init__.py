"""Learning-rate schedules, reached as ``core.optimizer.lr.NAME`` like ``paddle.optimizer.lr``.

``decay`` holds the base class and the closed-form decays; ``schedules`` the ones with more
state or arguments (piecewise, Noam, polynomial, lambda, one-cycle, reduce-on-plateau).
"""
from core.optimizer.lr.decay import (
                                     CosineAnnealingDecay,
                                     ExponentialDecay,
                                     LinearWarmup,
                                     LRScheduler,
                                     MultiStepDecay,
                                     StepDecay,
)
from core.optimizer.lr.schedules import (
                                     LambdaDecay,
                                     NoamDecay,
                                     OneCycleLR,
                                     PiecewiseDecay,
                                     PolynomialDecay,
                                     ReduceOnPlateau,
)

__all__ = ["CosineAnnealingDecay", "ExponentialDecay", "LRScheduler", "LambdaDecay",
           "LinearWarmup", "MultiStepDecay", "NoamDecay", "OneCycleLR", "PiecewiseDecay",
           "PolynomialDecay", "ReduceOnPlateau", "StepDecay"]
