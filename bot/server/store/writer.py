"""One writer at a time on an embedded SQLite file, in the order they asked, within this process.

SQLite has one writer per file. A connection that finds the file locked does not queue: its busy
handler sleeps and tries again, the sleeps growing to 100 ms, and a retry that loses to a newer
arrival sleeps again. Under a steady stream of short transactions from many threads (the
webhook's thread pool, the workers, the sweep) that polling, not the work, made the slowest
acknowledgements. Threads of this process therefore wait here, and the lock is handed to the
longest waiter when its holder ends, so a transaction waits only for those ahead of it. The busy
handler is left for writers in other processes (a `receipt worker` on the same file).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager


class ReentryError(RuntimeError):
    """A thread asked for the write lock it already holds: waiting would never end."""


class FairLock:
    """A mutex granted in arrival order (threading.Lock lets a newcomer overtake its waiters)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiting: deque[tuple[int, threading.Lock]] = deque()
        self._owner: int | None = None

    def acquire(self) -> None:
        me = threading.get_ident()
        with self._guard:
            if self._owner == me:
                raise ReentryError("a write transaction was opened inside another on the same thread")
            if self._owner is None:
                self._owner = me
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiting.append((me, turn))
        turn.acquire()  # released by the holder that hands the lock over to this thread

    def release(self) -> None:
        with self._guard:
            if not self._waiting:
                self._owner = None
                return
            self._owner, turn = self._waiting.popleft()
            turn.release()

    def waiters(self) -> int:
        with self._guard:
            return len(self._waiting)

    @contextmanager
    def held(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()


_locks: dict[str, FairLock] = {}
_locks_guard = threading.Lock()


def write_lock(name: str) -> FairLock:
    """The process's one lock for the database named `name` (every `Database` on it shares it)."""
    with _locks_guard:
        return _locks.setdefault(name, FairLock())
