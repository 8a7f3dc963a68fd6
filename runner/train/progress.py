"""A one-line progress bar on stderr, drawn only when stderr is a terminal.

Small on purpose: redraws are rate-limited (a terminal write per batch would cost more than a
small batch), and ``clear()`` wipes the line so that a log line printed between redraws does not
end up glued to the bar.
"""
from __future__ import annotations

import sys
import time


class Progress:
    """``update(n)`` after each batch; ``close()`` at the end of the epoch."""

    def __init__(self, total: int, desc: str = "", stream=None, enabled: bool | None = None,
                 width: int = 30, min_interval: float = 0.1):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = _is_terminal(self.stream)
        self.enabled = enabled
        self.total, self.desc, self.width = max(int(total), 0), desc, width
        self.min_interval = min_interval
        self.count = 0
        self.postfix = ""
        self._start = time.perf_counter()
        self._last_draw = float("-inf")

    def update(self, n: int = 1, postfix: str | None = None) -> None:
        self.count += n
        if postfix is not None:
            self.postfix = postfix
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last_draw >= self.min_interval or self.count >= self.total:
            self._draw(now)

    def render(self, now: float | None = None) -> str:
        """The bar's text: ``desc  42%|#####     | 42/100 [3.1 it/s] postfix``."""
        now = time.perf_counter() if now is None else now
        fraction = self.count / self.total if self.total else 1.0
        filled = int(round(self.width * min(fraction, 1.0)))
        bar = "#" * filled + " " * (self.width - filled)
        elapsed = max(now - self._start, 1e-9)
        text = (f"{self.desc} {100 * fraction:3.0f}%|{bar}| {self.count}/{self.total} "
                f"[{self.count / elapsed:.1f} it/s]")
        return f"{text} {self.postfix}".rstrip()

    def clear(self) -> None:
        """Erase the bar so the next line written to the terminal starts clean."""
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._last_draw = float("-inf")  # redraw at the next update

    def close(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        self.stream.write("\r\x1b[K" + self.render(now))
        self.stream.flush()
        self._last_draw = now


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or replaced streams
        return False
