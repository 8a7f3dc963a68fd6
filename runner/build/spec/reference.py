"""The layer reference of the network spec, generated from ``core.nn`` itself: every type a spec
may name, its one-line description and its arguments with their defaults, read from the class
and its signature. ``docs/layers.md`` is this module's output (a test keeps it so):

    python -m runner.build.spec.reference > docs/layers.md
"""
from __future__ import annotations

import inspect

from runner.build.spec.graph import SIZE_ARGS
from runner.build.spec.layer_types import arguments, core_layer_types

INFERRED = {**{name: "from the input's shape" for name in SIZE_ARGS},
            "num_embeddings": "from the data's vocabulary",
            "out_features": "the number of classes, on the output layer"}


def render() -> str:
    """The Markdown reference of every spec layer type."""
    types = core_layer_types()
    lines = ["# Layer reference", "",
             "Every layer type a network spec can name (`type = \"NAME\"`, docs/models.md), "
             "generated from `core.nn` by `python -m runner.build.spec.reference`. Arguments "
             "are the constructor's, by name; *inferred* ones may be left out.", "",
             f"{len(types)} types: " + ", ".join(f"[{n}](#{n.lower()})" for n in types), ""]
    for name, cls in types.items():
        lines += [f"## {name}", "", _summary(cls), ""]
        args = arguments(cls)
        if not args:
            lines += ["No arguments.", ""]
            continue
        lines += ["| argument | default | note |", "| --- | --- | --- |"]
        for arg, param in args.items():
            default = "required" if param.default is param.empty else f"`{param.default!r}`"
            note = f"inferred {INFERRED[arg]}" if arg in INFERRED else ""
            if arg in ("weight_attr", "bias_attr"):
                note = "`false`: no such parameter"
            lines.append(f"| `{arg}` | {default} | {note} |")
        lines.append("")
    return "\n".join(lines)


def _summary(cls) -> str:
    doc = inspect.getdoc(cls) or ""
    return " ".join(doc.split("\n\n")[0].split()) or "(no description)"


if __name__ == "__main__":
    print(render(), end="")
