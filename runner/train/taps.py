"""Layer taps: read chosen layers' outputs during training without changing the model.

``LayerTaps(model).watch(["conv2", "fc"])`` registers one forward post-hook per named layer
(dotted names, as ``model.output_layers()`` gives them). A hook keeps a reference to the
layer's latest output array; nothing is copied until someone asks, and then only that layer is
copied to the host. Layers nobody watches get no hook, so an unwatched model runs as before.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.inference import first_output


def layer_names(model) -> list[str]:
    """The dotted names whose outputs can be read (the names ``watch`` accepts)."""
    return list(model.output_layers())


def find_layer(model, name: str, what: str = "layer"):
    """The layer whose output ``name`` reads; a ValueError lists the valid names otherwise.

    ``model.output_layers()`` decides: a name that only groups layers (a spec's block entry
    ``hidden`` or copy ``hidden.0``) reads the layer that gives the group's output, since a
    hook on the group itself would never fire.
    """
    layers = model.output_layers()
    if name not in layers:
        raise ValueError(f"{what} '{name}' is not a layer of this model whose output can be "
                         f"read: the names are {', '.join(layers) or '(none)'}.")
    return layers[name]


class LayerTaps:
    """Forward hooks on the watched layers of one model, holding each one's latest output."""

    def __init__(self, model):
        self.model = model
        self._outputs: dict[str, object] = {}  # name -> the latest raw output array
        self._handles: dict[str, object] = {}

    @property
    def watched(self) -> list[str]:
        return list(self._handles)

    def watch(self, names) -> None:
        """Start keeping the outputs of the layers called ``names`` (each hooked once)."""
        if isinstance(names, str):
            names = [names]
        for name in names:
            if name in self._handles:
                continue
            layer = find_layer(self.model, name)
            self._handles[name] = layer.register_forward_post_hook(self._keeper(name))

    def _keeper(self, name: str):
        def keep(layer, inputs, output):
            del layer, inputs
            # A recurrent layer returns (outputs, states): keep what the next layer reads.
            output = first_output(output)
            self._outputs[name] = getattr(output, "data", output)

        return keep

    def output(self, name: str) -> np.ndarray:
        """A host copy of the latest output of the watched layer ``name``."""
        # A copy: the handler may keep it while later batches run.
        return np.array(backend.to_numpy(self.raw(name)), copy=True)

    def raw(self, name: str):
        """The latest output of watched layer ``name`` where it lives (no copy)."""
        if name not in self._handles:
            shown = ", ".join(self._handles) or "none"
            raise KeyError(f"layer '{name}' is not watched (watched: {shown}): call "
                           f"trainer.watch('{name}') before fit (only watched layers are hooked "
                           "and copied to the host).")
        if name not in self._outputs:
            raise RuntimeError(f"layer '{name}' has not run yet: its output is available after "
                               "the first forward pass of training.")
        return self._outputs[name]

    def remove(self) -> None:
        """Take every hook off the model."""
        for handle in self._handles.values():
            handle.remove()
        self._handles.clear()
        self._outputs.clear()
