"""tests.ignore_side_effects: a directory pattern covers the directory itself and what is under it."""

from __future__ import annotations

import pytest

from bot.engine.manifest import parse_manifest
from bot.engine.semantic import SideEffect, SideEffectKind, TestEvidence, side_effect_violations

CREATED, DELETED, MODIFIED = SideEffectKind.CREATED, SideEffectKind.DELETED, SideEffectKind.MODIFIED


def _reported(patterns: list[str], *effects: SideEffect) -> list[str]:
    manifest = parse_manifest(f"version: 1\ntests: {{ignore_side_effects: {patterns!r}}}\n")
    return [v.path for v in side_effect_violations(TestEvidence(side_effects=effects), manifest)]


@pytest.mark.parametrize("pattern", ["build/**", "build/", "build", "/build/", "/build/**"])
@pytest.mark.parametrize("kind", [CREATED, DELETED, MODIFIED])
def test_a_directory_pattern_covers_the_directory_and_everything_in_it(
    pattern: str, kind: SideEffectKind
) -> None:
    effects = [SideEffect(p, kind, " (dir)") for p in ("build", "build/lib", "build/lib/x.so")]
    assert _reported([pattern], *effects) == []


@pytest.mark.parametrize("pattern", [".benchmarks", ".benchmarks/", ".benchmarks/**"])
def test_a_tool_directory_listed_by_name_is_covered(pattern: str) -> None:
    # what pytest-benchmark leaves behind: the gate reports the new directory once, as a whole
    assert _reported([pattern], SideEffect(".benchmarks", CREATED, " (dir)")) == []


@pytest.mark.parametrize(
    ("patterns", "path"),
    [
        (["build/**"], "builder"),  # another name that starts the same
        (["build/**"], "src/build"),  # anchored: build/** is the top-level build only
        (["build/**"], ".env"),
        (["build/*"], "build"),  # the contents of build, not build itself
        ([".benchmarks"], ".benchmarks-old"),
        (["build/", "!build"], "build"),  # the last match wins, and it excludes
    ],
)
def test_near_misses_are_still_reported(patterns: list[str], path: str) -> None:
    assert _reported(patterns, SideEffect(path, CREATED, " (dir)")) == [path]


def test_a_later_exclusion_keeps_a_directory_reported_as_a_whole() -> None:
    # The gate reports a created directory once, without what it holds: with a `!` pattern after the
    # one that covers it, the excluded file may be inside, so the directory is reported.
    patterns = ["build/**", "!build/keep.txt"]
    assert _reported(patterns, SideEffect("build", CREATED, " (dir)")) == ["build"]
    assert _reported(patterns, SideEffect("build", DELETED, " (dir)")) == ["build"]
    assert _reported(patterns, SideEffect("build/keep.txt", CREATED, " (file)")) == ["build/keep.txt"]
    # one path changed in place hides nothing: only the pattern deciding it matters
    assert _reported(patterns, SideEffect("build/out.o", MODIFIED)) == []
    assert _reported(patterns, SideEffect("build/keep.txt", MODIFIED)) == ["build/keep.txt"]
    # an exclusion before the covering pattern is overridden by it (last match wins)
    assert _reported(["!build/keep.txt", "build/"], SideEffect("build", CREATED, " (dir)")) == []
