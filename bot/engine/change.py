"""The change under review: its parsed diff, the digest of the diff bytes, and file texts."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bot.engine.diff import Diff, FileDiff, parse_diff


@dataclass(frozen=True, slots=True)
class FileTexts:
    """Base (C) and head (M) text of one changed file; None where absent, binary or not fetched."""

    base: str | None = None
    head: str | None = None


_EMPTY: Mapping[str, FileTexts] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Change:
    diff: Diff
    digest: str
    texts: Mapping[str, FileTexts] = field(default_factory=lambda: _EMPTY)

    def texts_of(self, file: FileDiff) -> FileTexts:
        return self.texts.get(file.path, FileTexts())


def diff_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def change_from_diff(data: bytes, texts: Mapping[str, FileTexts] | None = None) -> Change:
    """Parse diff bytes (DiffParseError when malformed) into a Change."""
    return Change(parse_diff(data), diff_digest(data), MappingProxyType(dict(texts or {})))
