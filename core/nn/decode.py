"""Decoding with an RNN cell: Paddle's ``BeamSearchDecoder`` and ``dynamic_decode`` (the
seq2seq tutorial's inference), plus the ``Decoder`` protocol they share.

``dynamic_decode`` calls ``decoder.initialize(inits)`` once, then ``decoder.step`` until every
sequence is finished or ``max_step_num`` is passed, stacks the step outputs over time and hands
them to ``decoder.finalize``. The beam search is written in core's differentiable ops, as
Paddle's dynamic graph runs it: the scores (``final_states.log_probs``) have gradients with
respect to the cell's parameters and the initial states (Paddle's tutorial decodes under
``no_grad``); token choices are integers, found with ``topk``.
"""
from __future__ import annotations

import collections
import warnings
from functools import partial

import core
from core import backend
from core.nn.functional.activation import log_softmax
from core.nn.functional.decode_utils import gather_tree
from core.nn.layer import Layer
from core.tensor import Tensor, no_grad

_KINF = 1e9  # Paddle's kinf: the score of impossible beams / tokens


def _map(fn, *trees):
    """``fn`` leaf by leaf over equally nested tuples / lists / namedtuples of Tensors."""
    first = trees[0]
    if isinstance(first, (tuple, list)):
        if any(not isinstance(t, (tuple, list)) or len(t) != len(first) for t in trees[1:]):
            raise ValueError("dynamic_decode: nested states or outputs differ in structure "
                             "from one step to the next")
        parts = [_map(fn, *group) for group in zip(*trees)]
        return type(first)(*parts) if hasattr(first, "_fields") else type(first)(parts)
    return fn(*trees)


def _is_float(x: Tensor) -> bool:
    return x.data.dtype.kind == "f"


