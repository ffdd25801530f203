"""Locks the whole fleet honours, held through the database every process shares.

`serialize(session, key)` orders the transactions that touch one pull request (or merge group):
on PostgreSQL a transaction-scoped advisory lock, taken before the statements that read and then
write the key's jobs, so READ COMMITTED's per-statement snapshots see whatever the previous holder
committed; on SQLite nothing more is needed, since every transaction that writes holds the file's
one write lock from its start (`Database.session`).

`exclusive(db, name)` is held around work outside the database, such as one installation's
check-run writes (GitHub's secondary rate limits count per installation, not per process): a
PostgreSQL advisory lock on a connection of its own, or a file lock beside the embedded SQLite
file. Both are released when their holder dies, with its connection or its file descriptor.
"""

from __future__ import annotations

import fcntl
import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text
from sqlalchemy.orm import Session

from bot.server.store.db import Database, is_sqlite, sqlite_path

_ADVISORY = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")
_memory_locks: dict[str, threading.Lock] = {}
_memory_guard = threading.Lock()


def serialize(session: Session, key: str) -> None:
    """From here to the end of the transaction, no other transaction serializing `key` runs."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(_ADVISORY, {"key": f"key:{key}"})


def _lock_file(db: Database, name: str) -> str | None:
    path = sqlite_path(db.url)
    if path is None:
        return None
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]
    folder = path.with_name(path.name + ".locks")
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / digest)


@contextmanager
def exclusive(db: Database, name: str) -> Iterator[None]:
    """Held by one process (and one thread) of the fleet at a time."""
    if not is_sqlite(db.url):
        with db.engine.connect() as connection, connection.begin():
            connection.execute(_ADVISORY, {"key": f"exclusive:{name}"})
            yield
        return
    file = _lock_file(db, name)
    if file is None:  # an in-memory database belongs to one process
        with _memory_guard:
            lock = _memory_locks.setdefault(name, threading.Lock())
        with lock:
            yield
        return
    with open(file, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # each open() is its own holder, threads included
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
