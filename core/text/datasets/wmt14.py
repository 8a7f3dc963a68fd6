"""``paddle.text.datasets.WMT14``: Paddle's French-English cut of WMT'14 as word-id sequences.

``wmt14.tgz`` is read without extracting it. Its ``src.dict`` and ``trg.dict`` list one word
a line, ``<s>``, ``<e>`` and ``<unk>`` first; the first ``dict_size`` lines make each
dictionary (line k -> id k; id 2, ``UNK_IDX``, stands for any other word). The member whose
name ends in ``<mode>/<mode>`` (``train/train``, ``test/test``, ``gen/gen``) holds one pair a
line, source and target separated by a tab; other lines are skipped. As in Paddle a sample is
``(src_ids, trg_ids, trg_ids_next)``, int64: ``<s> source <e>``, ``<s> target`` and
``target <e>`` (the markers' ids from ``trg.dict``'s lines for the target), and pairs whose
``src_ids`` or target words number more than 80 are left out.
"""
from __future__ import annotations

import tarfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.text.datasets._translation import TranslationPairs

MODES = ("train", "test", "gen")
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2  # Paddle's id for any word outside the dictionary
MAX_LENGTH = 80  # Paddle drops longer pairs


def check_dict_size(owner: str, name: str, value) -> int:
    """``value`` as an int dictionary size, which Paddle requires to be positive."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{owner}: {name}={value!r} must be a positive int (the number of "
                         "words of the dictionary); Paddle's default -1 is refused too.")
    return int(value)


def _read_dict(handle, size: int) -> dict:
    """The first ``size`` lines (stripped, utf-8) -> their line numbers."""
    words = {}
    for index, line in enumerate(handle):
        if index == size:
            break
        words[line.strip().decode()] = index
    return words


class WMT14(TranslationPairs):
    """Paddle's ``paddle.text.datasets.WMT14(data_file=None, mode='train', dict_size=-1,
    download=True)``: French-English sentence pairs as word ids.

    ``data_file``: the path of ``wmt14.tgz``; None takes it from the download cache
    (``~/.cache/tomlrun/wmt14``), where ``download=True`` fetches it (md5-checked).
    ``mode``: 'train', 'test' or 'gen'. ``dict_size``: the number of words of each dictionary,
    which must be given (positive; the default -1 is refused, as in Paddle). ``dataset[i]``:
    module docstring; ``get_dict(reverse=False)`` gives the two dictionaries.
    """

    def __init__(self, data_file=None, mode: str = "train", dict_size: int = -1,
                 download: bool = True):
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"WMT14: mode={mode!r} must be 'train', 'test' or 'gen'.")
        self.mode = mode.lower()
        self.dict_size = check_dict_size("WMT14", "dict_size", dict_size)
        self.data_file = str(locate_file(data_file, "wmt14", "wmt14.tgz", bool(download),
                                         "WMT14"))
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        try:
            with tarfile.open(self.data_file) as archive:
                self._load_data(archive)
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"WMT14: {self.data_file} is not a readable tar archive "
                               f"(wmt14.tgz): {error_text(exc)}.") from None

    def _members(self, archive, ending: str) -> list:
        found = [m for m in archive.getmembers() if m.isfile() and m.name.endswith(ending)]
        if not found:
            raise DatasetError(f"WMT14: {self.data_file} has no file whose name ends in "
                               f"{ending!r}: it is not wmt14.tgz.")
        return found

    def _dictionary(self, archive, ending: str) -> dict:
        found = self._members(archive, ending)
        if len(found) > 1:  # Paddle asserts there is one
            raise DatasetError(f"WMT14: {self.data_file} has {len(found)} files whose name "
                               f"ends in {ending!r} ({', '.join(m.name for m in found)}); "
                               "wmt14.tgz has one.")
        return _read_dict(archive.extractfile(found[0]), self.dict_size)

    def _load_data(self, archive) -> None:
        self.src_dict = self._dictionary(archive, "src.dict")
        self.trg_dict = self._dictionary(archive, "trg.dict")
        for marker in (START, END):
            if marker not in self.trg_dict:  # Paddle: a KeyError
                raise DatasetError(f"WMT14: the first dict_size={self.dict_size} lines of "
                                   f"trg.dict have no {marker!r}; the target sequences need "
                                   "it (wmt14.tgz lists '<s>', '<e>', '<unk>' first).")
        start, end = self.trg_dict[START], self.trg_dict[END]
        for member in self._members(archive, f"{self.mode}/{self.mode}"):
            for line in archive.extractfile(member):
                pair = line.decode().strip().split("\t")
                if len(pair) != 2:
                    continue
                src = [self.src_dict.get(w, UNK_IDX) for w in [START, *pair[0].split(), END]]
                trg = [self.trg_dict.get(w, UNK_IDX) for w in pair[1].split()]
                if len(src) > MAX_LENGTH or len(trg) > MAX_LENGTH:
                    continue
                self.src_ids.append(src)
                self.trg_ids.append([start, *trg])
                self.trg_ids_next.append([*trg, end])

    def get_dict(self, reverse: bool = False):
        """Paddle's ``get_dict(reverse=False)``: ``(src_dict, trg_dict)``, word -> id, or
        id -> word with ``reverse=True``."""
        if reverse:
            return ({i: w for w, i in self.src_dict.items()},
                    {i: w for w, i in self.trg_dict.items()})
        return self.src_dict, self.trg_dict


__all__ = ["WMT14"]
