"""Every public name of core.nn and core.nn.functional is documented and gradient-checked, and
every layer a network spec can name is in the generated layer reference (docs/layers.md).

"Gradient-checked" means: a function under tests/core that runs ``check_grad`` (a float64
finite-difference check, tests/gradcheck.py), directly or through a helper, names the layer or
its functional form (``AvgPool2D`` -> ``avg_pool2d``, ``BCELoss`` -> ``binary_cross_entropy``),
in its body, its ``parametrize`` decorators or the module-level tables it reads. A mention
elsewhere in the file (a torch-parity test, a comment) does not count.
"""
from __future__ import annotations

import ast
import functools
import inspect
import re
from pathlib import Path

import pytest

from core import nn
from core.nn import functional as F
from runner.build.spec.layer_types import core_layer_types
from runner.build.spec.reference import render

TESTS = Path(__file__).resolve().parents[1]  # tests/core
NAMES = [(nn, name) for name in nn.__all__] + [(F, name) for name in F.__all__]

# Names with no gradient of their own to check, and why.
NO_GRADIENT = {
    "Layer": "the base class",
    "Sequential": "a container: its layers are checked",
    "LayerList": "a container", "LayerDict": "a container",
    "functional": "the module", "initializer": "the module (weight initialisers, no gradient)",
    "utils": "the module (gradient clipping, weight/spectral norm): tests/core/nn/test_utils.py",
    "ClipGradByValue": "a gradient clip (changes gradients, has none): tests/core/test_clipping.py",
    "ClipGradByNorm": "a gradient clip", "ClipGradByGlobalNorm": "a gradient clip",
    "Identity": "returns its input",
    "sequence_mask": "returns a 0/1 mask of lengths (integers)",
    "one_hot": "a function of integer labels",
    **{name: "in-place: refused on tensors that need a gradient (test_inplace_functional.py)"
       for name in ("relu_", "elu_", "hardtanh_", "leaky_relu_", "softmax_", "tanh_",
                    "thresholded_relu_")},
}
# Layers whose functional form is not their name in snake case.
FUNCTIONAL = {"BCELoss": "binary_cross_entropy",
              "BCEWithLogitsLoss": "binary_cross_entropy_with_logits"}


def _squash(name: str) -> str:
    return name.lower().replace("_", "")


def _forms(name: str) -> set[str]:
    """The name and, for a layer, its core.nn.functional form where one exists."""
    squashed = _squash(name)
    wanted = {squashed, re.sub(r"loss$", "", squashed), re.sub(r"\d+d$", "", squashed)}
    forms = {name} | {f for f in F.__all__ if _squash(f) in wanted}
    if name in FUNCTIONAL:
        forms.add(FUNCTIONAL[name])
    return forms


@functools.cache
def _checked_sources() -> tuple[str, ...]:
    """The source of every function that runs check_grad, with the tables it reads."""
    found = []
    for path in sorted(TESTS.rglob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if "check_grad" not in source:
            continue
        tree = ast.parse(source)
        tables = {target.id: ast.get_source_segment(source, node)
                  for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(target, ast.Name)}
        functions = {node.name: node for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        used = {name: {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                for name, node in functions.items()}
        checking = {"check_grad"}
        while True:  # helpers that run check_grad, and the functions that call them
            more = {name for name, names in used.items() if names & checking} - checking
            if not more:
                break
            checking |= more
        for name in checking & set(functions):
            node = functions[name]
            parts = [ast.get_source_segment(source, d) for d in node.decorator_list]
            parts.append(ast.get_source_segment(source, node))
            parts += [tables[t] for t in sorted(used[name] & set(tables))]
            found.append("\n".join(parts))
    return tuple(found)


def _gradient_checked(name: str) -> bool:
    patterns = [re.compile(rf"\b{re.escape(form)}\b") for form in _forms(name)]
    return any(p.search(text) for text in _checked_sources() for p in patterns)


@pytest.mark.parametrize("module, name", NAMES, ids=[f"{m.__name__}.{n}" for m, n in NAMES])
def test_public_name_is_documented_and_gradient_checked(module, name):
    obj = getattr(module, name)
    assert inspect.getdoc(obj), f"{module.__name__}.{name} has no docstring"
    if name in NO_GRADIENT:
        return
    assert _gradient_checked(name), (
        f"{module.__name__}.{name} has no gradient check: add a check_grad test under "
        f"tests/core that runs it (as {' or '.join(sorted(_forms(name)))}), or, if it has no "
        "gradient, list it in NO_GRADIENT with the reason")


def test_exemptions_name_public_names():
    public = set(nn.__all__) | set(F.__all__)
    assert not set(NO_GRADIENT) - public and not set(FUNCTIONAL) - public


def test_the_matching_is_strict():
    assert _forms("AvgPool2D") == {"AvgPool2D", "avg_pool2d"}
    assert _forms("BatchNorm2D") == {"BatchNorm2D", "batch_norm"}
    assert _forms("NLLLoss") == {"NLLLoss", "nll_loss"}
    assert _forms("KLDivLoss") == {"KLDivLoss", "kl_div"}
    assert not _gradient_checked("no_such_layer")


def test_every_spec_layer_type_is_in_the_reference():
    reference = render()
    missing = [name for name in core_layer_types() if f"\n## {name}\n" not in reference]
    assert not missing, (f"{missing} are not in the layer reference: regenerate it with "
                         "python -m runner.build.spec.reference > docs/layers.md")
