"""Gradient clipping with Paddle 2.x's classes, plus the counters behind error clipping.

``ClipGradByValue``, ``ClipGradByNorm`` and ``ClipGradByGlobalNorm`` are passed as ``grad_clip=``
to any optimizer, which calls them with the list of ``(param, grad)`` pairs before
regularization and the update. A parameter whose ``need_clip`` is False passes through untouched.
``thresholds`` gives some parameters their own threshold (Paddle 1's
``ParamAttr(gradient_clipping_threshold=...)``), keyed by ``param.name`` or an ``fnmatch``
pattern of it; the first matching key wins.

Everything is written once against ``xp`` and stays on the device: norms, scales and the
"did clipping act" counters are backend arrays, read back only when ``read_stats()`` is called
(at log time), so a GPU is not synchronised per parameter or per step. Norms are summed in
float64, so large finite gradients do not overflow to an infinite norm. A scale is
``t / max(norm, t)``: it never divides by zero, and a non-finite norm gives a non-finite scale
that the training loop's NaN/Inf check reports (it checks gradients before clipping).
"""
from __future__ import annotations

import fnmatch
import math
import numbers

from core import backend
from core.tensor import Tensor


def _check_threshold(owner: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{owner}: {name} must be a finite number > 0, got {value!r}")
    return float(value)


def _sum_squares(grad):
    """The squared L2 norm of ``grad`` as a float64 backend scalar (no float32 overflow)."""
    xp = backend.array_module(grad)
    return xp.square(grad, dtype=xp.float64).sum()


class _GradClip:
    """Shared by the three clips: per-parameter thresholds, need_clip, device-side statistics."""

    def __init__(self, threshold: float, thresholds: dict | None, arg: str):
        owner = type(self).__name__
        self.threshold = _check_threshold(owner, arg, threshold)
        if thresholds is not None and not isinstance(thresholds, dict):
            raise TypeError(f"{owner}: thresholds must be a dict of parameter name (or pattern) "
                            f"to threshold, got {type(thresholds).__name__}")
        self.thresholds = {str(k): _check_threshold(owner, f"thresholds[{k!r}]", v)
                           for k, v in (thresholds or {}).items()}
        self._reset_stats()

    def _own_threshold(self, param) -> float | None:
        """The parameter's own threshold from ``thresholds``, or None."""
        name = getattr(param, "name", None) or ""
        for pattern, value in self.thresholds.items():
            if name == pattern or fnmatch.fnmatchcase(name, pattern):
                return value
        return None

    def __call__(self, params_grads: list) -> list:
        """The clipped ``(param, grad)`` list; grads are Tensors or raw arrays, as given."""
        if not params_grads:
            return params_grads
        raws = [None if g is None else (g.data if isinstance(g, Tensor) else g)
                for _, g in params_grads]
        present = [r for r in raws if r is not None]
        squares = [_sum_squares(r) for r in present]
        clipped, acted = self._clip([p for p, _ in params_grads], raws, squares)
        self._record(squares, acted)
        return [(p, None if c is None else (Tensor(c) if isinstance(g, Tensor) else c))
                for (p, g), c in zip(params_grads, clipped)]

    def _clip(self, params, raws, squares):
        """(clipped raw grads, a backend bool saying whether any was changed)."""
        raise NotImplementedError

    # ----- statistics (device-side until read) ----------------------------------------------
    def _reset_stats(self) -> None:
        self._acted = 0  # calls in which clipping changed some gradient (cumulative)
        self._norm_sum = 0  # pre-clip global norms since the last read
        self._norm_max = 0
        self._window = 0

    def _record(self, squares, acted) -> None:
        xp = backend.array_module(squares[0]) if squares else None
        self._acted = self._acted + acted
        if xp is not None:
            norm = xp.sqrt(sum(squares[1:], squares[0]))
            self._norm_sum = self._norm_sum + norm
            self._norm_max = xp.maximum(self._norm_max, norm)
            self._window += 1

    def read_stats(self) -> dict[str, float]:
        """``grad_norm`` (mean pre-clip global norm since the last read), ``grad_norm_max`` and
        ``acted`` (calls in which clipping changed a gradient, since construction): one read."""
        xp = backend.xp()
        values = backend.to_numpy(xp.stack([xp.asarray(v, dtype=xp.float64) for v in
                                             (self._acted, self._norm_sum, self._norm_max)]))
        window = max(self._window, 1)
        self._norm_sum, self._norm_max, self._window = 0, 0, 0
        return {"acted": float(values[0]), "grad_norm": float(values[1]) / window,
                "grad_norm_max": float(values[2])}

    def state_dict(self) -> dict[str, float]:
        """The counters as host floats (one read, nothing reset), for a training checkpoint."""
        xp = backend.xp()
        values = backend.to_numpy(xp.stack([xp.asarray(v, dtype=xp.float64) for v in
                                             (self._acted, self._norm_sum, self._norm_max)]))
        return {"acted": float(values[0]), "norm_sum": float(values[1]),
                "norm_max": float(values[2]), "window": self._window}

    def set_state_dict(self, state: dict) -> None:
        """Continue the counters of ``state_dict`` (a resumed run counts on from them)."""
        self._acted, self._window = int(state["acted"]), int(state["window"])
        self._norm_sum, self._norm_max = float(state["norm_sum"]), float(state["norm_max"])

    def __repr__(self) -> str:
        own = f", thresholds={self.thresholds}" if self.thresholds else ""
        return f"{type(self).__name__}({self.threshold}{own})"


class ClipGradByValue(_GradClip):
    """Clip every gradient element to ``[min, max]`` (``min`` defaults to ``-max``).

    A parameter's own threshold ``t`` from ``thresholds`` clips it to ``[-t, t]`` instead.
    """

    def __init__(self, max: float, min: float | None = None,  # noqa: A002 - Paddle's names
                 *, thresholds: dict | None = None):
        super().__init__(max, thresholds, "max")
        self.max = self.threshold
        if min is None:
            self.min = -self.max
        elif isinstance(min, bool) or not isinstance(min, numbers.Real) \
                or not math.isfinite(min) or min >= self.max:
            raise ValueError(f"ClipGradByValue: min must be a finite number < max={self.max}, "
                             f"got {min!r}")
        else:
            self.min = float(min)

    def _clip(self, params, raws, squares):
        out, acted = [], False
        for param, raw in zip(params, raws):
            if raw is None or not getattr(param, "need_clip", True):
                out.append(raw)
                continue
            own = self._own_threshold(param)
            low, high = (-own, own) if own is not None else (self.min, self.max)
            xp = backend.array_module(raw)
            acted = acted | ((raw.max() > high) | (raw.min() < low) if raw.size else False)
            out.append(xp.clip(raw, low, high))
        return out, acted


class ClipGradByNorm(_GradClip):
    """Rescale each gradient on its own so that its L2 norm is at most ``clip_norm``."""

    def __init__(self, clip_norm: float, *, thresholds: dict | None = None):
        super().__init__(clip_norm, thresholds, "clip_norm")
        self.clip_norm = self.threshold

    def _clip(self, params, raws, squares):
        out, acted, index = [], False, 0
        for param, raw in zip(params, raws):
            if raw is None:
                out.append(raw)
                continue
            square, index = squares[index], index + 1
            if not getattr(param, "need_clip", True):
                out.append(raw)
                continue
            limit = self._own_threshold(param) or self.clip_norm
            clipped, changed = _scale_to(raw, square, limit)
            acted = acted | changed
            out.append(clipped)
        return out, acted


class ClipGradByGlobalNorm(_GradClip):
    """Rescale all gradients together so that their global L2 norm is at most ``clip_norm``.

    A parameter with its own threshold in ``thresholds`` is left out of the global norm and
    rescaled on its own, by its own L2 norm, as ``ClipGradByNorm`` would.

    Paddle's ``ClipGradByGlobalNorm(clip_norm, group_name='default_group',
    auto_skip_clip=False)`` plus core's keyword-only ``thresholds``. ``auto_skip_clip=True``
    makes Paddle skip the rescale when the norm is within ``clip_norm``; the rescale factor
    ``clip_norm / max(norm, clip_norm)`` is 1 then, so the gradients are the same either way.
    """

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False, *, thresholds: dict | None = None):
        super().__init__(clip_norm, thresholds, "clip_norm")
        if not isinstance(auto_skip_clip, bool):
            raise TypeError(f"ClipGradByGlobalNorm: auto_skip_clip={auto_skip_clip!r} must be "
                            "True or False (per-parameter thresholds go as thresholds=).")
        self.clip_norm = self.threshold
        self.group_name, self.auto_skip_clip = group_name, auto_skip_clip

    def _clip(self, params, raws, squares):
        kinds, index = [], 0
        for param, raw in zip(params, raws):
            square = None
            if raw is not None:
                square, index = squares[index], index + 1
            own = self._own_threshold(param)
            skip = raw is None or not getattr(param, "need_clip", True)
            kinds.append((raw, square, None if skip else own, skip))
        group = [square for raw, square, own, skip in kinds if not skip and own is None]
        scale = changed_all = None
        if group:
            xp = backend.array_module(group[0])
            norm = xp.sqrt(sum(group[1:], group[0]))
            scale = self.clip_norm / xp.maximum(norm, self.clip_norm)
            changed_all = norm > self.clip_norm
        out, acted = [], False if changed_all is None else changed_all
        for raw, square, own, skip in kinds:
            if skip:
                out.append(raw)
            elif own is not None:
                clipped, changed = _scale_to(raw, square, own)
                acted = acted | changed
                out.append(clipped)
            else:
                out.append(raw * scale.astype(raw.dtype))
        return out, acted


