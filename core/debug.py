"""Find the layer that first produced a NaN or Inf, by replaying one batch under watch.

``locate_nonfinite(model, loss_fn, inputs, labels)`` runs forward, loss and backward once more
with every leaf layer (a layer without sublayers: the ones that compute) instrumented, in the
spirit of Chainer's debug mode:

- forward: the first layer, in execution order, whose inputs are finite but whose output is not
  produced the value (non-finite inputs to the first layer mean the batch itself is bad);
- backward: the first layer, in backward order, that received a finite gradient at its output
  but passed a non-finite one to its inputs or its own parameters produced it; a non-finite
  gradient at the model's output with a finite loss points at the loss function.

Every check reads the device, so this is for diagnosis after a failure, never for every step.
Parameter gradients are put back as they were, so the replay leaves the model unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

from core import backend
from core.tensor import Tensor


@dataclass
class Culprit:
    """Where a non-finite value first appeared."""

    layer: str  # dotted layer name, "input" for the batch, "loss" for the loss function
    phase: str  # "forward" or "backward"
    detail: str  # one sentence for a person

    def __str__(self) -> str:
        return self.detail


def _finite(array) -> bool:
    xp = backend.array_module(array)
    return bool(backend.to_numpy(xp.isfinite(array).all()))


def _largest(tensors) -> float:
    values = [backend.to_numpy(backend.array_module(t.data).abs(t.data).max())
              for t in tensors if t.data.size]
    return float(max(values)) if values else 0.0


def _tensors(values) -> list[Tensor]:
    return [v for v in values if isinstance(v, Tensor)]


class _Watch:
    """Hooks on every leaf layer recording, in time order, what was finite."""

    def __init__(self, model):
        self.leaves = [(name, layer) for name, layer in model.named_sublayers(include_self=True)
                       if not layer._sub_layers]
        # (layer, inputs finite, output finite, largest |output|)
        self.forward: list[tuple[str, bool, bool, float]] = []
        # (layer, "out" | "in", grad finite, id of the tensor the gradient belongs to)
        self.backward: list[tuple[str, str, bool, int]] = []
        self.input_ids: dict[str, set[int]] = {}
        self.handles = [layer.register_forward_post_hook(self._after_forward(name))
                        for name, layer in self.leaves]

    def _after_forward(self, name: str):
        def hook(layer, inputs, output):
            del layer
            ins = _tensors(inputs)
            outs = _tensors(output if isinstance(output, (tuple, list)) else (output,))
            self.forward.append((name, all(_finite(t.data) for t in ins),
                                 all(_finite(t.data) for t in outs), _largest(outs)))
            self.input_ids.setdefault(name, set()).update(id(t) for t in ins)
            for where, tensors in (("out", outs), ("in", ins)):
                for tensor in tensors:
                    if not tensor.stop_gradient:
                        tensor.register_array_hook(self._on_grad(name, where, id(tensor)))
            return None

        return hook

    def _on_grad(self, name: str, where: str, tensor_id: int):
        def hook(grad):
            self.backward.append((name, where, _finite(grad), tensor_id))
            return grad

        return hook

    def close(self) -> None:
        for handle in self.handles:
            handle.remove()


def locate_nonfinite(model, loss_fn, inputs, labels) -> Culprit | None:
    """Replay one batch and name where a non-finite value first appeared (None: all finite)."""
    saved = [(p, p.grad_data) for p in model.parameters()]
    for param, _ in saved:
        param.grad_data = None
    watch = _Watch(model)
    try:
        parts = inputs if isinstance(inputs, (tuple, list)) else (inputs,)  # (ids, lengths)
        if not all(_finite(p.data if isinstance(p, Tensor) else p) for p in parts):
            return Culprit("input", "forward", "the input batch itself contains NaN or Inf "
                                               "values: check the data")
        logits = model(inputs)
        found = _forward_culprit(watch.forward)
        if found is not None:
            return found
        loss = loss_fn(logits, labels)
        if not _finite(loss.data):
            return _loss_culprit(watch.forward)
        loss.backward()
        return _backward_culprit(watch, model)
    finally:
        watch.close()
        for param, grad in saved:
            param.grad_data = grad


def _forward_culprit(records) -> Culprit | None:
    for name, inputs_ok, output_ok, _ in records:
        if not output_ok:
            if inputs_ok:
                return Culprit(name, "forward", f"layer '{name}' produced a non-finite output "
                                                "in the forward pass from finite inputs")
            return Culprit(name, "forward", f"non-finite values reached the input of layer "
                                            f"'{name}' from an operation outside any layer")
    return None


def _loss_culprit(records) -> Culprit:
    detail = "every layer's output is finite but the loss is not"
    if records:
        name, _, _, largest = records[-1]
        detail += (f": the model's output (layer '{name}') reaches |x| = {largest:.3g}, so the "
                   "loss overflowed")
    return Culprit("loss", "forward", detail)


def _backward_culprit(watch: _Watch, model) -> Culprit | None:
    del model
    bad_params = _layers_with_bad_param_grads(watch.leaves)
    last_ok = None  # the layer whose backward ran last from a finite output gradient
    for name, where, ok, tensor_id in watch.backward:
        if ok:
            if where == "out":
                last_ok = name
                if name in bad_params:
                    return _from_layer(name, "its parameters")
            continue
        if where == "in" and name == last_ok:
            return _from_layer(name, "its input")
        if last_ok is None:
            return Culprit("loss", "backward", "the loss function's backward produced a "
                                               "non-finite gradient at the model's output")
        if tensor_id in watch.input_ids.get(last_ok, ()):
            return _from_layer(last_ok, "its input")
        return _gap(name)
    for name in bad_params:  # layers whose output gradient was never watched (unusual graphs)
        return _from_layer(name, "its parameters")
    return None


def _layers_with_bad_param_grads(leaves) -> list[str]:
    return [name for name, layer in leaves
            if any(p.grad_data is not None and not _finite(p.grad_data)
                   for p in layer._parameters.values() if p is not None)]


def _from_layer(name: str, target: str) -> Culprit:
    return Culprit(name, "backward", f"layer '{name}' received a finite gradient at its output "
                                     f"but its backward produced a non-finite gradient for "
                                     f"{target}")


def _gap(name: str) -> Culprit:
    return Culprit(name, "backward", f"the gradient arriving at layer '{name}''s output is "
                                     "non-finite although every layer after it passed finite "
                                     "gradients: an operation outside any layer produced it")
