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
from core.clipping import check_error_clip
from core.nn import fusion
from runner import plugins
from runner.build.spec.layer_types import ATTR_ARGS, arguments, param_attr, takes_lengths
from runner.build.spec.parse import INPUT, Node, located, split_item
from runner.config.validation import show
from runner.errors import ConfigError

# Argument -> which axis of one sample's shape (channels first) sets it.
_FIRST, _LAST = 0, -1
SIZE_ARGS = {"in_channels": _FIRST, "num_features": _FIRST, "num_channels": _FIRST,
             "in_features": _LAST, "input_size": _LAST, "embed_dim": _LAST, "d_model": _LAST,
             "normalized_shape": _LAST, "in1_features": _LAST}
# Argument -> which input (by its place in ``inputs``) sets it with its last axis, when the
# layer is given that input: Bilinear's second operand, MultiHeadAttention's key and value.
OTHER_INPUT_SIZES = {"in2_features": 1, "kdim": 1, "vdim": 2}
PROBE_BATCH = 2
PROBE_STEPS = 3  # time steps of the probe for variable-length sequences
# Output layers that squash the scores the loss (cross-entropy, a softmax of its own) takes.
SQUASHING_OUTPUTS = (nn.Softmax, nn.Sigmoid)
log = logging.getLogger(__name__)


class _Group(nn.Layer):
    """The layers of one block copy, so that their names read ``stage1.0.conv1``."""

    _runs_forward = False  # GraphNet runs the layers inside; a hook on the group never fires

    def __init__(self, name: str):
        super().__init__()
        self._name = name  # dotted: stage1.0
        self._output = ""  # the node giving the copy's output, set by GraphNet

    def __setattr__(self, key: str, value) -> None:
        # error_clip acts in a hook on the layer's forward, which a group never runs: a
        # threshold here would clip nothing, silently.
        if key == "error_clip" and check_error_clip(value) is not None:
            inside = self._output.startswith(f"{self._name}.")
            target = (f"'{self._output}', the layer giving its output (+model.error_clip."
                      f"{self._output}={value})" if inside else "one of its layers")
            raise ConfigError(f"error_clip = {value} on '{self._name}', a block entry or copy: "
                              "GraphNet runs its layers one by one and never the group itself, "
                              f"so a threshold on it would clip nothing; set it on {target}.")
        super().__setattr__(key, value)


