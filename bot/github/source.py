"""The API source: trees, blobs and files of one repository read through GitHub's REST API.

Each tree and blob is fetched at most once per source. A tree GitHub truncates (very large
repositories) is walked one directory at a time instead, so no entry is ever guessed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from githubkit import GitHub

from bot.engine import Entry
from bot.gather.source import Listed, ReadBudget
from bot.github.cache import ObjectCache
from bot.github.contents import Tree, get_blob, get_tree, read_file
from bot.github.repo import RepoRef

_ENTRY_BYTES = 200  # what one tree entry costs the shared cache, roughly
# One request per blob not in the shared cache: an installation has 5,000 an hour, a workflow's
# GITHUB_TOKEN 1,000. A repository with more Python than this is "too large to follow".
API_BUDGET = ReadBudget(files=600, bytes=12 << 20, where="the GitHub API source")


@dataclass
class ApiSource:
    gh: GitHub[Any]
    repo: RepoRef
    shared: ObjectCache | None = None  # trees and blobs reused across jobs (the App's worker)
    budget: ReadBudget = API_BUDGET
    _trees: dict[tuple[str, bool], Tree] = field(default_factory=dict)
    _sizes: dict[str, int] = field(default_factory=dict)

    def tree(self, commit: str, *, recursive: bool = True) -> Tree:
        key = (commit, recursive)
        if key not in self._trees:
            shared_key = (self.repo.full_name, commit, "tree" if recursive else "level")
            tree = self.shared.get(shared_key) if self.shared else None
            if tree is None:
                tree = get_tree(self.gh, self.repo, commit, recursive=recursive)
                if self.shared:
                    self.shared.put(shared_key, tree, _ENTRY_BYTES * (len(tree.entries) + 1))
            self._sizes.update((e.sha, e.size) for e in tree.entries.values() if e.size is not None)
            self._trees[key] = tree
        return self._trees[key]

    def _blob(self, sha: str) -> bytes:
        key = (self.repo.full_name, sha, "blob")
        data = self.shared.get(key) if self.shared else None
        if data is None:
            data = get_blob(self.gh, self.repo, sha)
            if self.shared:
                self.shared.put(key, data, len(data))
        assert isinstance(data, bytes)
        return data

    def _walk(self, commit: str, path: str) -> Entry | None:
        """One entry found directory by directory (a non-recursive tree per level)."""
        *parents, name = path.split("/")
        tree = self.tree(commit, recursive=False)
        for part in parents:
            entry = tree.entries.get(part)
            if entry is None or entry.type != "tree":
                return None
            tree = self.tree(entry.sha, recursive=False)
        found = tree.entries.get(name)
        return Entry(found.mode, found.sha) if found is not None else None

    def entries(self, commit: str, paths: Collection[str]) -> Mapping[str, Entry]:
        tree = self.tree(commit)
        found: dict[str, Entry] = {}
        for path in paths:
            entry = tree.entries.get(path)
            if entry is not None:
                found[path] = Entry(entry.mode, entry.sha)
            elif tree.truncated:
                walked = self._walk(commit, path)
                if walked is not None:
                    found[path] = walked
        return found

    def blobs(self, shas: Collection[str], *, max_size: int) -> Mapping[str, bytes]:
        found: dict[str, bytes] = {}
        for sha in sorted(set(shas)):
            if self._sizes.get(sha, 0) > max_size:
                continue
            data = self._blob(sha)
            if len(data) <= max_size:
                found[sha] = data
        return found

    def tree_id(self, commit: str) -> str:
        return self.tree(commit).sha

    def read_file(self, commit: str, path: str) -> bytes | None:
        return read_file(self.gh, self.repo, commit, path)

    def listing(self, commit: str) -> Mapping[str, Listed] | None:
        """The recursive tree the change's entries were read from; None when GitHub truncated it
        (walking it a directory at a time would cost more requests than the budget allows)."""
        tree = self.tree(commit)
        if tree.truncated:
            return None
        return {
            path: Listed(Entry(e.mode, e.sha), e.size or 0)
            for path, e in tree.entries.items()
            if e.type == "blob"
        }
