"""One writer at a time on an embedded SQLite file, within this process, woken when its turn comes.

SQLite has one writer per file. A connection that finds the file locked does not queue: its busy
handler sleeps and tries again, the sleeps growing to 100 ms, and a retry that loses to a newer
arrival sleeps again. Under a steady stream of short transactions from many threads (the
webhook's thread pool, the workers, the sweep) that polling, not the work, made the slowest
acknowledgements. Threads of this process therefore wait on a lock of their own, and one of them
is woken as soon as the holder ends. The lock does not hand itself to the longest waiter: on a
machine short of CPU, a hand-over would keep it taken until that waiter is scheduled, while any
thread already running may take a free lock at once. The busy handler is left for writers in
other processes (a `receipt worker` on the same file).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReentryError(RuntimeError):
    """A thread asked for the write lock it already holds: waiting would never end."""


class WriteLock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None  # only its owner ever finds its own id here
        self._guard = threading.Lock()
        self._waiting = 0

    def waiters(self) -> int:
        with self._guard:
            return self._waiting

    @contextmanager
    def held(self) -> Iterator[None]:
        me = threading.get_ident()
        if self._owner == me:
            raise ReentryError("a write transaction was opened inside another on the same thread")
        with self._guard:
            self._waiting += 1
        self._lock.acquire()
        with self._guard:
            self._waiting -= 1
        self._owner = me
        try:
            yield
        finally:
            self._owner = None
            self._lock.release()


_locks: dict[str, WriteLock] = {}
_locks_guard = threading.Lock()


def write_lock(name: str) -> WriteLock:
    """The process's one lock for the database named `name` (every `Database` on it shares it)."""
    with _locks_guard:
        return _locks.setdefault(name, WriteLock())
