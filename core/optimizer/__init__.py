"""Optimizers with Paddle 2.x's names (``paddle.optimizer``) and learning-rate schedules (``lr``).

Every optimizer shares the ``Optimizer`` base (state, regularization, clipping, state dicts) and
defines one ``_update`` method; ``core.optimizer.lr`` holds the schedules.
"""
from core.optimizer import lr
from core.optimizer.adam import Adam, Adamax, AdamW, Lamb
from core.optimizer.adaptive import Adadelta, Adagrad, RMSProp
from core.optimizer.optimizer import Optimizer
from core.optimizer.sgd import SGD, Momentum

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Lamb", "Momentum",
           "Optimizer", "RMSProp", "lr"]
