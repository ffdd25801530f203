"""Which paths a content rule does not read: `content.exclude` (every rule) and the rule's own
`content.<rule>.exclude`, gitignore-style like every path pattern of the manifest (last match wins)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, chosen
from bot.engine.globs import last_match
from bot.engine.manifest import Manifest


def excluded_by(manifest: Manifest, key: str | None, path: str) -> str | None:
    """The manifest entry that excludes `path` from the rule `content.<key>` (`key` None: a rule
    with no exclusions of its own), as a maintainer finds it: `content.exclude[2] ('vendor/**')`."""
    content = manifest.content
    lists = [("content.exclude", content.exclude)]
    if key is not None:
        lists.append((f"content.{key}.exclude", content.excluded_for(key)))
    for name, patterns in lists:
        found = last_match(patterns, path, manifest.patterns) if patterns else None
        if found is not None and found.include:
            return f"{name}[{found.index}] ({found.pattern!r})"
    return None


def read_files(
    change: Change, manifest: Manifest, key: str | None, files: Sequence[AddedFile] | None = None
) -> Iterator[AddedFile]:
    """The added files the rule reads (`files`, or the change's): every one no exclusion names."""
    return (f for f in chosen(change, files) if excluded_by(manifest, key, f.path) is None)


def excluded_note(entry: str) -> str:
    """What a finding reported inside an excluded path says about it."""
    return (
        f" The path is excluded by {entry}, but a verified secret is reported wherever it is: "
        "an exclusion cannot hide a live credential."
    )
