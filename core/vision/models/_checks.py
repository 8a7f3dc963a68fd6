"""Argument checks shared by the vision models."""
from __future__ import annotations

import math
import numbers


def check_int(owner: str, name: str, value, minimum: int | None = None) -> int:
    """``value`` as an int (not a bool), at least ``minimum`` when given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or (minimum is not None and value < minimum):
        need = "an integer" if minimum is None else f"an integer >= {minimum}"
        raise ValueError(f"{owner}: {name}={value!r} must be {need}.")
    return int(value)


def no_pretrained(arch: str, pretrained) -> None:
    """Pretrained weights are not shipped and never downloaded: say so, and what to do."""
    if pretrained:
        raise ValueError(
            f"{arch}: pretrained=True asks for Paddle's ImageNet weights, which tomlrun neither "
            f"ships nor downloads. Build {arch}(pretrained=False) and load weights you have "
            "with model.set_state_dict(core.load(path)): parameter names follow Paddle's.")


def check_scale(owner: str, scale) -> float:
    """``scale``, the width multiplier of the mobile nets, as a positive finite float."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"{owner}: scale={scale!r} must be a positive number (the width "
                         "multiplier of every layer, 1.0 for the published network).")
    return float(scale)


def check_choice(owner: str, name: str, value, allowed) -> None:
    """``value`` must be one of ``allowed`` (a bool never is, even where 1 is allowed)."""
    try:
        found = not isinstance(value, bool) and value in allowed
    except TypeError:  # an unhashable value (a list, ...) is no key of a dict of choices
        found = False
    if not found:
        raise ValueError(f"{owner}: {name}={value!r} must be one of {list(allowed)}.")
