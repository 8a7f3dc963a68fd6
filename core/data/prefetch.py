"""Double buffering: a background thread prepares batches while the model trains on the last.

The thread runs the batch generator and puts up to ``depth`` batches on a queue; the consumer
takes them in order. An exception in the thread is raised in the consumer at the batch where it
happened; when the consumer stops early, the thread is told to stop, the queue is drained so it
is not stuck on a full queue, and the generator is closed in the thread (which stops workers).
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator

_END = object()
_POLL_SEC = 0.1


class _Failure:
    def __init__(self, exc: BaseException):
        self.exc = exc


def prefetched(make_source: Callable[[], Iterator], depth: int,
               on_get: Callable[[int], None] | None = None) -> Iterator:
    """Yield what ``make_source()`` yields, produced ``depth`` items ahead by a thread.

    ``on_get(queue_depth)`` is called before each item is taken, with the items ready then.
    """
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=_POLL_SEC)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        source = None
        try:
            source = make_source()
            for item in source:
                if not put(item):
                    return
            put(_END)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer to raise
            put(_Failure(exc))
        finally:
            if source is not None and hasattr(source, "close"):
                source.close()

    thread = threading.Thread(target=produce, name="tomlrun-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            if on_get is not None:
                on_get(ready.qsize())
            item = ready.get()
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                ready.get(timeout=_POLL_SEC)
            except queue.Empty:
                pass
        thread.join()
