"""RNN cells (one time step) and the wrappers that run them over sequences, Paddle's
``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``, ``RNN`` and ``BiRNN``.

A cell maps ``(inputs [B, input_size], states)`` to ``(outputs, new states)``; its parameters
have the names, shapes, gate orders and initialisation of the full-sequence layers in
``core.nn.rnn`` (``weight_ih`` ``[gates * H, input_size]``, ``weight_hh``, ``bias_ih``,
``bias_hh``; uniform in +-1/sqrt(H)), and a step runs the same fused op as those layers, over one
time step, so a cell stepped over a sequence gives the layer's numbers.

``RNN(cell)`` steps a cell over ``[B, T, F]`` inputs. For the three cells here, when stepping
would do nothing but call the cell's own ``forward`` (no hooks on the cell, no extra keyword
arguments), it runs the fused op over the whole sequence at once instead: the same numbers
without T small ops per gate, the reason the op exists (core/nn/functional/rnn.py). Any other
Layer with ``forward(inputs, states) -> (outputs, new_states)`` is stepped one step at a time.

With ``sequence_length``, a row's states stop changing after its last real step (the final
states are those of that step), as in Paddle's ``rnn``; its outputs at padded steps are, as
there, what the cell outputs for the padded input from the held states (not zeros, unlike the
GRU/LSTM layers' fused op). A backward-in-time pass reverses whole rows, so a row meets its
padding first and holds its initial states through it, then starts at its last real step
(docs/paddle.md, "RNN cells" and "The recurrent family against Paddle 3.3.1").
"""
from __future__ import annotations

import math
from functools import partial

import core
from core import backend
from core.nn import initializer
from core.nn.functional import rnn as R
from core.nn.functional import sequence as S
from core.nn.functional.activation import sigmoid, tanh
from core.nn.layer import Layer
from core.nn.rnn import _positive
from core.tensor import Tensor


# ----- nested structures of states (a Tensor, or tuples / lists of them) ----------------------
def _map(fn, *trees):
    """``fn`` applied leaf by leaf to equally nested tuples / lists of Tensors."""
    first = trees[0]
    if isinstance(first, (tuple, list)):
        if any(not isinstance(t, (tuple, list)) or len(t) != len(first) for t in trees[1:]):
            raise ValueError("nested states differ in structure: "
                             f"{' vs '.join(_structure(t) for t in trees)}")
        return type(first)(_map(fn, *parts) for parts in zip(*trees))
    if any(isinstance(t, (tuple, list)) for t in trees[1:]):
        raise ValueError("nested states differ in structure: "
                         f"{' vs '.join(_structure(t) for t in trees)}")
    return fn(*trees)


def _structure(tree) -> str:
    if isinstance(tree, (tuple, list)):
        return "(" + ", ".join(_structure(t) for t in tree) + ")"
    return str(list(getattr(tree, "shape", ()))) if hasattr(tree, "shape") else type(tree).__name__


def _tensor(value) -> Tensor:
    """A state given as a numpy / cupy array becomes a constant Tensor (as layer inputs do)."""
    return value if isinstance(value, Tensor) else Tensor(backend.asarray(value))


def _is_shape(value) -> bool:
    return isinstance(value, (tuple, list)) and all(
        isinstance(n, int) and not isinstance(n, bool) for n in value)


