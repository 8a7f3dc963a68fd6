"""Embedding, GRU and LSTM layers (Paddle 2.x names), batch-first with ``sequence_length``.

Instead of packing, a batch is padded and ``sequence_length`` ([batch] ints) says each row's real
length: states stop changing after a row's last step, so the final states are those of each
row's last real step, and outputs at padded steps are zeros (Paddle's fused rnn op). A projected
LSTM (``proj_size > 0``), which Paddle runs as ``RNN(LSTMCell)`` / ``BiRNN`` instead, gives
what those give at padded steps (see ``core.nn.rnn_cells``).
``direction="bidirect"`` adds a backward-in-time recurrence per layer (names ``*_reverse``).
``time_major=True`` takes and returns ``[time, batch, features]`` (Paddle's and torch's
time-major layout): a transpose around the batch-first kernels; final states are
``[L * D, batch, H]`` either way.
"""
from __future__ import annotations

import math

import core
from core import backend
from core.nn import initializer
from core.nn.functional import rnn as R
from core.nn.functional import sequence as S
from core.nn.functional.activation import sigmoid
from core.nn.functional.common import dropout
from core.nn.layer import Layer
from core.tensor import Tensor


def _positive(owner: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{owner}: {name}={value!r} must be a positive integer.")
    return value


class Embedding(Layer):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``, looked up by id.

    Paddle 3.x's ``Embedding(num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
    norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False,
    device=None, dtype=None, weight_attr=None, name=None)`` (core keeps 3.0's positional
    ``sparse``, ``scale_grad_by_freq``, ``weight_attr``, ``name``). The weight starts
    Xavier-uniform (Paddle's default), or holds ``_weight``'s values (a [num_embeddings,
    embedding_dim] tensor; ``_freeze=True`` then stops its gradient, as without
    ``weight_attr``); ``device`` / ``dtype`` place and cast it (``Layer.to``). ``sparse=True``
    gives the weight row-sparse gradients, which the optimizers update lazily
    (``core.optimizer.sparse_rows``);
    ``padding_idx`` names an id whose row starts at zero, outputs zeros and never receives a
    gradient; ``max_norm`` renormalises looked-up rows (see ``functional.embedding``).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, sparse: bool = False,
                 scale_grad_by_freq: bool = False, weight_attr=None, name: str | None = None,
                 *, _weight=None, _freeze: bool = False, device=None, dtype=None):
        super().__init__(name)
        self.num_embeddings = _positive("Embedding", "num_embeddings", num_embeddings)
        self.embedding_dim = _positive("Embedding", "embedding_dim", embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx={padding_idx} is outside [-"
                                 f"{num_embeddings}, {num_embeddings - 1}].")
            padding_idx %= num_embeddings
        if scale_grad_by_freq:
            raise ValueError("Embedding: scale_grad_by_freq=True is not supported; use False.")
        self.padding_idx, self.sparse = padding_idx, bool(sparse)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                            default_initializer=initializer.XavierUniform())
        if device is not None or dtype is not None:
            self.to(device=device, dtype=dtype)
        if _weight is not None:
            self._take_weight(_weight)
        if _freeze and (_weight is not None or weight_attr is None):  # Paddle's rule
            self.weight.stop_gradient = True
        if padding_idx is not None:
            self.weight.data[padding_idx] = 0

    def _take_weight(self, weight) -> None:
        """Paddle 3.x's ``_weight``: its values (cast to the weight's dtype) become the
        weight's; the Parameter stays core's own, so optimisers and state_dict see one object."""
        values = weight.data if isinstance(weight, Tensor) else backend.asarray(weight)
        want = [self.num_embeddings, self.embedding_dim]
        if list(values.shape) != want:
            raise ValueError(f"Embedding: _weight has shape {list(values.shape)}, but "
                             f"[num_embeddings, embedding_dim] = {want}.")
        xp = backend.array_module(self.weight.data)
        self.weight.data[...] = xp.asarray(values).astype(self.weight.data.dtype, copy=False)

    def forward(self, x) -> Tensor:
        return S.embedding(x, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.sparse)

    def extra_repr(self) -> str:
        return (f"{self.num_embeddings}, {self.embedding_dim}, padding_idx={self.padding_idx}, "
                f"sparse={self.sparse}")


