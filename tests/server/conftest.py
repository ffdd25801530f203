from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.server.store.db import Database
from tests.fakegithub.harness import AppWorld
from tests.server.appprocess import AppHost
from tests.server.services import Scaled, scaled, services  # noqa: F401  # fixtures


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    """An embedded store of this test's, migrated (test_store.py runs its tests on PostgreSQL too)."""
    database = Database.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    database.migrate()
    yield database
    database.engine.dispose()


@pytest.fixture
def host(github_app: AppWorld, tmp_path: Path) -> Iterator[AppHost]:
    """Starts `receipt serve` / `receipt worker` processes against this test's fake GitHub."""
    started = AppHost(github_app, tmp_path)
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def fleet(github_app: AppWorld, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[AppHost]:
    """Like `host`, on PostgreSQL (a schema of this test's, migrated) and Redis (a queue of its own)."""
    shared: Scaled = request.getfixturevalue("scaled")
    started = AppHost(github_app, tmp_path, shared.database_url, shared.queue_url, shared.queue_name)
    started.migrate()
    try:
        yield started
    finally:
        started.close()