class Decoder:
    """The protocol ``dynamic_decode`` drives (Paddle's ``paddle.nn.decode.Decoder``):
    ``initialize(inits) -> (inputs, states, finished)``, ``step(time, inputs, states, **kwargs)
    -> (outputs, next_states, next_inputs, finished)``, optionally ``finalize(outputs,
    final_states, sequence_lengths) -> (outputs, final_states)``, and ``tracks_own_finished``
    (True when ``step`` keeps finished sequences finished itself)."""

    def initialize(self, inits):
        raise NotImplementedError(f"{type(self).__name__} must define initialize(inits)")

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define step(time, inputs, "
                                  "states, **kwargs)")

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell, Paddle's ``BeamSearchDecoder(cell, start_token,
    end_token, beam_size, embedding_fn=None, output_fn=None)``, run by ``dynamic_decode``.

    ``inits`` (the cell's initial states, [B, ...], nested as the cell's) are tiled to
    [B, beam_size, ...]; every beam starts from ``start_token`` with score 0 for beam 0 and
    -1e9 for the others (so the first step expands one beam). Each step runs the cell on the
    [B * beam_size] merged beams (``embedding_fn`` turns the token ids into the cell's inputs,
    ``output_fn`` its outputs into logits over the vocabulary), adds ``log_softmax(logits)`` to
    each beam's score (a finished beam may only emit ``end_token``, at no cost), keeps the
    ``beam_size`` best of the beam_size * vocab candidates per batch row (``topk``) and
    reorders the cell states, finished flags and lengths to the chosen beams. A beam finishes
    when it emits ``end_token``; its length counts the steps before that.

    Step outputs are ``OutputWrapper(scores, predicted_ids, parent_ids)``, states
    ``StateWrapper(cell_states, log_probs, finished, lengths)``; ``finalize`` follows the
    parent ids back (``gather_tree``), so ``dynamic_decode`` returns the predicted ids
    [B, T, beam_size] (best beam first) and the final StateWrapper. Other inputs of the cell
    (an encoder's output for attention) go through ``dynamic_decode``'s keyword arguments,
    tiled with ``tile_beam_merge_with_batch``.
    """

    OutputWrapper = collections.namedtuple("OutputWrapper",
                                           ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper",
                                          ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token: int, end_token: int, beam_size: int,
                 embedding_fn=None, output_fn=None):
        owner = "BeamSearchDecoder"
        if not isinstance(cell, Layer) and not callable(cell):
            raise TypeError(f"{owner}: cell must be an RNN cell (a Layer whose forward takes "
                            f"(inputs, states)), got {type(cell).__name__}")
        for label, value in (("start_token", start_token), ("end_token", end_token)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{owner}: {label}={value!r} must be a non-negative integer "
                                 "(a token id).")
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size <= 0:
            raise ValueError(f"{owner}: beam_size={beam_size!r} must be a positive integer.")
        for label, fn in (("embedding_fn", embedding_fn), ("output_fn", output_fn)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{owner}: {label} must be callable or None, got "
                                f"{type(fn).__name__}")
        self.cell, self.start_token, self.end_token = cell, start_token, end_token
        self.beam_size, self.embedding_fn, self.output_fn = beam_size, embedding_fn, output_fn

    # ----- batch <-> beams ----------------------------------------------------------------
    @staticmethod
    def tile_beam_merge_with_batch(x: Tensor, beam_size: int) -> Tensor:
        """[B, ...] -> [B * beam_size, ...], each row repeated ``beam_size`` times in a row
        (row b's copies are rows b * beam_size ... b * beam_size + beam_size - 1)."""
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size <= 0:
            raise ValueError("BeamSearchDecoder.tile_beam_merge_with_batch: beam_size="
                             f"{beam_size!r} must be a positive integer.")
        x = x if isinstance(x, Tensor) else core.to_tensor(x)
        tiled = core.tile(core.unsqueeze(x, 1), [1, beam_size] + [1] * (x.ndim - 1))
        return core.reshape(tiled, [x.shape[0] * beam_size, *x.shape[1:]])

    def _expand_to_beam_size(self, x: Tensor) -> Tensor:
        """[B, ...] -> [B, beam_size, ...]."""
        x = x if isinstance(x, Tensor) else core.to_tensor(x)
        return core.tile(core.unsqueeze(x, 1), [1, self.beam_size] + [1] * (x.ndim - 1))

    def _merge_batch_beams(self, x: Tensor) -> Tensor:
        return core.reshape(x, [-1, *x.shape[2:]])

    def _split_batch_beams(self, x: Tensor) -> Tensor:
        return core.reshape(x, [-1, self.beam_size, *x.shape[1:]])

    def _gather(self, x: Tensor, beams, batch: int) -> Tensor:
        """``x[b, beams[b, k]]`` for x [B, beam, ...] and ``beams`` (an int array [B, beam])."""
        xp = backend.array_module(beams)
        flat = (beams + xp.arange(batch)[:, None] * self.beam_size).reshape(-1)
        if not _is_float(x):  # flags and lengths: no gradient, plain indexing
            merged = x.data.reshape(-1, *x.shape[2:])
            return Tensor(merged[flat].reshape(x.data.shape))
        picked = core.index_select(self._merge_batch_beams(x), Tensor(flat), axis=0)
        return core.reshape(picked, x.shape)

    # ----- the Decoder protocol -----------------------------------------------------------
    def initialize(self, initial_cell_states):
        """(start inputs, StateWrapper, finished [B, beam] all False)."""
        if initial_cell_states is None:
            raise ValueError("BeamSearchDecoder.initialize: inits (the cell's initial states, "
                             "[batch, ...]) are required.")
        states = _map(self._expand_to_beam_size, initial_cell_states)
        first = states
        while isinstance(first, (tuple, list)):
            first = first[0]
        batch, xp = first.shape[0], backend.array_module(first.data)
        dtype = first.data.dtype if _is_float(first) else core.get_default_dtype()
        ids = Tensor(xp.full((batch, self.beam_size), self.start_token, dtype=xp.int64))
        scores = xp.full((batch, self.beam_size), -_KINF, dtype=dtype)
        scores[:, 0] = 0.0
        finished = Tensor(xp.zeros((batch, self.beam_size), dtype=bool))
        lengths = Tensor(xp.zeros((batch, self.beam_size), dtype=xp.int64))
        inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return inputs, self.StateWrapper(states, Tensor(scores), finished, lengths), finished

    def _beam_search_step(self, logits: Tensor, next_cell_states, beam_state):
        batch, vocab = logits.shape[0], logits.shape[-1]
        if not 0 <= self.end_token < vocab:
            raise ValueError(f"BeamSearchDecoder: end_token={self.end_token} is not a token of "
                             f"the vocabulary of {vocab} the logits give.")
        xp = backend.array_module(logits.data)
        step = log_softmax(logits)  # [B, beam, V]
        # A finished beam may only emit end_token, at no cost: its score stays as it was.
        noend = xp.full(vocab, -_KINF, dtype=step.data.dtype)
        noend[self.end_token] = 0.0
        step = core.where(core.unsqueeze(beam_state.finished, 2), Tensor(noend), step)
        total = step + core.unsqueeze(beam_state.log_probs.astype(step.dtype), 2)
        flat = core.reshape(total, [batch, self.beam_size * vocab])
        top_scores, top_index = core.topk(flat, self.beam_size)
        beams, tokens = top_index.data // vocab, top_index.data % vocab
        cell_states = _map(lambda s: self._gather(s, beams, batch), next_cell_states)
        finished = self._gather(beam_state.finished, beams, batch).data
        lengths = self._gather(beam_state.lengths, beams, batch).data
        lengths = lengths + (~finished).astype(lengths.dtype)  # this step counts if unfinished
        finished = finished | (tokens == self.end_token)
        output = self.OutputWrapper(top_scores, Tensor(tokens), Tensor(beams))
        state = self.StateWrapper(cell_states, top_scores, Tensor(finished), Tensor(lengths))
        return output, state

    def step(self, time, inputs, states, **kwargs):
        """One step of the search: (OutputWrapper, StateWrapper, next inputs, finished)."""
        del time
        merged_inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        outputs, next_states = self.cell(merged_inputs, cell_states, **kwargs)
        outputs = _map(self._split_batch_beams, outputs)
        next_states = _map(self._split_batch_beams, next_states)
        if self.output_fn is not None:
            outputs = self.output_fn(outputs)
        output, state = self._beam_search_step(outputs, next_states, states)
        ids = output.predicted_ids
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """(predicted ids [T, B, beam] traced back through the parents, final states)."""
        del sequence_lengths
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self) -> bool:
        """True: beams are reordered each step, so the search keeps its own flags."""
        return True


def _positive_or_none(label: str, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value <= 0):
        raise ValueError(f"dynamic_decode: {label}={value!r} must be a positive integer or "
                         "None.")
    return value


def _hold_finished(old: Tensor, new: Tensor, finished) -> Tensor:
    """``old`` in the rows already finished, ``new`` elsewhere (impute_finished)."""
    keep = Tensor(finished.reshape(finished.shape + (1,) * (new.ndim - finished.ndim)))
    return core.where(keep, old, new)


def dynamic_decode(decoder, inits=None, max_step_num: int | None = None,
                   output_time_major: bool = False, impute_finished: bool = False,
                   is_test: bool = False, return_length: bool = False, **kwargs):
    """Run ``decoder`` step by step until every sequence is finished, Paddle's
    ``dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
    impute_finished=False, is_test=False, return_length=False, **kwargs)``.

    ``decoder.initialize(inits)`` gives the first inputs, states and finished flags; then
    ``decoder.step(time, inputs, states, **kwargs)`` runs while some sequence is unfinished and,
    as Paddle, at most ``max_step_num + 1`` times (the loop stops once the step count exceeds
    ``max_step_num``). The step outputs are stacked over time (axis 0, or axis 1 unless
    ``output_time_major``) and passed through ``decoder.finalize`` where it has one.
    For a decoder that does not track its own finished flags, finished sequences stay finished,
    their lengths stop growing, and with ``impute_finished`` their states are held. ``is_test``
    only saves memory in Paddle's static graph and is accepted. Returns ``(outputs,
    final_states)``, plus the sequence lengths with ``return_length``.
    """
    del is_test
    for label in ("initialize", "step"):
        if not callable(getattr(decoder, label, None)):
            raise TypeError(f"dynamic_decode: decoder must have initialize() and step() (a "
                            f"Decoder such as BeamSearchDecoder), got {type(decoder).__name__}")
    max_step_num = _positive_or_none("max_step_num", max_step_num)
    inputs, states, finished = decoder.initialize(inits)
    finished_data = finished.data if isinstance(finished, Tensor) else backend.asarray(finished)
    xp = backend.array_module(finished_data)
    lengths = Tensor(xp.zeros(finished_data.shape, dtype=xp.int64))
    tracks = getattr(decoder, "tracks_own_finished", False)
    steps, collected = 0, []
    while not bool(finished_data.all()):
        out, next_states, inputs, next_finished = decoder.step(
            Tensor(xp.full([1], steps, dtype=xp.int64)), inputs, states, **kwargs)
        next_data = next_finished.data if isinstance(next_finished, Tensor) \
            else backend.asarray(next_finished)
        if not tracks:
            next_data = next_data | finished_data
            lengths = Tensor(lengths.data + (~finished_data).astype(lengths.data.dtype))
            if impute_finished:
                next_states = _map(partial(_hold_finished, finished=finished_data), states,
                                   next_states)
        elif hasattr(next_states, "lengths"):
            lengths = next_states.lengths
        else:
            warnings.warn("dynamic_decode: the decoder's states have no `lengths`, so the "
                          "returned sequence lengths are all zeros.", stacklevel=2)
        collected.append(out)
        states, finished_data = next_states, next_data
        steps += 1
        if max_step_num is not None and steps > max_step_num:
            break
    if not collected:
        raise ValueError("dynamic_decode: every sequence was finished before the first step; "
                         "nothing to decode.")
    outputs = _map(lambda *per_step: _stack(per_step), *collected)
    if hasattr(decoder, "finalize"):
        try:
            outputs, states = decoder.finalize(outputs, states, lengths)
        except NotImplementedError:
            pass
    if not output_time_major:
        outputs = _map(lambda o: core.transpose(o, [1, 0, *range(2, o.ndim)]), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _stack(per_step) -> Tensor:
    """Step outputs stacked on a new axis 0 (integer ones outside autograd)."""
    if all(isinstance(t, Tensor) and not _is_float(t) for t in per_step):
        with no_grad():
            return core.stack(list(per_step), axis=0)
    return core.stack(list(per_step), axis=0)
