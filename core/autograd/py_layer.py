"""Paddle's ``paddle.autograd.PyLayer`` and ``PyLayerContext``: custom ops written as a static
``forward`` and ``backward`` in Python.

``PyLayer.apply`` runs ``forward`` without recording (as Paddle), then links the Tensors it
returned into the graph through one hidden node whose parents are forward's Tensor inputs. Each
output passes its gradient to that node tagged with its position (``_OutputGrads``, which the
engine sums with ``+`` as it sums arrays), so the user's ``backward`` runs once, with every
output's gradient. ``backward`` gets a ``grad_fn`` too: under ``core.grad(create_graph=True)``
the user's backward runs with recording on, so a PyLayer written with core's differentiable
ops can be differentiated twice.
"""
from __future__ import annotations

import functools

import numpy as np

from core import backend
from core.autograd.hooks import current_hooks
from core.tensor import Parameter, Tensor, is_grad_enabled, no_grad


class PyLayerContext:
    """Paddle's ``paddle.autograd.PyLayerContext``: the ``ctx`` that ``forward`` and
    ``backward`` receive. It keeps what forward saves for backward (``save_for_backward``,
    ``saved_tensor``), the marks forward sets (``mark_not_inplace``,
    ``mark_non_differentiable``, ``set_materialize_grads``) and any attribute forward sets on
    it (``ctx.alpha = 0.5``)."""

    def __init__(self):
        self.container = None
        self.not_inplace_tensors: tuple = ()
        self.non_differentiable: tuple = ()
        self.materialize_grads = True
        self._unpack_hook = None

    def save_for_backward(self, *tensors) -> None:
        """Paddle's ``save_for_backward(*tensors)``: keep ``tensors`` for ``saved_tensor()`` in
        backward. Inside ``saved_tensors_hooks`` each Tensor (also inside a list or tuple) is
        stored as ``pack_hook(tensor)``."""
        hooks = current_hooks()
        if hooks is None:
            self.container, self._unpack_hook = tensors, None
            return
        pack, self._unpack_hook = hooks
        self.container = tuple(_packed(item, pack) for item in tensors)

    def saved_tensor(self):
        """Paddle's ``saved_tensor()``: the tuple given to ``save_for_backward`` (None when
        nothing was saved), each packed Tensor passed through the unpack hook."""
        if self.container is None or self._unpack_hook is None:
            return self.container
        return tuple(_unpacked(item, self._unpack_hook) for item in self.container)

    def mark_not_inplace(self, *tensors) -> None:
        """Paddle's ``mark_not_inplace(*tensors)``: an input that forward returns as it is comes
        back as a new Tensor sharing its values, instead of being rejected (a leaf that needs a
        gradient) or taken over."""
        self.not_inplace_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Paddle's ``mark_non_differentiable(*tensors)``: these outputs get
        ``stop_gradient=True``; backward still receives a gradient for each (zeros)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Paddle's ``set_materialize_grads(value)``: True (the default) gives backward zeros
        for an output that received no gradient; False gives None."""
        if not isinstance(value, bool):
            raise TypeError(f"set_materialize_grads: value must be True or False, got {value!r}")
        self.materialize_grads = value


def _packed(item, pack):
    if isinstance(item, Tensor):
        return pack(item)
    if isinstance(item, (list, tuple)):
        return type(item)(_packed(x, pack) for x in item)
    if item is None:
        return None
    raise TypeError("save_for_backward inside saved_tensors_hooks takes Tensors, lists or tuples "
                    f"of Tensors, and None (as Paddle), got {type(item).__name__}")


def _unpacked(item, unpack):
    if isinstance(item, (list, tuple)):
        return type(item)(_unpacked(x, unpack) for x in item)
    return None if item is None else unpack(item)


class PyLayer:
    """Paddle's ``paddle.autograd.PyLayer``: subclass it with a static
    ``forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``, and call
    ``YourLayer.apply(*args, **kwargs)``.

    - ``forward`` runs without recording a graph. Its Tensor arguments (and Tensors inside list
      or tuple arguments) are the op's inputs; other arguments are passed as they are.
    - The Tensors it returns (a Tensor, or a tuple/list of Tensors and other values) are the
      outputs: when an input needs a gradient, each gets ``stop_gradient=False`` (except those
      given to ``ctx.mark_non_differentiable``).
    - ``backward`` receives one gradient per Tensor output, in order (zeros, or None after
      ``ctx.set_materialize_grads(False)``, for an output that got none), and returns one
      gradient (a Tensor, or None) per Tensor input of forward, as a tuple when there are
      several; a list or tuple of them for an input given as a list of Tensors. An input with
      ``stop_gradient=True`` receives nothing, whatever is returned for it.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("You must implement the backward function for PyLayer.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` on the arguments and link its Tensor outputs into the graph."""
        ctx = PyLayerContext()
        slots = _input_slots(list(args) + list(kwargs.values()))
        recording = is_grad_enabled() and any(
            not t.stop_gradient for slot in slots for t in slot.tensors)
        with no_grad():
            outputs = cls.forward(ctx, *args, **kwargs)
        return _link(cls, ctx, slots, outputs, recording)


class _Slot:
    """One Tensor input or output of a PyLayer: a Tensor, or the Tensors of a list/tuple."""

    __slots__ = ("tensors", "is_list")

    def __init__(self, tensors: tuple, is_list: bool):
        self.tensors, self.is_list = tensors, is_list


def _input_slots(values: list) -> list[_Slot]:
    slots = []
    for value in values:
        if isinstance(value, Tensor):
            slots.append(_Slot((value,), False))
        elif isinstance(value, (list, tuple)):
            tensors = tuple(v for v in value if isinstance(v, Tensor))
            if tensors:
                slots.append(_Slot(tensors, True))
    return slots


def _link(cls, ctx: PyLayerContext, slots: list, outputs, recording: bool):
    """The outputs of forward, each Tensor made a node of the graph when ``recording``."""
    inputs = {id(t) for slot in slots for t in slot.tensors}
    not_inplace = {id(t) for t in ctx.not_inplace_tensors if isinstance(t, Tensor)}
    frozen = {id(t) for t in ctx.non_differentiable if isinstance(t, Tensor)}
    flat: list[Tensor] = []  # the Tensor outputs, in order, after replacement
    marked: list[bool] = []  # whether each is non-differentiable
    out_slots: list[int] = []  # how many Tensors each output slot holds (and -1: a single one)

    def own(t: Tensor) -> Tensor:
        marked.append(id(t) in frozen)
        if id(t) in inputs:
            t = _returned_input(cls, t, id(t) in not_inplace, recording)
        elif recording and (t._backward is not None or isinstance(t, Parameter)
                            or any(t is seen for seen in flat)):
            # A tensor of another graph, a parameter, or an output returned twice (each
            # position needs its own node): a new Tensor on the same values.
            t = Tensor(t.data)
        flat.append(t)
        return t

    def item(value):
        if isinstance(value, Tensor):
            out_slots.append(-1)
            return own(value)
        if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            out_slots.append(sum(isinstance(v, Tensor) for v in value))
            return type(value)(own(v) if isinstance(v, Tensor) else v for v in value)
        return value

    if isinstance(outputs, (tuple, list)):
        result = type(outputs)(item(v) for v in outputs)
    else:
        result = item(outputs)
    if not flat:
        raise ValueError(f"{cls.__name__}.forward must return at least one Tensor (as Paddle's "
                         "PyLayer): a Tensor, or a tuple or list holding Tensors (Tensors "
                         f"inside a dict or another object are not outputs), got {outputs!r}")
    if recording:
        _connect(cls, ctx, slots, flat, marked, out_slots)
    return result


def _returned_input(cls, t: Tensor, marked_not_inplace: bool, recording: bool) -> Tensor:
    """An input that forward returned as it is: a new Tensor on the same values. Paddle takes
    the input itself over as the output (its in-place strategy); a leaf that needs a gradient
    cannot be, so that is refused, as in Paddle, unless ``mark_not_inplace`` was called."""
    if not recording:
        return Tensor(t.data, stop_gradient=t.stop_gradient) if marked_not_inplace else t
    if not marked_not_inplace and t.is_leaf and not t.stop_gradient:
        raise ValueError(
            f"{cls.__name__}.forward returned its input {t.name or 'tensor'} (shape {t.shape}), "
            "a leaf that needs a gradient, as it is: Paddle's in-place strategy cannot apply to "
            "it. Call ctx.mark_not_inplace(x) in forward to get a new output Tensor on the same "
            "values, or return x.clone().")
    return Tensor(t.data)


class _OutputGrads:
    """The gradients of a PyLayer's outputs on their way to its node, by output position. The
    engine sums the gradients that reach a node with ``+`` and reads ``dtype.kind``; this
    merges the positions, so the node runs once with every output's gradient."""

    __slots__ = ("grads",)
    dtype = np.dtype(object)  # not complex: the engine leaves it as it is

    def __init__(self, grads: dict):
        self.grads = grads

    def __add__(self, other: _OutputGrads) -> _OutputGrads:
        merged = dict(self.grads)
        for i, g in other.grads.items():
            merged[i] = g if i not in merged else merged[i] + g
        return _OutputGrads(merged)


def _tagged(position: int, grad):  # an output's backward: its gradient, tagged
    return (_OutputGrads({position: grad}),)


def _tagged_tensor(position: int, out, grad):  # the same, for create_graph
    return (_OutputGrads({position: grad}),)


class _PyLayerNode(Tensor):
    """The hidden node of one PyLayer call: its parents are forward's Tensor inputs."""

    __slots__ = ()


def _connect(cls, ctx, slots: list, flat: list, marked: list, out_slots: list) -> None:  # noqa: PLR0913
    op = f"PyLayer {cls.__name__}"
    parents = tuple(t for slot in slots for t in slot.tensors)
    # What materialising a missing output gradient needs, without keeping the outputs alive.
    makers = [_zeros_maker(t.data) for t in flat]
    node = _PyLayerNode(np.empty(0), stop_gradient=False)
    call = functools.partial(_run_backward, cls, ctx, slots, makers, out_slots)
    node._parents, node._op = parents, op
    node._backward = functools.partial(call, False)
    node._grad_fn = lambda _node, packed: call(True, packed)
    for position, (t, non_differentiable) in enumerate(zip(flat, marked)):
        t.stop_gradient = non_differentiable
        if non_differentiable:
            continue
        t._parents, t._op = (node,), op
        t._backward = functools.partial(_tagged, position)
        t._grad_fn = functools.partial(_tagged_tensor, position)


def _zeros_maker(data):
    """A function making zeros of ``data``'s shape, dtype and device (``data`` not kept)."""
    shape, dtype, xp = data.shape, data.dtype, backend.array_module(data)
    return lambda: xp.zeros(shape, dtype=dtype)


def _run_backward(cls, ctx, slots, makers, out_slots, graph: bool, packed):  # noqa: PLR0913
    """The user's backward on the outputs' gradients (arrays, or Tensors when ``graph``): one
    gradient per parent (forward's Tensor inputs, flattened), as arrays or Tensors."""
    grads = []
    for position, zeros in enumerate(makers):
        g = packed.grads.get(position)
        if g is None:
            grads.append(Tensor(zeros()) if ctx.materialize_grads else None)
        else:
            grads.append(g if graph else Tensor(g))
    if graph:
        result = cls.backward(ctx, *_regrouped(grads, out_slots))
    else:
        with no_grad():
            result = cls.backward(ctx, *_regrouped(grads, out_slots))
    flat = _returned_gradients(cls, result, slots)
    return tuple(None if g is None else g if graph else g.data for g in flat)


def _regrouped(grads: list, out_slots: list) -> list:
    """The flat output gradients grouped as forward returned them: a list for a list output."""
    grouped, i = [], 0
    for count in out_slots:
        if count == -1:
            grouped.append(grads[i])
            i += 1
        else:
            grouped.append(grads[i:i + count])
            i += count
    return grouped


def _returned_gradients(cls, result, slots: list) -> list:
    """What the user's backward returned, checked and flattened to one entry per parent."""
    one_list_input = len(slots) == 1 and slots[0].is_list
    given = list(result) if isinstance(result, tuple) or (
        isinstance(result, list) and not one_list_input) else [result]
    missing = [i for i in range(len(given), len(slots))
               if any(not t.stop_gradient for t in slots[i].tensors)]
    if len(given) > len(slots) or missing:
        raise ValueError(
            f"{cls.__name__}.backward returned {len(given)} gradient(s), but forward took "
            f"{len(slots)} Tensor input(s), so {len(slots)} were expected: return one gradient "
            "per Tensor input of forward, in order (a Tensor, or None for an input that needs "
            "none; a list of them for an input given as a list of Tensors), as a tuple when "
            "there are several. Non-Tensor arguments of forward get none.")
    flat = []
    for i, slot in enumerate(slots):
        value = given[i] if i < len(given) else None
        values = _slot_values(cls, i, slot, value)
        for t, g in zip(slot.tensors, values):
            flat.append(None if t.stop_gradient else _checked(cls, i, t, g))
    return flat


def _slot_values(cls, i: int, slot: _Slot, value) -> list:
    if not slot.is_list:
        return [value]
    if value is None:
        return [None] * len(slot.tensors)
    if not isinstance(value, (list, tuple)) or len(value) != len(slot.tensors):
        raise ValueError(
            f"{cls.__name__}.backward: input {i} of forward was a list of {len(slot.tensors)} "
            f"Tensors, so its gradient must be a list or tuple of {len(slot.tensors)} "
            f"Tensors (or None), got {value!r}")
    return list(value)


def _checked(cls, i: int, t: Tensor, g):
    if g is None:
        return None
    if not isinstance(g, Tensor):
        raise TypeError(f"{cls.__name__}.backward: the gradient of input {i} must be a Tensor "
                        f"or None, got {type(g).__name__}")
    if tuple(g.shape) != tuple(t.shape):
        raise ValueError(f"{cls.__name__}.backward: the gradient of input {i} has shape "
                         f"{g.shape}, but that input has shape {t.shape}")
    return g
