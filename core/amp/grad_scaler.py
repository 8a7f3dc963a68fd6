"""Dynamic loss scaling: Paddle's ``paddle.amp.AmpScaler`` and ``paddle.amp.GradScaler``.

float16 gradients underflow to zero below 6e-8; multiplying the loss by a large factor
(``scale``) lifts them into range, and the optimizer step divides it out again
(``unscale_``). With ``use_dynamic_loss_scaling`` the factor adapts, by Paddle's rules
(``AmpScaler._update``): a step whose gradients hold a NaN or an Inf is skipped, counts as a
bad step and resets the good-step count; ``decr_every_n_nan_or_inf`` bad steps in a row
multiply the scale by ``decr_ratio``; ``incr_every_n_steps`` good steps in a row multiply it
by ``incr_ratio``; either change resets its count. The scale is a float32 number, as Paddle's
scale tensor, and has no lower bound (Paddle's dygraph scaler has none either).

Each optimizer goes through INIT -> UNSCALED -> STEPPED between two ``update()`` calls, with
Paddle's errors for ``unscale_`` twice or after ``step``, and for ``step`` twice. Row-sparse
gradients (``Embedding(sparse=True)``) are unscaled and checked through their stored rows.
Unlike Paddle, the scaler also works on the CPU (Paddle disables itself there with a
warning): numpy computes float16, so scaling matters there too.
"""
from __future__ import annotations

import enum
import math
import warnings
from collections import defaultdict

import numpy as np

from core import backend
from core.autocast import current_dtype, pop, push
from core.row_sparse import RowSparseGrad
from core.tensor import Tensor


class OptimizerState(enum.Enum):
    """Paddle's ``paddle.amp.OptimizerState``: where an optimizer is in one scaled step."""

    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"state": OptimizerState.INIT}


def _check_ratio(owner: str, name: str, value, above_one: bool) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) and (value > 1.0 if above_one else 0.0 < value < 1.0)
    if not ok:
        allowed = "a finite number > 1.0" if above_one else "a number in (0, 1)"
        raise ValueError(f"{owner}: {name} must be {allowed}, got {value!r}")
    return float(value)