DIRECTIONS = ("forward", "bidirect", "bidirectional")  # Paddle's values; the last two agree
_LABELS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


class _RNN(Layer):
    """Shared by GRU, LSTM and SimpleRNN: parameters, checks, and the layer-by-direction loop.

    Paddle's ``GRU(input_size, hidden_size, num_layers=1, direction='forward',
    time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
    bias_ih_attr=None, bias_hh_attr=None, name=None)``: each ``*_attr`` applies to that
    parameter of every layer and direction, as Paddle passes it to every cell; ``False`` makes a
    weight a frozen tensor of ones and leaves a bias out (the cells' convention).

    A bidirectional layer runs a second recurrence over each row reversed *within its length*
    (``sequence_reverse``), so it starts at the last real step rather than in the padding; its
    outputs are reversed back and concatenated after the forward ones on the feature axis.
    """

    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name: str | None = None):
        super().__init__(name)
        owner = type(self).__name__
        self.input_size = _positive(owner, "input_size", input_size)
        self.hidden_size = _positive(owner, "hidden_size", hidden_size)
        self.num_layers = _positive(owner, "num_layers", num_layers)
        if direction not in DIRECTIONS:
            raise ValueError(f"{owner}: direction={direction!r} is not supported; use one of "
                             f"{', '.join(repr(d) for d in DIRECTIONS)}.")
        if not isinstance(time_major, bool):
            raise ValueError(f"{owner}: time_major={time_major!r} must be True ([time, batch, "
                             "features] inputs and outputs) or False ([batch, time, features]).")
        self.time_major = time_major
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"{owner}: dropout={dropout!r} must lie in [0, 1).")
        self.direction, self.dropout = direction, dropout
        self.num_directions = 1 if direction == "forward" else 2
        bound = 1.0 / math.sqrt(hidden_size)
        init = initializer.Uniform(-bound, bound)  # Paddle's default for RNN weights
        size = self._gates * hidden_size
        attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        state = self._state_size()
        # Paddle's (and torch's) names and order: layer by layer, forward then "_reverse".
        for k in range(num_layers):
            width = input_size if k == 0 else state * self.num_directions
            for suffix in ("", "_reverse")[:self.num_directions]:
                for label, shape, attr in zip(_LABELS, ([size, width], [size, state],
                                                        [size], [size]), attrs):
                    setattr(self, f"{label}_l{k}{suffix}",
                            self._parameter(label, shape, attr, init))

    def _state_size(self) -> int:
        """The size of the recurrent state h (what ``weight_hh`` multiplies and each layer
        outputs per direction): ``hidden_size``, or LSTM's ``proj_size`` when it projects."""
        return self.hidden_size

    def _parameter(self, label: str, shape, attr, init):
        """One weight or bias under its ``*_attr`` (see the class docstring for ``False``)."""
        if attr is not False:
            return self.create_parameter(shape, attr=attr, is_bias=label.startswith("bias"),
                                         default_initializer=init)
        if label.startswith("bias"):
            return None  # the kernels take a missing bias as zeros
        # A frozen weight of ones with its own initializer, which set_global_initializer does
        # not override (Paddle's cells do the same).
        return self.create_parameter(shape, attr={"trainable": False,
                                                  "initializer": initializer.Constant(1.0)})

    def _state_aliases(self) -> list[tuple[str, str]]:
        """Paddle's second names for every weight and bias, its cells' (``0.cell.weight_ih``,
        bidirectional ``0.cell_fw.*`` / ``0.cell_bw.*``; LSTM's projection
        ``0.cell.weight_ho``), which its state_dict lists after the flat ones."""
        cells = ("cell",) if self.num_directions == 1 else ("cell_fw", "cell_bw")
        return [(f"{k}.{cell}.{label}", f"{label}_l{k}{suffix}")
                for k in range(self.num_layers)
                for cell, suffix in zip(cells, ("", "_reverse"))
                for label in (*_LABELS, "weight_ho")
                if self._parameters.get(f"{label}_l{k}{suffix}") is not None]

    def _layer(self, k: int, reverse: bool):
        suffix = "_reverse" if reverse else ""
        return [getattr(self, f"{label}_l{k}{suffix}") for label in _LABELS]

    def _batch_first(self, inputs):
        """``inputs`` as [batch, time, features]: time-major ones are transposed (the kernels
        run batch-first; the transpose is differentiable, so gradients come back time-major)."""
        if self.time_major and isinstance(inputs, Tensor) and inputs.ndim == 3:
            return core.transpose(inputs, [1, 0, 2])
        return inputs

    def _time_first(self, outputs: Tensor) -> Tensor:
        """Batch-first ``outputs`` back to the caller's layout."""
        return core.transpose(outputs, [1, 0, 2]) if self.time_major else outputs

    def _check(self, inputs: Tensor, sequence_length):
        if inputs.ndim != 3 or inputs.shape[2] != self.input_size:
            layout = "time, batch" if self.time_major else "batch, time"
            shape = inputs.shape if not self.time_major or inputs.ndim != 3 else \
                [inputs.shape[1], inputs.shape[0], inputs.shape[2]]
            raise ValueError(f"{type(self).__name__}: inputs must be [{layout}, "
                             f"{self.input_size}] (time_major={self.time_major}), got {shape}.")
        if sequence_length is None:
            return None
        lens = sequence_length.data if isinstance(sequence_length, Tensor) \
            else backend.asarray(sequence_length)
        if lens.shape != (inputs.shape[0],) or lens.dtype.kind not in "iu" or (
                lens.size and (int(lens.min()) < 1 or int(lens.max()) > inputs.shape[1])):
            raise ValueError(f"{type(self).__name__}: sequence_length must be {inputs.shape[0]} "
                             f"integers in [1, {inputs.shape[1]}].")
        return lens

    def _check_states(self, states, batch: int, what: str, size: int | None = None) -> None:
        want = [self.num_layers * self.num_directions, batch, size or self.hidden_size]
        if list(states.shape) != want:
            label = "proj_size" if size and size != self.hidden_size else "hidden_size"
            raise ValueError(f"{type(self).__name__}: {what} must be [num_layers * "
                             f"num_directions, batch, {label}] = {want}, got "
                             f"{list(states.shape)}.")

    def _zeros(self, batch: int, dtype, size: int | None = None) -> Tensor:
        return Tensor(backend.array_module(self.weight_hh_l0.data).zeros(
            (batch, size or self.hidden_size), dtype=dtype))

    def _between_layers(self, x: Tensor, k: int) -> Tensor:
        if self.dropout and k < self.num_layers - 1:
            return dropout(x, self.dropout, training=self.training)
        return x

    def _outputs(self, carried: Tensor, lens) -> Tensor:
        if lens is None:
            return carried
        mask = S.length_mask(lens, carried.shape[1], carried.dtype)[:, :, None]
        return carried * Tensor(mask)

    def _stepped(self) -> bool:
        """Whether Paddle runs this configuration through ``RNN(cell)`` / ``BiRNN`` (stepping
        its cells) rather than its fused rnn op: then padded steps output what the cell gives
        from the held states, and a backward pass reverses whole rows (see ``RNN``)."""
        return False

    def _run(self, inputs: Tensor, lens, scan):
        """Every layer and direction: ``scan(x, params, index)`` -> (carried outputs, final).

        ``index`` is the state's row in ``[num_layers * num_directions, ...]`` (layer-major,
        forward first); returns the last layer's outputs and the list of finals in that order.
        A backward pass gets ``x`` reversed within each row's length, or whole rows where
        ``_stepped``.
        """
        x, finals = inputs, []
        for k in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                index = k * self.num_directions + d
                if self._stepped():  # Paddle's RNN(cell): whole rows reversed, no zeroing
                    carried, final = scan(core.flip(x, 1) if d else x, self._layer(k, d), index)
                    outs.append(core.flip(carried, 1) if d else carried)
                else:
                    seq = S.sequence_reverse(x, lens) if d else x
                    carried, final = scan(seq, self._layer(k, d == 1), index)
                    out = self._outputs(carried, lens)
                    outs.append(S.sequence_reverse(out, lens) if d else out)
                finals.append(final)
            x = outs[0] if len(outs) == 1 else core.concat(outs, axis=-1)
            x = self._between_layers(x, k)
        return x, finals

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}"
        text += f", direction={self.direction!r}" if self.num_directions == 2 else ""
        return text + (", time_major=True" if self.time_major else "")


