"""The local-git source: a repository on disk, read through `bot/local/git.py`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.engine import Entry
from bot.gather.source import Listed, ReadBudget
from bot.local.git import Git

# Local objects cost no requests; the bound keeps memory and time in proportion on huge trees.
LOCAL_BUDGET = ReadBudget(files=25_000, bytes=256 << 20, where="a local check")


@dataclass(frozen=True)
class LocalSource:
    git: Git
    budget: ReadBudget = LOCAL_BUDGET

    def entries(self, commit: str, paths: Collection[str]) -> Mapping[str, Entry]:
        return {path: Entry(mode, sha) for path, (mode, sha) in self.git.ls_tree(commit, paths).items()}

    def blobs(self, shas: Collection[str], *, max_size: int) -> Mapping[str, bytes]:
        return self.git.read_blobs(shas, max_size=max_size)

    def tree_id(self, commit: str) -> str:
        return self.git.resolve_tree(commit)

    def read_file(self, commit: str, path: str) -> bytes | None:
        return self.git.read_file(commit, path)

    def listing(self, commit: str) -> Mapping[str, Listed] | None:
        listed = self.git.list_tree(commit)
        return {path: Listed(Entry(mode, sha), size) for path, (mode, sha, size) in listed.items()}
