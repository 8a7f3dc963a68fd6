"""Argument checks shared by the vision models."""
from __future__ import annotations

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
