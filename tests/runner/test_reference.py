"""docs/layers.md is exactly what runner.build.spec.reference generates from core.nn."""
from __future__ import annotations

from pathlib import Path

from runner.build.spec import reference
from runner.build.spec.layer_types import arguments, core_layer_types

DOC = Path(__file__).resolve().parents[2] / "docs" / "layers.md"


def test_the_layer_reference_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == reference.render(), (
        "docs/layers.md is stale: regenerate it with "
        "python -m runner.build.spec.reference > docs/layers.md")


def test_every_spec_layer_type_has_a_section_with_its_arguments():
    text = reference.render()
    for name, cls in core_layer_types().items():
        assert f"\n## {name}\n" in text
        for arg in arguments(cls):
            assert f"| `{arg}` |" in text
