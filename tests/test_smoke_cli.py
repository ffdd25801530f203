from __future__ import annotations

from bot.cli import main
from tests.gitrepo import GitRepo


def test_faithful_fix_passes(repo: GitRepo) -> None:
    repo.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    repo.commit("base")
    repo.branch("fix")
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n")
    repo.commit("fix")
    assert main(["check", "--repo", str(repo.root), "--base", "main", "--no-tests"]) == 0
