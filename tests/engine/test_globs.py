from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine._glob_translations import TRANSLATIONS
from bot.engine.change import FileTexts
from bot.engine.evaluation import Inputs, evaluate
from bot.engine.gitpath import matchable
from bot.engine.globs import (
    PREFIX_CHARS,
    Caseless,
    GlobError,
    GlobMatch,
    compile_glob,
    last_match,
    literal_prefix,
    match_one,
    match_work,
    matches,
)
from bot.engine.groups import MANIFEST_PATH
from bot.engine.manifest import ManifestSource, load_manifest
from bot.engine.patterns import PatternStore
from bot.engine.receipt import Subject
from tests.texts import change_with_texts

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
        (
            "[[:alpha:]]",
            "missing ] (gitignore has no POSIX classes such as [:alpha:]; list the characters: [a-zA-Z])",
        ),
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
    # only in another case; the patterns under tests/ cannot match a.lock, and are not run
    assert matches(listed, "a.lock", store, Caseless.INCLUDES) and tried == ["*.LOCK"]
    assert not matches(listed, "a.lock", store)  # the screen lets it through; the exact spelling decides
    assert not matches(listed, "tests/data/x", store)
    monkeypatch.setattr(patterns, "_SCREEN_MAX_MEM", 1 << 10)
    store = PatternStore()
    assert matches(["conftest.py", "**/.github/workflows/**"], "Tests/CONFTEST.py", store, Caseless.INCLUDES)
    assert not matches(["conftest.py", "**/.github/workflows/**"], "src/app.py", store)


# A pattern's literal prefix: a path that does not begin with it (case folded) cannot match, so it
# is not run, and matching work is counted only up to it (issue 20: a valid manifest of 1,000 globs,
# each under its own directory, made any change of 5,000 paths "too large to assess").


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [
        ("src/d0/[a-z][0-9]*/**/*.py", "src/d0/"),
        ("/Docs/API", "docs/api"),
        ("a/**", "a/"),
        ("src/a\\ ", "src/a "),
        ("src/a ", "src/a"),
        ("\\#x/y", "#x/y"),
        ("!tests/data/**", "tests/data/"),
        ("sr?/x", "sr"),
        ("[s]rc/x", ""),
        ("*.lock", ""),
        ("foo/", ""),
        ("**/foo", ""),
        ("ÄRGER/x", ""),
        ("src/ü/x", "src/"),
    ],
)
def test_a_patterns_literal_prefix(pattern: str, prefix: str) -> None:
    assert compile_glob(pattern).prefix == prefix


def test_a_literal_prefix_is_claimed_only_where_certain() -> None:
    assert literal_prefix("^ab|c") == ""  # an alternative outside any group could match anywhere
    assert literal_prefix("^a(b|c)") == "a"
    assert literal_prefix("^a[]|]b") == "a"  # a `|` in a character class is a member
    assert literal_prefix("^ab*") == literal_prefix("^ab?") == literal_prefix("^ab{0,2}") == "a"
    assert literal_prefix("^a\\d") == "a" and literal_prefix("a") == ""
    assert literal_prefix("^" + "x" * 100) == "x" * PREFIX_CHARS


_PATTERN_PIECES = st.sampled_from(
    ["src", "/", "*", "**", "?", "[a-z]", "!", "K", "s", "S", "x.py", "\\ ", " ", "Docs", "ü", ".", "-"]
)
_PATH_PIECES = st.sampled_from(
    ["src", "SRC", "Src", "/", "x.py", "X.PY", "docs", "DOCS", "\u212a", "k", "\u017f", "s", "ü", "Ü", "ß",
     "\u0130", "\udcff", " ", ".", "-", "a"]
)  # fmt: skip


