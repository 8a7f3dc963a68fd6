"""The advice part of a NaN/Inf stop report: the remedies that fit what was seen.

PaddlePaddle's FAQ answers "Floating point exception" with gradient clipping and error clipping;
the other usual causes are a learning rate that is too large, unnormalised inputs and bad labels.
Each remedy is listed only when the facts of the failure point to it, with the override to try.
"""
from __future__ import annotations

import math

from core import backend
from core.clipping import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

LARGE_INPUT = 10.0  # a largest |input| above this suggests unnormalised data (pixels 0-255)
SUDDEN_LOSS = 100.0  # a last finite loss below this means the NaN came suddenly, not by growth
MAX_STEP = 0.1  # the suggested clip threshold keeps lr x threshold (an update's norm) below this
_CLIP_NAMES = {ClipGradByValue: "value", ClipGradByNorm: "norm",
               ClipGradByGlobalNorm: "global_norm"}


def _round(value: float) -> float:
    """One significant digit, for a suggested setting."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    return float(f"{value:.0e}")


def _input_facts(batch) -> tuple[bool, float]:
    """(the inputs are all finite, their largest magnitude) for the failing batch."""
    if batch is None:
        return True, 0.0
    parts = batch.inputs if isinstance(batch.inputs, (tuple, list)) else (batch.inputs,)
    values = [0.0]
    for part in parts:  # sequences come as (ids, lengths): only float arrays are features
        raw = getattr(part, "data", part)
        if getattr(raw, "dtype", None) is not None and raw.dtype.kind == "f" and raw.size:
            xp = backend.array_module(raw)
            values.append(float(backend.to_numpy(xp.abs(raw.astype(xp.float64)).max())))
    finite = all(math.isfinite(v) for v in values)
    return finite, max(values) if finite else math.inf


def remedies(monitor, finding, culprit, batch) -> list[str]:
    """Remedies for the failure ``finding`` of ``monitor``'s run, most likely first."""
    out = []
    finite_inputs, largest = _input_facts(batch)
    if not finite_inputs or (culprit is not None and culprit.layer == "input"):
        out.append("The input batch contains NaN or Inf values: check the data and its "
                   "preprocessing; no setting of the training can repair them.")
    elif largest > LARGE_INPUT:
        out.append(f"Normalise the inputs: the largest |input| in this batch is {largest:.3g}; "
                   "scale pixels to [0, 1] (data.normalize=true) or standardise the features.")
    lr = monitor.optimizer.get_lr()
    out.append(f"Lower the learning rate: it is {lr:.3g}; try optim.lr={_round(lr / 10):g}.")
    out.append(_gradient_clipping(monitor))
    out.append(_error_clipping(monitor, culprit))
    if finding.kind == "loss" and _sudden(monitor):
        out.append("Check the labels: they must be class indices in [0, number of classes) for "
                   "cross entropy; a wrong label column or encoding makes the loss explode.")
    return out


def _sudden(monitor) -> bool:
    """The loss jumped to NaN/Inf from an ordinary value (no gradual explosion before it)."""
    return monitor.last_loss is None or abs(monitor.last_loss[0]) < SUDDEN_LOSS


def _gradient_clipping(monitor) -> str:
    clip = getattr(monitor.optimizer, "_grad_clip", None)
    typical = monitor.typical_norm()
    seen = "" if typical is None else f"; the first steps' gradient norm was {typical:.3g}"
    # At most the early norm, and small enough that one update moves the weights by at most
    # MAX_STEP (lr x threshold): a large learning rate needs a small threshold.
    lr = monitor.optimizer.get_lr()
    limits = [v for v in (typical, MAX_STEP / lr if lr > 0 else None) if v]
    suggestion = f"{_round(min(limits)) if limits else 1.0:g}"
    if clip is None:
        return (f"Turn on gradient clipping: clip=global_norm clip.threshold={suggestion} "
                f"(lr x threshold bounds an update's size{seen}); in Python pass "
                f"grad_clip=core.nn.ClipGradByGlobalNorm({suggestion}) to the optimizer.")
    name = _CLIP_NAMES.get(type(clip), type(clip).__name__)
    threshold = getattr(clip, "threshold", None)
    now = "" if threshold is None else f" (clip={name} clip.threshold={threshold:g} now)"
    if name == "global_norm":  # the suggestion is a global norm: it fits this clip as it is
        return f"Lower the gradient clipping threshold{now}: try clip.threshold={suggestion}{seen}."
    # A value or per-parameter norm threshold does not bound the whole update; a global one does.
    return (f"Lower the gradient clipping threshold{now}, or bound the whole update: "
            f"clip=global_norm clip.threshold={suggestion}{seen}.")


def _error_clipping(monitor, culprit) -> str:
    clipped = [name for name, layer in monitor.model.named_sublayers()
               if layer.error_clip is not None]
    layer = culprit.layer if culprit is not None and culprit.layer not in ("input", "loss") \
        else None
    if clipped:
        where = f" (now on {', '.join(clipped)})"
        return (f"Lower the error clipping thresholds{where}"
                + (f" or add one on layer '{layer}'" if layer and layer not in clipped else "")
                + ".")
    target = f"+model.error_clip.{layer}=100.0" if layer else "clip.error_clip=100.0"
    return (f"Turn on error clipping, which bounds the gradient flowing back through a layer: "
            f"{target} (or layer.error_clip = 100.0 in Python).")
