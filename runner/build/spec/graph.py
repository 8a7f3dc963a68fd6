"""Nodes -> a ``GraphNet``: each layer made with its input sizes inferred from the shape that
reaches it, and checked by running it once on a two-sample probe before training starts.

Sizes that a layer's input fixes are filled in when the spec leaves them out (``in_channels``,
``in_features``, ``num_features``, ...; the output layer's ``out_features`` is the number of
classes) and must agree when it gives them. The probe runs every layer in eval mode without
gradients, so a shape that does not fit is reported with both layers and both shapes, before any
MLflow run or output is made. It is exact for every layer, plugins included, because it is the
layer's own forward that answers.
"""
from __future__ import annotations

import inspect
import logging

import numpy as np

import core
from core import nn
from core.nn import fusion
from runner import plugins
from runner.build.spec.layer_types import arguments, takes_lengths
from runner.build.spec.parse import INPUT, Node
from runner.config.sources import located
from runner.config.validation import show
from runner.errors import ConfigError

# Argument -> which axis of one sample's shape (channels first) sets it.
_FIRST, _LAST = 0, -1
SIZE_ARGS = {"in_channels": _FIRST, "num_features": _FIRST, "num_channels": _FIRST,
             "in_features": _LAST, "input_size": _LAST, "embed_dim": _LAST, "d_model": _LAST,
             "normalized_shape": _LAST}
PROBE_BATCH = 2
PROBE_STEPS = 3  # time steps of the probe for variable-length sequences
# Output layers that squash the scores the loss (cross-entropy, a softmax of its own) takes.
SQUASHING_OUTPUTS = (nn.Softmax, nn.Sigmoid)
log = logging.getLogger(__name__)


class _Group(nn.Layer):
    """The layers of one block copy, so that their names read ``stage1.0.conv1``."""

    _runs_forward = False  # GraphNet runs the layers inside; a hook on the group never fires


class GraphNet(nn.Layer):
    """A network built from a spec: runs its nodes in order, each on its inputs' outputs.

    The input is a batch, or ``(padded, lengths)`` for variable-length sequences; the lengths
    go to every layer whose forward takes ``sequence_length``. A layer that returns several
    values (an RNN's outputs and final states) passes on the first.
    """

    def __init__(self, nodes: list[Node], layers: dict[str, nn.Layer], output: str,
                 aliases: dict[str, str] | None = None):
        super().__init__()
        self._aliases = dict(aliases or {})  # block entry / copy name -> its output node
        self._order = [(node.name, tuple(node.inputs), takes_lengths(layers[node.name]))
                       for node in nodes]
        self._output = output
        for name, layer in layers.items():
            _attach(self, name, layer)
        self._layers = layers
        last_use = {}
        for index, (_name, inputs, _) in enumerate(self._order):
            for source in inputs:
                last_use[source] = index
        # Values no later node reads are dropped as soon as possible (lower peak memory).
        self._release = {index: [s for s, last in last_use.items() if last == index
                                 and s != output] for index in range(len(self._order))}
        self._folds = _conv_bn_pairs(self._order, layers, output)

    def __getitem__(self, name: str) -> nn.Layer:
        """The layer called ``name`` (dotted inside blocks: ``model["stage1.0.conv1"]``)."""
        layers = dict(self.named_sublayers())
        if name not in layers:
            raise KeyError(f"'{name}' is not a layer of this network: the layers are "
                           f"{', '.join(layers)}.")
        return layers[name]

    def output_layers(self) -> dict[str, nn.Layer]:
        """Every layer by name, and every block entry and copy (``hidden``, ``hidden.0``) as
        the layer giving its output, the one other layers' ``inputs`` read by that name."""
        readable = {}
        for name, layer in self.named_sublayers():
            source = self._layers.get(self._aliases.get(name, ""), layer)
            if source._runs_forward:
                readable[name] = source
        for name, node in self._aliases.items():  # an entry of 0 copies: its input's layer
            if name not in readable and node in self._layers:
                readable[name] = self._layers[node]
        return readable

    def forward(self, inputs):
        x, lengths = inputs if isinstance(inputs, (tuple, list)) else (inputs, None)
        values = {INPUT: x}
        for index, (name, sources, with_lengths) in enumerate(self._order):
            if name not in values:  # else: a batch norm run inside its convolution already
                args = [values[source] for source in sources]
                bn = self._folds.get(name)
                folded = fusion.conv_bn(self._layers[name], self._layers[bn], *args) \
                    if bn else None
                if folded is not None:  # inference: the conv's own output is never made
                    values[bn] = folded
                else:
                    values[name] = self._call(name, args, lengths if with_lengths else None)
            for source in self._release[index]:
                values.pop(source, None)
        return values[self._output]

    def _call(self, name: str, args: list, lengths):
        """Layer ``name`` on ``args`` (and the sequence lengths when it takes them); a layer
        that returns several values passes on the first."""
        layer = self._layers[name]
        out = layer(*args) if lengths is None else layer(*args, sequence_length=lengths)
        return out[0] if isinstance(out, (tuple, list)) else out


