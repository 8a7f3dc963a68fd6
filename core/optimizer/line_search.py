"""A line search along a direction that meets the strong Wolfe conditions (Nocedal & Wright,
Numerical Optimization, 2nd ed., algorithms 3.5 and 3.6), for LBFGS.

Everything is a function of the step ``alpha`` along direction ``d`` from the current point:
``evaluate(alpha) -> (loss, flat gradient)``; ``gtd`` is the directional derivative
``dot(gradient, d)``. Losses and steps are Python floats, gradients flat backend arrays. The
steps follow Paddle's (and torch's) ``_strong_wolfe`` decision by decision, so that the same
closure gives the same iterates.
"""
from __future__ import annotations

import math

from core import backend


def cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                  bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through two points with their values and slopes, clamped to
    ``bounds`` (default: the interval between the points); the midpoint where the cubic has no
    minimum (N&W eq. 3.59)."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3.0 * (f1 - f2) / (x1 - x2)
    square = d1 * d1 - g1 * g2
    if square < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(square)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2.0 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2.0 * d2))
    return min(max(at, low), high)


def dot(a, b) -> float:
    return float(backend.array_module(a).dot(a, b))


def strong_wolfe(evaluate, alpha: float, d, loss: float, grad, gtd: float, c1: float = 1e-4,
                 c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25):
    """``(loss, gradient, alpha, evaluations)`` at a step satisfying the strong Wolfe conditions
    (sufficient decrease with ``c1``, curvature with ``c2``), or the best step found in
    ``max_ls`` evaluations."""
    d_norm = float(abs(d).max())
    new_loss, new_grad = evaluate(alpha)
    evaluations, new_gtd = 1, dot(new_grad, d)
    # bracket an interval that holds a point satisfying the conditions
    prev = (0.0, loss, grad, gtd)  # step, loss, gradient, slope
    done, iteration = False, 0
    bracket = None
    while iteration < max_ls:
        if new_loss > loss + c1 * alpha * gtd or (iteration > 1 and new_loss >= prev[1]):
            bracket = [prev, (alpha, new_loss, new_grad.copy(), new_gtd)]
            break
        if abs(new_gtd) <= -c2 * gtd:
            bracket, done = [(alpha, new_loss, new_grad, new_gtd)], True
            break
        if new_gtd >= 0:
            bracket = [prev, (alpha, new_loss, new_grad.copy(), new_gtd)]
            break
        # extrapolate: a step between 1.01 and 10 times further
        step = cubic_minimum(prev[0], prev[1], prev[3], alpha, new_loss, new_gtd,
                             bounds=(alpha + 0.01 * (alpha - prev[0]), alpha * 10))
        prev = (alpha, new_loss, new_grad.copy(), new_gtd)
        alpha = step
        new_loss, new_grad = evaluate(alpha)
        evaluations, new_gtd, iteration = evaluations + 1, dot(new_grad, d), iteration + 1
    if iteration == max_ls:
        bracket = [(0.0, loss, grad, gtd), (alpha, new_loss, new_grad, new_gtd)]
    # zoom: shrink the bracket until a point meets the conditions
    low, high = (0, 1) if len(bracket) == 1 or bracket[0][1] <= bracket[-1][1] else (1, 0)
    insufficient = False
    while not done and iteration < max_ls:
        lo_step, hi_step = min(bracket[0][0], bracket[1][0]), max(bracket[0][0], bracket[1][0])
        if (hi_step - lo_step) * d_norm < tolerance_change:
            break
        alpha = cubic_minimum(bracket[0][0], bracket[0][1], bracket[0][3],
                              bracket[1][0], bracket[1][1], bracket[1][3])
        # a trial close to an end of the bracket twice running, or outside it, moves to 10%
        # of the bracket's width from that end
        margin = 0.1 * (hi_step - lo_step)
        if min(hi_step - alpha, alpha - lo_step) < margin:
            if insufficient or alpha >= hi_step or alpha <= lo_step:
                alpha = hi_step - margin if abs(alpha - hi_step) < abs(alpha - lo_step) \
                    else lo_step + margin
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        new_loss, new_grad = evaluate(alpha)
        evaluations, new_gtd, iteration = evaluations + 1, dot(new_grad, d), iteration + 1
        point = (alpha, new_loss, new_grad.copy(), new_gtd)
        if new_loss > loss + c1 * alpha * gtd or new_loss >= bracket[low][1]:
            bracket[high] = point
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
            continue
        if abs(new_gtd) <= -c2 * gtd:
            done = True
        elif new_gtd * (bracket[high][0] - bracket[low][0]) >= 0:
            bracket[high] = bracket[low]  # the old low end becomes the high end
        bracket[low] = point
    alpha, new_loss, new_grad, _ = bracket[low]
    return new_loss, new_grad, alpha, evaluations