class GRU(_RNN):
    """Gated recurrent unit (Paddle's ``GRU``, batch-first), forward or bidirectional.

    ``forward(inputs [B, T, input_size], initial_states [L * D, B, H] or None,
    sequence_length [B] or None) -> (outputs [B, T, D * H], final_states [L * D, B, H])`` with
    ``L = num_layers`` and ``D = 2`` for ``direction="bidirect"`` (else 1); final states are
    layer-major, forward before backward.
    """

    _gates = 3

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None):
        inputs = self._batch_first(inputs)
        lens = self._check(inputs, sequence_length)
        if initial_states is not None:
            self._check_states(initial_states, inputs.shape[0], "initial_states")

        def scan(x, params, index):
            w_ih, w_hh, b_ih, b_hh = params
            h0 = initial_states[index] if initial_states is not None else \
                self._zeros(inputs.shape[0], inputs.dtype)
            carried = R.gru(x, h0, w_ih, w_hh, b_ih, b_hh, lens)
            return carried, carried[:, -1]

        outputs, finals = self._run(inputs, lens, scan)
        return self._time_first(outputs), core.stack(finals)


class LSTM(_RNN):
    """Long short-term memory, Paddle's ``LSTM(input_size, hidden_size, num_layers=1,
    direction='forward', time_major=False, dropout=0.0, weight_ih_attr=None,
    weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None)``
    (batch-first), forward or bidirectional.

    ``forward(inputs, initial_states=(h0, c0) or None, sequence_length=None) ->
    (outputs [B, T, D * P], (h [L * D, B, P], c [L * D, B, H]))``, shapes as for ``GRU`` with
    ``P = proj_size or hidden_size``. ``proj_size > 0`` projects each step's output, ``h' =
    (o * tanh(c')) W_ho``, through ``weight_ho_l{k}`` [hidden_size, proj_size] (under
    ``weight_hh_attr``, as ``LSTMCell``'s); ``weight_hh`` is then [4H, proj_size] (torch's
    ``proj_size`` with ``weight_hr = W_ho^T``). The projected recurrence runs step by step in
    core's ops (the fused kernel's state is square) with Paddle's semantics for it, those of
    ``RNN(LSTMCell)``: padded steps output the step from the held states, not zeros.
    """

    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size: int = 0, name: str | None = None):
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or proj_size < 0 or (
                isinstance(hidden_size, int) and proj_size >= hidden_size > 0):
            raise ValueError(f"LSTM: proj_size={proj_size!r} must be an integer in [0, "
                             f"hidden_size) = [0, {hidden_size}); 0 means no projection.")
        self.proj_size = proj_size  # read by _state_size while the parameters are made
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name)
        if proj_size:
            bound = 1.0 / math.sqrt(hidden_size)
            init = initializer.Uniform(-bound, bound)
            for k in range(num_layers):
                for suffix in ("", "_reverse")[:self.num_directions]:
                    setattr(self, f"weight_ho_l{k}{suffix}", self._parameter(
                        "weight_ho", [hidden_size, proj_size], weight_hh_attr, init))

    def _state_size(self) -> int:
        return self.proj_size or self.hidden_size

    def _stepped(self) -> bool:
        return bool(self.proj_size)  # Paddle's fused op has no projection

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None):
        inputs = self._batch_first(inputs)
        lens = self._check(inputs, sequence_length)
        state = self._state_size()
        if initial_states is not None:
            for what, states, size in zip(("initial_states[0] (h)", "initial_states[1] (c)"),
                                          initial_states, (state, self.hidden_size)):
                self._check_states(states, inputs.shape[0], what, size)

        def scan(x, params, index):
            w_ih, w_hh, b_ih, b_hh = params
            if initial_states is not None:
                h0, c0 = initial_states[0][index], initial_states[1][index]
            else:
                h0 = self._zeros(inputs.shape[0], inputs.dtype, state)
                c0 = self._zeros(inputs.shape[0], inputs.dtype)
            if self.proj_size:
                k, reverse = divmod(index, self.num_directions)
                w_ho = getattr(self, f"weight_ho_l{k}{'_reverse' if reverse else ''}")
                return _projected_scan(x, h0, c0, params, w_ho, lens, bool(reverse))
            both = R.lstm(x, h0, c0, w_ih, w_hh, b_ih, b_hh, lens)
            return both[0], (both[0][:, -1], both[1][:, -1])

        outputs, finals = self._run(inputs, lens, scan)
        return self._time_first(outputs), (core.stack([h for h, _ in finals]),
                                           core.stack([c for _, c in finals]))

    def extra_repr(self) -> str:
        return super().extra_repr() + (f", proj_size={self.proj_size}" if self.proj_size else "")


