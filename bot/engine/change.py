"""The change under review: its parsed diff, its digest, and the texts of its files.

The digest names the change by what it does to the tree, not by how a diff was rendered: for every
path the change touches, its mode and object SHA before and after. Local git and GitHub's API render
diffs differently (abbreviated `index` lines, rename pairing), but both can read the two trees, so a
receipt built from either verifies against the other.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bot.engine.diff import Diff, FileDiff, parse_diff

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


_EMPTY: Mapping[str, FileTexts] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Change:
    diff: Diff
    digest: str
    texts: Mapping[str, FileTexts] = field(default_factory=lambda: _EMPTY)

    def texts_of(self, file: FileDiff) -> FileTexts:
        return self.texts.get(file.path, FileTexts())


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


def change_from_diff(data: bytes, texts: Mapping[str, FileTexts] | None = None) -> Change:
    """Parse diff bytes (DiffParseError when malformed) into a Change named by the entries it states."""
    diff = parse_diff(data)
    return Change(diff, change_digest(diff, *entries_in_diff(diff)), MappingProxyType(dict(texts or {})))
