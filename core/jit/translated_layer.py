"""``TranslatedLayer``: what ``jit.load`` returns (Paddle's ``paddle.jit.TranslatedLayer``).

Paddle's runs the saved static program; core's runs the saved layer's own ``forward``, eagerly,
with the saved weights. Its parameters, buffers and sublayers are the saved layer's, under the
same names, so ``state_dict()`` keys match the original's and an optimizer can fine-tune it.
It starts in eval mode, as Paddle's does.
"""
from __future__ import annotations

from core.jit import specs as spec_tools
from core.jit.static_function import quiet
from core.nn.layer import Layer
from core.static import InputSpec


class TranslatedLayer(Layer):
    """A loaded inference model: call it, ``eval()`` / ``train()`` it, read its
    ``state_dict()`` and ``parameters()``. ``_input_spec()`` and ``_output_spec()`` give the
    saved specs, as Paddle's do. There is no ``program()``: core saves no program. The saved
    layer's attributes read through (``loaded.fc``)."""

    def __init__(self, network, input_spec: tuple, output_spec: tuple):
        super().__init__()
        object.__setattr__(self, "_network", network)
        self._saved_input_spec = tuple(input_spec)
        self._saved_output_spec = tuple(output_spec)
        if isinstance(network, Layer):
            # The network's own registries: names and objects stay exactly the saved layer's.
            for registry in ("_parameters", "_sub_layers", "_buffers"):
                object.__setattr__(self, registry, getattr(network, registry))
            # its buffers registered with persistable=False stay out of state_dict()
            object.__setattr__(self, "_non_persistable",
                               network.__dict__.setdefault("_non_persistable", set()))
        self.eval()

    def __getattr__(self, name: str):
        # Only for names not found the usual way: the saved layer's attributes (``loaded.fc``),
        # which Paddle's TranslatedLayer does not have (core's keeps the layer itself).
        network = self.__dict__.get("_network")
        if network is None or name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(network, name)

    def forward(self, *inputs):
        """The saved forward on ``inputs``: one per saved InputSpec (non-tensor arguments
        saved as constants in the input spec are passed as saved, as Paddle bakes them into
        its program)."""
        tensor_specs = [s for s in self._saved_input_spec if isinstance(s, InputSpec)]
        if len(inputs) != len(tensor_specs):
            raise ValueError(f"TranslatedLayer: the saved forward takes {len(tensor_specs)} "
                             f"input(s) ({_names(tensor_specs)}), got {len(inputs)}.")
        spec_tools.check_values(inputs, tuple(tensor_specs), "TranslatedLayer")
        given = iter(inputs)
        args = [next(given) if isinstance(s, InputSpec) else s for s in self._saved_input_spec]
        with quiet():  # checked here; a to_static forward inside need not check again
            return self._network(*args)

    def train(self) -> TranslatedLayer:
        super().train()
        if isinstance(self._network, Layer):
            self._network.train()
        return self

    def eval(self) -> TranslatedLayer:
        super().eval()
        if isinstance(self._network, Layer):
            self._network.eval()
        return self

    def _input_spec(self, method_name: str = "forward") -> list[InputSpec]:
        """The saved input specs (Paddle's ``TranslatedLayer._input_spec``)."""
        _check_method(method_name)
        return [s for s in self._saved_input_spec if isinstance(s, InputSpec)]

    def _output_spec(self, method_name: str = "forward") -> list[InputSpec]:
        """The specs of the saved forward's tensor outputs: a size is None where it changed
        with the inputs' varying sizes when ``jit.save`` ran forward."""
        _check_method(method_name)
        return list(self._saved_output_spec)

    def extra_repr(self) -> str:
        if isinstance(self._network, Layer):
            return f"saved {type(self._network).__name__}"
        return f"saved function {getattr(self._network, '__qualname__', self._network)!r}"


def _names(specs: list) -> str:
    return ", ".join(s.name or f"input {i}" for i, s in enumerate(specs)) or "none"


def _check_method(method_name: str) -> None:
    if method_name != "forward":
        raise ValueError(f"TranslatedLayer: method_name={method_name!r}; core's jit.save saves "
                         "forward only, so 'forward' is the one method.")
