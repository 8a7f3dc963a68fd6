"""Embedding, GRU and LSTM layers (Paddle 2.x names), batch-first with ``sequence_length``.

Instead of packing, a batch is padded and ``sequence_length`` ([batch] ints) says each row's real
length: states stop changing after a row's last step, so the final states are those of each
row's last real step, and outputs at padded steps are zeros (Paddle's behaviour).
"""
from __future__ import annotations

import math

import core
from core import backend
from core.nn import initializer
from core.nn.functional import rnn as R
from core.nn.functional import sequence as S
from core.nn.functional.common import dropout
from core.nn.layer import Layer
from core.tensor import Tensor


def _positive(owner: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{owner}: {name}={value!r} must be a positive integer.")
    return value


class Embedding(Layer):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``, looked up by id.

    ``sparse=True`` gives the weight row-sparse gradients (only the looked-up rows), which the
    optimizers update lazily (``core.optimizer.sparse_rows``); ``padding_idx`` names an id whose
    row starts at zero and never receives a gradient.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 sparse: bool = False, weight_attr=None, name: str | None = None):
        super().__init__(name)
        self.num_embeddings = _positive("Embedding", "num_embeddings", num_embeddings)
        self.embedding_dim = _positive("Embedding", "embedding_dim", embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx={padding_idx} is outside [-"
                                 f"{num_embeddings}, {num_embeddings - 1}].")
            padding_idx %= num_embeddings
        self.padding_idx, self.sparse = padding_idx, bool(sparse)
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                            default_initializer=initializer.XavierNormal())
        if padding_idx is not None:
            self.weight.data[padding_idx] = 0

    def forward(self, x) -> Tensor:
        return S.embedding(x, self.weight, self.padding_idx, self.sparse)

    def extra_repr(self) -> str:
        return (f"{self.num_embeddings}, {self.embedding_dim}, padding_idx={self.padding_idx}, "
                f"sparse={self.sparse}")


class _RNN(Layer):
    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 name: str | None = None):
        super().__init__(name)
        owner = type(self).__name__
        self.input_size = _positive(owner, "input_size", input_size)
        self.hidden_size = _positive(owner, "hidden_size", hidden_size)
        self.num_layers = _positive(owner, "num_layers", num_layers)
        if direction != "forward" or time_major:
            raise ValueError(f"{owner}: only direction='forward' with time_major=False "
                             f"(batch-first) is supported, got direction={direction!r}, "
                             f"time_major={time_major!r}.")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"{owner}: dropout={dropout!r} must lie in [0, 1).")
        self.dropout = dropout
        bound = 1.0 / math.sqrt(hidden_size)
        init = initializer.Uniform(-bound, bound)  # Paddle's default for RNN weights
        size = self._gates * hidden_size
        for k in range(num_layers):
            width = input_size if k == 0 else hidden_size
            for label, shape in (("weight_ih", [size, width]), ("weight_hh", [size, hidden_size]),
                                 ("bias_ih", [size]), ("bias_hh", [size])):
                setattr(self, f"{label}_l{k}",
                        self.create_parameter(shape, default_initializer=init))

    def _layer(self, k: int):
        return [getattr(self, f"{label}_l{k}")
                for label in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]

    def _check(self, inputs: Tensor, sequence_length):
        if inputs.ndim != 3 or inputs.shape[2] != self.input_size:
            raise ValueError(f"{type(self).__name__}: inputs must be [batch, time, "
                             f"{self.input_size}], got {inputs.shape}.")
        if sequence_length is None:
            return None
        lens = sequence_length.data if isinstance(sequence_length, Tensor) \
            else backend.asarray(sequence_length)
        if lens.shape != (inputs.shape[0],) or lens.dtype.kind not in "iu" or (
                lens.size and (int(lens.min()) < 1 or int(lens.max()) > inputs.shape[1])):
            raise ValueError(f"{type(self).__name__}: sequence_length must be {inputs.shape[0]} "
                             f"integers in [1, {inputs.shape[1]}].")
        return lens

    def _zeros(self, batch: int, dtype) -> Tensor:
        return Tensor(backend.array_module(self.weight_hh_l0.data).zeros(
            (batch, self.hidden_size), dtype=dtype))

    def _between_layers(self, x: Tensor, k: int) -> Tensor:
        if self.dropout and k < self.num_layers - 1:
            return dropout(x, self.dropout, training=self.training)
        return x

    def _outputs(self, carried: Tensor, lens) -> Tensor:
        if lens is None:
            return carried
        mask = S.sequence_mask(lens, carried.shape[1], carried.dtype)[:, :, None]
        return carried * Tensor(mask)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}"


class GRU(_RNN):
    """Gated recurrent unit (Paddle's ``GRU``, batch-first, forward direction).

    ``forward(inputs [B, T, input_size], initial_states [num_layers, B, H] or None,
    sequence_length [B] or None) -> (outputs [B, T, H], final_states [num_layers, B, H])``.
    """

    _gates = 3

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None):
        lens = self._check(inputs, sequence_length)
        x, finals = inputs, []
        for k in range(self.num_layers):
            w_ih, w_hh, b_ih, b_hh = self._layer(k)
            h0 = initial_states[k] if initial_states is not None else \
                self._zeros(inputs.shape[0], inputs.dtype)
            carried = R.gru_scan(core.matmul(x, w_ih, transpose_y=True) + b_ih, h0, w_hh, b_hh,
                                 lens)
            finals.append(carried[:, -1])
            x = self._between_layers(self._outputs(carried, lens), k)
        return x, core.stack(finals)


class LSTM(_RNN):
    """Long short-term memory (Paddle's ``LSTM``, batch-first, forward direction).

    ``forward(inputs, initial_states=(h0, c0) or None, sequence_length=None) ->
    (outputs [B, T, H], (h [num_layers, B, H], c [num_layers, B, H]))``.
    """

    _gates = 4

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None):
        lens = self._check(inputs, sequence_length)
        x, hs, cs = inputs, [], []
        for k in range(self.num_layers):
            w_ih, w_hh, b_ih, b_hh = self._layer(k)
            if initial_states is not None:
                h0, c0 = initial_states[0][k], initial_states[1][k]
            else:
                h0 = c0 = self._zeros(inputs.shape[0], inputs.dtype)
            both = R.lstm_scan(core.matmul(x, w_ih, transpose_y=True) + b_ih, h0, c0, w_hh,
                               b_hh, lens)
            hs.append(both[0][:, -1])
            cs.append(both[1][:, -1])
            x = self._between_layers(self._outputs(both[0], lens), k)
        return x, (core.stack(hs), core.stack(cs))
