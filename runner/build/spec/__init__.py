"""A network written in TOML (docs/models.md): ``parse`` checks a spec's tables against the
layer types of ``core.nn`` (and plugins) and orders its nodes; ``build_graph`` makes the layers,
inferring their input sizes from the data's shape, and checks every one on a probe batch.
"""
from runner.build.spec.graph import GraphNet, build_graph
from runner.build.spec.layer_types import layer_types
from runner.build.spec.parse import Node, parse

__all__ = ["GraphNet", "Node", "build_graph", "layer_types", "parse"]