def _conv_bn_pairs(order, layers: dict, output: str) -> dict[str, str]:
    """{conv: the batch norm that alone reads it}: the pairs ``core.nn.fusion.conv_bn`` may run
    as one convolution (the convolution's own output is then never made, so nothing else may
    read it)."""
    readers: dict[str, list[str]] = {}
    for name, sources, _ in order:
        for source in sources:
            readers.setdefault(source, []).append(name)
    return {sources[0]: name for name, sources, _ in order
            if isinstance(layers[name], nn.BatchNorm2D) and len(sources) == 1
            and isinstance(layers.get(sources[0]), nn.Conv2D)
            and readers[sources[0]] == [name] and sources[0] != output}


def build_graph(nodes: list[Node], output: str, input_shape, num_classes: int,
                vocab_size: int = 0, variable_length: bool = False,
                input_dtype: str = "float32", aliases: dict | None = None) -> GraphNet:
    """The ``GraphNet`` of ``nodes`` for samples of ``input_shape`` (``aliases``: block entry
    and copy names -> their output nodes, from ``parse``); ConfigError on a misfit, naming
    (under Hydra) the file or override that set the layer."""
    try:
        return _build_graph(nodes, output, input_shape, num_classes, vocab_size,
                            variable_length, input_dtype, aliases)
    except ConfigError as exc:
        raise located(exc, fallback="model") from None


def _build_graph(nodes, output, input_shape, num_classes, vocab_size, variable_length,
                 input_dtype, aliases) -> GraphNet:
    sample = tuple(input_shape)
    lengths = None
    if variable_length:  # (padded, lengths) batches: a few steps of the per-step shape
        sample = (PROBE_STEPS, *sample)
        lengths = np.full(PROBE_BATCH, PROBE_STEPS, dtype=np.int64)
    values = {INPUT: _probe_input(sample, vocab_size, input_dtype)}
    shapes = {INPUT: sample}
    layers: dict[str, nn.Layer] = {}
    nonfinite = []
    # The probe's zeros may take a layer outside its domain; one warning below says so.
    with core.no_grad(), np.errstate(all="ignore"):
        for node in nodes:
            in_shapes = [shapes[source] for source in node.inputs]
            args = _sized_args(node, in_shapes, vocab_size,
                               num_classes if node.name == output else 0)
            layer = _make(node, args)
            if variable_length:
                _check_not_joining_steps(node, layer, in_shapes)
                _check_steps_kept_for_lengths(node, layer, in_shapes)
            layer.eval()
            out = _run(node, layer, [values[s] for s in node.inputs], in_shapes, lengths)
            layer.train()
            _check_batch_kept(node, out)
            layers[node.name] = layer
            values[node.name] = out
            shapes[node.name] = tuple(out.shape[1:])
            _check_not_empty(node, shapes[node.name], variable_length)
            if not nonfinite and not bool(core.isfinite(out).all()):
                nonfinite.append(node)
    if nonfinite:
        node = nonfinite[0]
        log.warning("%s (%s) gave NaN or Inf on the probe batch of zeros: check its "
                    "arguments (%s) if training stops on a NaN at its first step.",
                    node.where, node.type, show(node.args))
    _check_output(output, layers[output], shapes[output], num_classes, variable_length)
    return GraphNet(nodes, layers, output, aliases)


def _probe_input(input_shape, vocab_size: int, dtype: str):
    shape = (PROBE_BATCH, *input_shape)
    if vocab_size or np.dtype(dtype).kind in "iu":  # word ids: the smallest valid id
        return core.to_tensor(np.zeros(shape, dtype=np.int64))
    return core.to_tensor(np.zeros(shape, dtype=np.float32))