@given(
    st.lists(_PATTERN_PIECES, min_size=1, max_size=6).map("".join),
    st.lists(_PATH_PIECES, max_size=8).map("".join),
)
def test_no_path_a_pattern_matches_in_any_spelling_misses_its_prefix(pattern: str, path: str) -> None:
    """Differential: every path the pattern or its case-insensitive twin matches begins with the
    prefix, folded (the Kelvin sign and the long s fold to ASCII letters RE2 matches them to)."""
    store = PatternStore()
    try:
        compiled = store.glob(pattern)
    except GlobError:
        return
    for form in (path, path + "/"):
        if (
            compiled.match_file(form) is not None
            or store.any_case(pattern).search(matchable(form)) is not None
        ):
            assert matchable(form).casefold().startswith(compiled.prefix), (pattern, form)


def _every_pattern_run(patterns: list[str], path: str, store: PatternStore, caseless: Caseless) -> object:
    """last_match as it was: every pattern of the list run on the path."""
    decided = None
    for index, pattern in enumerate(patterns):
        found = match_one(pattern, path, store, caseless)
        if found is not None:
            decided = GlobMatch(pattern, index, found.include, found.folded)
    return decided


@given(
    st.lists(st.lists(_PATTERN_PIECES, min_size=1, max_size=5).map("".join), max_size=6),
    st.lists(_PATH_PIECES, max_size=8).map("".join),
    st.sampled_from(list(Caseless)),
)
def test_patterns_skipped_by_their_prefix_decide_as_every_pattern_run(
    patterns: list[str], path: str, caseless: Caseless
) -> None:
    store = PatternStore()
    try:
        for pattern in patterns:
            store.glob(pattern)
    except GlobError:
        return
    assert last_match(patterns, path, store, caseless) == _every_pattern_run(patterns, path, store, caseless)


def test_a_thousand_globs_under_their_own_directories_cost_each_path_only_those_it_could_match() -> None:
    """The auditor's manifest (`src/dN/[a-z][0-9]*/**/*.py`, N < 1,000) and 5,000 new files of 85-byte
    paths: 15 billion instruction-bytes counted before, past the 8.6 billion limit, so the change was
    too large to assess; the paths are read by the globs they could match, and the receipt is made."""
    allow = "".join(f"  - 'src/d{n}/[a-z][0-9]*/**/*.py'\n" for n in range(1000))
    manifest = load_manifest(
        f"version: 1\npaths:\n  allow:\n{allow}".encode(), MANIFEST_PATH, ManifestSource.BASE
    )
    inside = [f"src/d{i % 1000}/a{i}/generated/module_{i:05d}/handler_for_payments.py" for i in range(2500)]
    outside = [
        f"services/payments/internal/handlers/v2/generated/module_{i:05d}/handler.py" for i in range(2500)
    ]
    diff = "".join(
        f"diff --git a/{p} b/{p}\nnew file mode 100644\nindex 0000000..e69de29\n" for p in inside + outside
    )
    change = change_with_texts(diff.encode(), {p: FileTexts("", "") for p in inside + outside})
    receipt = evaluate(
        Inputs(change=change, manifest=manifest, subject=Subject("c" * 40, "c" * 40, "c" * 40))
    )
    outside_allowlist = [v for v in receipt.scope if v.rule.value == "outside-allowlist"]
    assert len(outside_allowlist) == 2500 and all(
        (v.path or "").startswith("services/") for v in outside_allowlist
    )


def test_globs_that_could_match_any_path_still_count_every_byte() -> None:
    """The near miss: unanchored globs read every path whole, and are counted so (as before)."""
    store = PatternStore()
    hostile = [store.glob("?" * 100 + str(i)) for i in range(900)]
    anchored = [store.glob("src/" + "?" * 100 + str(i)) for i in range(900)]
    paths = ["d" * 3000 + str(i) for i in range(40)]
    program = sum(g.program_size for g in hostile)
    assert match_work(hostile, paths) >= program * sum(len(p) + 1 for p in paths)
    assert match_work(anchored, paths) < match_work(anchored, ["src/" + p for p in paths]) // 100