def _check_count(owner: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: {name} must be an int >= 1, got {value!r}")
    return value


def _check_scaling(owner: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{owner}: init_loss_scaling must be a finite number > 0, got "
                         f"{value!r}")
    return float(np.float32(value))


def _grads(optimizer) -> list:
    """The trainable parameters of ``optimizer`` that hold a gradient."""
    params = getattr(optimizer, "_parameter_list", None)
    if params is None:
        raise TypeError(f"GradScaler: expected a core optimizer, got {type(optimizer).__name__}")
    return [p for p in params if p.grad_data is not None]


def _unscale_one(grad, inverse: float):
    """Divide one gradient by the scale in place; its all-finite flag, as a backend bool (read
    once for all gradients, so that a GPU waits once per step, not per parameter)."""
    values = grad.values if isinstance(grad, RowSparseGrad) else grad
    if isinstance(grad, RowSparseGrad) and not getattr(values.flags, "writeable", True):
        # an Embedding(sparse=True) gradient can hold the upstream gradient itself, a
        # read-only broadcast (the backward of sum or mean): unscale a copy of it
        values = grad.values = values.copy()
    xp = backend.array_module(values)
    finite = xp.isfinite(values).all()
    # A float16 gradient is multiplied in float32 (a float16 1/scale would be rounded) and
    # stays float16, its leaf's dtype; float32 and float64 ones in their own precision. The
    # float32 loop is named (dtype=): cupy 13 types a numpy scalar by its value (numpy 1's
    # rule), so float16 * np.float32(1/scale) would run in float16 there, with 1/scale rounded
    # (0 for a scale above 2**24); numpy 2 picks the float32 loop itself: the same bits.
    low = values.dtype.itemsize < 4
    factor = np.float32(inverse) if low else inverse
    xp.multiply(values, factor, out=values, dtype="float32" if low else None, casting="unsafe")
    return finite


class AmpScaler:
    """Paddle's ``paddle.amp.AmpScaler(enable=True, init_loss_scaling=2.**15, incr_ratio=2.0,
    decr_ratio=0.5, incr_every_n_steps=1000, decr_every_n_nan_or_inf=1,
    use_dynamic_loss_scaling=True)``: ``scale(loss)``, then ``loss.backward()``, then
    ``minimize(optimizer)`` (module docstring). A disabled scaler passes everything through."""

    _owner = "AmpScaler"

    def __init__(self, enable: bool = True, init_loss_scaling: float = 2.0 ** 15,  # noqa: PLR0913
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 1000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True):
        owner = self._owner
        for name, flag in (("enable", enable), ("use_dynamic_loss_scaling",
                                                 use_dynamic_loss_scaling)):
            if not isinstance(flag, bool):
                raise TypeError(f"{owner}: {name} must be True or False, got {flag!r}")
        self._enable = enable
        self._use_dynamic_loss_scaling = False
        self._init_loss_scaling = 1.0
        self._scale = 1.0
        if not enable:
            return  # as Paddle: a disabled scaler keeps none of the other settings
        self._init_loss_scaling = self._scale = _check_scaling(owner, init_loss_scaling)
        self._incr_ratio = _check_ratio(owner, "incr_ratio", incr_ratio, True)
        self._decr_ratio = _check_ratio(owner, "decr_ratio", decr_ratio, False)
        self._incr_every_n_steps = _check_count(owner, "incr_every_n_steps", incr_every_n_steps)
        self._decr_every_n_nan_or_inf = _check_count(owner, "decr_every_n_nan_or_inf",
                                                     decr_every_n_nan_or_inf)
        self._incr_count = self._decr_count = 0
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        self._found_inf = False
        self._cache_found_inf = None
        self._optimizer_states = defaultdict(_fresh_state)

    # ----- one step --------------------------------------------------------------------
    def scale(self, var) -> Tensor:
        """``var * scale`` (float16 / bfloat16 losses are computed in float32 first, as
        Paddle's scaler does, so that the product does not overflow); ``var`` unchanged when
        disabled."""
        if not isinstance(var, Tensor):
            raise TypeError(f"{self._owner}.scale: var must be a Tensor, got "
                            f"{type(var).__name__}")
        self._disable_for_bfloat16()
        if not self._enable:
            return var
        previous = push(None)  # the product stays float32 even inside an O2 auto_cast
        try:
            if var.data.dtype.kind == "f" and var.data.dtype.itemsize < 4:
                var = var.astype("float32")
            return var * self._scale
        finally:
            pop(previous)

    def _disable_for_bfloat16(self) -> None:
        """Paddle turns dynamic scaling off under a bfloat16 auto_cast: bfloat16 has float32's
        range, so nothing underflows."""
        if self._enable and self._use_dynamic_loss_scaling and current_dtype() == "bfloat16":
            warnings.warn("GradScaler: dynamic loss scaling is not recommended for bfloat16, "
                          "so the scaler is disabled (as Paddle does).", stacklevel=3)
            self._enable = self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = self._scale = 1.0

    def minimize(self, optimizer, *args, **kwargs):
        """Unscale (unless ``unscale_`` already did), run ``optimizer.minimize(*args,
        **kwargs)`` unless a gradient is NaN or Inf, then update the scale (when dynamic)."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        if self._optimizer_states[id(optimizer)]["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        result = None
        self._cache_found_inf = self._found_inf
        if not self._found_inf:
            result = optimizer.minimize(*args, **kwargs)
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = defaultdict(_fresh_state)
        return result

    def _unscale(self, optimizer) -> None:
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = 1.0 / self._scale
        flags = [_unscale_one(p.grad_data, inverse) for p in _grads(optimizer)]
        self._found_inf = bool(flags) and not bool(  # one read of the device for them all
            backend.array_module(flags[0]).stack(flags).all())
        state["state"] = OptimizerState.UNSCALED

    def _update(self) -> None:
        """Paddle's rule (module docstring), applied once per step."""
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                self._scale = float(np.float32(self._scale * self._decr_ratio))
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = float(np.float32(self._scale * self._incr_ratio))
                self._incr_count = 0

    # ----- settings --------------------------------------------------------------------
    def is_enable(self) -> bool:
        return self._enable

    def is_use_dynamic_loss_scaling(self) -> bool:
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self) -> float:
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling) -> None:
        """Sets the initial scale and restarts the current scale from it (as Paddle)."""
        value = _check_scaling(f"{self._owner}.set_init_loss_scaling", new_init_loss_scaling)
        self._init_loss_scaling = self._scale = value

    def get_incr_ratio(self) -> float:
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio) -> None:
        self._incr_ratio = _check_ratio(f"{self._owner}.set_incr_ratio", "new_incr_ratio",
                                        new_incr_ratio, True)

    def get_decr_ratio(self) -> float:
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio) -> None:
        self._decr_ratio = _check_ratio(f"{self._owner}.set_decr_ratio", "new_decr_ratio",
                                        new_decr_ratio, False)

    def get_incr_every_n_steps(self) -> int:
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps) -> None:
        self._incr_every_n_steps = _check_count(f"{self._owner}.set_incr_every_n_steps",
                                                "new_incr_every_n_steps", new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self) -> int:
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf) -> None:
        self._decr_every_n_nan_or_inf = _check_count(
            f"{self._owner}.set_decr_every_n_nan_or_inf", "new_decr_every_n_nan_or_inf",
            new_decr_every_n_nan_or_inf)

    # ----- state -----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Paddle's keys: ``scale`` (a float32 array of shape [1]), ``incr_ratio``,
        ``decr_ratio``, ``incr_every_n_steps``, ``decr_every_n_nan_or_inf``, ``incr_count``,
        ``decr_count``, ``use_dynamic_loss_scaling``; ``{}`` when disabled."""
        if not self._enable:
            return {}
        return {"scale": np.array([self._scale], dtype=np.float32),
                "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio,
                "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
                "incr_count": self._incr_count, "decr_count": self._decr_count,
                "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned (nothing happens when disabled, as Paddle)."""
        if not self._enable:
            return
        if not state_dict:
            raise RuntimeError("The input state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        missing = [k for k in ("scale", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                               "decr_every_n_nan_or_inf", "incr_count", "decr_count",
                               "use_dynamic_loss_scaling") if k not in state_dict]
        if missing:
            raise KeyError(f"{self._owner}.load_state_dict: the state dict lacks {missing}")
        scale = state_dict["scale"]
        # a device array (a state kept on the GPU) comes to the host: np.asarray refuses cupy's
        scale = backend.to_numpy(scale.data if isinstance(scale, Tensor) else scale)
        self._init_loss_scaling = self._scale = float(np.float32(scale.reshape(-1)[0]))
        self._incr_ratio = state_dict["incr_ratio"]
        self._decr_ratio = state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count = int(state_dict["incr_count"])
        self._decr_count = int(state_dict["decr_count"])
        self._use_dynamic_loss_scaling = bool(state_dict["use_dynamic_loss_scaling"])


