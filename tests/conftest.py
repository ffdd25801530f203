from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import GitRepo


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty repository on branch main."""
    return GitRepo.create(tmp_path / "repo")


# The fake GitHub's harness for App tests: `fake_github_server` (session) and `github_app` (per test).
from tests.fakegithub.harness import fake_github_server, github_app  # noqa: E402, F401