class GraphNet(nn.Layer):
    """A network built from a spec: runs its nodes in order, each on its inputs' outputs.

    The input is a batch, or ``(padded, lengths)`` for variable-length sequences; the lengths
    go to every layer whose forward takes ``sequence_length``. A layer that returns several
    values (an RNN's outputs and final states) passes on the first; ``name[i]`` in a node's
    inputs reads its i-th.
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
        groups = dict(self.named_sublayers())
        for name, node in self._aliases.items():
            if isinstance(groups.get(name), _Group):
                groups[name]._output = node
        self._layers = layers
        self._items = _items_read(nodes)
        last_use = {}
        for index, (name, inputs, _) in enumerate(self._order):
            last_use.setdefault(name, index)  # read only as name[i]: dropped at once
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
                    out = self._call(name, args, lengths if with_lengths else None)
                    values[name] = _first(out)
                    for item in self._items.get(name, ()):
                        values[f"{name}[{item}]"] = out[item]
            for source in self._release[index]:
                values.pop(source, None)
        return values[self._output]

    def _call(self, name: str, args: list, lengths):
        """Layer ``name`` on ``args`` (and the sequence lengths when it takes them)."""
        layer = self._layers[name]
        return layer(*args) if lengths is None else layer(*args, sequence_length=lengths)


def _first(out):
    """What a layer passes on by its name: its output, or the first of several."""
    return out[0] if isinstance(out, (tuple, list)) else out


def _items_read(nodes: list[Node]) -> dict[str, dict[int, Node]]:
    """{layer: {i: the first node that reads it as layer[i]}}."""
    items: dict[str, dict[int, Node]] = {}
    for node in nodes:
        for source in node.inputs:
            name, index = split_item(source)
            if index is not None:
                items.setdefault(name, {}).setdefault(index, node)
    return items


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
        raise located(exc) from None


def _build_graph(nodes, output, input_shape, num_classes, vocab_size, variable_length,
                 input_dtype, aliases) -> GraphNet:
    sample = tuple(input_shape)
    lengths = None
    if variable_length:  # (padded, lengths) batches: a few steps of the per-step shape
        sample = (PROBE_STEPS, *sample)
        lengths = np.full(PROBE_BATCH, PROBE_STEPS, dtype=np.int64)
    values = {INPUT: _probe_input(sample, vocab_size, input_dtype)}
    shapes = {INPUT: sample}
    items = _items_read(nodes)
    layers: dict[str, nn.Layer] = {}
    nonfinite = []
    # The probe's zeros may take a layer outside its domain; one warning below says so.
    with core.no_grad(), np.errstate(all="ignore"):
        for node in nodes:
            in_shapes = [shapes[source] for source in node.inputs]
            _check_input_count(node)  # first: the sizes inferred below read every input
            _check_matrices_per_sample(node, in_shapes)  # before a run that may pass
            args = _sized_args(node, in_shapes, vocab_size,
                               num_classes if node.name == output else 0)
            layer = _make(node, args, output)
            if variable_length:
                _check_not_joining_steps(node, layer, in_shapes)
                _check_steps_kept_for_lengths(node, layer, in_shapes)
            layer.eval()
            whole = _run(node, layer, [values[s] for s in node.inputs], in_shapes, lengths)
            out = _first(whole)
            layer.train()
            for index, reader in items.get(node.name, {}).items():
                key = f"{node.name}[{index}]"
                values[key] = _item(node, whole, index, reader)
                shapes[key] = tuple(values[key].shape[1:])
            _check_batch_kept(node, out)
            _check_batch_first(node, in_shapes)  # what mixes samples and keeps the shape
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
            _size_misfit(node, arg, given, node.inputs[0], shape, size)
    for arg, index in OTHER_INPUT_SIZES.items():
        if arg not in allowed or index >= len(in_shapes) or not in_shapes[index]:
            continue
        size = int(in_shapes[index][-1])
        given = args.get(arg)
        if given is None:
            args[arg] = size
        elif given != size:
            _size_misfit(node, arg, given, node.inputs[index], in_shapes[index], size)
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


def _size_misfit(node: Node, arg: str, given, source: str, shape: tuple, size: int):
    raise ConfigError(
        f"{node.where}.{arg} = {given} does not fit its input: '{source}' gives samples of shape "
        f"{show(shape)}, so {node.type}'s {arg} must be {size} (or leave {arg} out and it is "
        "inferred).")


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


def _check_batch_first(node: Node, in_shapes: list) -> None:
    """A spec's batches are batch-first: an ``axis`` that names the batch axis, or
    ``time_major = true``, may mix the samples of a batch without changing any shape (a
    Softmax over the batch), which the probe's shapes cannot show. A Dropout's ``axis`` lists
    the axes its mask varies along, where the batch is a fair choice (whole samples dropped)."""
    if node.args.get("time_major") is True:
        raise ConfigError(f"{node.where}.time_major = true is not allowed in a spec: a spec's "
                          "batches are batch-first ([batch, steps, features]), so the layer "
                          "would read the samples as steps; leave time_major out.")
    axis = node.args.get("axis")
    if not isinstance(axis, int) or isinstance(axis, bool) or not in_shapes \
            or issubclass(node.cls, nn.Dropout):
        return
    dims = len(in_shapes[0]) + 1  # the batch axis and a sample's
    if axis == 0 or axis == -dims:
        allowed = "1 (or -1)" if dims == 2 else f"1 to {dims - 1} (or -1 to -{dims - 1})"
        raise ConfigError(f"{node.where}.axis = {axis} is the batch axis of its input "
                          f"(samples of shape {show(list(in_shapes[0]))}, so a batch has {dims} "
                          "axes): a layer must act on each sample alone; axes count from 0 "
                          f"with the batch, so a sample's axes are {allowed}.")


def _check_matrices_per_sample(node: Node, in_shapes: list) -> None:
    """A Matmul multiplies its inputs' last two axes: on samples of one axis ([batch,
    features]) those are the batch and the features, so q k^T of two such inputs is a
    [batch, batch] product across samples, which the probe's batch of 2 passes and a batch of
    another size breaks."""
    if not issubclass(node.cls, nn.Matmul):
        return
    for source, shape in zip(node.inputs, in_shapes):
        if len(shape) < 2:
            raise ConfigError(f"{node.where} (Matmul) multiplies the last two axes of its "
                              f"inputs, but '{source}' gives samples of shape {show(list(shape))}"
                              ", one axis, so the batch axis would be a matrix axis and the "
                              "samples would mix: give it samples of 2 or more axes (an "
                              "Unflatten makes [rows, cols] of features), or use Multiply or "
                              "Bilinear for vectors.")


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


def _make(node: Node, args: dict, output: str) -> nn.Layer:
    missing = [name for name, p in arguments(node.cls).items()
               if p.default is p.empty and name not in args]
    if missing:
        hint = (f"; out_features is inferred on the output layer alone, and this network's "
                f"output is '{output}'" if "out_features" in missing else "")
        raise ConfigError(f"{node.where} ({node.type}) needs {', '.join(missing)}: give "
                          f"{missing[0]} = ... in its table (only input sizes are "
                          f"inferred{hint}).")
    made = {key: param_attr(value, f"{node.where}.{key}")
            if key in ATTR_ARGS and isinstance(value, dict) else value
            for key, value in args.items()}  # a fresh ParamAttr (and initializer) per layer
    try:
        return node.cls(**made)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{node.where} ({node.type}) cannot be made with {show(args)}: "
                          f"{exc}") from None
    except Exception as exc:
        if node.type not in plugins.REGISTRIES["layer"]:
            raise  # a core.nn layer failing otherwise is tomlrun's bug: its traceback helps
        raise plugins.failure("layer", node.type, exc) from exc


def _check_input_count(node: Node) -> None:
    """As many inputs as the layer's forward reads (sequence_length apart)."""
    try:  # the class's forward: its first parameter is self
        params = [p for name, p in inspect.signature(node.cls.forward).parameters.items()
                  if name != "sequence_length"][1:]
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
        hint = (" (NAME[i] reads value i of a layer that returns several, such as the "
                "indices of a MaxPool2D with return_mask = true: inputs = [\"pool\", "
                "\"pool[1]\"])" if given < least else "")
        raise ConfigError(f"{node.where} ({node.type}) reads {reads} input(s) ({names}), but "
                          f"its inputs name {given}: {', '.join(node.inputs)}. Give it "
                          f"inputs = [...] with that many layers{hint}.")


