"""Paddle's ``paddle.text`` decoding: ``viterbi_decode`` and the ``ViterbiDecoder`` layer.

The decoder finds, for each sequence of a batch, the tag path of highest score, where a path
``y_0 .. y_{L-1}`` of a sequence of length ``L`` scores ``sum_t potentials[t, y_t] +
sum_{t>=1} transitions[y_{t-1}, y_t]``. With ``include_bos_eos_tag`` (Paddle's default) the
last two tags stand for the sentence boundaries, as in Paddle's kernel: row ``-1`` of the
transitions scores leaving BOS into the first tag (``transitions[-1, y_0]`` is added) and row
``-2`` scores the last tag (``transitions[-2, y_{L-1}]`` is added). They remain ordinary tags
too: Paddle does not forbid them inside a path, and neither does core.

The dynamic programme runs one time step at a time, vectorised over the batch and the tags;
a sequence whose length is reached keeps its scores while longer ones go on. Ties go to the
smallest tag index, as Paddle's argmax. Decoding has no gradient, as in Paddle: the outputs
are plain tensors outside the graph.
"""
from __future__ import annotations

from core import backend
from core.nn.layer import Layer
from core.tensor import Tensor

__all__ = ["ViterbiDecoder", "viterbi_decode"]


def _check(potentials, transition_params, lengths, include_bos_eos_tag):
    for arg, value in (("potentials", potentials), ("transition_params", transition_params),
                       ("lengths", lengths)):
        if not isinstance(value, Tensor):
            raise TypeError(f"viterbi_decode: {arg} must be a Tensor, got "
                            f"{type(value).__name__}")
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError("viterbi_decode: include_bos_eos_tag must be True or False, got "
                        f"{include_bos_eos_tag!r}")
    p, t, n = potentials.data, transition_params.data, lengths.data
    if p.ndim != 3 or p.dtype.name not in ("float32", "float64"):
        raise ValueError("viterbi_decode: potentials must be a float32 or float64 tensor of "
                         f"shape [batch_size, sequence_length, num_tags], got {p.dtype.name} "
                         f"of shape {list(p.shape)}")
    tags = p.shape[2]
    if tuple(t.shape) != (tags, tags) or t.dtype != p.dtype:
        raise ValueError(f"viterbi_decode: transition_params must be [{tags}, {tags}] "
                         f"(num_tags of potentials) of potentials' dtype {p.dtype.name}, got "
                         f"{t.dtype.name} of shape {list(t.shape)}")
    if include_bos_eos_tag and tags < 2:
        raise ValueError("viterbi_decode: include_bos_eos_tag=True takes the last two tags as "
                         f"BOS and EOS, so num_tags must be >= 2, got {tags}")
    if tuple(n.shape) != (p.shape[0],) or n.dtype.kind not in "iu":
        raise ValueError(f"viterbi_decode: lengths must be an integer tensor of shape "
                         f"[{p.shape[0]}] (batch_size), got {n.dtype.name} of shape "
                         f"{list(n.shape)}")


