"""The database: engine and sessions for SQLite (embedded default) or PostgreSQL, and its schema.

Schema changes are Alembic migrations (`bot/server/migrations/`), run by `receipt migrate`. A
server checks the schema at start and refuses one it does not know; the embedded SQLite store is
brought up to date on start, since it belongs to that one process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.exc import ArgumentError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from bot.engine import ReceiptError
from bot.server.store.writer import WriteLock, lock_file, write_lock

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class SchemaError(ReceiptError):
    """The database's schema is not the one this version of receipt knows."""

    title = "database schema"


class StoreUnavailable(ReceiptError):
    """RECEIPT_DATABASE_URL names no database receipt can open or reach: a deployment's error,
    told as one line at start (its password hidden), never as receipt's own failure."""

    title = "database unavailable"


def shown_url(url: str) -> str:
    """`url` as it may be shown: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a URL)"


@contextmanager
def reaching(url: str) -> Iterator[None]:
    """Turn the failure to open or reach the database at `url` into StoreUnavailable."""
    try:
        yield
    except ArgumentError as exc:
        raise StoreUnavailable(
            f"RECEIPT_DATABASE_URL is not a database URL receipt can open: {exc}"
        ) from None
    except (OperationalError, InterfaceError, OSError) as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())
        raise StoreUnavailable(f"cannot reach the database at {shown_url(url)}: {reason[:300]}") from None


def utcnow() -> datetime:
    """Naive UTC: both SQLite and PostgreSQL store and compare it the same way."""
    return datetime.now(UTC).replace(tzinfo=None)


def normalize_url(url: str) -> str:
    """`postgresql://` and `postgres://` URLs use psycopg 3, the driver receipt ships with."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def sqlite_path(url: str) -> Path | None:
    """The file of a `sqlite:///path` URL (None for an in-memory database)."""
    if not url.startswith("sqlite:///"):
        return None
    path = url.removeprefix("sqlite:///")
    return Path(path) if path and path != ":memory:" else None


def embedded_queue_url(database_url: str) -> str:
    """The embedded queue's file: beside the store's, not in it, so the queue's writes (a message
    per acknowledgement, the workers' polls, the scheduler's) never wait for the store's one
    writer, nor it for them. Any other store's URL is returned as it is (the queue refuses it)."""
    path = sqlite_path(normalize_url(database_url))
    if path is None:
        return database_url
    return "sqlite:///" + str(path.with_name(f"{path.stem}.queue{path.suffix}"))


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # The driver would begin a deferred transaction at the first write of its own accord; receipt
    # begins every transaction itself (`_sqlite_begin`), so the driver is told to leave them alone.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


_WRITE = "receipt_write"  # the execution option of the engine write sessions are bound to


def _sqlite_begin(connection: Connection) -> None:
    """A write transaction takes SQLite's write lock when it begins, not at its first write: a
    transaction that read first and upgrades later fails at once (SQLITE_BUSY_SNAPSHOT) when another
    writer committed in between, while one that begins IMMEDIATE waits its turn."""
    write = connection.get_execution_options().get(_WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


@dataclass
class Database:
    url: str
    engine: Engine
    sessions: sessionmaker[Session]
    readers: sessionmaker[Session]
    writers: WriteLock | None = None  # SQLite: its writers, one at a time across processes

    @classmethod
    def open(cls, url: str) -> Database:
        with reaching(url):
            return cls._open(normalize_url(url))

    @classmethod
    def _open(cls, url: str) -> Database:
        if not (is_sqlite(url) or url.startswith("postgresql+psycopg:")):
            scheme = url.split(":", 1)[0] if ":" in url else url
            raise StoreUnavailable(
                "RECEIPT_DATABASE_URL: receipt keeps its store in SQLite (sqlite:///FILE) or PostgreSQL "
                f"(postgresql://USER@HOST/DB), not {scheme[:40]!r}"
            )
        if is_sqlite(url):
            path = sqlite_path(url)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
            event.listen(engine, "connect", _sqlite_pragmas)
            event.listen(engine, "begin", _sqlite_begin)
            writes = sessionmaker(engine.execution_options(**{_WRITE: True}), expire_on_commit=False)
            file = path.resolve() if path is not None else None
            lock = write_lock(str(file), lock_file(file)) if file is not None else write_lock(url)
            return cls(url, engine, writes, sessionmaker(engine, expire_on_commit=False), lock)
        engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)
        sessions = sessionmaker(engine, expire_on_commit=False)
        return cls(url, engine, sessions, sessions)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction that may write: committed when the block ends, rolled back when it raises.
        On SQLite it holds the file's write lock from its start, taken after `WriteLock`'s."""
        if self.writers is None:
            with self.sessions.begin() as session:
                yield session
            return
        with self.writers.held(), self.sessions.begin() as session:
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """One transaction that only reads, never waiting for a writer (SQLite's WAL lets readers
        go on beside it); rolled back at the end, so a write slipped in here is never kept."""
        with self.readers() as session:
            yield session

    def _config(self) -> Config:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["engine"] = self.engine
        return config

    def head_revision(self) -> str | None:
        return ScriptDirectory.from_config(self._config()).get_current_head()

    def current_revision(self) -> str | None:
        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    def migrate(self) -> str | None:
        """Bring the schema to the newest migration; returns the revision it is at."""
        with reaching(self.url):
            command.upgrade(self._config(), "head")
            return self.current_revision()

    def check_schema(self, *, upgrade: bool) -> None:
        """Refuse a schema this version does not know; upgrade an older one only when asked."""
        with reaching(self.url):
            self._check_schema(upgrade=upgrade)

    def _check_schema(self, *, upgrade: bool) -> None:
        script = ScriptDirectory.from_config(self._config())
        current, head = self.current_revision(), script.get_current_head()
        if current == head:
            return
        known = {r.revision for r in script.walk_revisions()}
        if current is not None and current not in known:
            raise SchemaError(
                f"the database is at schema revision {current}, which this version of receipt does not "
                "know (a newer receipt migrated it); run the newer version, or restore a backup"
            )
        if upgrade:
            self.migrate()
            return
        raise SchemaError(
            f"the database schema is at {current or 'nothing (empty database)'}, this version needs "
            f"{head}: run `receipt migrate` first"
        )

    def ping(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
