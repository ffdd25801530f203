"""File texts given by path, for tests: each path names one change of the diff."""

from __future__ import annotations

from collections.abc import Mapping

from bot.engine.change import Change, FileKey, FileTexts, change_from_diff, file_key
from bot.engine.diff import Diff, parse_diff


def keyed(diff: Diff, texts: Mapping[str, FileTexts]) -> dict[FileKey, FileTexts]:
    out: dict[FileKey, FileTexts] = {}
    for path, text in texts.items():
        files = [f for f in diff.files if f.path == path]
        assert len(files) <= 1, f"{path} names {len(files)} changes: give their texts by key"
        out.update((file_key(f), text) for f in files)
    return out


def change_with_texts(data: bytes, texts: Mapping[str, FileTexts]) -> Change:
    return change_from_diff(data, keyed(parse_diff(data), texts))
