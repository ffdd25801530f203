"""Receipt's own git directories for a replay, and the atomic write the run directory uses.

A replay makes commits of its own (an attempt's tree, the hidden tests laid over a result): they
go into a bare git directory that borrows the replayed repository's objects through
`objects/info/alternates` (read, never written), so nothing replay makes lands in the user's
repository. The alternates name the repository's object directory by its absolute path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bot.local.git import Git, GitError
from bot.replay.errors import ReplayError


def write_atomic(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def init(directory: Path) -> Git:
    """A new bare git directory at `directory` (no template: no hooks, nothing of the user's)."""
    Git(directory.parent).run("init", "--quiet", "--bare", "--template=", str(directory), isolated=True)
    return Git(directory)


def borrow(directory: Path, repo: Git) -> None:
    """Let the git directory at `directory` read `repo`'s objects (never write them)."""
    try:
        objects = repo.run("rev-parse", "--path-format=absolute", "--git-path", "objects").decode().strip()
    except GitError as exc:
        raise ReplayError(f"{repo.root}: {exc.problem}") from exc
    alternates = directory / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(alternates, (objects + "\n").encode())


def alternates(directory: Path) -> list[Path]:
    """The object directories the git directory at `directory` borrows from."""
    try:
        text = (directory / "objects" / "info" / "alternates").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [Path(line) for line in text.splitlines() if line.strip() and not line.startswith("#")]


@contextlib.contextmanager
def scratch(repo: Git) -> Iterator[Git]:
    """A throwaway git directory borrowing `repo`'s objects, removed afterwards."""
    where = Path(tempfile.mkdtemp(prefix="receipt-replay-git-"))
    try:
        git = init(where / "git")
        borrow(git.root, repo)
        yield git
    finally:
        shutil.rmtree(where, ignore_errors=True)