def _sized_args(node: Node, in_shapes: list, vocab_size: int, classes: int) -> dict:
    """``node.args`` plus the sizes its input fixes; a given size that disagrees is an error."""
    args = dict(node.args)
    allowed = arguments(node.cls)
    shape = in_shapes[0] if in_shapes else ()
    channels = _LAST if _channels_last(args, allowed) else _FIRST
    for arg, axis in SIZE_ARGS.items():
        if arg not in allowed or not shape:
            continue
        size = int(shape[channels if axis == _FIRST else axis])
        inferred = [size] if arg == "normalized_shape" else size
        given = args.get(arg)
        if given is None:
            args[arg] = inferred
        elif given != inferred and not _trailing_axes(arg, given, shape):
            source = ", ".join(node.inputs)
            raise ConfigError(
                f"{node.where}.{arg} = {given} does not fit its input: '{source}' gives samples "
                f"of shape {show(shape)}, so {node.type}'s {arg} must be {size} (or leave "
                f"{arg} out and it is inferred).")
    if "num_embeddings" in allowed and vocab_size:
        given = args.get("num_embeddings")
        if given is None:
            args["num_embeddings"] = vocab_size
        elif isinstance(given, int) and given < vocab_size:
            raise ConfigError(
                f"{node.where}.num_embeddings = {given} is smaller than the data's vocabulary "
                f"of {vocab_size} words (ids 0 to {vocab_size - 1}): give at least {vocab_size}, "
                "or leave num_embeddings out and it is inferred.")
    if classes and "out_features" in allowed and "out_features" not in args:
        args["out_features"] = classes  # the output layer predicts the classes
    return args


def _channels_last(args: dict, allowed: dict) -> bool:
    """Whether the layer reads channels last (``data_format`` NLC, NHWC, ...)."""
    if "data_format" not in allowed:
        return False
    default = allowed["data_format"].default
    fmt = args.get("data_format", None if default is inspect.Parameter.empty else default)
    return isinstance(fmt, str) and len(fmt) > 2 and fmt.upper().endswith("C")


def _trailing_axes(arg: str, given, shape: tuple) -> bool:
    """A ``normalized_shape`` given as the input's last axis or several trailing axes."""
    if arg != "normalized_shape":
        return False
    dims = [given] if isinstance(given, int) else list(given or [])
    return 0 < len(dims) <= len(shape) and dims == [int(d) for d in shape[len(shape) - len(dims):]]


def _check_not_empty(node: Node, shape: tuple, variable_length: bool) -> None:
    if 0 in shape:
        steps = f" ({PROBE_STEPS} probe steps first)" if variable_length else ""
        raise ConfigError(f"{node.where} ({node.type}) gives samples of shape {show(shape)}"
                          f"{steps}, with no values: check its arguments ({show(node.args)}).")


def _check_batch_kept(node: Node, out) -> None:
    """Every layer keeps one output row per sample: a layer acting on the batch axis (an axis
    of 0) passes the probe's 2 samples but breaks the loss and batch statistics later."""
    if not out.shape or out.shape[0] != PROBE_BATCH:
        raise ConfigError(f"{node.where} ({node.type}) turns a batch of {PROBE_BATCH} samples "
                          f"into {out.shape[0] if out.shape else 'a scalar'} rows (output shape "
                          f"{show(list(out.shape))}): a layer must keep the batch axis, axis 0; "
                          f"check its arguments ({show(node.args)}), e.g. an axis that should "
                          "count from 1.")


def _check_steps_kept_for_lengths(node: Node, layer, in_shapes: list) -> None:
    """A layer that reads the sequence lengths (an RNN, SequencePool) needs the steps those
    lengths count: after a strided convolution or pooling over time they describe other
    steps, and pooling them gives wrong values with no error."""
    if not takes_lengths(layer) or not in_shapes or not in_shapes[0]:
        return
    steps = in_shapes[0][0]
    if steps != PROBE_STEPS:
        raise ConfigError(f"{node.where} ({node.type}) reads the sequences' lengths, but its "
                          f"input '{node.inputs[0]}' has {steps} steps where the probe's "
                          f"sequences have {PROBE_STEPS} (samples of shape "
                          f"{show(list(in_shapes[0]))}): an earlier layer changes the number of "
                          "steps (a stride or pooling over time), so the lengths no longer "
                          "count its steps. Keep the steps (stride 1, padding that keeps the "
                          "length) before it.")


