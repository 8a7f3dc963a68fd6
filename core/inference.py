"""``Inference``: run a model and return the outputs of several layers (Paddle v2's
``paddle.inference.Inference(output_layer=[...])``).

Layers are named by their dotted names in the model (``conv2``, ``fc``, ``block.0``), as
``model.output_layers()`` gives them (a name for a group of layers reads the group's output
layer); two more
names are understood when no layer is called so: ``output`` (the model's own output) and
``softmax`` (the softmax of the model's output, class probabilities for a classifier). A layer
that returns several tensors (GRU, LSTM: per-step outputs, final states) gives its first. The model
runs in eval mode without recording a graph, and its mode is restored afterwards.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.tensor import Tensor, no_grad, to_tensor

OUTPUT, SOFTMAX = "output", "softmax"


class Inference:
    """``Inference(model, output_layer=["conv2", "fc"]).infer(batch)`` -> ``{name: array}``."""

    def __init__(self, model, output_layer=(OUTPUT,)):
        names = [output_layer] if isinstance(output_layer, str) else list(output_layer or ())
        if not names:
            raise ValueError("Inference: output_layer is empty: name at least one layer (or "
                             f"'{OUTPUT}' for the model's output).")
        # Names as the model reads them: a network may name groups of layers (a spec's block
        # copies) whose output is one of their layers' (Layer.output_layers).
        layers = model.output_layers()
        unknown = [n for n in names if n not in layers and n not in (OUTPUT, SOFTMAX)]
        if unknown:
            raise ValueError(f"Inference: output_layer {unknown} are not layers of this model "
                             f"whose outputs can be read: use {', '.join(layers)}, or "
                             f"'{OUTPUT}' / '{SOFTMAX}' for the model's output and its softmax.")
        self.model, self.output_layer = model, names
        self._layers = {n: layers[n] for n in names if n in layers}

    def infer(self, input, flatten_result: bool = False,  # noqa: A002 - Paddle's name
              batch_size: int | None = None):
        """The requested outputs for ``input`` (an array or Tensor of samples, or the tuple
        ``(padded, lengths)`` of a variable-length model, as ``core.data.pad_sequences`` gives).

        Returns a dict ``{name: numpy array}`` in ``output_layer`` order. ``batch_size`` runs
        the samples in chunks (results are concatenated). With ``flatten_result=True`` each
        output is reshaped to ``[rows, -1]`` and the outputs are concatenated side by side into
        one matrix, which needs every output to have the same number of rows.
        """
        data = input.data if isinstance(input, Tensor) else input
        if batch_size is not None and (isinstance(batch_size, bool) or batch_size < 1):
            raise ValueError(f"Inference.infer: batch_size={batch_size!r} must be an integer "
                             ">= 1 or None.")
        count = len(data[0]) if isinstance(data, tuple) else len(data)
        step = count if batch_size is None else batch_size
        parts = [self._run(_rows(data, i, i + step))
                 for i in range(0, max(count, 1), max(step, 1))]
        results = {name: np.concatenate([p[name] for p in parts]) if len(parts) > 1
                   else parts[0][name] for name in self.output_layer}
        return _flatten(results) if flatten_result else results

    def _run(self, chunk) -> dict[str, np.ndarray]:
        captured: dict[str, object] = {}

        def keeper(name):
            def keep(layer, inputs, output):
                del layer, inputs
                captured[name] = first_output(output).data

            return keep

        handles = [layer.register_forward_post_hook(keeper(name))
                   for name, layer in self._layers.items()]
        was_training = self.model.training
        self.model.eval()
        try:
            with no_grad():
                output = self.model(self._as_input(chunk))
        finally:
            for handle in handles:
                handle.remove()
            if was_training:
                self.model.train()
        skipped = [name for name in self._layers if name not in captured]
        if skipped:  # a layer the model holds but its forward never calls
            raise ValueError(f"Inference: the layers {skipped} did not run in the model's "
                             "forward pass, so they have no output to read.")
        out = {}
        for name in self.output_layer:
            raw = captured[name] if name in self._layers else output.data
            if name == SOFTMAX and name not in self._layers:
                raw = _softmax(raw)
            out[name] = np.array(backend.to_numpy(raw), copy=True)
        return out

    def _as_input(self, chunk):
        """A Tensor of the chunk; of ``(padded, lengths)`` only the padded steps (GRU and LSTM
        read ``sequence_length`` from an integer array or a Tensor alike)."""
        if isinstance(chunk, tuple):
            padded, *rest = chunk
            return (to_tensor(padded, dtype=self._input_dtype(padded)), *rest)
        return to_tensor(chunk, dtype=self._input_dtype(chunk))

    def _input_dtype(self, chunk):
        """Float inputs take the parameters' dtype (a float64 .npy meets float32 weights)."""
        params = self.model.parameters()
        if params and np.dtype(getattr(chunk, "dtype", np.float64)).kind == "f":
            return params[0].dtype
        return None


def first_output(output):
    """A layer's output, or for a layer that returns several (GRU / LSTM: the per-step outputs,
    then the final states) the first: the per-step outputs, what the next layer reads."""
    while isinstance(output, (tuple, list)):
        output = output[0]
    return output


def _rows(data, start: int, stop: int):
    """Rows ``start:stop`` of an array, or of each array of a ``(padded, lengths)`` tuple."""
    if isinstance(data, tuple):
        return tuple(part[start:stop] for part in data)
    return data[start:stop]


def _softmax(logits):
    xp = backend.array_module(logits)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = xp.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


def _flatten(results: dict[str, np.ndarray]) -> np.ndarray:
    rows = {name: (array.shape[0] if array.ndim else 1) for name, array in results.items()}
    if len(set(rows.values())) > 1:
        shown = ", ".join(f"{name}: {n}" for name, n in rows.items())
        raise ValueError(
            "Inference.infer(flatten_result=True) concatenates the outputs side by side, which "
            f"needs the same number of rows in each, but they differ ({shown}); this happens "
            "when sequence and non-sequence layers (or sequences of different lengths) are "
            "asked for together. Call infer(..., flatten_result=False) to get one array per "
            "layer instead.")
    return np.concatenate([a.reshape(rows[n], -1) for n, a in results.items()], axis=1)
