"""A progress bar with an estimate of the time left, drawn only when the stream is a terminal."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

_WIDTH = 30


def _clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class Progress:
    """`total` attempts, `done` of them finished before this session (they do not count towards
    the rate: a resumed run estimates from what it does itself)."""

    def __init__(
        self, stream: TextIO, total: int, done: int = 0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self.total = total
        self.done = done
        self.clock = clock
        self.started = clock()
        self.fresh = 0
        self.enabled = stream.isatty()

    def line(self, label: str) -> str:
        share = self.done / self.total if self.total else 1.0
        filled = round(share * _WIDTH)
        bar = "#" * filled + "." * (_WIDTH - filled)
        if self.fresh:
            rate = (self.clock() - self.started) / self.fresh
            eta = f"ETA {_clock(rate * (self.total - self.done))}"
        else:
            eta = "ETA --"
        return f"[{bar}] {self.done}/{self.total} {eta}  {label}"

    def advance(self, label: str) -> None:
        self.done += 1
        self.fresh += 1
        self.show(label)

    def show(self, label: str) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[2K" + self.line(label)[:200])
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