def _check_not_joining_steps(node: Node, layer, in_shapes: list) -> None:
    """On (padded, lengths) batches a merge joins features, not steps: joined along the time
    axis, the second input's steps would sit after the first's padding, and the lengths that
    the next layers read would describe neither."""
    steps = [shape for shape in in_shapes if len(shape) >= 2 and shape[0] == PROBE_STEPS]
    if not isinstance(layer, nn.Concat) or len(steps) < len(in_shapes) or not in_shapes:
        return  # not a merge, or not of per-step values (pooled [features] join on axis 1)
    axis = layer.axis
    if axis % (len(in_shapes[0]) + 1) == 1:  # [batch, steps, ...]: axis 1 is time
        raise ConfigError(f"{node.where} (Concat) joins its inputs along axis {axis}, the time "
                          "axis of a batch of sequences [batch, steps, features]: join their "
                          "features with axis = -1 (or pool each branch first).")


def _make(node: Node, args: dict) -> nn.Layer:
    missing = [name for name, p in arguments(node.cls).items()
               if p.default is p.empty and name not in args]
    if missing:
        raise ConfigError(f"{node.where} ({node.type}) needs {', '.join(missing)}: give "
                          f"{missing[0]} = ... in its table (only input sizes are inferred).")
    try:
        return node.cls(**args)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{node.where} ({node.type}) cannot be made with {show(args)}: "
                          f"{exc}") from None
    except Exception as exc:
        if node.type not in plugins.REGISTRIES["layer"]:
            raise  # a core.nn layer failing otherwise is tomlrun's bug: its traceback helps
        raise plugins.failure("layer", node.type, exc) from exc


def _check_input_count(node: Node, layer: nn.Layer) -> None:
    """As many inputs as the layer's forward reads (sequence_length apart)."""
    try:
        params = [p for name, p in inspect.signature(layer.forward).parameters.items()
                  if name != "sequence_length"]
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    least = sum(p.default is p.empty for p in positional)
    given = len(node.inputs)
    if not least <= given <= len(positional):
        reads = str(least) if least == len(positional) else f"{least} to {len(positional)}"
        names = ", ".join(p.name for p in positional)
        raise ConfigError(f"{node.where} ({node.type}) reads {reads} input(s) ({names}), but "
                          f"its inputs name {given}: {', '.join(node.inputs)}. Give it "
                          "inputs = [...] with that many layers.")


def _run(node: Node, layer: nn.Layer, inputs: list, in_shapes: list, lengths):
    _check_input_count(node, layer)
    try:
        if lengths is not None and takes_lengths(layer):
            out = layer(*inputs, sequence_length=lengths)
        else:
            out = layer(*inputs)
    except Exception as exc:  # noqa: BLE001 - any failure here is the spec's misfit
        got = " and ".join(f"'{s}' {show(shape)}" for s, shape in zip(node.inputs, in_shapes))
        reason = " ".join(str(exc).split())
        raise ConfigError(f"{node.where} ({node.type}) cannot take its input: {got} (shapes of "
                          f"one sample): {reason}") from None
    out = out[0] if isinstance(out, (tuple, list)) else out
    if not hasattr(out, "shape"):
        raise ConfigError(f"{node.where} ({node.type}) returned {type(out).__name__}, not a "
                          "Tensor: a spec layer must return a Tensor (or a tuple whose first "
                          "item is one).")
    return out


def _check_output(name: str, layer, shape: tuple, num_classes: int,
                  variable_length: bool = False) -> None:
    kind = type(layer).__name__
    if num_classes and tuple(shape) != (num_classes,):
        if variable_length:
            raise ConfigError(
                f"the output layer '{name}' ({kind}) gives samples of shape {show(shape)} on a "
                f"probe of {PROBE_STEPS} steps, but the data has {num_classes} classes: pool "
                "the steps first (a SequencePool, or an RNN's last state), then end with one "
                f"value per class (a Linear with out_features = {num_classes}).")
        raise ConfigError(f"the output layer '{name}' ({kind}) gives samples of "
                          f"shape {show(shape)}, but the data has {num_classes} classes: end "
                          f"the network with one value per class (e.g. a Linear with "
                          f"out_features = {num_classes}, after a Flatten).")
    if isinstance(layer, SQUASHING_OUTPUTS):
        raise ConfigError(f"the output layer '{name}' is a {kind}: the training loss "
                          "(cross-entropy) takes the scores before any softmax and applies its "
                          f"own, so a {kind} there trains badly. End with the layer before it "
                          f"(remove '{name}'); runner.infer outputs=[softmax] gives the "
                          "probabilities.")


def _attach(root: nn.Layer, dotted: str, layer: nn.Layer) -> None:
    *scopes, last = dotted.split(".")
    parent = root
    for scope in scopes:
        child = parent._sub_layers.get(scope)
        if child is None:
            child = parent.add_sublayer(scope, _Group())
        parent = child
    parent.add_sublayer(last, layer)
