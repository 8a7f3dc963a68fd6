"""Optimizers with Paddle 2.x's names (``paddle.optimizer``) and learning-rate schedules (``lr``).

Every optimizer shares the ``Optimizer`` base (state, regularization, clipping, state dicts) and
defines one ``_update`` method; ``core.optimizer.lr`` holds the schedules.
"""
from core.optimizer import lr
from core.optimizer.adam import Adam, Adamax, AdamW, Lamb, NAdam, RAdam
from core.optimizer.adaptive import Adadelta, Adagrad, RMSProp, Rprop
from core.optimizer.lbfgs import LBFGS
from core.optimizer.optimizer import Optimizer
from core.optimizer.sgd import ASGD, SGD, Momentum

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Lamb",
           "Momentum", "NAdam", "Optimizer", "RAdam", "RMSProp", "Rprop", "lr"]
