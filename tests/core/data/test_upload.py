"""Batches uploaded by the prefetch thread (``DataLoader(device=...)``, core.backend.UploadChannel).

On numpy the device steps are no-ops, but the control flow is the GPU's: the prefetch thread
converts each batch inside ``channel.producing()`` and sends a ticket with it, the consumer
calls ``release()`` before each batch and ``accept(ticket)`` after.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import core
from core import backend
from core.io import DataLoader, Dataset, TensorDataset

X = np.random.default_rng(0).standard_normal((50, 3)).astype(np.float32)
Y = np.arange(50) % 7


def _passes(loader, count=2):
    out = []
    for _ in range(count):
        for x, y in loader:
            out.append((backend.to_numpy(x.data if isinstance(x, core.Tensor) else x).copy(),
                        backend.to_numpy(y.data if isinstance(y, core.Tensor) else y).copy()))
    return out


def _loader(**kwargs):
    return DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True, seed=3, **kwargs)


class _Samples(Dataset):  # read sample by sample, collated by default_collate
    def __getitem__(self, index):
        return X[index], Y[index]

    def __len__(self):
        return len(X)


def test_the_prefetch_thread_converts_the_batches(monkeypatch):
    threads = []
    original = backend.asarray

    def recording(data, dtype=None):
        threads.append(threading.current_thread().name)
        return original(data, dtype)

    monkeypatch.setattr(backend, "asarray", recording)
    batches = list(_loader(prefetch=2, device="cpu"))
    assert all(isinstance(t, core.Tensor) for batch in batches for t in batch)
    assert len(threads) == 2 * len(batches) and set(threads) == {"tomlrun-prefetch"}
    threads.clear()
    list(_loader(device="cpu"))  # no prefetch thread: the consumer converts
    assert set(threads) == {threading.current_thread().name}


@pytest.mark.parametrize("make", [lambda: TensorDataset(X, Y), _Samples])
def test_batches_and_order_are_the_same_with_and_without_the_upload_step(make):
    def run(**kwargs):
        return _passes(DataLoader(make(), batch_size=8, shuffle=True, seed=3, **kwargs))

    want = run()
    for kwargs in ({"return_tensors": True}, {"prefetch": 2, "device": "cpu"},
                   {"prefetch": 1, "device": "cpu", "workers": 2}):
        got = run(**kwargs)
        assert len(got) == len(want)
        for (gx, gy), (wx, wy) in zip(got, want):
            np.testing.assert_array_equal(gx, wx)
            np.testing.assert_array_equal(gy, wy)


def test_an_upload_error_surfaces_in_the_consumer_at_its_batch(monkeypatch):
    calls = []
    original = backend.asarray

    def failing(data, dtype=None):
        calls.append(1)
        if len(calls) == 5:  # the third batch's images
            raise RuntimeError("upload failed: out of pinned memory")
        return original(data, dtype)

    monkeypatch.setattr(backend, "asarray", failing)
    got = []
    with pytest.raises(RuntimeError, match="out of pinned memory"):
        for batch in _loader(prefetch=2, device="cpu"):
            got.append(batch)
    assert len(got) == 2


class _Recording(backend.UploadChannel):
    """The channel protocol as the pipeline drives it (tickets are numbered, not events)."""

    log: list = []

    def producing(self):
        self.log.append(("producing", threading.current_thread().name))
        return super().producing()

    def ready(self):
        assert super().ready() is None  # numpy: no stream, no event
        ticket = sum(1 for entry in self.log if entry[0] == "ready")
        self.log.append(("ready", ticket))
        return ticket

    def release(self):
        self.log.append(("release",))
        super().release()

    def accept(self, ticket):
        self.log.append(("accept", ticket))
        super().accept(None)


def test_the_consumer_releases_before_and_accepts_after_each_batch(monkeypatch):
    _Recording.log = []
    monkeypatch.setattr(backend, "upload_channel", lambda device: _Recording(device))
    loader = _loader(prefetch=2, device="cpu")
    count = len(list(loader))
    log = _Recording.log
    assert [entry for entry in log if entry[0] == "producing"] == [("producing",
                                                                    "tomlrun-prefetch")]
    first_ready = log.index(("ready", 0))
    assert log.index(("producing", "tomlrun-prefetch")) < first_ready < log.index(("accept", 0))
    consumer = [entry for entry in log if entry[0] in ("release", "accept")]
    expected = [entry for i in range(count) for entry in (("release",), ("accept", i))]
    assert consumer == expected + [("release",)]  # at the end: the next pass may reuse memory
    assert [entry[1] for entry in log if entry[0] == "ready"] == list(range(count))
    assert getattr(backend._producer, "channel", None) is None  # only the thread had one
    list(loader)  # the next pass: the same channel (on a GPU, the same stream and pool arena)
    assert [entry for entry in _Recording.log if entry[0] == "producing"] == [
        ("producing", "tomlrun-prefetch")] * 2
    assert loader._channel is not None and isinstance(loader._channel, _Recording)


def test_uploaded_labels_carry_their_host_range(monkeypatch):
    from core.nn.functional import loss as loss_module

    def no_device_read(values):
        raise AssertionError("the label range was read from the device")

    monkeypatch.setattr(loss_module, "_bounds", no_device_read)
    for x, y in _loader(prefetch=2, device="cpu"):
        assert y._value_range == (int(y.numpy().min()), int(y.numpy().max()))
        core.nn.functional.cross_entropy(core.to_tensor(np.zeros((len(y), 7))), y)


def test_a_device_other_than_the_current_one_is_a_clear_error():
    with pytest.raises(backend.DeviceError, match="device 'tpu' is not valid"):
        _loader(device="tpu")
    loader = _loader(prefetch=2, device="gpu:0")  # parses; the GPU is only needed to iterate
    with pytest.raises(ValueError, match=r"device='gpu:0'.*current device is 'cpu'"):
        next(iter(loader))


def test_stopping_early_ends_the_uploading_thread():
    before = threading.active_count()
    loader = _loader(prefetch=1, device="cpu")
    for index, _ in enumerate(loader):
        if index == 1:
            break
    assert threading.active_count() == before
    assert len(_passes(loader, 1)) == len(loader)  # the next pass runs from the start