def _host_lengths(lengths, steps: int) -> list[int]:
    """The lengths on the host: the number of steps to run is a Python int (one small read,
    as Paddle's kernel reads the maximum length)."""
    values = [int(v) for v in backend.to_numpy(lengths.data)]
    bad = [v for v in values if not 0 <= v <= steps]
    if bad:
        raise ValueError(f"viterbi_decode: lengths must lie in [0, {steps}] (the sequence "
                         f"length of potentials), got {bad[0]}")
    if max(values, default=0) == 0:
        # Paddle's kernel then writes the last tags to step max(lengths) - 1 = -1 of an empty
        # path: no defined result to follow.
        raise ValueError(f"viterbi_decode: every sequence has length 0 (lengths {values}), so "
                         "there is no tag to decode; at least one length must be >= 1")
    return values


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag: bool = True,
                   name: str | None = None):
    """Paddle's ``paddle.text.viterbi_decode(potentials, transition_params, lengths,
    include_bos_eos_tag=True, name=None)``: the best tag path of each sequence.

    ``potentials`` [batch_size, sequence_length, num_tags] (float32 or float64) are the
    emission scores, ``transition_params`` [num_tags, num_tags] the score of going from tag i
    (row) to tag j (column), ``lengths`` [batch_size] the sequences' lengths. Returns
    ``(scores, paths)``: ``scores`` [batch_size] the best path's score (potentials' dtype),
    ``paths`` [batch_size, max(lengths)] int64, zero after each sequence's end. With
    ``include_bos_eos_tag`` the last row of the transitions scores the start and the one
    before it the end of every path (module docstring). No gradient, as in Paddle.

    A sequence of length 0 beside longer ones gets what Paddle's kernel gives it: a path of
    zeros and the score max_j(potentials[b, 0, j] + transitions[-1, j]) (without
    ``include_bos_eos_tag``: max_j potentials[b, 0, j]), its first step's, never updated after.
    A batch whose lengths are all 0 is refused: Paddle's kernel has no defined result there.
    """
    del name
    _check(potentials, transition_params, lengths, include_bos_eos_tag)
    p, trans = potentials.data, transition_params.data
    xp = backend.array_module(p)
    sizes = _host_lengths(lengths, p.shape[1])
    longest = max(sizes)
    length = xp.asarray(sizes, dtype="int64")
    rows = xp.arange(p.shape[0])
    alpha = p[:, 0] + trans[-1] if include_bos_eos_tag else p[:, 0]
    alpha = _add_stop(alpha, trans, length == 1, include_bos_eos_tag)
    history = []
    for t in range(1, longest):
        # candidates[b, i, j]: the best path ending in tag i at t-1, then the move i -> j
        candidates = alpha[:, :, None] + trans[None]
        best_previous = candidates.argmax(axis=1)
        stepped = xp.take_along_axis(candidates, best_previous[:, None], axis=1)[:, 0]
        alpha = xp.where((t < length)[:, None], stepped + p[:, t], alpha)
        alpha = _add_stop(alpha, trans, length == t + 1, include_bos_eos_tag)
        history.append(best_previous)
    last = alpha.argmax(axis=1)
    scores = alpha[rows, last]
    return Tensor(scores), Tensor(_backtrack(xp, history, last, length, longest))


def _add_stop(alpha, trans, ending, include_bos_eos_tag: bool):
    """The EOS row's scores, added to the sequences whose last step this is."""
    if not include_bos_eos_tag:
        return alpha
    return alpha + backend.array_module(alpha).where(ending[:, None], trans[-2], 0)


def _backtrack(xp, history: list, last, length, longest: int):
    """Each sequence's path, read backwards from its last tag through the step-wise argmaxes;
    positions at or after a sequence's length stay zero (Paddle's padding)."""
    paths = xp.zeros((last.shape[0], longest), dtype="int64")
    rows = xp.arange(last.shape[0])
    tag = last.astype("int64")
    for t in range(longest - 1, -1, -1):
        inside = t < length
        paths[:, t] = xp.where(inside, tag, 0)
        if t > 0:
            # before a sequence's end its tag stays the final argmax until t reaches it
            tag = xp.where(t < length, history[t - 1][rows, tag], tag)
    return paths


class ViterbiDecoder(Layer):
    """Paddle's ``paddle.text.ViterbiDecoder(transitions, include_bos_eos_tag=True,
    name=None)``: ``decoder(potentials, lengths)`` is ``viterbi_decode(potentials,
    transitions, lengths, include_bos_eos_tag)``. ``transitions`` is held as given (a plain
    attribute, not a parameter, as in Paddle); no gradient."""

    def __init__(self, transitions, include_bos_eos_tag: bool = True, name: str | None = None):
        super().__init__()
        if not isinstance(transitions, Tensor):
            raise TypeError(f"ViterbiDecoder: transitions must be a Tensor, got "
                            f"{type(transitions).__name__}")
        if not isinstance(include_bos_eos_tag, bool):
            raise TypeError("ViterbiDecoder: include_bos_eos_tag must be True or False, got "
                            f"{include_bos_eos_tag!r}")
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)
