"""The layer reference of the network spec, generated from ``core.nn`` itself: every type a spec
may name, its one-line description and its arguments with their defaults, read from the class
and its signature. ``docs/layers.md`` is this module's output (a test keeps it so):

    python -m runner.build.spec.reference > docs/layers.md
"""
from __future__ import annotations

import inspect
import json

from runner.build.spec.graph import OTHER_INPUT_SIZES, SIZE_ARGS
from runner.build.spec.layer_types import NOT_SPEC, arguments, core_layer_types

PLACES = {1: "second", 2: "third"}
INFERRED = {**{name: "inferred from the input's shape" for name in SIZE_ARGS},
            **{name: f"inferred from the {PLACES[index]} input's shape, when given"
               for name, index in OTHER_INPUT_SIZES.items()},
            "num_embeddings": "inferred from the data's vocabulary",
            "out_features": "inferred on the output layer: the number of classes"}


def render() -> str:
    """The Markdown reference of every spec layer type."""
    types = core_layer_types()
    lines = ["# Layer reference", "",
             ("Every layer type a network spec can name (`type = \"NAME\"`, "
             "[models.md](models.md)), generated from `core.nn` by "
             "`python -m runner.build.spec.reference`. Arguments are the constructor's, by "
             "name, with their defaults as TOML values (`none`: unset); *inferred* ones may be "
             "left out. A layer reads the previous layer, or the layers its `inputs` names."),
             "",
             f"{len(types)} types: " + ", ".join(f"[{n}](#{n.lower()})" for n in types), "",
             "Layers of `core.nn` that a spec cannot name: the containers (a spec's blocks "
             "take their place); the losses; "
             + "; ".join(f"`{name}`: {why}" for name, why in NOT_SPEC.items()) + ".", ""]
    for name, cls in types.items():
        lines += [f"## {name}", "", _summary(cls), ""]
        reads = _reads(cls)
        if reads:
            lines += [reads, ""]
        args = arguments(cls)
        if not args:
            lines += ["No arguments.", ""]
            continue
        lines += ["| argument | default | note |", "| --- | --- | --- |"]
        for arg, param in args.items():
            default = "required" if param.default is param.empty else _toml(param.default)
            note = INFERRED.get(arg, "")
            if arg in ("weight_attr", "bias_attr"):
                note = ("`false`: no such parameter; a table: its ParamAttr settings "
                        "([models.md](models.md#layer-tables-and-the-options-keys))")
            lines.append(f"| `{arg}` | {default} | {note} |")
        lines.append("")
    return "\n".join(lines)


def _reads(cls) -> str:
    """What the layer's forward takes beyond one input, for spec writers."""
    params = inspect.signature(cls.forward).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return "Reads two or more inputs: name them in `inputs = [\"a\", \"b\"]`."
    if any(p.name == "sequence_length" for p in params):
        return "Receives each sequence's length on variable-length data (padded batches)."
    named = [p.name for p in params if p.name != "self" and p.default is p.empty
             and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(named) > 1:
        example = ", ".join(f'"{chr(ord("a") + i)}"' for i in range(len(named)))
        if named[-1] == "indices":  # an unpooling: the pool's second value
            return (f"Reads {len(named)} inputs, in order ({', '.join(named)}): the indices are "
                    "the second value of a max pooling with `return_mask = true`, "
                    '`inputs = ["a", "pool[1]"]`.')
        return (f"Reads {len(named)} inputs, in order ({', '.join(named)}): name them in "
                f"`inputs = [{example}]`.")
    return ""


def _toml(value) -> str:
    if value is None:
        return "`none`"
    if isinstance(value, (bool, str)):
        return f"`{json.dumps(value)}`"
    if isinstance(value, (list, tuple)):
        return f"`[{', '.join(_toml(v).strip('`') for v in value)}]`"
    return f"`{value!r}`"


def _summary(cls) -> str:
    doc = inspect.getdoc(cls) or ""
    return " ".join(doc.split("\n\n")[0].split()) or "(no description)"


if __name__ == "__main__":
    print(render(), end="")
