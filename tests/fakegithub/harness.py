"""A harness for tests of the App: one fake GitHub for the session, emptied for every test, holding
one App (with a fresh-per-session RSA key), one installation and a real git repository with an open
pull request. Tests point the App at `world.app_env()` and the fake's webhooks at the App.

    def test_something(github_app: AppWorld) -> None:
        github_app.webhooks_to(app_url + "/webhook")
        github_app.send_pull_request("opened")
        run = wait_until(lambda: github_app.fake.runs_for(github_app.pull.head_sha, "receipt"))
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakegithub.server import FakeServer, serve
from tests.fakegithub.world import (
    BASE_FILES,
    CHANGE,
    FORK,
    OWNER,
    REPO,
    AppWorld,
    build_world,
    wait_until,
)

__all__ = ["BASE_FILES", "CHANGE", "FORK", "OWNER", "REPO", "AppWorld", "build_world", "wait_until"]


@pytest.fixture(scope="session")
def fake_github_server() -> Iterator[FakeServer]:
    with serve() as server:
        yield server


@pytest.fixture
def github_app(fake_github_server: FakeServer, tmp_path: Path) -> Iterator[AppWorld]:
    """The fake with one App, one installation on acme/widgets and pull request #7 (src/calc.py fixed)."""
    fake_github_server.state.reset()
    world = build_world(fake_github_server, tmp_path)
    yield world
    fake_github_server.state.deliverer.clear()
