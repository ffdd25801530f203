"""The local-git source: a repository on disk, read through `bot/local/git.py`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.engine import Entry
from bot.local.git import Git


@dataclass(frozen=True)
class LocalSource:
    git: Git

    def entries(self, commit: str, paths: Collection[str]) -> Mapping[str, Entry]:
        return {path: Entry(mode, sha) for path, (mode, sha) in self.git.ls_tree(commit, paths).items()}

    def blobs(self, shas: Collection[str], *, max_size: int) -> Mapping[str, bytes]:
        return self.git.read_blobs(shas, max_size=max_size)

    def read_file(self, commit: str, path: str) -> bytes | None:
        return self.git.read_file(commit, path)
