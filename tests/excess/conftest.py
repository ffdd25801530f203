from __future__ import annotations

import os

import pytest

from tests.excess import corpus


@pytest.fixture(scope="session")
def tasks() -> list[corpus.Task]:
    """The 400 tasks; CI must have them (it runs beside shared/), a developer's clone may not."""
    if not corpus.available():
        if os.environ.get("CI"):
            pytest.fail(f"edit-fidelity data missing in CI: {corpus.DATA_DIR}")
        pytest.skip(f"edit-fidelity data not found at {corpus.DATA_DIR} (set RECEIPT_EDIT_FIDELITY_DATA)")
    return corpus.load_tasks()
