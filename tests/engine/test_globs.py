from __future__ import annotations

import pytest

from bot.engine.globs import GlobError, GlobMatch, compile_glob, last_match, matches
from bot.engine.patterns import PatternStore


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "empty pattern"),
        ("   ", "empty pattern"),
        ("#x", "starts with '#', which gitignore reads as a comment; write '\\#'"),
        ("\\", "Invalid git pattern: '\\\\'"),
        ("/", "matches nothing"),
        ("[z-a]", "invalid character class range: z-a"),
        ("src/[z-a]/**", "invalid character class range: z-a"),
        ("[[:alpha:]]", "missing ]: [[:alpha:]\\](?:(?P<ps_d>/)|$)"),
        ("?" * 4000, "RE2 would need more than 64 KiB for it (the limit)"),
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
    assert matches(patterns, path, PatternStore()) is expected


def test_last_match_reports_the_deciding_pattern() -> None:
    store = PatternStore()
    assert last_match(["a/**", "!a/b/**"], "a/b/c", store) == GlobMatch("!a/b/**", 1, False)
    assert last_match(["a/**"], "z", store) is None
    assert set(store.globs) == {"a/**", "!a/b/**"}  # compiled once, into the store that asked


def test_globs_run_in_linear_time() -> None:
    """Python's engine backtracks on `*a*a…*b` against a long name of `a`s (minutes at 40
    characters); RE2 answers at once."""
    pattern = "*a" * 20 + "*b"
    assert not matches([pattern], "a" * 4000, PatternStore())
    assert matches([pattern], "a" * 4000 + "b", PatternStore())


def test_a_path_ending_in_a_newline_is_not_its_name_without_it() -> None:
    assert not matches(["*.py"], "x.py\n", PatternStore())
    assert matches(["*.py"], "x.py", PatternStore())
