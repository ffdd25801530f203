from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakegithub.harness import AppWorld
from tests.server.appprocess import AppHost


@pytest.fixture
def host(github_app: AppWorld, tmp_path: Path) -> Iterator[AppHost]:
    """Starts `receipt serve` / `receipt worker` processes against this test's fake GitHub."""
    started = AppHost(github_app, tmp_path)
    try:
        yield started
    finally:
        started.close()
