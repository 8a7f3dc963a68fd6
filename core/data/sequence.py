"""Variable-length sequences: padding plus lengths, over-long sequences, batch unpacking.

A batch of sequences is ``(padded, lengths, labels)``: ``padded`` is ``[batch, T, ...]`` with
``T`` the longest sequence of the batch, ``lengths`` the true length of each row (int64).
Layers that take sequences (``core.nn.GRU``/``LSTM``, ``functional.sequence_pool``) read the
lengths, so padding never changes a result. The FAQ's warning (one 10,000-step sequence among
200-step ones blows up memory, above all in RNNs) is what ``max_len`` with ``long_seq`` is for:
``"truncate"`` keeps the first ``max_len`` steps, ``"drop"`` leaves such sequences out.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from core import backend

LONG_SEQ = ("truncate", "drop")


def pad_sequences(sequences: Sequence, pad_value=0, dtype=None) -> tuple[np.ndarray, np.ndarray]:
    """``(padded [n, T, ...], lengths [n])`` of arrays that differ only in their first axis."""
    arrays = [np.asarray(backend.to_numpy(s)) for s in sequences]
    if not arrays:
        raise ValueError("pad_sequences: got no sequences to pad.")
    tails = {a.shape[1:] for a in arrays}
    if any(a.ndim == 0 for a in arrays) or len(tails) != 1:
        raise ValueError(f"pad_sequences: sequences must share every axis but the first (time); "
                         f"got step shapes {sorted(tails)}.")
    lengths = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    dtype = dtype or np.result_type(*arrays)
    padded = np.full((len(arrays), int(lengths.max(initial=0)), *arrays[0].shape[1:]), pad_value,
                     dtype=dtype)
    for row, array in enumerate(arrays):
        padded[row, :len(array)] = array
    return padded, lengths


class SequenceDataset:
    """Labelled sequences of different lengths (ids ``[T]`` or feature frames ``[T, F]``).

    Sample ``i`` is ``(sequence, label)``; ``collate`` pads a list of samples into
    ``(padded, lengths, labels)`` (pass it as the loader's ``collate_fn``). ``lengths`` (after
    truncation) lets the loader batch similar lengths (``sort_by_length``) and report padding.
    ``max_len=0`` keeps every sequence whole. ``dropped`` counts sequences left out.
    """

    def __init__(self, sequences: Sequence, labels, max_len: int = 0, long_seq: str = "truncate",
                 pad_value=0):
        if isinstance(max_len, bool) or not isinstance(max_len, numbers.Integral) or max_len < 0:
            raise ValueError(f"SequenceDataset: max_len must be an integer >= 0 (0: no limit), "
                             f"got {max_len!r}.")
        if long_seq not in LONG_SEQ:
            raise ValueError(f"SequenceDataset: long_seq must be one of {', '.join(LONG_SEQ)}, "
                             f"got {long_seq!r}.")
        labels = np.asarray(labels)
        if len(labels) != len(sequences):
            raise ValueError(f"SequenceDataset: {len(sequences)} sequences but {len(labels)} "
                             "labels.")
        seqs = [np.asarray(s) for s in sequences]
        if any(s.ndim == 0 or len(s) == 0 for s in seqs):
            raise ValueError("SequenceDataset: every sequence needs at least one step.")
        keep = np.ones(len(seqs), dtype=bool)
        if max_len:
            too_long = np.array([len(s) > max_len for s in seqs], dtype=bool)
            if long_seq == "drop":
                keep = ~too_long
            else:
                seqs = [s[:max_len] for s in seqs]
        self.sequences = [s for s, k in zip(seqs, keep) if k]
        self.labels = labels[keep]
        self.dropped = int((~keep).sum())
        self.lengths = np.array([len(s) for s in self.sequences], dtype=np.int64)
        self.pad_value = pad_value
        if not self.sequences:
            raise ValueError(f"SequenceDataset: max_len={max_len} with long_seq='drop' leaves "
                             "no sequence; raise max_len or use long_seq='truncate'.")

    def __getitem__(self, index):
        return self.sequences[index], self.labels[index]

    def __len__(self) -> int:
        return len(self.sequences)

    @property
    def step_shape(self) -> tuple[int, ...]:
        """The shape of one time step: ``()`` for ids, ``(F,)`` for feature frames."""
        return tuple(self.sequences[0].shape[1:])

    def collate(self, samples: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        padded, lengths = pad_sequences([s for s, _ in samples], self.pad_value)
        return padded, lengths, np.asarray([label for _, label in samples])


def split_batch(batch) -> tuple:
    """``(inputs, labels)`` of a batch: the last field is the label; several leading fields
    (``(padded, lengths, labels)``) become one tuple of inputs for the model."""
    if not isinstance(batch, (tuple, list)) or len(batch) < 2:
        raise ValueError("a training batch must be a tuple (inputs..., labels) of at least two "
                         f"fields; got {type(batch).__name__}.")
    return (batch[0] if len(batch) == 2 else tuple(batch[:-1])), batch[-1]
