"""``paddle.utils.download``: fetching pretrained weights into the local cache.

One downloader serves datasets and weights (``core.datasets.download``): a file goes to a
temporary file beside its destination and is renamed into place only once its md5 matches,
so an interrupted or corrupted transfer never leaves a file that looks complete.
"""
from __future__ import annotations

from core.datasets.download import WEIGHTS_ENV, get_weights_path_from_url, weights_cache_dir

__all__ = ["WEIGHTS_ENV", "get_weights_path_from_url", "weights_cache_dir"]
