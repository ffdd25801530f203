"""The change under review: its parsed diff, the digest of the diff bytes, and file texts.

Texts are kept per change, not per path: a path whose type changes (a file replaced by a symlink,
a directory or a submodule) is two changes in git's diff, a deletion and an addition, each with its
own texts."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bot.engine.bounds import MAX_DIFF_BYTES, MAX_DIFF_FILES, MAX_DIFF_LINES
from bot.engine.diff import Diff, FileDiff, parse_diff
from bot.engine.errors import TooLargeToAssess


@dataclass(frozen=True, slots=True)
class FileTexts:
    """Base (C) and head (M) text of one changed file; None where absent, binary or not fetched."""

    base: str | None = None
    head: str | None = None


FileKey = tuple[str | None, str | None]  # (old_path, new_path): one change of a diff


def file_key(file: FileDiff) -> FileKey:
    return file.old_path, file.new_path


_EMPTY: Mapping[FileKey, FileTexts] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Change:
    diff: Diff
    digest: str
    texts: Mapping[FileKey, FileTexts] = field(default_factory=lambda: _EMPTY)

    def texts_of(self, file: FileDiff) -> FileTexts:
        return self.texts.get(file_key(file), FileTexts())


def diff_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def check_diff_size(data: bytes) -> None:
    """TooLargeToAssess past what one receipt reads (bounds.py): checked before anything is parsed."""
    if len(data) > MAX_DIFF_BYTES:
        raise TooLargeToAssess(
            f"the diff is {len(data):,} bytes, more than the {MAX_DIFF_BYTES:,} one receipt reads"
        )
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if lines > MAX_DIFF_LINES:
        raise TooLargeToAssess(
            f"the diff is {lines:,} lines, more than the {MAX_DIFF_LINES:,} one receipt reads"
        )


def change_from_diff(data: bytes, texts: Mapping[FileKey, FileTexts] | None = None) -> Change:
    """Parse diff bytes (DiffParseError when malformed) into a Change; TooLargeToAssess past the
    limits on what one receipt reads."""
    check_diff_size(data)
    diff = parse_diff(data)
    if len(diff.files) > MAX_DIFF_FILES:
        raise TooLargeToAssess(
            f"the diff changes {len(diff.files):,} files, more than the {MAX_DIFF_FILES:,} one receipt reads"
        )
    return Change(diff, diff_digest(data), MappingProxyType(dict(texts or {})))
