"""Stepping one small float64 parameter through given gradients, and a schedule through its
steps: shared by the optimizer and learning-rate tests."""
import numpy as np

from core.tensor import Parameter

GRADS = [[0.5, -0.25], [-1.0, 2.0], [0.1, -0.3]]
START = [1.0, -2.0]


def run(make_opt, grads=GRADS, start=START, name=None):
    """The parameter after each step of ``make_opt([param])``, and the optimizer."""
    param = Parameter(np.array(start, dtype="float64"), name=name)
    opt = make_opt([param])
    history = []
    for grad in grads:
        param.grad_data = np.array(grad, dtype="float64")
        opt.step()
        history.append(param.numpy().copy())
    return history, opt


def values(scheduler, n):
    """The rate at steps 0..n-1 (a scheduler is at step 0 right after construction)."""
    out = [scheduler()]
    for _ in range(n - 1):
        scheduler.step()
        out.append(scheduler())
    return out