class GradScaler(AmpScaler):
    """Paddle's ``paddle.amp.GradScaler(enable=True, init_loss_scaling=65536.0,
    incr_ratio=2.0, decr_ratio=0.5, incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
    use_dynamic_loss_scaling=True)``: ``AmpScaler`` plus ``step`` / ``update`` /
    ``unscale_`` for loops that touch the unscaled gradients (clipping them by hand, say)::

        scaled = scaler.scale(loss); scaled.backward()
        scaler.step(optimizer); scaler.update(); optimizer.clear_grad()
    """

    _owner = "GradScaler"

    def __init__(self, enable: bool = True, init_loss_scaling: float = 65536.0,  # noqa: PLR0913
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 2000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer) -> None:
        """Unscale (unless ``unscale_`` already did) and run ``optimizer.step()`` unless a
        gradient is NaN or Inf; ``update()`` then adapts the scale."""
        if not self._enable:
            optimizer.step()
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        self._cache_found_inf = self._found_inf
        if not self._found_inf:
            optimizer.step()
        state["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = defaultdict(_fresh_state)

    def update(self) -> None:
        """Adapt the scale after ``step`` (dynamic scaling only) and start the next step."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = defaultdict(_fresh_state)

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale in place and note whether any is NaN
        or Inf; once per optimizer and step, before ``step``."""
        self._unscale(optimizer)
