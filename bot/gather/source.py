"""What a gatherer needs from where the commits live: which commits (`Revisions`), tree entries,
blobs, files and the listing of a commit, and how much of a whole tree it may read.

Two sources implement it: local git (`bot/local/source.py`) and the GitHub API
(`bot/github/source.py`). Everything else about gathering is shared (`bot/gather/core.py`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

from bot.engine import Entry


@dataclass(frozen=True, slots=True)
class Revisions:
    base: str
    head: str
    merge_base: str

    @property
    def fast_forward(self) -> bool:
        """The base is the merge-base: merging gives the head's tree, and needs no merge computed."""
        return self.base == self.merge_base


@dataclass(frozen=True, slots=True)
class Listed:
    """A file of a tree: its entry and its size in bytes."""

    entry: Entry
    size: int


@dataclass(frozen=True, slots=True)
class ReadBudget:
    """The most a source reads to follow references through a whole tree: files and bytes."""

    files: int
    bytes: int
    where: str  # how the source is named in the message when a tree is over it


class Source(Protocol):
    @property
    def budget(self) -> ReadBudget:
        """How much of a whole tree this source reads to follow references."""

    def entries(self, commit: str, paths: Collection[str]) -> Mapping[str, Entry]:
        """The entries of `paths` in `commit`'s tree; a path that is not there is left out."""

    def blobs(self, shas: Collection[str], *, max_size: int) -> Mapping[str, bytes]:
        """The contents of blobs; one larger than `max_size` bytes is left out."""

    def tree_id(self, commit: str) -> str:
        """The SHA of `commit`'s tree."""

    def read_file(self, commit: str, path: str) -> bytes | None:
        """The file at `path` in `commit`, or None when there is no file there."""

    def listing(self, commit: str) -> Mapping[str, Listed] | None:
        """Every file (blob) of `commit`'s tree by path; None when the source cannot list it whole."""
