"""The change under review: its parsed diff, its digest, and the texts of its files.

The digest names the change by what it does to the tree, not by how a diff was rendered: for every
path the change touches, its mode and object SHA before and after. Local git and GitHub's API render
diffs differently (abbreviated `index` lines, rename pairing), but both can read the two trees, so a
receipt built from either verifies against the other.

Texts are kept per change, not per path: a path whose type changes (a file replaced by a symlink,
a directory or a submodule) is two changes in git's diff, a deletion and an addition, each with its
own texts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bot.engine.bounds import MAX_DIFF_BYTES, MAX_DIFF_FILES, MAX_DIFF_LINES
from bot.engine.diff import Diff, FileDiff, parse_diff
from bot.engine.errors import TooLargeToAssess

DELTA_SCHEMA = "tree-delta/1"


@dataclass(frozen=True, slots=True)
class Entry:
    """A path's entry in a commit's tree: git mode (`100644`, `120000`, `160000`…) and object SHA."""

    mode: str
    sha: str


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


def touched_paths(diff: Diff) -> tuple[str, ...]:
    """Every path on either side of every file of the diff, sorted."""
    return tuple(sorted({p for f in diff.files for p in f.paths}))


def change_digest(diff: Diff, base: Mapping[str, Entry], head: Mapping[str, Entry]) -> str:
    """The digest of the tree delta: each touched path's entry at the merge-base and at the head.

    A path whose entry is the same on both sides (the source of a copy) is not part of the delta,
    and rename pairing does not enter it, so two renderings of one change give one digest.
    """
    rows = []
    for path in touched_paths(diff):
        old, new = base.get(path), head.get(path)
        if old != new:
            rows.append([path, *(_entry_json(old)), *(_entry_json(new))])
    body = json.dumps({"schema": DELTA_SCHEMA, "paths": rows}, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(body.encode("ascii")).hexdigest()


def _entry_json(entry: Entry | None) -> tuple[str | None, str | None]:
    return (entry.mode, entry.sha) if entry is not None else (None, None)


def entries_in_diff(diff: Diff) -> tuple[dict[str, Entry], dict[str, Entry]]:
    """The tree entries a diff states itself (`index` lines with full SHAs), base side and head side.

    A diff does not state the blob of a pure rename or mode change; gatherers read the trees instead.
    """
    base: dict[str, Entry] = {}
    head: dict[str, Entry] = {}
    for f in diff.files:
        if f.old_path is not None and f.old_mode and f.old_blob:
            base[f.old_path] = Entry(f.old_mode, f.old_blob)
        if f.new_path is not None and f.new_mode and f.new_blob:
            head[f.new_path] = Entry(f.new_mode, f.new_blob)
    return base, head


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


def parse_bounded(data: bytes) -> Diff:
    """`parse_diff` within the limits on what one receipt reads (TooLargeToAssess past them)."""
    check_diff_size(data)
    diff = parse_diff(data)
    if len(diff.files) > MAX_DIFF_FILES:
        raise TooLargeToAssess(
            f"the diff changes {len(diff.files):,} files, more than the {MAX_DIFF_FILES:,} one receipt reads"
        )
    return diff


def change_from_diff(data: bytes, texts: Mapping[FileKey, FileTexts] | None = None) -> Change:
    """Parse diff bytes (DiffParseError when malformed) into a Change named by the entries it states;
    TooLargeToAssess past the limits on what one receipt reads."""
    diff = parse_bounded(data)
    return Change(diff, change_digest(diff, *entries_in_diff(diff)), MappingProxyType(dict(texts or {})))
