"""Learning-rate schedules, reached as ``core.optimizer.lr.NAME`` like ``paddle.optimizer.lr``.

``decay`` holds the base class and the closed-form decays; ``schedules`` the ones with more
state or arguments (piecewise, Noam, polynomial, lambda, one-cycle, reduce-on-plateau);
``cycles`` the periodic ones (cosine with warm restarts, cyclic).
"""
from core.optimizer.lr.cycles import CosineAnnealingWarmRestarts, CyclicLR
from core.optimizer.lr.decay import (
                                     CosineAnnealingDecay,
                                     ExponentialDecay,
                                     InverseTimeDecay,
                                     LinearLR,
                                     LinearWarmup,
                                     LRScheduler,
                                     MultiplicativeDecay,
                                     MultiStepDecay,
                                     NaturalExpDecay,
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

__all__ = ["CosineAnnealingDecay", "CosineAnnealingWarmRestarts", "CyclicLR",
           "ExponentialDecay", "InverseTimeDecay", "LRScheduler", "LambdaDecay", "LinearLR",
           "LinearWarmup", "MultiStepDecay", "MultiplicativeDecay", "NaturalExpDecay",
           "NoamDecay", "OneCycleLR", "PiecewiseDecay", "PolynomialDecay", "ReduceOnPlateau",
           "StepDecay"]
