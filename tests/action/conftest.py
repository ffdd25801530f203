from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.scenario import Scenario
from tests.fakegithub import FakeServer, serve


@pytest.fixture(scope="session")
def fake_server() -> Iterator[FakeServer]:
    with serve() as server:
        yield server


@pytest.fixture
def github(fake_server: FakeServer) -> FakeServer:
    """The shared fake, emptied for this test."""
    fake_server.state.reset()
    return fake_server


@pytest.fixture
def scenario(tmp_path: Path, github: FakeServer) -> Scenario:
    return Scenario(tmp_path, github)
