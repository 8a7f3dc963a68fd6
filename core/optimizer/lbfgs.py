"""L-BFGS (Nocedal & Wright, algorithm 7.5) with Paddle 3's ``paddle.optimizer.LBFGS`` arguments:
a quasi-Newton method that re-evaluates the loss through a closure, for full-batch problems.

All parameters are seen as one flat vector (their gradients concatenated in order); the
curvature pairs ``(s, y)`` of the last ``history_size`` iterations give the direction by the
two-loop recursion, and the step is either ``learning_rate`` (fixed) or found by a strong-Wolfe
line search (``line_search_fn='strong_wolfe'``). The iterations follow Paddle's (and torch's)
decision by decision, so the same closure gives the same iterates.
"""
from __future__ import annotations

import numbers

import numpy as np

from core import backend
from core.optimizer.line_search import dot, strong_wolfe
from core.optimizer.optimizer import Optimizer, check_range
from core.row_sparse import RowSparseGrad
from core.tensor import Tensor, enable_grad, no_grad

_ARRAY_STATE = ("d", "prev_flat_grad")
_LIST_STATE = ("old_yk", "old_sk")
_NUMBER_STATE = {"func_evals": int, "n_iter": int, "alpha": float, "H_diag": float,
                 "prev_loss": float}


class LBFGS(Optimizer):
    """``LBFGS(learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None, parameters=None,
    weight_decay=None, grad_clip=None, name=None)``; ``step(closure)`` runs up to ``max_iter``
    iterations (``max_eval`` loss evaluations, default ``max_iter * 5 // 4``) and returns the
    closure's first loss. The closure clears the gradients, computes the loss, calls
    ``backward()`` and returns the loss.

    It stops early when the largest gradient element is at most ``tolerance_grad``, or a step,
    a change of loss or the directional derivative falls below ``tolerance_change``.
    ``weight_decay`` and ``grad_clip`` are refused: Paddle accepts them and applies neither
    (its step reads the raw gradients), so put a penalty in the closure's loss instead.
    """

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: str | None = None, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None):
        for arg, value in (("weight_decay", weight_decay), ("grad_clip", grad_clip)):
            if value is not None:
                raise ValueError(f"LBFGS: {arg} is not applied by LBFGS (Paddle accepts it and "
                                 f"ignores it), got {value!r}; add a penalty to the closure's "
                                 "loss, or clip inside the closure")
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError("LBFGS: line_search_fn must be None (fixed steps of learning_rate) "
                             f"or 'strong_wolfe', got {line_search_fn!r}")
        max_iter = _positive_int("max_iter", max_iter)
        self.max_eval = _positive_int("max_eval", max_iter * 5 // 4 if max_eval is None
                                      else max_eval)
        super().__init__(check_range("LBFGS", "learning_rate", learning_rate, 0.0), parameters,
                         None, None, name)
        self._init_groups()
        self.learning_rate, self.max_iter, self.line_search_fn = float(learning_rate), max_iter, \
            line_search_fn
        self.tolerance_grad = check_range("LBFGS", "tolerance_grad", tolerance_grad, 0.0)
        self.tolerance_change = check_range("LBFGS", "tolerance_change", tolerance_change, 0.0)
        self.history_size = _positive_int("history_size", history_size)
        self._params = [p for p in self._parameter_list if not p.stop_gradient]
        self.state: dict = {"func_evals": 0, "n_iter": 0}

    # ----- the flat view of the parameters ---------------------------------------------------
    def _flat_grad(self):
        xp = backend.array_module(self._params[0].data)
        return xp.concatenate([_dense_grad(p, xp).ravel() for p in self._params])

    def _add_step(self, alpha: float, d) -> None:
        """Every parameter += alpha * its slice of ``d``."""
        offset = 0
        for p in self._params:
            size = p.data.size
            p.data += alpha * d[offset:offset + size].reshape(p.data.shape)
            offset += size

    def _evaluate(self, closure) -> float:
        with enable_grad():
            return float(closure())

    def _directional(self, closure, start, d):
        """``evaluate(alpha)`` for the line search: the loss and gradient at start + alpha d,
        leaving the parameters at ``start``."""
        def evaluate(alpha: float):
            self._add_step(alpha, d)
            loss = self._evaluate(closure)
            grad = self._flat_grad()
            for p, data in zip(self._params, start):
                p.data[...] = data
            return loss, grad
        return evaluate

    # ----- the step --------------------------------------------------------------------------
    @no_grad()
    def step(self, closure) -> Tensor:  # noqa: C901 - Paddle's loop, kept in one piece to compare
        """Up to ``max_iter`` L-BFGS iterations on the loss ``closure()`` computes; returns
        the first loss of this call (a Tensor)."""
        if not callable(closure):
            raise TypeError("LBFGS.step needs a closure: a function that clears the gradients, "
                            "computes the loss, calls loss.backward() and returns the loss; got "
                            f"{type(closure).__name__}")
        state = self.state
        with enable_grad():
            first = closure()
        loss = float(first)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(abs(flat_grad).max()) <= self.tolerance_grad:
            return first
        d, alpha = state.get("d"), state.get("alpha")
        old_y, old_s, ro = state.get("old_yk"), state.get("old_sk"), state.get("ro")
        h_diag, prev_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss, iteration = state.get("prev_loss"), 0
        while iteration < self.max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # steepest descent, and an empty memory
                d, old_y, old_s, ro, h_diag = -flat_grad, [], [], [], 1.0
            else:
                d, h_diag = self._direction(flat_grad, prev_grad, d * alpha, old_y, old_s, ro,
                                            h_diag)
            prev_grad = flat_grad.copy()
            prev_loss = loss
            # the first step is scaled by the gradient's size; later ones start at lr
            alpha = (min(1.0, 1.0 / float(abs(flat_grad).sum())) * self.learning_rate
                     if state["n_iter"] == 1 else self.learning_rate)
            gtd = dot(flat_grad, d)
            if gtd > -self.tolerance_change:  # not a descent direction any more
                break
            if self.line_search_fn is not None:
                start = [p.data.copy() for p in self._params]
                loss, flat_grad, alpha, spent = strong_wolfe(
                    self._directional(closure, start, d), alpha, d, loss, flat_grad, gtd)
                self._add_step(alpha, d)
            else:
                self._add_step(alpha, d)
                spent = 0
                if iteration != self.max_iter:
                    loss, flat_grad, spent = self._evaluate(closure), self._flat_grad(), 1
            evaluations += spent
            state["func_evals"] += spent
            if (float(abs(flat_grad).max()) <= self.tolerance_grad
                    or float(abs(d * alpha).max()) <= self.tolerance_change
                    or abs(loss - prev_loss) < self.tolerance_change
                    or evaluations >= self.max_eval):
                break
        state.update(d=d, alpha=alpha, old_yk=old_y, old_sk=old_s, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_grad, prev_loss=prev_loss)
        return first

    def _direction(self, grad, prev_grad, s, old_y, old_s, ro, h_diag):
        """The two-loop recursion: -H grad with H from the stored pairs (after storing the
        newest pair when its curvature y.s is positive)."""
        y = grad - prev_grad
        ys = dot(y, s)
        if ys > 1e-10:
            if len(old_y) == self.history_size:  # forget the oldest pair
                old_y.pop(0), old_s.pop(0), ro.pop(0)
            old_y.append(y)
            old_s.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / dot(y, y)
        q = -grad
        al = [0.0] * len(old_y)
        for i in range(len(old_y) - 1, -1, -1):
            al[i] = dot(old_s[i], q) * ro[i]
            q -= al[i] * old_y[i]
        r = q * h_diag
        for i in range(len(old_y)):
            r += (al[i] - dot(old_y[i], r) * ro[i]) * old_s[i]
        return r, h_diag

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS re-evaluates the loss: call opt.step(closure) with a "
                                  "closure that computes it (see the LBFGS docstring), not "
                                  "minimize(loss)")

    # ----- state (one state for all parameters, as Paddle's) ---------------------------------
    def state_dict(self) -> dict:
        """``{"state": {"func_evals", "n_iter", "d", "alpha", "old_yk", "old_sk", "ro",
        "H_diag", "prev_flat_grad", "prev_loss"}}``, arrays as Tensors (Paddle's keys)."""
        out = {}
        for key, value in self.state.items():
            if key in _ARRAY_STATE and value is not None:
                value = Tensor(value)
            elif key in _LIST_STATE and value is not None:
                value = [Tensor(v) for v in value]
            elif key == "ro" and value is not None:
                value = list(value)
            out[key] = value
        return {"state": out}

    def set_state_dict(self, state_dict: dict) -> None:
        if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
            raise TypeError("LBFGS.set_state_dict: expected {'state': {...}} as state_dict() "
                            f"returns, got {type(state_dict).__name__}")
        xp = backend.array_module(self._params[0].data)

        def array(value):
            return xp.asarray(value.data if isinstance(value, Tensor) else value).copy()

        state = {"func_evals": 0, "n_iter": 0}
        for key, value in state_dict["state"].items():
            if value is not None and key in _ARRAY_STATE:
                value = array(value)
            elif value is not None and key in _LIST_STATE:
                value = [array(v) for v in value]
            elif key == "ro" and value is not None:
                value = [_number(v, float) for v in value]
            elif value is not None and key in _NUMBER_STATE:
                # Paddle keeps H_diag (and may keep the others) as 0-D tensors; the loop
                # computes with Python numbers, so a Tensor here would reach the arrays
                value = _number(value, _NUMBER_STATE[key])
            state[key] = value
        self.state = state

    set_dict = set_state_dict


def _number(value, kind):
    """A state number (a Python number, a numpy scalar or a one-element Tensor) as ``kind``."""
    raw = value.data if isinstance(value, Tensor) else value
    return kind(np.asarray(backend.to_numpy(raw)).reshape(()))


def _dense_grad(param, xp):
    """``param``'s gradient as a dense array: zeros when it has none, and an
    ``Embedding(sparse=True)`` gradient scattered out (as torch's ``to_dense``): the flat
    vector spans every element."""
    grad = param.grad_data
    if grad is None:
        return xp.zeros_like(param.data)
    return grad.to_dense() if isinstance(grad, RowSparseGrad) else grad


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"LBFGS: {name} must be an integer >= 1, got {value!r}")
    return int(value)


__all__ = ["LBFGS"]