def _projected_scan(x: Tensor, h: Tensor, c: Tensor, params, w_ho: Tensor, lens,
                    reverse: bool = False):
    """(step outputs h [B, T, P], (final h, final c)) of a projected LSTM over ``x`` [B, T, I]
    (whole rows reversed when ``reverse``: the padding then comes first).

    Paddle steps ``LSTMCell`` here (``RNN(cell)``): a row keeps its states at padded steps,
    while its output there is still the step's ``h`` from the kept states."""
    w_ih, w_hh, b_ih, b_hh = params
    projected = core.matmul(x, w_ih, transpose_y=True)  # every step's input part at once
    if b_ih is not None:
        projected = projected + b_ih
    mask = None if lens is None else S.length_mask(lens, x.shape[1], x.dtype)
    mask = None if mask is None else Tensor(mask[:, ::-1] if reverse else mask)
    carried = []
    for t in range(x.shape[1]):
        gates = projected[:, t] + core.matmul(h, w_hh, transpose_y=True)
        if b_hh is not None:
            gates = gates + b_hh
        i, f, g, o = core.split(gates, 4, axis=-1)
        c_new = sigmoid(f) * c + sigmoid(i) * core.tanh(g)
        h_new = core.matmul(sigmoid(o) * core.tanh(c_new), w_ho)
        if mask is None:
            h, c = h_new, c_new
        else:
            keep = mask[:, t:t + 1]
            h, c = keep * h_new + (1 - keep) * h, keep * c_new + (1 - keep) * c
        carried.append(h_new)
    return core.stack(carried, axis=1), (h, c)


