"""``paddle.text.datasets.Imikolov``: the Penn Treebank text of Mikolov's ``simple-examples.tgz``
as n-grams or sentences of word ids, Paddle's way.

The archive is read without extracting it (``simple-examples/data/ptb.<name>.txt``). The word
dictionary counts the words of ``ptb.train.txt`` and ``ptb.valid.txt`` plus one ``'<s>'`` and
one ``'<e>'`` per line, keeps those seen more than ``min_word_freq`` times, most frequent first
(ties in byte order), and gives the last id to ``'<unk>'``, which stands for every other word.
As in Paddle the words are ``bytes`` keys of ``word_idx`` and the three markers ``str`` ones,
so the corpus's own ``<unk>`` token is an ordinary word (``b'<unk>'``), distinct from the
marker. Mode 'train' reads ``ptb.train.txt``, 'test' ``ptb.test.txt`` (Paddle's choice).

'NGRAM' samples are the ``window_size`` consecutive ids of each window of ``<s> line <e>``
(lines shorter than the window give none), as a tuple of ``window_size`` 0-D int64 arrays;
'SEQ' samples are ``(src, trg)``: ``<s>`` then the line's ids, and the line's ids then
``<e>``, int64 arrays, lines whose ``src`` is longer than a positive ``window_size`` skipped.
"""
from __future__ import annotations

import collections
import tarfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.io import Dataset

MODES = ("train", "test")
DATA_TYPES = ("NGRAM", "SEQ")
_FOLDER = "simple-examples/data/"
BOS, EOS, UNK = "<s>", "<e>", "<unk>"


def _order(item):
    """Paddle's sort key, (-count, word), with the str markers compared as their bytes (Paddle
    compares bytes with str only on a tie, where Python 3 raises)."""
    word, count = item
    return -count, word.encode() if isinstance(word, str) else word


def build_word_dict(lines, min_word_freq: int) -> dict:
    """``word_idx`` of the lines (bytes) counted as Paddle's ``word_count``."""
    freq = collections.Counter()
    for line in lines:
        freq.update(line.split())
        freq[BOS] += 1
        freq[EOS] += 1
    kept = sorted((item for item in freq.items() if item[1] > min_word_freq), key=_order)
    word_idx = {word: index for index, (word, _) in enumerate(kept)}
    word_idx[UNK] = len(kept)
    return word_idx


class Imikolov(Dataset):
    """Paddle's ``paddle.text.datasets.Imikolov(data_file=None, data_type='NGRAM',
    window_size=-1, mode='train', min_word_freq=50, download=True)``.

    ``data_file``: the path of ``simple-examples.tgz``; None takes it from the download cache
    (``~/.cache/tomlrun/imikolov``), where ``download=True`` fetches it (md5-checked).
    ``data_type``: 'NGRAM' (needs ``window_size`` >= 1) or 'SEQ' (``window_size`` > 0 drops
    longer sentences). ``mode``: 'train' or 'test'. ``min_word_freq``: a word enters
    ``word_idx`` when seen more than that many times. Samples: module docstring.
    """

    def __init__(self, data_file=None, data_type: str = "NGRAM", window_size: int = -1,
                 mode: str = "train", min_word_freq: int = 50, download: bool = True):
        if not isinstance(data_type, str) or data_type.upper() not in DATA_TYPES:
            raise ValueError(f"Imikolov: data_type={data_type!r} must be 'NGRAM' or 'SEQ'.")
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"Imikolov: mode={mode!r} must be 'train' or 'test'.")
        for name, value in (("window_size", window_size), ("min_word_freq", min_word_freq)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"Imikolov: {name} must be an int, got {value!r}.")
        self.data_type, self.mode = data_type.upper(), mode.lower()
        if self.data_type == "NGRAM" and window_size < 1:
            raise ValueError(f"Imikolov: window_size={window_size} must be >= 1 for "
                             "data_type='NGRAM' (the number of words of each sample).")
        self.window_size, self.min_word_freq = int(window_size), int(min_word_freq)
        self.data_file = str(locate_file(data_file, "imikolov", "simple-examples.tgz",
                                         bool(download), "Imikolov"))
        texts = self._read(("train", "valid", self.mode))
        self.word_idx = build_word_dict(texts["train"] + texts["valid"], self.min_word_freq)
        lines = texts[self.mode]
        self.data = self._ngrams(lines) if self.data_type == "NGRAM" else self._sequences(lines)

    def _read(self, names) -> dict:
        """The lines (bytes) of ``ptb.<name>.txt`` for each name."""
        wanted = {f"{_FOLDER}ptb.{name}.txt": name for name in names}
        texts = {}
        try:
            with tarfile.open(self.data_file) as archive:
                for member in archive:
                    name = wanted.get(member.name.removeprefix("./"))
                    if name is not None and member.isfile():
                        texts[name] = archive.extractfile(member).readlines()  # as Paddle iterates
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"Imikolov: {self.data_file} is not a readable tar archive "
                               f"(simple-examples.tgz): {error_text(exc)}.") from None
        missing = [path for path, name in wanted.items() if name not in texts]
        if missing:
            raise DatasetError(f"Imikolov: {self.data_file} has no ./{missing[0]}: it is not "
                               "simple-examples.tgz.")
        return texts

    def _ids(self, words) -> list[int]:
        unk = self.word_idx[UNK]
        return [self.word_idx.get(word, unk) for word in words]

    def _ngrams(self, lines) -> np.ndarray:
        """Every window of ``window_size`` ids of each ``<s> line <e>`` (int64 [M, size])."""
        size, grams = self.window_size, []
        for line in lines:
            ids = self._ids([BOS, *line.split(), EOS])
            grams.extend(ids[start:start + size] for start in range(len(ids) - size + 1))
        return np.array(grams, dtype=np.int64).reshape(-1, size)

    def _sequences(self, lines) -> list:
        pairs = []
        # the markers as any word: a min_word_freq above their count makes them '<unk>' (where
        # Paddle raises a KeyError)
        bos, eos = self._ids([BOS, EOS])
        for line in lines:
            ids = self._ids(line.split())
            src = np.array([bos, *ids], dtype=np.int64)
            if self.window_size > 0 and len(src) > self.window_size:
                continue
            pairs.append((src, np.array([*ids, eos], dtype=np.int64)))
        return pairs

    @property
    def arrays(self):
        """For 'NGRAM', the ids at each window position (``window_size`` int64 arrays [M]):
        ``core.io.DataLoader`` cuts batches from them by fancy indexing. None for 'SEQ'
        (sentences differ in length)."""
        if self.data_type != "NGRAM":
            return None
        return tuple(self.data[:, k] for k in range(self.window_size))

    def __getitem__(self, idx):
        if self.data_type == "NGRAM":
            return tuple(np.array(value) for value in self.data[idx])
        src, trg = self.data[idx]
        return src.copy(), trg.copy()

    def __len__(self) -> int:
        return len(self.data)


__all__ = ["Imikolov"]
