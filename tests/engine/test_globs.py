from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.engine._glob_translations import TRANSLATIONS
from bot.engine.globs import Caseless, GlobError, GlobMatch, compile_glob, last_match, matches
from bot.engine.patterns import PatternStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_glob_translations as generator


def test_the_built_in_globs_translate_as_pathspec_translates_them() -> None:
    """The table is pathspec's answer for every built-in glob, and for nothing else: stale (a group
    changed, or pathspec did) means rerunning tools/gen_glob_translations.py."""
    assert generator.translations() == TRANSLATIONS
    assert list(TRANSLATIONS) == generator.built_in_globs()
    for pattern, (regex, include) in TRANSLATIONS.items():
        compiled = compile_glob(pattern)
        assert compiled.regex.pattern == regex and compiled.include is include


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


def test_case_rules_per_list() -> None:
    from bot.engine.globs import Caseless, match_one

    store = PatternStore()
    assert match_one("tests/**", "TESTS/a.py", store) is None
    assert match_one("tests/**", "TESTS/a.py", store, Caseless.INCLUDES) == GlobMatch(
        "tests/**", 0, True, folded=True
    )
    assert match_one("tests/**", "tests/a.py", store, Caseless.INCLUDES) == GlobMatch("tests/**", 0, True)
    assert match_one("!tests/**", "TESTS/a.py", store, Caseless.INCLUDES) is None  # unprotecting: exact
    assert match_one("!tests/**", "TESTS/a.py", store, Caseless.EXCLUDES) == GlobMatch(
        "!tests/**", 0, False, True
    )
    assert match_one("src/**", "SRC/a.py", store, Caseless.EXCLUDES) is None  # allowing: exact only
    assert match_one("[Z-a]x", "_x", store, Caseless.INCLUDES) == GlobMatch("[Z-a]x", 0, True)
    assert match_one("ÄRGER.md", "ärger.md", store, Caseless.INCLUDES) == GlobMatch("ÄRGER.md", 0, True, True)
    assert matches(["*.lock"], "A.LOCK", store, Caseless.INCLUDES) and not matches(
        ["*.lock"], "A.LOCK", store
    )


def test_a_screen_matches_whenever_a_pattern_could() -> None:
    store = PatternStore()
    screen = store.screen(("conftest.py", "**/.github/workflows/**", "!x/**", "conftest.py"))
    for path in ("a/CONFTEST.PY", ".GitHub/Workflows/ci.yml", "x/y", "X/Y"):
        assert screen.search(path) is not None, path
    assert screen.search("src/app.py") is None
    assert store.screen(()).search("anything") is None
    assert store.screen(("conftest.py",)) is store.screen(("conftest.py",))


def test_a_name_that_is_not_utf8_is_matched_by_its_structure() -> None:
    store = PatternStore()
    name = b"tests/bad\xff.py".decode("utf-8", "surrogateescape")
    for pattern in ("tests/**", "*.py", "tests/bad?.py", "**/bad*"):
        assert matches([pattern], name, store), pattern
    assert matches(["tests/**"], name.upper(), store, Caseless.INCLUDES)


def test_patterns_too_many_for_one_screen_are_matched_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.engine import patterns
    from bot.engine.manifest import parse_manifest
    from bot.engine.scope import protection

    monkeypatch.setattr(patterns, "_SCREEN_MAX_MEM", 1 << 10)
    manifest = parse_manifest("version: 1\n")
    assert manifest.patterns.screen(("conftest.py", "**/.github/workflows/**")) is None
    decided = protection(manifest, "Tests/CONFTEST.py")
    assert decided is not None and decided.folded and decided.source == "built-in group test-harness"
    assert protection(manifest, "src/app.py") is None


def test_a_list_is_screened_before_its_patterns_are_tried_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.engine import globs, patterns

    store = PatternStore()
    listed = ["tests/**", "!tests/data/**", "*.LOCK"]
    tried: list[str] = []
    one = globs.match_one

    def counted(pattern: str, *args: object, **kwargs: object) -> GlobMatch | None:
        tried.append(pattern)
        return one(pattern, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(globs, "match_one", counted)
    assert last_match(listed, "src/app.py", store) is None and tried == []  # no pattern can match
    assert matches(listed, "a.lock", store, Caseless.INCLUDES) and tried == listed  # only in another case
    assert not matches(listed, "a.lock", store)  # the screen lets it through; the exact spelling decides
    assert not matches(listed, "tests/data/x", store)
    monkeypatch.setattr(patterns, "_SCREEN_MAX_MEM", 1 << 10)
    store = PatternStore()
    assert matches(["conftest.py", "**/.github/workflows/**"], "Tests/CONFTEST.py", store, Caseless.INCLUDES)
    assert not matches(["conftest.py", "**/.github/workflows/**"], "src/app.py", store)
