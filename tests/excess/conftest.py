from __future__ import annotations

import pytest

from tests.excess import corpus


@pytest.fixture(scope="session")
def tasks() -> list[corpus.Task]:
    """The 400 tasks (vendored in tests/data/edit-fidelity)."""
    return corpus.load_tasks()
