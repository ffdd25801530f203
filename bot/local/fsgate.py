"""The filesystem state gate: what a test run created, deleted or changed in its worktree.

It does not trust .gitignore: an ignored `.env` written by a test is exactly what it exists to
catch. Only the caches below (and the manifest's tests.ignore_side_effects) are left out.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from bot.engine import SideEffect, SideEffectKind

IGNORED_NAMES = frozenset({
    ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".venv",
    "node_modules", ".coverage",
})  # fmt: skip
IGNORED_SUFFIXES = (".pyc",)


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str  # "file", "dir", "symlink"
    mode: int
    content: str  # sha256 of a file, target of a symlink, "" for a directory


def _ignored(name: str) -> bool:
    return name in IGNORED_NAMES or name.endswith(IGNORED_SUFFIXES)


def _hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(root: Path) -> dict[str, Entry]:
    """Every path under `root` (relative, '/'-separated) with its kind, mode and content hash."""
    found: dict[str, Entry] = {}
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not _ignored(d))
        base = Path(directory)
        for name in dirnames + sorted(filenames):
            if _ignored(name):
                continue
            path = base / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[rel] = Entry("symlink", 0o120000, os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = Entry("dir", 0o040000, "")
            elif stat.S_ISREG(info.st_mode):
                try:
                    content = _hash(path)
                except OSError as exc:
                    content = f"unreadable: {exc.strerror}"
                found[rel] = Entry("file", info.st_mode & 0o111, content)
            else:
                found[rel] = Entry("special", stat.S_IFMT(info.st_mode), "")
    return found


def _under(path: str, directories: set[str]) -> bool:
    parts = path.split("/")
    return any("/".join(parts[:i]) in directories for i in range(1, len(parts)))


def compare(before: dict[str, Entry], after: dict[str, Entry]) -> list[SideEffect]:
    """Differences, reporting a created or deleted directory once rather than every file in it."""
    effects: list[SideEffect] = []
    whole_dirs: set[str] = set()
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new or _under(path, whole_dirs):
            continue
        if old is None or new is None:
            entry = new or old
            assert entry is not None
            if entry.kind == "dir":
                whole_dirs.add(path)
            kind = SideEffectKind.CREATED if old is None else SideEffectKind.DELETED
            effects.append(SideEffect(path, kind, f" ({entry.kind})"))
        elif old.kind != new.kind:
            effects.append(SideEffect(path, SideEffectKind.MODIFIED, f" ({old.kind} -> {new.kind})"))
        elif old.mode != new.mode:
            effects.append(SideEffect(path, SideEffectKind.MODIFIED, " (mode)"))
        else:
            effects.append(SideEffect(path, SideEffectKind.MODIFIED, ""))
    return effects
