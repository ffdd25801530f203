"""Real git repositories for tests: build commits, branches and odd file names, then diff them."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.engine import REFERENCES_CHECK, CheckResult
from bot.engine.receipt import Receipt
from bot.local.check import CheckOptions, run_check

_ENV = {
    "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer", "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent", "LC_ALL": "C",
}  # fmt: skip


@dataclass
class GitRepo:
    root: Path

    @classmethod
    def create(cls, root: Path, branch: str = "main") -> GitRepo:
        root.mkdir(parents=True, exist_ok=True)
        repo = cls(root)
        repo.git("init", "-q", "-b", branch)
        repo.git("config", "commit.gpgsign", "false")
        return repo

    def git(self, *args: str, stdin: bytes | None = None) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _ENV
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=env, input=stdin, capture_output=True, check=False
        )
        if done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stderr.decode()}")
        return done.stdout.decode("utf-8", "surrogateescape")

    def git_bytes(self, *args: str) -> bytes:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _ENV
        return subprocess.run(["git", *args], cwd=self.root, env=env, capture_output=True, check=True).stdout

    def write(self, path: str | bytes, content: str | bytes = "", *, mode: int | None = None) -> None:
        target = self.root / os.fsdecode(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        target.write_bytes(content)
        if mode is not None:
            target.chmod(mode)

    def symlink(self, path: str, target: str) -> None:
        link = self.root / path
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)

    def remove(self, path: str) -> None:
        self.git("rm", "-q", "--", path)

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", "--", old, new)

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def branch(self, name: str, start: str = "HEAD") -> None:
        self.git("checkout", "-q", "-b", name, start)

    def checkout(self, rev: str) -> None:
        self.git("checkout", "-q", rev)


def check(
    repo: GitRepo, *, base: str = "main", head: str = "HEAD", test_command: str | None = None, **options: Any
) -> Receipt:
    """`receipt check` through the local gatherer; tests are off unless a command is given."""
    options.setdefault("no_tests", test_command is None)
    return run_check(CheckOptions(repo=repo.root, base=base, head=head, test_command=test_command, **options))


def rules(receipt: Receipt) -> list[tuple[str, str | None]]:
    return [(v.rule.value, v.path) for v in (*receipt.scope, *receipt.locality_violations)]


def evidence_checks(receipt: Receipt) -> tuple[CheckResult, ...]:
    """The test results of a receipt, without receipt's own `references` check."""
    return tuple(c for c in receipt.checks if c.name != REFERENCES_CHECK)
