"""Every public name of core.nn and core.nn.functional is documented and gradient-checked, and
every layer a network spec can name is in the generated layer reference (docs/layers.md)."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import core.nn as nn
import core.nn.functional as F
from runner.build.spec.layer_types import core_layer_types
from runner.build.spec.reference import render

TESTS = Path(__file__).resolve().parents[1]
NAMES = [(nn, name) for name in nn.__all__] + [(F, name) for name in F.__all__]
# A name needs a float64 finite-difference check in a test module that uses check_grad and
# names it (or its snake_case / lower-case form: Conv2D's is conv2d). These have no gradient
# of their own to check:
NO_GRADIENT = {
    "Layer": "the base class",
    "Sequential": "a container: its layers are checked",
    "LayerList": "a container", "LayerDict": "a container",
    "functional": "the module", "initializer": "the module",
    "ClipGradByValue": "gradient clips, checked in tests/core/test_clipping.py",
    "ClipGradByNorm": "gradient clips", "ClipGradByGlobalNorm": "gradient clips",
    "Identity": "returns its input",
}


def _checked_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py")
                     if "check_grad" in p.read_text(encoding="utf-8"))


def _forms(name: str) -> set[str]:
    return {name, name.lower(), re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()}


@pytest.mark.parametrize("module, name", NAMES, ids=[f"{m.__name__}.{n}" for m, n in NAMES])
def test_public_name_is_documented_and_gradient_checked(module, name):
    obj = getattr(module, name)
    assert inspect.getdoc(obj), f"{module.__name__}.{name} has no docstring"
    if name in NO_GRADIENT:
        return
    text = _checked_text()
    assert any(re.search(rf"\b{re.escape(form)}\b", text) for form in _forms(name)), (
        f"{module.__name__}.{name} has no gradient check: add a check_grad test that names it")


def test_every_spec_layer_type_is_in_the_reference():
    reference = render()
    missing = [name for name in core_layer_types() if f"\n## {name}\n" not in reference]
    assert not missing