class RNNCellBase(Layer):
    """Base of the RNN cells (Paddle's ``RNNCellBase``): ``get_initial_states`` builds the
    states a cell starts from, shaped by the cell's ``state_shape`` property.

    A cell of one's own subclasses it, defines ``forward(inputs, states) -> (outputs,
    new_states)`` and ``state_shape`` (a shape without the batch axis, or a tuple of them), and
    runs over sequences in ``RNN`` / ``BiRNN``.
    """

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value: float = 0.0,
                           batch_dim_idx: int = 0):
        """States filled with ``init_value``, batch size ``batch_ref.shape[batch_dim_idx]``.

        ``shape`` (default ``self.state_shape``) is one shape or a nested tuple of them, each
        without the batch axis (a leading -1 stands for it, as in Paddle). ``dtype`` (default
        ``state_dtype`` where the cell defines it, else ``batch_ref``'s floating dtype, else
        the layer's) is one dtype for all, or nested as ``shape``.
        """
        while isinstance(batch_ref, (tuple, list)):  # Paddle takes the first of a structure
            batch_ref = batch_ref[0]
        batch_ref = _tensor(batch_ref)
        batch = batch_ref.shape[batch_dim_idx]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                kind = batch_ref.data.dtype
                dtype = kind if kind.kind == "f" else self._dtype
        xp = backend.array_module(batch_ref.data)

        def build(one, kind):
            dims = [int(n) for n in one]
            dims = dims[1:] if dims and dims[0] == -1 else dims
            return Tensor(xp.full([batch, *dims], init_value, dtype=kind))

        def walk(one, kind):
            if _is_shape(one):
                return build(one, kind)
            if not isinstance(one, (tuple, list)):
                raise ValueError(f"{type(self).__name__}.get_initial_states: shape={shapes!r} "
                                 "must be a shape (a tuple of ints) or a nested tuple of them.")
            kinds = kind if isinstance(kind, (tuple, list)) else [kind] * len(one)
            return type(one)(walk(s, k) for s, k in zip(one, kinds))

        return walk(shapes, dtype)

    @property
    def state_shape(self):
        """The states' shape without the batch axis (nested for several states)."""
        raise NotImplementedError(f"{type(self).__name__} must define state_shape to start "
                                  "from get_initial_states; or pass the states explicitly.")

    @property
    def state_dtype(self):
        """The states' dtype(s); cells that leave it undefined follow their inputs."""
        raise NotImplementedError(f"{type(self).__name__} defines no state_dtype.")


