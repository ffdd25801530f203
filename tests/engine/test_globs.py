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


def test_case_rules_per_list() -> None:
    from bot.engine.globs import Caseless, match_one

    assert match_one("tests/**", "TESTS/a.py") is None
    assert match_one("tests/**", "TESTS/a.py", Caseless.INCLUDES) == GlobMatch(
        "tests/**", 0, True, folded=True
    )
    assert match_one("tests/**", "tests/a.py", Caseless.INCLUDES) == GlobMatch("tests/**", 0, True)
    assert match_one("!tests/**", "TESTS/a.py", Caseless.INCLUDES) is None  # unprotecting: exact only
    assert match_one("!tests/**", "TESTS/a.py", Caseless.EXCLUDES) == GlobMatch("!tests/**", 0, False, True)
    assert match_one("src/**", "SRC/a.py", Caseless.EXCLUDES) is None  # allowing: exact only
    assert match_one("[Z-a]x", "_x", Caseless.INCLUDES) == GlobMatch("[Z-a]x", 0, True)  # ranges keep meaning
    assert match_one("ÄRGER.md", "ärger.md", Caseless.INCLUDES) == GlobMatch("ÄRGER.md", 0, True, True)
    assert matches(["*.lock"], "A.LOCK", Caseless.INCLUDES) and not matches(["*.lock"], "A.LOCK")


def test_any_case_screen_matches_whenever_a_pattern_could() -> None:
    from bot.engine.globs import any_case_screen

    screen = any_case_screen(["conftest.py", "**/.github/workflows/**", "!x/**", "conftest.py"])
    for path in ("a/CONFTEST.PY", ".GitHub/Workflows/ci.yml", "x/y", "X/Y"):
        assert screen.search(path) is not None, path
    assert screen.search("src/app.py") is None
    assert any_case_screen([]).search("anything") is None
