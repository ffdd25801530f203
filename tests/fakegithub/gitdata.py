"""What the fake serves from a repository on disk: diffs, trees, blobs, merge-bases, commits."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


class GitDataError(LookupError):
    """The object or revision does not exist."""


@dataclass(frozen=True)
class TreeItem:
    path: str
    mode: str
    type: str
    sha: str
    size: int | None


@dataclass(frozen=True)
class FileChange:
    status: str  # added, removed, modified, renamed, copied
    filename: str
    previous_filename: str | None
    sha: str
    additions: int
    deletions: int
    patch: str | None  # None for binary files


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"LC_ALL": "C"}
    done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, env=env, check=False)
    if done.returncode != 0:
        raise GitDataError(done.stderr.decode("utf-8", "replace").strip())
    return done.stdout


def resolve(root: Path, rev: str) -> str:
    return (
        git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        .decode()
        .strip()
    )


def merge_base(root: Path, a: str, b: str) -> str:
    return git(root, "merge-base", a, b).decode().strip()


def count(root: Path, spec: str) -> int:
    return int(git(root, "rev-list", "--count", spec).decode())


def diff_text(root: Path, old: str, new: str) -> bytes:
    """The diff as GitHub renders the diff media type: renames found, abbreviated index lines."""
    return git(root, "-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
               "--find-renames", old, new, "--")  # fmt: skip


_DIFF_START = re.compile(r"^diff --git ", re.MULTILINE)


def _blocks(diff: bytes) -> list[str]:
    text = diff.decode("utf-8", "replace")
    starts = [m.start() for m in _DIFF_START.finditer(text)]
    return [text[s : (starts[n + 1] if n + 1 < len(starts) else len(text))] for n, s in enumerate(starts)]


def _patch(block: str) -> str | None:
    lines = block.split("\n")
    if any(line.startswith("Binary files ") for line in lines):
        return None
    first = next((i for i, line in enumerate(lines) if line.startswith("@@")), None)
    return None if first is None else "\n".join(lines[first:]).rstrip("\n")


_STATUS = {"A": "added", "D": "removed", "M": "modified", "T": "changed", "R": "renamed", "C": "copied"}


def file_changes(root: Path, old: str, new: str) -> list[FileChange]:
    """The files API's view: one entry per file, in git's order, with the hunks as `patch`.

    Kept per (repository, old, new): commits never change, and a paginated client asks for the
    same diff once per page."""
    if _is_sha(old) and _is_sha(new):
        return list(_file_changes(root, old, new))
    return _compute_file_changes(root, old, new)


def _is_sha(rev: str) -> bool:
    return len(rev) == 40 and all(c in "0123456789abcdef" for c in rev)


@lru_cache(maxsize=32)
def _file_changes(root: Path, old: str, new: str) -> tuple[FileChange, ...]:
    return tuple(_compute_file_changes(root, old, new))


def _compute_file_changes(root: Path, old: str, new: str) -> list[FileChange]:
    raw = git(root, "-c", "core.quotePath=false", "diff", "--raw", "-z", "--numstat", "--find-renames",
              "--no-abbrev", old, new, "--").split(b"\0")  # fmt: skip
    blocks = _blocks(diff_text(root, old, new))
    entries: list[tuple[str, str, str | None, str]] = []
    i = 0
    while i < len(raw) and raw[i].startswith(b":"):
        meta = raw[i].decode().split()
        status = meta[4][0]
        if status in "RC":
            entries.append((status, raw[i + 2].decode(), raw[i + 1].decode(), meta[3]))
            i += 3
        else:
            entries.append((status, raw[i + 1].decode(), None, meta[3] if status != "D" else meta[2]))
            i += 2
    stats: list[tuple[int, int]] = []
    while i < len(raw) and raw[i]:
        added, removed, *rest = raw[i].decode().split("\t")
        stats.append((int(added) if added != "-" else 0, int(removed) if removed != "-" else 0))
        i += 3 if rest == [""] else 1
    return [
        FileChange(_STATUS[s], name, prev, sha, a, d, _patch(block))
        for (s, name, prev, sha), (a, d), block in zip(entries, stats, blocks, strict=True)
    ]


def tree(root: Path, rev: str) -> list[TreeItem]:
    out = git(root, "ls-tree", "-r", "-t", "-l", "-z", rev)
    items = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.decode("utf-8", "surrogateescape").partition("\t")
        mode, kind, sha, size = meta.split()
        items.append(TreeItem(path, mode, kind, sha, int(size) if size != "-" else None))
    return items


def object_type(root: Path, spec: str) -> str | None:
    try:
        return git(root, "cat-file", "-t", spec).decode().strip()
    except GitDataError:
        return None


def blob(root: Path, spec: str) -> bytes:
    return git(root, "cat-file", "blob", spec)


def rev_parse(root: Path, spec: str) -> str:
    return git(root, "rev-parse", spec).decode().strip()


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    parents: tuple[str, ...]
    message: str
    author: tuple[str, str, str]
    committer: tuple[str, str, str]


def commit_info(root: Path, sha: str) -> CommitInfo:
    fmt = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B"
    fields = git(root, "show", "-s", f"--format={fmt}", sha).decode().split("\0")
    return CommitInfo(fields[0], fields[1], tuple(fields[2].split()), fields[9].rstrip("\n"),
                      (fields[3], fields[4], fields[5]), (fields[6], fields[7], fields[8]))  # fmt: skip