class _FusedCell(RNNCellBase):
    """The three cells here: parameters, checks, and the whole-sequence path of ``RNN``."""

    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name: str | None = None, recurrent_size: int | None = None):
        super().__init__(name)
        owner = type(self).__name__
        self.input_size = _positive(owner, "input_size", input_size)
        self.hidden_size = _positive(owner, "hidden_size", hidden_size)
        bound = 1.0 / math.sqrt(hidden_size)
        init = initializer.Uniform(-bound, bound)  # Paddle's default for RNN weights
        size = self._gates * hidden_size
        self.weight_ih = self._weight([size, input_size], weight_ih_attr, init)
        self.weight_hh = self._weight([size, recurrent_size or hidden_size], weight_hh_attr, init)
        # No parameter for a bias set to False (core's convention, as Linear's bias_attr):
        # Paddle keeps a frozen zero one; the output is the same.
        self.bias_ih = None if bias_ih_attr is False else self.create_parameter(
            [size], attr=bias_ih_attr, is_bias=True, default_initializer=init)
        self.bias_hh = None if bias_hh_attr is False else self.create_parameter(
            [size], attr=bias_hh_attr, is_bias=True, default_initializer=init)

    def _weight(self, shape, attr, init):
        if attr is False:  # Paddle: a frozen weight of ones
            # Its own initializer, which set_global_initializer does not override (Paddle).
            return self.create_parameter(shape, attr={"trainable": False,
                                                      "initializer": initializer.Constant(1.0)})
        return self.create_parameter(shape, attr=attr, default_initializer=init)

    def _inputs(self, inputs) -> Tensor:
        inputs = _tensor(inputs)
        if inputs.ndim != 2 or inputs.shape[1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: inputs must be [batch, input_size] = "
                             f"[batch, {self.input_size}], got {inputs.shape}.")
        return inputs

    def _state(self, state, batch: int, width: int, what: str) -> Tensor:
        state = _tensor(state)
        if list(state.shape) != [batch, width]:
            raise ValueError(f"{type(self).__name__}: {what} must be [batch, {width}] = "
                             f"{[batch, width]}, got {list(state.shape)}.")
        return state

    def _start(self, inputs: Tensor, states) -> Tensor:
        """The one state of a SimpleRNN or GRU cell: zeros for None, else checked."""
        if states is None:
            return self.get_initial_states(inputs)
        return self._state(states, inputs.shape[0], self.hidden_size, "states")

    def _fusable(self) -> bool:
        """Whether running ``_scan`` over a sequence is exactly stepping this cell: its class's
        ``forward`` is this module's, and no hook or error clip would see each step."""
        return (type(self).forward is type(self)._stepped and not self._forward_pre_hooks
                and not self._forward_post_hooks and self.error_clip is None)

    def _params(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


def _one_step(x: Tensor) -> Tensor:
    """``[B, F]`` -> ``[B, 1, F]``: a one-step sequence for the fused ops."""
    return core.unsqueeze(x, 1)


def _last(carried: Tensor) -> Tensor:
    """``[B, 1, H]`` -> ``[B, H]``."""
    return core.squeeze(carried, 1)


class SimpleRNNCell(_FusedCell):
    """Elman cell ``h = act(x W_ih^T + b_ih + h_prev W_hh^T + b_hh)``, ``y = h`` (Paddle's
    ``SimpleRNNCell(input_size, hidden_size, activation='tanh', weight_ih_attr=None,
    weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None)``).

    ``forward(inputs [B, input_size], states [B, hidden_size] or None (zeros)) -> (h, h)``.
    ``activation`` is "tanh" or "relu"; ``*_attr=False``: a bias is left out, a weight is
    frozen at ones (Paddle's meaning).
    """

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name: str | None = None):
        if activation not in R.SIMPLE_RNN_ACTIVATIONS:
            raise ValueError(f"SimpleRNNCell: activation={activation!r} is not supported; use "
                             "'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr, name)
        self.activation = activation

    def forward(self, inputs, states=None):
        inputs = self._inputs(inputs)
        h = self._start(inputs, states)
        new = _last(R.simple_rnn(_one_step(inputs), h, *self._params(),
                                 activation=self.activation))
        return new, new

    _stepped = forward

    def _scan(self, x: Tensor, states, lens):
        """(carried outputs ``[B, T, H]``, final states) over the whole sequence ``x``."""
        h = self._state(states, x.shape[0], self.hidden_size, "initial_states")
        carried = R.simple_rnn(x, h, *self._params(), lens, self.activation)
        return carried, carried[:, -1]

    @property
    def state_shape(self):
        """``(hidden_size,)``."""
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text + (f", activation={self.activation}" if self.activation != "tanh" else "")


class GRUCell(_FusedCell):
    """Gated recurrent unit cell (Paddle's ``GRUCell(input_size, hidden_size,
    weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
    name=None)``), gate order (r, z, c)::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        c = tanh(W_ic x + b_ic + r * (W_hc h + b_hc))
        h' = z * h + (1 - z) * c,   y = h'

    ``forward(inputs [B, input_size], states [B, hidden_size] or None (zeros)) -> (h', h')``.
    """

    _gates = 3

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name: str | None = None):
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr, name)

    def forward(self, inputs, states=None):
        inputs = self._inputs(inputs)
        h = self._start(inputs, states)
        new = _last(R.gru(_one_step(inputs), h, *self._params()))
        return new, new

    _stepped = forward

    def _scan(self, x: Tensor, states, lens):
        """(carried outputs ``[B, T, H]``, final states) over the whole sequence ``x``."""
        h = self._state(states, x.shape[0], self.hidden_size, "initial_states")
        carried = R.gru(x, h, *self._params(), lens)
        return carried, carried[:, -1]

    @property
    def state_shape(self):
        """``(hidden_size,)``."""
        return (self.hidden_size,)


