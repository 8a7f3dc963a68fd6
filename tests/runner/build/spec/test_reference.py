"""docs/layers.md is exactly what runner.build.spec.reference generates from core.nn."""
from __future__ import annotations

from pathlib import Path

from runner.build.spec import reference
from runner.build.spec.layer_types import arguments, core_layer_types

DOC = Path(__file__).resolve().parents[4] / "docs" / "layers.md"


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


def test_inferred_sizes_defaults_and_inputs_are_marked():
    text = reference.render()
    conv = text.split("\n## Conv2D\n")[1].split("\n## ")[0]
    assert "| `in_channels` | required | inferred from the input's shape |" in conv
    assert "| `data_format` | `\"NCHW\"` |" in conv and "| `bias_attr` | `none` |" in conv
    linear = text.split("\n## Linear\n")[1].split("\n## ")[0]
    assert "inferred on the output layer: the number of classes" in linear
    assert "inferred from the data's vocabulary" in text.split("\n## Embedding\n")[1]
    assert "two or more inputs" in text.split("\n## Add\n")[1].split("\n## ")[0]
    cosine = text.split("\n## CosineSimilarity\n")[1].split("\n## ")[0]
    assert 'Reads 2 inputs, in order (x1, x2): name them in `inputs = ["a", "b"]`.' in cosine
    assert "length" in text.split("\n## SequencePool\n")[1]
    unpool = text.split("\n## MaxUnPool2D\n")[1].split("\n## ")[0]
    assert 'with `return_mask = true`, `inputs = ["a", "pool[1]"]`' in unpool
    bilinear = text.split("\n## Bilinear\n")[1].split("\n## ")[0]
    assert "| `in2_features` | required | inferred from the second input's shape, when given |" \
        in bilinear
    assert "\n## SpectralNorm\n" not in text and "`SpectralNorm`: it normalizes" in text