def _run(node: Node, layer: nn.Layer, inputs: list, in_shapes: list, lengths):
    try:
        if lengths is not None and takes_lengths(layer):
            out = layer(*inputs, sequence_length=lengths)
        else:
            out = layer(*inputs)
    except Exception as exc:  # noqa: BLE001 - any failure here is the spec's misfit
        got = " and ".join(f"'{s}' {show(shape)}" for s, shape in zip(node.inputs, in_shapes))
        reason = " ".join(str(exc).split())
        hint = _left_out(node, layer)
        reason = f"{reason.rstrip('.')}. {hint}" if hint else reason
        raise ConfigError(f"{node.where} ({node.type}) cannot take its input: {got} (shapes of "
                          f"one sample): {reason}") from None
    # Not hasattr(shape): a numpy array has one, and failed later inside core's own ops.
    if not isinstance(_first(out), core.Tensor):
        raise ConfigError(f"{node.where} ({node.type}) returned {type(_first(out)).__name__}, "
                          "not a Tensor: a spec layer must return a Tensor (or a tuple whose "
                          "first item is one; wrap an array with core.to_tensor, or compute "
                          "with core's ops so that gradients flow).")
    return out


def _item(node: Node, out, index: int, reader: Node):
    """Value ``index`` of what ``node``'s layer returned, for ``reader`` (``name[i]``)."""
    count = len(out) if isinstance(out, (tuple, list)) else 1
    value = out[index] if isinstance(out, (tuple, list)) and index < count else None
    if hasattr(value, "shape") and value.shape and value.shape[0] == PROBE_BATCH:
        return value
    if hasattr(value, "shape"):  # a recurrent layer's final states: [layers, batch, hidden]
        raise ConfigError(f"{reader.where}.inputs names '{node.name}[{index}]', whose values "
                          f"are not one row per sample: {node.name} ({node.type}) gives it "
                          f"the shape {show(list(value.shape))} for a batch of {PROBE_BATCH} "
                          "samples, and a spec's layers read batch-first values; read "
                          f"'{node.name}' (its first value), or pool it.")
    what = (f"returns {count} values" if count > 1 else "returns one value")
    if isinstance(value, (tuple, list)):  # an LSTM's (h, c): [layers, batch, hidden] each
        raise ConfigError(f"{reader.where}.inputs names '{node.name}[{index}]', but {node.name} "
                          f"({node.type}) returns {len(value)} values as its value {index} (an "
                          "LSTM's final states (h, c)), not one Tensor, and a spec reads only "
                          f"one [i] deep: read '{node.name}' (the outputs of every step) and pool "
                          "or flatten it.")
    if value is not None:
        what = f"returns {type(value).__name__} as its value {index}, not a Tensor"
    raise ConfigError(f"{reader.where}.inputs names '{node.name}[{index}]', but {node.name} "
                      f"({node.type}) {what} on the probe: [i] reads value i (from 0) of a "
                      "layer that returns several Tensors, such as a MaxPool2D with "
                      "return_mask = true (its output, then the indices a MaxUnPool2D reads).")


def _left_out(node: Node, layer: nn.Layer) -> str:
    """Why a layer whose spec left a parameter out (``weight_attr = false``) may have failed:
    a normalization layer runs without its scale, a Linear or a convolution not without its
    weight (as in Paddle)."""
    gone = [arg for arg in ATTR_ARGS if node.args.get(arg) is False]
    missing = [arg for arg in gone if getattr(layer, arg.split("_")[0], "") is None]
    if not missing:
        return ""
    return (f"{node.where}.{missing[0]} = false leaves out the layer's "
            f"{missing[0].split('_')[0]}, which {node.type} cannot run without: remove "
            f"{missing[0]} (only some layers, such as a normalization's weight or any bias, can "
            "be left out).")


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
    for depth, scope in enumerate(scopes):
        child = parent._sub_layers.get(scope)
        if child is None:
            child = parent.add_sublayer(scope, _Group(".".join(scopes[:depth + 1])))
        parent = child
    parent.add_sublayer(last, layer)
