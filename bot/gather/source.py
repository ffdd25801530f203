"""What a gatherer needs from where the commits live: tree entries, blobs and files at a commit.

Two sources implement it: local git (`bot/local/source.py`) and the GitHub API
(`bot/github/source.py`). Everything else about gathering is shared (`bot/gather/core.py`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

from bot.engine import Entry


class Source(Protocol):
    def entries(self, commit: str, paths: Collection[str]) -> Mapping[str, Entry]:
        """The entries of `paths` in `commit`'s tree; a path that is not there is left out."""

    def blobs(self, shas: Collection[str], *, max_size: int) -> Mapping[str, bytes]:
        """The contents of blobs; one larger than `max_size` bytes is left out."""

    def read_file(self, commit: str, path: str) -> bytes | None:
        """The file at `path` in `commit`, or None when there is no file there."""
