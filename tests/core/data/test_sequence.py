"""Padding plus lengths, over-long sequences, length-sorted batches and the vowels reader."""
from __future__ import annotations

import numpy as np
import pytest

from core.data import SequenceDataset, pad_sequences, split_batch
from core.datasets import DatasetError, JapaneseVowels, read_ts
from core.io import DataLoader


def test_pad_sequences_ids_and_frames():
    padded, lengths = pad_sequences([np.array([1, 2, 3]), np.array([4])], pad_value=-1)
    assert padded.tolist() == [[1, 2, 3], [4, -1, -1]] and lengths.tolist() == [3, 1]
    frames, lengths = pad_sequences([np.ones((2, 3)), np.ones((4, 3))])
    assert frames.shape == (2, 4, 3) and not frames[0, 2:].any()
    with pytest.raises(ValueError, match="step shapes"):
        pad_sequences([np.ones((2, 3)), np.ones((2, 4))])


def test_max_len_truncates_or_drops():
    seqs = [np.arange(n) for n in (3, 10, 5)]
    cut = SequenceDataset(seqs, [0, 1, 2], max_len=4)
    assert cut.lengths.tolist() == [3, 4, 4] and len(cut) == 3
    dropped = SequenceDataset(seqs, [0, 1, 2], max_len=4, long_seq="drop")
    assert dropped.lengths.tolist() == [3] and dropped.dropped == 2
    assert dropped.labels.tolist() == [0]
    with pytest.raises(ValueError, match="long_seq"):
        SequenceDataset(seqs, [0, 1, 2], max_len=4, long_seq="split")
    with pytest.raises(ValueError, match="leaves no sequence"):
        SequenceDataset(seqs, [0, 1, 2], max_len=2, long_seq="drop")


def _loader(data, sort):
    return DataLoader(data, batch_size=8, shuffle=True, seed=0, collate_fn=data.collate,
                      sort_by_length=sort, pool_size=64)


def test_sort_by_length_cuts_padding_and_loader_reports_it():
    rng = np.random.default_rng(0)
    data = SequenceDataset([np.ones(n, np.int64) for n in rng.integers(1, 60, 200)],
                           rng.integers(0, 2, 200))
    fractions = {}
    for sort in (False, True):
        loader = _loader(data, sort)
        seen = []
        for padded, lengths, _labels in loader:
            assert padded.shape == (len(lengths), lengths.max())
            seen += [int(n) for n in lengths]
        assert sorted(seen) == sorted(data.lengths.tolist())
        fractions[sort] = loader.stats.take_window()["padding_fraction"]
    assert fractions[True] < fractions[False] / 3
    assert [b[1].tolist() for b in _loader(data, True)] == \
        [b[1].tolist() for b in _loader(data, True)]  # seeded


def test_split_batch_keeps_sequence_inputs_together():
    assert split_batch((1, 2)) == (1, 2)
    assert split_batch(("x", "lengths", "y")) == (("x", "lengths"), "y")
    with pytest.raises(ValueError, match="at least two"):
        split_batch((1,))


def test_vowels_reader(shared_dir):
    root = shared_dir("japanese-vowels")
    sequences, labels, classes = read_ts(str(root / "JapaneseVowels_TRAIN.ts"))
    assert len(sequences) == 270 and classes == [str(i) for i in range(1, 10)]
    assert {s.shape[1] for s in sequences} == {12}
    assert min(len(s) for s in sequences) >= 7 and max(len(s) for s in sequences) <= 29
    train = JapaneseVowels(str(root), "train", valid_size=27)
    valid = JapaneseVowels(str(root), "valid", valid_size=27)
    assert len(train) + len(valid) == 270 and train.num_classes == 9
    assert train.step_shape == (12,) and set(train.labels.tolist()) == set(range(9))


def test_ts_reader_errors(tmp_path):
    with pytest.raises(DatasetError, match="does not exist"):
        read_ts(str(tmp_path / "missing.ts"))
    bad = tmp_path / "bad.ts"
    bad.write_text("@classLabel true a b\n@data\n1,2:3:a\n")
    with pytest.raises(DatasetError, match="line 3"):
        read_ts(str(bad))
