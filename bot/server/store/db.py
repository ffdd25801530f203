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
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from bot.engine import ReceiptError

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class SchemaError(ReceiptError):
    """The database's schema is not the one this version of receipt knows."""

    title = "database schema"


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


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


@dataclass
class Database:
    url: str
    engine: Engine
    sessions: sessionmaker[Session]

    @classmethod
    def open(cls, url: str) -> Database:
        url = normalize_url(url)
        if is_sqlite(url):
            path = sqlite_path(url)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
            event.listen(engine, "connect", _sqlite_pragmas)
        else:
            engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)
        return cls(url, engine, sessionmaker(engine, expire_on_commit=False))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back when it raises."""
        with self.sessions.begin() as session:
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
        command.upgrade(self._config(), "head")
        return self.current_revision()

    def check_schema(self, *, upgrade: bool) -> None:
        """Refuse a schema this version does not know; upgrade an older one only when asked."""
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
