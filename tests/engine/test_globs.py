from __future__ import annotations

import pytest

from bot.engine.globs import GlobError, GlobMatch, compile_glob, last_match, matches


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "empty pattern"),
        ("   ", "empty pattern"),
        ("#x", "starts with '#', which gitignore reads as a comment; write '\\#'"),
        ("\\", "Invalid git pattern: '\\\\'"),
        ("/", "matches nothing"),
    ],
)
def test_bad_patterns(pattern: str, problem: str) -> None:
    with pytest.raises(GlobError) as err:
        compile_glob(pattern)
    assert err.value.problem == problem and err.value.pattern == pattern


@pytest.mark.parametrize(
    ("patterns", "path", "expected"),
    [
        (["src/**"], "src/a/b.py", True),
        (["src/**"], "lib/src/a.py", False),
        (["*.lock"], "deep/dir/x.lock", True),
        ([".env*"], "config/.envrc", True),
        (["src/**", "!src/gen/**"], "src/gen/x.py", False),
        (["src/**", "!src/gen/**", "src/gen/keep.py"], "src/gen/keep.py", True),
        (["docs/"], "docs/a/b.md", True),
        (["\\#notes"], "#notes", True),
        ([], "anything", False),
    ],
)
def test_last_match_wins(patterns: list[str], path: str, expected: bool) -> None:
    assert matches(patterns, path) is expected


def test_last_match_reports_the_deciding_pattern() -> None:
    assert last_match(["a/**", "!a/b/**"], "a/b/c") == GlobMatch("!a/b/**", 1, False)
    assert last_match(["a/**"], "z") is None
