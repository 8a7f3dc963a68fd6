"""Run names: ``<model>-<optim>`` plus one short part per override that changes what is trained."""
from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_.+=,-]+")
# Overrides that do not change what is trained (where files are, how it is shown or tracked).
_NOT_IN_NAME = ("hydra", "tracking", "runtime", "device", "sweep", "data.root", "data.cache_dir",
                "data.download", "trainer.progress", "trainer.log_every", "trainer.checkpoint",
                "trainer.keep_last", "trainer.resume", "trainer.profile", "inspect")


def run_name(cfg, overrides: list[str]) -> str:
    """``<model>-<optim>`` plus one part per other override: ``cnn-adam-lr0.001-epochs3``."""
    chosen: dict[str, str] = {}  # key -> value; a repeated key: the last, as Hydra takes it
    for override in overrides:
        key, sep, value = override.lstrip("+~").partition("=")
        if not sep or key.startswith(_NOT_IN_NAME) or key in ("model", "optim"):
            continue
        chosen.pop(key, None)
        chosen[key] = _short_number(value)
    labels = _labels(list(chosen))
    parts = [cfg.model.name, cfg.optim.name]
    parts += [labels[key] + value for key, value in chosen.items()]
    return _UNSAFE.sub("_", "-".join(parts))[:200]


def _labels(keys: list[str]) -> dict[str, str]:
    """Each key's shortest dotted tail that no other key shares: ``optim.lr`` -> ``lr``, but
    ``model.layers.conv1.out_channels`` beside ``...conv2.out_channels`` -> ``conv1.out_channels``.
    A group choice (no dot: ``data=mnist``) is its value alone."""
    labels = {}
    for key in keys:
        if "." not in key:
            labels[key] = ""
            continue
        parts = key.split(".")
        for size in range(1, len(parts)):
            tail = ".".join(parts[-size:])
            if not any(other != key and other.endswith("." + tail) for other in keys):
                break
        labels[key] = tail
    return labels


def _short_number(value: str) -> str:
    """A float with many digits (an Optuna trial's) to 4 significant ones: lr0.004430375 ->
    lr0.00443; anything else unchanged."""
    try:
        number = float(value)
    except ValueError:
        return value
    return f"{number:.4g}" if len(value) > 8 and "." in value else value