def _scale_to(raw, square, limit: float):
    """``raw`` rescaled to L2 norm <= ``limit`` and whether it changed (both on the device)."""
    xp = backend.array_module(raw)
    norm = xp.sqrt(square)
    scale = limit / xp.maximum(norm, limit)
    return raw * scale.astype(raw.dtype), norm > limit


# ----- error clipping (Layer.error_clip) ------------------------------------------------------

def check_error_clip(value) -> float | None:
    """A valid ``Layer.error_clip``: None (off) or a finite number > 0."""
    if value is None:
        return None
    return _check_threshold("Layer.error_clip", "error_clip", value)


def error_clip_hook(layer, threshold: float):
    """An array hook clipping the gradient at ``layer``'s output to [-t, t] (Paddle's error
    clipping) and adding 1 to ``layer.error_clip_acted`` (a device scalar) when it changed it."""

    def clip(grad):
        xp = backend.array_module(grad)
        if grad.size:
            acted = xp.abs(grad).max() > threshold
            layer.__dict__["error_clip_acted"] = layer.__dict__.get("error_clip_acted", 0) + acted
        return xp.clip(grad, -threshold, threshold)

    return clip


def _error_clipped(model) -> list:
    """(name, layer) of every layer with ``error_clip`` set; the model itself is named after
    its class."""
    return [(name or type(layer).__name__.lower(), layer)
            for name, layer in model.named_sublayers(include_self=True)
            if layer.error_clip is not None]


def error_clip_counts(model) -> dict[str, float]:
    """Per layer name with ``error_clip`` set: backward passes in which clipping acted (one
    device read for all layers)."""
    layers = _error_clipped(model)
    if not layers:
        return {}
    xp = backend.xp()
    counts = xp.stack([xp.asarray(layer.__dict__.get("error_clip_acted", 0), dtype=xp.float64)
                       for _, layer in layers])
    return dict(zip([name for name, _ in layers], backend.to_numpy(counts).tolist()))


def set_error_clip_counts(model, counts: dict[str, float]) -> None:
    """Put back counts read by ``error_clip_counts`` (a resumed run counts on from them); a
    layer the dict does not name starts from zero."""
    for name, layer in _error_clipped(model):
        layer.__dict__["error_clip_acted"] = int(counts.get(name, 0))