class LSTMCell(_FusedCell):
    """Long short-term memory cell (Paddle 3.x's ``LSTMCell(input_size, hidden_size,
    weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
    proj_size=0, name=None)``), gate order (i, f, g, o)::

        i, f, o = sigmoid(W_i. x + b_i. + W_h. h + b_h.)
        g = tanh(W_ig x + b_ig + W_hg h + b_hg)
        c' = f * c + i * g,   h' = o * tanh(c')   (h' = h' W_ho with proj_size > 0),   y = h'

    ``forward(inputs [B, input_size], states (h, c) or None (zeros)) -> (h', (h', c'))``; ``h``
    is ``[B, proj_size or hidden_size]``, ``c`` ``[B, hidden_size]``. ``proj_size > 0`` adds
    ``weight_ho`` ``[hidden_size, proj_size]`` and makes ``weight_hh`` ``[4H, proj_size]``.
    """

    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size: int = 0,
                 name: str | None = None):
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or proj_size < 0 or (
                isinstance(hidden_size, int) and proj_size >= hidden_size > 0):
            raise ValueError(f"LSTMCell: proj_size={proj_size!r} must be an integer in [0, "
                             f"hidden_size) = [0, {hidden_size}); 0 means no projection.")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr, name, recurrent_size=proj_size or None)
        self.proj_size = proj_size
        if proj_size:
            bound = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self._weight([hidden_size, proj_size], weight_hh_attr,
                                          initializer.Uniform(-bound, bound))

    def forward(self, inputs, states=None):
        inputs = self._inputs(inputs)
        if states is None:
            h, c = self.get_initial_states(inputs)
        else:
            if not isinstance(states, (tuple, list)) or len(states) != 2:
                raise ValueError(f"LSTMCell: states must be a pair (h, c), got "
                                 f"{_structure(states)}.")
            batch = inputs.shape[0]
            h = self._state(states[0], batch, self.proj_size or self.hidden_size,
                            "states[0] (h)")
            c = self._state(states[1], batch, self.hidden_size, "states[1] (c)")
        if self.proj_size:
            h, c = self._projected_step(inputs, h, c)
        else:
            both = R.lstm(_one_step(inputs), h, c, *self._params())
            h, c = _last(both[0]), _last(both[1])
        return h, (h, c)

    _stepped = forward

    def _projected_step(self, x: Tensor, h: Tensor, c: Tensor):
        """One step with the output projection, in core's ops: the fused op's recurrence is
        square (its state is what multiplies ``weight_hh``), and a projected one is not."""
        gates = core.matmul(x, self.weight_ih, transpose_y=True) + \
            core.matmul(h, self.weight_hh, transpose_y=True)
        for bias in (self.bias_ih, self.bias_hh):
            if bias is not None:
                gates = gates + bias
        i, f, g, o = core.split(gates, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * tanh(g)
        return core.matmul(sigmoid(o) * tanh(c), self.weight_ho), c

    def _fusable(self) -> bool:
        return not self.proj_size and super()._fusable()

    def _scan(self, x: Tensor, states, lens):
        """(carried outputs ``[B, T, H]``, final states ``(h, c)``) over the sequence ``x``."""
        if not isinstance(states, (tuple, list)) or len(states) != 2:
            raise ValueError(f"LSTMCell: initial_states must be a pair (h, c), got "
                             f"{_structure(states)}.")
        h = self._state(states[0], x.shape[0], self.hidden_size, "initial_states[0] (h)")
        c = self._state(states[1], x.shape[0], self.hidden_size, "initial_states[1] (c)")
        both = R.lstm(x, h, c, *self._params(), lens)
        return both[0], (both[0][:, -1], both[1][:, -1])

    @property
    def state_shape(self):
        """``((proj_size or hidden_size,), (hidden_size,))``: the shapes of h and c."""
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        return super().extra_repr() + (f", proj_size={self.proj_size}" if self.proj_size else "")


# ----- running a cell over sequences ----------------------------------------------------------
def _check_cell(owner: str, what: str, cell) -> Layer:
    if not isinstance(cell, Layer):
        raise TypeError(f"{owner}: {what} must be an RNN cell (a Layer whose forward takes "
                        f"(inputs, states)), got {type(cell).__name__}.")
    return cell


def _check_flag(owner: str, what: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{owner}: {what}={value!r} must be True or False.")
    return value


def _lengths(owner: str, sequence_length, batch: int, steps: int):
    """The lengths as a backend int array ``[batch]`` in [0, steps], or None."""
    if sequence_length is None:
        return None
    lens = sequence_length.data if isinstance(sequence_length, Tensor) \
        else backend.asarray(sequence_length)
    if lens.shape != (batch,) or lens.dtype.kind not in "iu" or (
            lens.size and (int(lens.min()) < 0 or int(lens.max()) > steps)):
        raise ValueError(f"{owner}: sequence_length must be {batch} integers in [0, {steps}] "
                         f"(one per row, at most the padded length), got "
                         f"{getattr(lens, 'dtype', '?')} of shape {list(lens.shape)}.")
    return lens


def _reverse(x: Tensor, lens) -> Tensor:
    """``x`` ``[B, T, ...]`` reversed in time within each row's length (whole rows without
    lengths); a row of length 0 stays as it is (reversing its first step alone is the same)."""
    if lens is None:
        return core.flip(x, 1)
    return S.sequence_reverse(x, backend.array_module(lens).maximum(lens, 1))


def _hold(new: Tensor, old: Tensor, keep) -> Tensor:
    """``new`` in the rows where ``keep`` ([B] bool) holds, else ``old``."""
    return core.where(keep.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)


def _step_by_step(cell, x: Tensor, states, mask, kwargs):
    """(stacked outputs ``[B, T, ...]``, final states): the cell called at every step; a row's
    states are held (``where``, so nothing from the padding leaks in) where ``mask`` is False,
    while its output there is still the cell's, as in Paddle's ``rnn``."""
    outputs = []
    for t in range(x.shape[1]):
        out, new = cell(x[:, t], states, **kwargs)
        if mask is not None:
            new = _map(partial(_hold, keep=mask[:, t]), new, states)
        states = new
        outputs.append(out)
    return _map(lambda *steps: core.stack(list(steps), axis=1), *outputs), states


def _padded_outputs(cell, x: Tensor, outputs: Tensor, held, mask) -> Tensor:
    """``outputs`` ``[B, T, H]`` of a fused scan with the padded steps (``mask`` [B, T] False)
    given what stepping gives there: the cell's output for that step's input from the ``held``
    states (the row's final states going forward, its initial ones in reverse, where Paddle
    meets the padding first). One batched cell call over all B * T steps."""
    batch, steps = x.shape[:2]
    flat = core.reshape(x, [batch * steps, *x.shape[2:]])
    repeated = _map(lambda s: core.reshape(core.expand(core.unsqueeze(s, 1),
                                                       [batch, steps, *s.shape[1:]]),
                                           [batch * steps, *s.shape[1:]]), held)
    out, _ = cell(flat, repeated)
    out = core.reshape(out, [batch, steps, *out.shape[1:]])
    return core.where(mask.reshape(mask.shape + (1,) * (out.ndim - 2)), outputs, out)


def _run(owner: str, cell, inputs, initial_states, sequence_length, time_major: bool,
         is_reverse: bool, kwargs):
    """Paddle's ``rnn``: ``(outputs, final_states)`` of ``cell`` over ``inputs``."""
    x = _tensor(inputs)
    if x.ndim < 3 or 0 in x.shape[:2]:
        layout = "[time, batch, features]" if time_major else "[batch, time, features]"
        raise ValueError(f"{owner}: inputs must be {layout} with at least one step and one "
                         f"row, got {x.shape}.")
    if time_major:
        x = core.transpose(x, [1, 0, *range(2, x.ndim)])
    batch, steps = x.shape[:2]
    lens = _lengths(owner, sequence_length, batch, steps)
    if initial_states is None:
        if not hasattr(cell, "get_initial_states"):
            raise ValueError(f"{owner}: initial_states=None needs a cell with "
                             f"get_initial_states (an RNNCellBase); {type(cell).__name__} has "
                             "none, so pass initial_states.")
        states = cell.get_initial_states(x, batch_dim_idx=0)
    else:
        states = _map(_tensor, initial_states)
    mask = None if lens is None else S.length_mask(lens, steps, "bool")
    if isinstance(cell, _FusedCell) and cell._fusable() and not kwargs:
        outputs, final = cell._scan(_reverse(x, lens) if is_reverse else x, states, lens)
        outputs = _reverse(outputs, lens) if is_reverse else outputs
        if mask is not None and not bool(mask.all()):  # no padding: nothing to fill in
            outputs = _padded_outputs(cell, x, outputs, states if is_reverse else final, mask)
        states = final
    elif is_reverse:  # Paddle reverses whole rows: a row meets its padding first, states held
        flipped = None if mask is None else mask[:, ::-1]
        outputs, states = _step_by_step(cell, core.flip(x, 1), states, flipped, kwargs)
        outputs = _map(lambda o: core.flip(o, 1), outputs)
    else:
        outputs, states = _step_by_step(cell, x, states, mask, kwargs)
    if time_major:
        outputs = _map(lambda o: core.transpose(o, [1, 0, *range(2, o.ndim)]), outputs)
    return outputs, states


class RNN(Layer):
    """Runs an RNN cell over sequences (Paddle's ``RNN(cell, is_reverse=False,
    time_major=False)``).

    ``forward(inputs [B, T, input_size] ([T, B, ...] when time_major), initial_states=None,
    sequence_length=None, **kwargs) -> (outputs [B, T, ...], final_states)``: ``outputs`` stacks
    the cell's outputs over time, ``final_states`` are the states after the last step (nested
    as the cell's). ``initial_states=None`` starts from ``cell.get_initial_states`` (zeros).
    With ``sequence_length`` ([B] integers), a row's states stop changing after its last real
    step; its padded steps output the cell's output for their input from the held states
    (Paddle's). ``is_reverse`` runs backward in time over whole rows (a row's padding comes
    first and keeps its initial states); outputs come back in input order. ``kwargs`` go to
    every call of the cell's forward.
    """

    def __init__(self, cell, is_reverse: bool = False, time_major: bool = False):
        super().__init__()
        self.cell = _check_cell("RNN", "cell", cell)
        self.is_reverse = _check_flag("RNN", "is_reverse", is_reverse)
        self.time_major = _check_flag("RNN", "time_major", time_major)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _run("RNN", self.cell, inputs, initial_states, sequence_length, self.time_major,
                    self.is_reverse, kwargs)

    def extra_repr(self) -> str:
        return f"is_reverse={self.is_reverse}, time_major={self.time_major}"


class BiRNN(Layer):
    """A forward and a backward RNN over the same sequences, outputs side by side (Paddle's
    ``BiRNN(cell_fw, cell_bw, time_major=False)``).

    ``forward(inputs, initial_states=None or (states_fw, states_bw), sequence_length=None,
    **kwargs) -> (outputs [B, T, H_fw + H_bw], (final_fw, final_bw))``: the forward cell's
    outputs, then the backward cell's, concatenated on the last axis. The backward cell reads
    each row reversed (``RNN(cell_bw, is_reverse=True)``), and its outputs are put back in
    input order; padded steps output what ``RNN`` gives there.
    """

    def __init__(self, cell_fw, cell_bw, time_major: bool = False):
        super().__init__()
        self.cell_fw = _check_cell("BiRNN", "cell_fw", cell_fw)
        self.cell_bw = _check_cell("BiRNN", "cell_bw", cell_bw)
        sizes = getattr(cell_fw, "input_size", None), getattr(cell_bw, "input_size", None)
        if None not in sizes and sizes[0] != sizes[1]:
            raise ValueError(f"BiRNN: cell_fw.input_size={sizes[0]} and cell_bw.input_size="
                             f"{sizes[1]} must be equal: both cells read the same inputs.")
        self.time_major = _check_flag("BiRNN", "time_major", time_major)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None:
            fw = bw = None
        elif isinstance(initial_states, (tuple, list)) and len(initial_states) == 2:
            fw, bw = initial_states
        else:
            raise ValueError("BiRNN: initial_states must be None or a pair (states of cell_fw, "
                             f"states of cell_bw), got {_structure(initial_states)}.")
        out_fw, final_fw = _run("BiRNN", self.cell_fw, inputs, fw, sequence_length,
                                self.time_major, False, kwargs)
        out_bw, final_bw = _run("BiRNN", self.cell_bw, inputs, bw, sequence_length,
                                self.time_major, True, kwargs)
        outputs = _map(lambda a, b: core.concat([a, b], axis=-1), out_fw, out_bw)
        return outputs, (final_fw, final_bw)

    def extra_repr(self) -> str:
        return f"time_major={self.time_major}"
