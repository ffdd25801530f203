"""One writer at a time on an embedded SQLite file, woken when its turn comes.

SQLite has one writer per file. A connection that finds the file locked does not queue: its busy
handler sleeps and tries again, the sleeps growing to 100 ms, and a retry that loses to a newer
arrival sleeps again. Under a steady stream of short transactions from many threads (the
webhook's thread pool, the workers, the sweep) that polling, not the work, made the slowest
acknowledgements. Threads of this process therefore wait on a lock of their own, and one of them
is woken as soon as the holder ends. The lock does not hand itself to the longest waiter: on a
machine short of CPU, a hand-over would keep it taken until that waiter is scheduled, while any
thread already running may take a free lock at once.

Processes on one file (`receipt serve` and its worker process, or a `receipt worker` beside it)
would meet in that busy handler again, so the holder of a process's lock then takes a file lock
beside the database (`flock`, which the kernel hands to a waiter as soon as it is released, and
releases when its holder dies, kill -9 included), and only then SQLite's. The busy handler is
left for writers that take neither: another program on the file.

A holder still needs the interpreter's lock after each of SQLite's calls (each lets it go), and a
thread of its process that computes (a worker judging a change; the web's event loop) keeps it
until the switch interval ends each time: a transaction of 2 ms of work held the file for 20-40
ms, the other process waiting. While any write lock is held, the interval is therefore 50 µs.
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOLDER_SWITCH_SECONDS = 0.00005


class _Prompt:
    """The switch interval while any thread of the process holds a write lock, restored when the
    last one ends (unless someone set another meanwhile)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._holders = 0
        self._normal = self._prompt = 0.0

    def enter(self) -> None:
        with self._guard:
            if self._holders == 0:
                self._normal = sys.getswitchinterval()
                sys.setswitchinterval(min(self._normal, HOLDER_SWITCH_SECONDS))
                self._prompt = sys.getswitchinterval()  # as the interpreter rounded it
            self._holders += 1

    def leave(self) -> None:
        with self._guard:
            self._holders -= 1
            if self._holders == 0 and sys.getswitchinterval() == self._prompt:
                sys.setswitchinterval(self._normal)


_prompt = _Prompt()


class ReentryError(RuntimeError):
    """A thread asked for the write lock it already holds: waiting would never end."""


def lock_file(database: Path) -> Path:
    """The file lock of the SQLite file `database`: beside it, with the other locks' files."""
    return database.with_name(database.name + ".locks") / "writer"


class WriteLock:
    def __init__(self, file: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None  # only its owner ever finds its own id here
        self._guard = threading.Lock()
        self._waiting = 0
        self._file = file  # None: a database of this process alone (in memory)
        self._fd: int | None = None  # opened once; one thread at a time uses it, under `_lock`

    def _across_processes(self) -> int | None:
        if self._file is None:
            return None
        if self._fd is None:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self._file, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self._fd

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
        try:
            fd = self._across_processes()
            self._owner = me
            _prompt.enter()
            try:
                yield
            finally:
                self._owner = None
                if fd is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                _prompt.leave()
        finally:
            self._lock.release()


_locks: dict[str, WriteLock] = {}
_locks_guard = threading.Lock()


def write_lock(name: str, file: Path | None = None) -> WriteLock:
    """The process's one lock for the database named `name` (every `Database` on it shares it);
    with `file`, also held across processes."""
    with _locks_guard:
        return _locks.setdefault(name, WriteLock(file))
