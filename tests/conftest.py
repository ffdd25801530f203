from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import GitRepo

# Vendored upstream files (detect-secrets' *_test.py among them) are data, not tests.
collect_ignore = ["data"]


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty repository on branch main."""
    return GitRepo.create(tmp_path / "repo")


# The fake GitHub's harness for App tests: `fake_github_server` (session) and `github_app` (per test).
from tests.fakegithub.harness import fake_github_server, github_app  # noqa: E402, F401


@pytest.fixture
def pr(repo: GitRepo) -> GitRepo:
    """A repository whose branch `pr` changes one line of `src/a.py` on `main`."""
    repo.write("src/a.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/a.py", "x = 2\n")
    repo.commit("pr")
    return repo