class SimpleRNN(_RNN):
    """Elman recurrence ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``, Paddle's
    ``SimpleRNN(input_size, hidden_size, num_layers=1, direction='forward',
    time_major=False, dropout=0.0, activation='tanh', weight_ih_attr=None,
    weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None)`` (batch-first;
    ``activation`` comes after ``dropout`` in Paddle's source, whatever its older Chinese docs
    showed).

    ``forward(inputs, initial_states=None, sequence_length=None) -> (outputs [B, T, D * H],
    final_states [L * D, B, H])``, shapes and padding behaviour as for ``GRU``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 activation: str = "tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name: str | None = None):
        if activation not in R.SIMPLE_RNN_ACTIVATIONS:
            raise ValueError(f"SimpleRNN: activation={activation!r} is not supported; use "
                             "'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name)
        self.activation = activation

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None):
        inputs = self._batch_first(inputs)
        lens = self._check(inputs, sequence_length)
        if initial_states is not None:
            self._check_states(initial_states, inputs.shape[0], "initial_states")

        def scan(x, params, index):
            w_ih, w_hh, b_ih, b_hh = params
            h0 = initial_states[index] if initial_states is not None else \
                self._zeros(inputs.shape[0], inputs.dtype)
            carried = R.simple_rnn(x, h0, w_ih, w_hh, b_ih, b_hh, lens, self.activation)
            return carried, carried[:, -1]

        outputs, finals = self._run(inputs, lens, scan)
        return self._time_first(outputs), core.stack(finals)
