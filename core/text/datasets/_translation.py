"""What WMT14 and WMT16 share: pairs of word-id sequences held as three lists, and a sample as
Paddle gives it, ``(src_ids, trg_ids, trg_ids_next)`` int64 arrays."""
from __future__ import annotations

import numpy as np

from core.io import Dataset


class TranslationPairs(Dataset):
    """A dataset of ``src_ids``, ``trg_ids`` (``<s> target``) and ``trg_ids_next``
    (``target <e>``), filled by the subclass."""

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx], dtype=np.int64),
                np.array(self.trg_ids[idx], dtype=np.int64),
                np.array(self.trg_ids_next[idx], dtype=np.int64))

    def __len__(self) -> int:
        return len(self.src_ids)
