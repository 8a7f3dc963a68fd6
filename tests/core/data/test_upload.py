"""Batches uploaded by the prefetch thread (``DataLoader(device=...)``, core.backend.UploadChannel).

On numpy the device steps are no-ops, but the control flow is the GPU's: the prefetch thread
converts each batch inside ``channel.producing()`` and sends a ticket with it, the consumer
calls ``release()`` before each batch and ``accept(ticket)`` after. The loaders upload to the
current device, so under ``TOMLRUN_TEST_DEVICE=gpu:0`` the same tests drive the real GPU branch
(streams, events, pinned buffers).
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
    """A shuffled loader of X, Y that converts onto the current device unless told otherwise."""
    kwargs.setdefault("device", backend.get_device())
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
    batches = list(_loader(prefetch=2))
    assert all(isinstance(t, core.Tensor) for batch in batches for t in batch)
    assert len(threads) == 2 * len(batches) and set(threads) == {"tomlrun-prefetch"}
    threads.clear()
    list(_loader())  # no prefetch thread: the consumer converts
    assert set(threads) == {threading.current_thread().name}


@pytest.mark.parametrize("make", [lambda: TensorDataset(X, Y), _Samples])
def test_batches_and_order_are_the_same_with_and_without_the_upload_step(make):
    def run(**kwargs):
        return _passes(DataLoader(make(), batch_size=8, shuffle=True, seed=3, **kwargs))

    want = run()
    for kwargs in ({"return_tensors": True}, {"prefetch": 2, "device": backend.get_device()},
                   {"prefetch": 1, "device": backend.get_device(), "workers": 2}):
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
        for batch in _loader(prefetch=2):
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


@pytest.mark.usefixtures("on_cpu")  # the protocol with numpy's no-op steps (GPU: below)
def test_the_consumer_releases_before_and_accepts_after_each_batch(monkeypatch):
    _Recording.log = []
    monkeypatch.setattr(backend, "upload_channel", lambda device: _Recording(device))
    loader = _loader(prefetch=2)
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
    for _x, y in _loader(prefetch=2):
        assert y._value_range == (int(y.numpy().min()), int(y.numpy().max()))
        core.nn.functional.cross_entropy(core.to_tensor(np.zeros((len(y), 7))), y)


def test_a_device_other_than_the_current_one_is_a_clear_error():
    with pytest.raises(backend.DeviceError, match="device 'tpu' is not valid"):
        _loader(device="tpu")
    here = backend.get_device()
    other = "gpu:0" if here == "cpu" else "cpu"  # gpu:0 parses without a GPU
    for prefetch in (2, 0):  # with or without the prefetch thread
        loader = _loader(prefetch=prefetch, device=other)
        with pytest.raises(ValueError, match=rf"device='{other}'.*current device is '{here}'"):
            next(iter(loader))


def test_stopping_early_ends_the_uploading_thread():
    before = threading.active_count()
    loader = _loader(prefetch=1)
    for index, _ in enumerate(loader):
        if index == 1:
            break
    assert threading.active_count() == before
    assert len(_passes(loader, 1)) == len(loader)  # the next pass runs from the start


# ----- the GPU branch of the channel, against a stand-in for cupy's stream API ----------------
# No GPU here: this drives UploadChannel's cupy calls through a fake that logs them, to check
# their order (the producer stream waits for the consumer's release before writing; tickets are
# events recorded after the copies) and that every branch runs. It says nothing about CUDA.

class _FakeCupy:
    def __init__(self):
        self.log, self.current = [], []
        self.null = _FakeStream(self, "null")
        fake = self

        class Device:
            def __init__(self, index):
                fake.log.append(("device", index))

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        self.cuda = type("cuda", (), {
            "Device": Device,
            "Stream": lambda non_blocking=False: _FakeStream(fake, "producer", non_blocking),
            "Event": lambda disable_timing=False: _FakeEvent(fake),
            "get_current_stream": lambda: fake.current[-1] if fake.current else fake.null,
            "alloc_pinned_memory": lambda nbytes: bytearray(nbytes),
        })

    def empty(self, shape, dtype):
        return _FakeArray(self, shape, dtype)


class _FakeEvent:
    def __init__(self, fake):
        self.fake = fake

    def synchronize(self):
        self.fake.log.append(("synchronize", self))


class _FakeStream:
    def __init__(self, fake, name, non_blocking=False):
        self.fake, self.name, self.non_blocking = fake, name, non_blocking

    def __enter__(self):
        self.fake.current.append(self)
        return self

    def __exit__(self, *exc):
        self.fake.current.pop()
        return False

    def record(self, event=None):
        event = event or _FakeEvent(self.fake)
        self.fake.log.append(("record", self.name, event))
        return event

    def wait_event(self, event):
        self.fake.log.append(("wait", self.name, event))


class _FakeArray:
    def __init__(self, fake, shape, dtype):
        self.fake, self.shape, self.dtype, self.value = fake, shape, dtype, None
        fake.log.append(("empty", fake.cuda.get_current_stream().name))

    def set(self, host, stream=None):
        self.fake.log.append(("set", stream.name, host.nbytes))
        self.value = np.array(host)


def test_the_gpu_branch_orders_its_stream_operations(monkeypatch):
    fake = _FakeCupy()
    monkeypatch.setattr(backend, "_cupy", lambda: fake)
    monkeypatch.setattr(backend, "_ring", [])  # a pinned ring of the fake's own
    monkeypatch.setattr(backend, "_ring_next", 0)
    channel = backend.upload_channel("gpu:0")
    channel.release()  # the consumer, before its first batch: an event on its (null) stream
    released = fake.log[-1][2]
    big = np.arange(backend._STAGED_MIN_BYTES // 4 + 8, dtype=np.float32)  # pinned path
    small = np.arange(10, dtype=np.int64)  # pageable path
    with channel.producing():
        assert getattr(backend._producer, "channel", None) is channel
        uploaded = [channel.copy_in(fake, big, None), channel.copy_in(fake, small, None)]
        ticket = channel.ready()
    assert getattr(backend._producer, "channel", None) is None
    channel.accept(ticket)
    log = fake.log
    assert log[1] == ("device", 0) and channel._stream.non_blocking
    # Allocate, then wait for the consumer's release (once), then write: all on the producer.
    assert log[2:5] == [("empty", "producer"), ("wait", "producer", released),
                        ("set", "producer", big.nbytes)]
    assert log[5][:2] == ("record", "producer")  # the pinned slot's own event
    assert log[6:8] == [("empty", "producer"), ("set", "producer", small.nbytes)]
    assert log[8] == ("record", "producer", ticket)  # the ticket: after every copy of the batch
    assert log[9] == ("wait", "null", ticket)  # the consumer waits on the GPU, not the host
    np.testing.assert_array_equal(uploaded[0].value, big)
    np.testing.assert_array_equal(uploaded[1].value, small)
    channel.release()
    with channel.producing():  # the next batch: the new release event is waited for once
        channel.copy_in(fake, small, None)
    assert [entry[0] for entry in fake.log[-5:]] == ["record", "device", "empty", "wait", "set"]
    assert fake.log[-2][2] is fake.log[-5][2]  # the producer waits for the newest release
