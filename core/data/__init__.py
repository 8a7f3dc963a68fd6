"""The data path behind ``core.io.DataLoader``: shuffle pool, file readers, worker processes,
prefetching, variable-length sequences and the statistics the runner logs (``docs/data.md``).

``core.io.DataLoader`` stays the entry point; this package holds what it is built from.
"""
from core.data.files import FileDataset, ReaderError, expand_files, get_reader, register_reader
from core.data.options import LoaderStats, PipelineOptions
from core.data.pool import pool_shuffle
from core.data.sequence import SequenceDataset, pad_sequences, split_batch
from core.data.workers import WorkerError

__all__ = ["FileDataset", "LoaderStats", "PipelineOptions", "ReaderError", "SequenceDataset",
           "WorkerError", "expand_files", "get_reader", "pad_sequences", "pool_shuffle",
           "register_reader", "split_batch"]
