"""The replayed scenario, shared by the replay tests: built, run and reported once per session."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay import scenario


@pytest.fixture(scope="session")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The scenario's five scripted arms run on its two tasks, and the report (treat it as read-only:
    a test that changes the run works on a copy)."""
    return scenario.replay(tmp_path_factory.mktemp("replay"))
