"""Suppression markers on added lines (`content.suppressions`): a change that silences a linter, a
type checker, a security scanner, coverage or a test instead of fixing what it reports.

Comment markers (`# noqa`, `// eslint-disable-line`) are matched as written; markers that are code
(`@pytest.mark.skip`, `it.skip(`) count only outside comments and strings (`linescan.py`), and in
Python also on the syntax tree, through imports (`pyskips.py`). JavaScript and markup's JavaScript
are read by its lexer over the whole text (`jsread.py`): there a comment marker counts only in a
real comment, a marker that is code only in code (but for the secret scanners' markers, which
their tools read anywhere on the line). Documents (Markdown,
reStructuredText, plain text) are not read: they mention markers, not use them.

Markers count where their tool reads them. Python's linters, type checkers and coverage read their
markers in code, never in a configuration file's comments (YAML, TOML, INI: prose naming `# noqa`
there silences nothing). A patch file's text becomes code only where the patch adds a line: a marker
on its removed or context lines is the patch's text, one on a line it adds (`+`) counts.

A marker on an added line counts only when no marker of the same id on a removed line of the file
accounts for it (`_unpaired`): a change that edits a line and keeps its `# noqa`, or moves the line,
adds nothing; one that removes one marker and adds two adds one; one that keeps the marker but
names another code in it (`# noqa: E501` made `# noqa: F401`) adds what it newly silences.
"""

from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property, lru_cache
from typing import Any, ClassVar

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.exclude import read_files
from bot.engine.content.filekinds import Kind, kind_of
from bot.engine.content.jsread import FragmentReading, read_fragment
from bot.engine.content.limits import capped
from bot.engine.content.linescan import LineScan
from bot.engine.content.prefilter import Prefilter
from bot.engine.content.pyscopes import Scopes
from bot.engine.content.pyselect import STRING_OR_COMMENT
from bot.engine.content.pyskips import SKIPS, skip_uses
from bot.engine.diff import FileDiff, FileStatus, LineKind
from bot.engine.findings import RuleId, Violation, content_basis
from bot.engine.manifest import Manifest
from bot.engine.regex import compile_re2
from bot.engine.sourcetext import read_lines, read_text

# Configuration files: no tool of Python code reads a marker in their comments
_CONFIGURATION = frozenset({Kind.CONFIG, Kind.CI})


@dataclass(frozen=True, slots=True)
class Marker:
    """`regex` captures the marker in group 1; `code` markers must sit outside comments and strings;
    `unread_in`: the kinds of file where the tools the marker silences never read it."""

    id: str
    regex: str
    silences: str
    code: bool = False
    unread_in: frozenset[Kind] = frozenset()
    comment_only: bool = False  # its tools read it in a Python comment token only, never a string
    files: str | None = None  # a regex a file's path must match for its tools to read the marker there
    slash_comments: bool = False  # those files' language comments with `//` and `/* */`
    anywhere: bool = False  # its tool reads the line's text, a string's too (gitleaks, detect-secrets)


_TEST = "a test: it stops running (or its failure stops counting), which turns a red suite green"

_TYPES = "the type checker"
_TYPES_IN_FILE = "the type checker in the whole file"
_OTHER_LINTERS = (
    "linter and compiler warnings (Biome, deno lint, oxlint, ShellCheck, hadolint, golangci-lint, "
    "staticcheck, clang-tidy, RuboCop, SwiftLint, PHP_CodeSniffer, PHPStan, Psalm; the Rust, Java, "
    "Kotlin, C#, C and C++ compilers)"
)
_EXCUSED = "a test's failure: it stops counting, which turns a red suite green"
# Test files of other languages, where their frameworks' skips are read: Go's `_test.go`, any Rust
# file (`#[ignore]` means something on a `#[test]` only, which may sit in any module), JUnit's under a
# test source set (`src/test/`, `src/androidTest/`, `tests/`) or named as a test, RSpec's `_spec.rb`.
_GO_TESTS = r"_test\.go$"
_RUST = r"\.rs$"
_JVM_TESTS = (
    r"(?:^|/)(?:src/\w*[Tt]est\w*/|tests?/)(?:[^/]+/)*[^/]+\.(?:java|kt)$"
    r"|(?:^|/)(?:Test\w*|\w+(?:Tests?|IT|TestCase|Spec))\.(?:java|kt)$"
)
_RSPEC = r"_spec\.rb$"
# Kinds of file with no block comments: a line that only looks like one's is not a directive there.
_NO_BLOCK_COMMENTS = frozenset(
    {Kind.PYTHON, Kind.SHELL, Kind.DOCKERFILE, Kind.MAKEFILE, Kind.CONFIG, Kind.CI, Kind.PATCH}
)


def _python_tool(marker_id: str, regex: str, silences: str, *, comment_only: bool = False) -> Marker:
    """A marker a tool of Python code reads: in code, never in a configuration file's comments."""
    return Marker(marker_id, regex, silences, unread_in=_CONFIGURATION, comment_only=comment_only)


def _checker(marker_id: str, regex: str, silences: str) -> Marker:
    """A marker mypy, pyright, pyre, pytype or pylint reads: in a comment token of the tokenizer's
    (flake8 and coverage.py match theirs on the line's text, in a string too)."""
    return _python_tool(marker_id, regex, silences, comment_only=True)


MARKERS: tuple[Marker, ...] = (
    _python_tool("noqa", r"(?i)#[ \t]*(noqa)\b", "flake8/ruff findings"),
    _python_tool(
        "noqa", r"(?i)#[ \t]*((?:ruff|flake8)[ \t]*:[ \t]*noqa)\b", "flake8/ruff findings in the whole file"
    ),
    _checker("type-ignore", r"#[ \t]*(type:[ \t]*ignore)\b", _TYPES),
    _checker("type-ignore", r"#[ \t]*(mypy:[ \t]*(?:ignore-errors|disable-error-code))\b", _TYPES_IN_FILE),
    _checker("type-ignore", r"#[ \t]*(pyright:[ \t]*ignore)\b", _TYPES),
    _checker(  # pyright's comments that set its configuration: for the whole file
        "type-ignore",
        r"#[ \t]*(pyright:[ \t]*(?:basic|report\w+[ \t]*=[ \t]*(?:false|none|information|warning)))\b",
        _TYPES_IN_FILE,
    ),
    _checker("type-ignore", r"#[ \t]*(pyre-(?:ignore|fixme))\b", _TYPES),
    _checker("type-ignore", r"#[ \t]*(pytype:[ \t]*disable)\b", _TYPES),
    _checker("type-ignore", r"#[ \t]*(pytype:[ \t]*skip-file)\b", _TYPES_IN_FILE),
    _checker("pylint-disable", r"#[ \t]*(pylint:[ \t]*disable)\b", "pylint findings"),
    _checker("pylint-disable", r"#[ \t]*(pylint:[ \t]*skip-file)\b", "pylint findings in the whole file"),
    Marker("nosec", r"#[ \t]*(nosec)\b", "security scanner findings (bandit, gosec)", comment_only=True),
    Marker("nosemgrep", r"\b(nosemgrep)\b", "Semgrep findings"),
    # Infrastructure-as-code scanners' skips, in Terraform, Kubernetes, CloudFormation and the like.
    Marker(
        "nosec",
        r"(?:#|//|/\*)[ \t]*(checkov:skip|tfsec:ignore|trivy:ignore|kics-scan[ \t]+ignore|ts:skip)\b",
        "infrastructure security scanner findings (checkov, tfsec, trivy, KICS, Terrascan)",
    ),
    Marker("gitleaks-allow", r"(gitleaks:allow)", "gitleaks secret findings", anywhere=True),
    Marker(
        "pragma-allowlist-secret",
        r"(?i)(pragma:[ \t]*allowlist[ \t]+(?:nextline[ \t]+)?secret)",
        "detect-secrets findings",
        anywhere=True,
    ),
    Marker("eslint-disable", r"(?://|/\*)[ \t]*(eslint-disable(?:-next-line|-line)?)\b", "ESLint rules"),
    Marker(  # inline configuration that turns a rule off or down: /* eslint no-eval: "off" */
        "eslint-disable",
        r"/\*[ \t]*(eslint[ \t]+[@\w/-]+[ \t]*:[ \t]*\[?[ \t]*(?:[01]\b|[\"']?(?:off|warn)\b[\"']?))",
        "ESLint rules",
    ),
    # ESLint reads a block comment's text trimmed of leading white space, line breaks included: a
    # directive can start any line of a block comment (after the ` * ` of its conventional margin).
    Marker(
        "eslint-disable",
        r"(?m)^[ \t]*\*?[ \t]*(eslint-disable(?:-next-line|-line)?|eslint[ \t]+[@\w/-]+[ \t]*:[ \t]*\[?[ \t]*"
        r"(?:[01]\b|[\"']?(?:off|warn)\b[\"']?))",
        "ESLint rules",
        unread_in=_NO_BLOCK_COMMENTS,
    ),
    Marker("ts-ignore", r"(@ts-ignore)\b", "TypeScript errors"),
    Marker("ts-ignore", r"(@ts-nocheck)\b", "TypeScript errors"),
    Marker("ts-ignore", r"(@ts-expect-error)\b", "TypeScript errors"),
    _python_tool("pragma-no-cover", r"(?i)#[ \t]*(pragma:?[ \t]*no[ \t]*cover)\b", "coverage measurement"),
    _python_tool(
        "pragma-no-cover",
        r"(?i)#[ \t]*(pragma:?[ \t]*no[ \t]*branch)\b",
        "coverage's report of a branch never taken (the line is still measured)",
    ),
    Marker("pragma-no-cover", r"(?://|/\*)[ \t]*((?:istanbul|c8|v8)[ \t]+ignore)\b", "coverage measurement"),
    Marker(
        "pragma-no-cover",
        r"(?m)^[ \t]*\*?[ \t]*(istanbul[ \t]+ignore)\b",
        "coverage measurement",
        unread_in=_NO_BLOCK_COMMENTS,
    ),
    Marker("lint-ignore", r"(?://|/\*)[ \t]*(biome-ignore|deno-lint-ignore|oxlint-disable)", _OTHER_LINTERS),
    # Compilers' and their linters' own: Rust's lint attributes, Java's and Kotlin's annotations,
    # C#'s, GCC's, Clang's and MSVC's pragmas, staticcheck, SwiftLint, PHP_CodeSniffer, PHPStan, Psalm.
    Marker("lint-ignore", r"(#!?\[[ \t]*(?:allow|expect)[ \t]*\()", _OTHER_LINTERS),
    Marker("lint-ignore", r"(@(?:file:)?Suppress(?:Warnings)?)[ \t]*\(", _OTHER_LINTERS),
    Marker("lint-ignore", r"\b(SuppressMessage)(?:Attribute)?[ \t]*\(", _OTHER_LINTERS),
    Marker(
        "lint-ignore",
        r"(#[ \t]*pragma[ \t]+(?:warning[ \t]+disable|warning[ \t]*\([ \t]*disable|"
        r"(?:GCC|clang)[ \t]+diagnostic[ \t]+ignored))",
        _OTHER_LINTERS,
    ),
    Marker("lint-ignore", r"//[ \t]*(lint:(?:file-)?ignore)\b", _OTHER_LINTERS),
    Marker("lint-ignore", r"//[ \t]*(swiftlint:disable)\b", _OTHER_LINTERS),
    Marker("lint-ignore", r"(phpcs:(?:ignore|disable)|@phpstan-ignore|@psalm-suppress)", _OTHER_LINTERS),
    Marker("lint-ignore", r"#[ \t]*(shellcheck[ \t]+disable|hadolint[ \t]+ignore)\b", _OTHER_LINTERS),
    Marker("lint-ignore", r"//[ \t]*(nolint|NOLINT)", _OTHER_LINTERS),
    Marker("lint-ignore", r"#[ \t]*(rubocop:[ \t]*(?:disable|todo))\b", _OTHER_LINTERS),
    Marker("pytest-skip", r"(pytest\.mark\.skip(?:if)?)\b", _TEST, code=True),
    Marker("pytest-skip", r"(pytest\.(?:skip|importorskip))[ \t]*\(", _TEST, code=True),
    Marker("pytest-xfail", r"(pytest\.mark\.xfail)\b", _EXCUSED, code=True),
    Marker("pytest-xfail", r"(pytest\.xfail)[ \t]*\(", _EXCUSED, code=True),
    Marker("unittest-skip", r"(unittest\.(?:skip(?:If|Unless)?|SkipTest))\b", _TEST, code=True),
    Marker("unittest-skip", r"(\.skipTest)[ \t]*\(", _TEST, code=True),
    Marker("unittest-xfail", r"(unittest\.expectedFailure)\b", _EXCUSED, code=True),
    Marker(
        "js-skip",
        r"(?m)(?:^|[^\w$.])((?:it|describe|test|context|suite)(?:\.(?:concurrent|sequential))?\.skip(?:If)?)\b",
        _TEST,
        code=True,
    ),
    Marker(  # Jest's and Vitest's test that passes when it fails
        "js-xfail", r"(?m)(?:^|[^\w$.])((?:it|test)(?:\.concurrent)?\.failing)\b", _EXCUSED, code=True
    ),
    Marker("js-skip", r"(?m)(?:^|[^\w$.])(x(?:it|describe|test|context))[ \t]*\(", _TEST, code=True),
    Marker(  # testing.T's, B's and TB's, and testify's suite.T()
        "go-skip",
        r"((?:\b(?:t|b|tb)|\.T\(\))\.Skip(?:f|Now)?)[ \t]*\(",
        _TEST,
        code=True,
        files=_GO_TESTS,
        slash_comments=True,
    ),
    Marker(
        "rust-ignore",
        r"(?m)^[ \t]*(#\[[ \t]*ignore\b(?:[ \t]*\])?)",
        _TEST,
        code=True,
        files=_RUST,
        slash_comments=True,
    ),
    Marker(  # JUnit 5's @Disabled and its conditions (@DisabledOnOs…), JUnit 4's @Ignore, Kotest's @Ignored
        "junit-skip",
        r"(?m)(?:^|[^\w.])(@(?:Disabled\w*|Ignored?))\b",
        _TEST,
        code=True,
        files=_JVM_TESTS,
        slash_comments=True,
    ),
    Marker(
        "rspec-skip",
        r"(?m)^[ \t]*(x(?:it|describe|context|specify|example|scenario|feature))\b",
        _TEST,
        code=True,
        files=_RSPEC,
    ),
    Marker(  # `skip`/`pending` called at a line's start: alone, with a reason, or under a condition
        "rspec-skip",
        r"(?m)^[ \t]*(skip|pending)(?:[ \t]*(?:$|\(|[\"'#])|[ \t]+(?:if|unless)\b)",
        _TEST,
        code=True,
        files=_RSPEC,
    ),
    Marker(
        "js-only",
        r"(?m)(?:^|[^\w$.])((?:it|describe|test|context)\.only|f(?:it|describe))\b[ \t]*\(",
        "every other test of the file: they stop running",
        code=True,
    ),
)
# What the skips found on the syntax tree silence (one text for each of pyskips' ids; the ids of
# other markers can name several forms, a line's noqa and ruff's file-wide one, each silencing its own).
_SKIP_SILENCES = {m.id: m.silences for m in MARKERS if m.id in SKIPS.values()}

_OVERRIDE = (
    "Fix what it reports instead. If the suppression is right, that is a maintainer's call: merge with "
    "admin approval, or set content.suppressions: false in the base branch's manifest."
)


MARKED = "suppression-markers"
ALIASED = "suppression-skip-aliases"
# Skips written out (`pytest.mark.skip`, `unittest.skip`) are markers above; a Python file is also
# read on its syntax tree when it imports pytest or unittest under another name, imports from
# them a name a skip is reached by (`mark`, `skip`, `SkipTest`, …, `case`) or binds a skip to a
# name: then a skip can be written in a way no marker spells (`@pt.mark.skip`, `later()`).
_ALIASING = (
    r"\bimport[ \t]+(?:pytest|_pytest[\w.]*|unittest(?:\.case)?)[ \t]+as\b"
    r"|\bfrom[ \t]+(?:pytest|_pytest|unittest)\b[\w.]*[ \t]+import\b(?:[ \t]*\([^)]*|[^;\n]*)"
    r"\b(?:skip\w*|xfail|mark|importorskip|SkipTest|expectedFailure|case|outcomes)\b"
    # a skip bound to a name (`needs_x = pytest.mark.skipif(...)`), applied by that name
    r"|\b\w+[ \t]*=[ \t]*(?:pytest|unittest)[ \t]*\.[\w. \t]*\b(?:skip\w*|xfail|expectedFailure)\b"
)
# A skip can also be written in a way no marker's pattern follows (`pytest . mark . skip`, across a
# backslash or a bracket, `unittest.case.SkipTest`, through `mark = pytest.mark`): added text that
# names a skip's last word in a file that imports pytest or unittest is read on the syntax tree too.
SKIP_WORDS = "suppression-skip-words"
_SKIP_WORD = r"\b(?:skip(?:if|If|Unless|Test)?|xfail|SkipTest|importorskip|expectedFailure)\b"
_IMPORTS_TESTING = r"\b(?:import|from)[ \t]+(?:pytest|_pytest|unittest)\b"
PREFILTER_GROUPS = {MARKED: tuple(m.regex for m in MARKERS), ALIASED: (_ALIASING,), SKIP_WORDS: (_SKIP_WORD,)}
_ALIASING_RE = compile_re2(_ALIASING)
_IMPORTS_TESTING_RE = compile_re2(_IMPORTS_TESTING)
# A skip's word and, when they come right before it, the names the markers spell out.
_SKIP_WORD_SPELLED = compile_re2(r"(pytest\.mark\.|pytest\.|unittest\.|self\.)?" + _SKIP_WORD)


@cache
def _compiled() -> tuple[Prefilter, tuple[Any, ...]]:
    return Prefilter(PREFILTER_GROUPS), tuple(compile_re2(m.regex) for m in MARKERS)


@dataclass(frozen=True, slots=True)
class _Use:
    """A marker on a line of one side of the diff: its id, line number on that side, how it is
    written, the hunk holding it, and the line's text without its indentation; `code`, the text
    before the marker (its comment opener left out), and `tail`, the marker and the rest of the
    line (its codes: `noqa: S108`)."""

    marker: str
    line: int
    written: str
    hunk: int
    text: str
    code: str
    tail: str
    silences: str


@dataclass(frozen=True, slots=True)
class _Side:
    """The lines one side of a file's diff holds (added in the head, or removed from the base), one
    fragment per hunk, with each hunk's index in the file's diff."""

    path: str  # the file's (its head path on both sides: the kind and the markers read are the head's)
    fragments: tuple[tuple[int, Fragment], ...]
    source: str | None  # that side's whole text, when known, as the language reads it
    lines: Sequence[int] | None = None  # the diff line of each line of `source`, when they differ

    def hunk_and_text(self) -> dict[int, tuple[int, str]]:
        return {
            number: (hunk, line.strip())
            for hunk, fragment in self.fragments
            for number, line in zip(fragment.numbers, fragment.text.split("\n"), strict=True)
        }


def _places(file: AddedFile, kind: LineKind) -> dict[int, tuple[int, int]]:
    """Where each line of `kind` sits: the run of changed lines holding it (runs are counted over
    the file's diff, split by context lines and hunks) and its index among that run's lines of
    `kind`. A removed line and the added line at the same place are the line the change rewrote."""
    places: dict[int, tuple[int, int]] = {}
    run = 0
    for hunk in file.file.hunks:
        run, seen = run + 1, 0
        for line in hunk.lines:
            if line.kind is LineKind.CONTEXT:
                run, seen = run + 1, 0
            elif line.kind is kind:
                places[line.number] = (run, seen)
                seen += 1
    return places


def _javascript_reading(side: _Side, kind: Kind, fragment: Fragment) -> Callable[[], FragmentReading] | None:
    """A JavaScript (or markup) fragment as the lexer reads it (`jsread.py`), read on first use;
    None for other languages, whose markers that are code count outside the comments and strings
    of their line (`linescan.py`)."""
    if kind not in (Kind.JAVASCRIPT, Kind.MARKUP):
        return None
    return cache(lambda: read_fragment(fragment, kind, side.path, side.source, side.lines))


def _read_there(marker: Marker, reading: FragmentReading, at: int) -> bool:
    """Whether JavaScript's tools read the marker at `at`: one that is code in code, any other in a
    comment, but one its tool reads on the line's text (`anywhere`)."""
    return marker.anywhere or (reading.code(at) if marker.code else reading.comment(at))


def _regex_uses(
    side: _Side, kind: Kind, hunk: int, fragment: Fragment, prefilter: Prefilter
) -> Iterator[_Use]:
    _, regexes = _compiled()
    data = fragment.data
    texts: dict[int, str] = {}  # by line: a long line of many markers is found and decoded once
    reading = _javascript_reading(side, kind, fragment)
    for index in prefilter.present(fragment, MARKED):
        marker = MARKERS[index]
        if kind in marker.unread_in or not _reads(marker, side.path):
            continue
        scan = (
            LineScan(data, kind, slash_comments=marker.slash_comments)
            if marker.code and reading is None
            else None
        )
        marked: set[int] = set()  # a marker counts once a line (`_uses`): later ones are not read
        comments = _comments_of(side, kind) if marker.comment_only else None
        for match in regexes[index].finditer(data):
            at = match.start(1)
            if scan is not None and scan.hidden(at):
                continue
            if reading is not None and not _read_there(marker, reading(), at):
                continue
            start, end = fragment.line_bounds(at)
            if comments is not None and not _in_comment(comments, fragment, start, at):
                continue
            if kind is Kind.PATCH and not data.startswith(b"+", start):
                continue  # a line the patch removes or keeps: its text, not code it adds
            line = fragment.index_at(at)
            if line in marked:
                continue
            marked.add(line)
            if line not in texts:
                texts[line] = data[start:end].decode("utf-8", "replace").strip()
            code = data[start:at].decode("utf-8", "replace").strip().rstrip("#/* \t")
            tail = data[at:end].decode("utf-8", "replace").strip()
            written = match.group(1).decode("utf-8", "replace")
            number = fragment.numbers[line]
            yield _Use(marker.id, number, written, hunk, texts[line], code, tail, marker.silences)


def _reads(marker: Marker, path: str) -> bool:
    """Whether the marker's tools read it in the file at `path` (its test files, for a test skip)."""
    return marker.files is None or re.search(marker.files, path) is not None


def _comments_of(side: _Side, kind: Kind) -> dict[int, int] | None:
    """`_comment_columns` of a Python side's text, when its lines are the diff's own."""
    if kind is not Kind.PYTHON or side.source is None or side.lines is not None:
        return None
    return _comment_columns(side.source)


@lru_cache(maxsize=2)
def _comment_columns(source: str) -> dict[int, int]:
    """Where a comment starts on each line of `source` that holds one (0-based column), read as
    Python's tokenizer reads strings and comments (the same on every file of the standard library,
    a twentieth of the time)."""
    columns: dict[int, int] = {}
    line, at = 1, 0
    for found in STRING_OR_COMMENT.finditer(source):
        start = found.start()
        if source[start] == "#":
            line += source.count("\n", at, start)
            at = start
            columns[line] = start - source.rfind("\n", 0, start) - 1
    return columns


def _in_comment(comments: dict[int, int], fragment: Fragment, start: int, at: int) -> bool:
    """Whether byte `at` of the fragment (on the line starting at `start`) is in a comment token."""
    column = comments.get(fragment.line_at(at))
    return column is not None and len(fragment.data[start:at].decode("utf-8", "replace")) >= column


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _tree_uses(side: _Side) -> Iterator[_Use]:
    """Skips on the side's lines found on the syntax tree of its whole text (through imports)."""
    source = side.source
    tree = _parse(source) if source is not None else None
    if tree is None or source is None:
        return
    where = side.hunk_and_text()
    lines = side.lines
    on = sorted(where) if lines is None else [i for i, n in enumerate(lines, start=1) if n in where]
    for use in skip_uses(tree, on, source):
        line = use.line if lines is None else lines[use.line - 1]
        hunk, text = where[line]
        yield _Use(use.marker, line, use.written, hunk, text, text, use.written, _SKIP_SILENCES[use.marker])


def _uses(side: _Side, kind: Kind, prefilter: Prefilter, *, tree: bool) -> list[_Use]:
    """The side's markers, one per marker id and line, in order."""
    found: dict[tuple[str, int], _Use] = {}
    for hunk, fragment in side.fragments:
        for use in _regex_uses(side, kind, hunk, fragment, prefilter):
            found.setdefault((use.marker, use.line), use)
    for use in _tree_uses(side) if tree else ():
        found.setdefault((use.marker, use.line), use)
    return sorted(found.values(), key=lambda u: (u.line, u.marker))


def _written_otherwise(fragment: Fragment) -> bool:
    """Whether the fragment names a skip's word other than right after the names the markers spell
    out (`pytest.mark.`, `pytest.`, `unittest.`, `self.`), which need no syntax tree."""
    return any(found.group(1) is None for found in _SKIP_WORD_SPELLED.finditer(fragment.data))


def _read_on_the_tree(file: AddedFile, prefilter: Prefilter) -> bool:
    if file.kind is not Kind.PYTHON or file.head is None:
        return False
    if any(prefilter.present(f, ALIASED) for f in file.fragments):
        return True
    written_otherwise = any(
        prefilter.present(f, SKIP_WORDS) and _written_otherwise(f) for f in file.fragments
    )
    if written_otherwise and _IMPORTS_TESTING_RE.search(file.head) is not None:
        return True
    if file.file.status is FileStatus.ADDED:
        return False  # a new file's added text is all of it
    return _ALIASING_RE.search(file.head) is not None


def _aliasing(kind: Kind, source: str | None) -> bool:
    """Whether a Python text can reach a skip under another name (`_ALIASING`)."""
    if kind is not Kind.PYTHON or source is None:
        return False
    return _ALIASING_RE.search(source.encode("utf-8", "surrogatepass")) is not None


def _removed_side(file: AddedFile, base: str | None) -> _Side:
    """The removed lines, read as the added ones are (under the encoding the file declares)."""
    encoding = file.encoding
    fragments = []
    for hunk, hunk_lines in enumerate(h.lines for h in file.file.hunks):
        removed = [line for line in hunk_lines if line.kind is LineKind.REMOVED]
        if removed:
            read = read_lines([r.text for r in removed], [r.number for r in removed], file.kind, encoding)
            fragments.append((hunk, Fragment(*read)))
    source, lines = (None, None) if base is None else read_text(base, file.kind, encoding)
    return _Side(file.path, tuple(fragments), source, lines)


def _added_side(file: AddedFile) -> _Side:
    hunks = (i for i, h in enumerate(file.file.hunks) if h.added)
    fragments = tuple(zip(hunks, file.fragments, strict=True))
    return _Side(file.path, fragments, file.head, file.head_lines)


# What a marker's text after it names (`noqa: E501`, `type: ignore[attr-defined]`, `disable=a,b`,
# `eslint-disable-line no-eval`, `nosec B602`): the codes it silences. A marker with none silences
# every code; one that names no code any way below (`@ts-ignore`, a skip) has nothing to compare.
_BRACKETED = re.compile(r"\[([^\]]*)\]")
_ASSIGNED = re.compile(r"(?:-next)?[ \t]*[:=][ \t]*\"?([\w./@ ,-]*)")
_LISTED_AFTER_SPACE = re.compile(r"[ \t]+([A-Za-z@][\w./@-]*(?:[ \t]*,[ \t]*[A-Za-z@][\w./@-]*)*)")
_NOSEC_CODES = re.compile(r"[ \t]*:?[ \t]*([A-Z]+\d+(?:[ \t,]+[A-Z]+\d+)*)")
_CODED = frozenset({"noqa", "type-ignore", "pylint-disable", "nosec", "eslint-disable", "lint-ignore"})


def _codes(use: _Use) -> frozenset[str] | None:
    """The codes the marker names; None when it names none, so silences all of them."""
    rest = use.tail[len(use.written) :]
    if use.marker == "nosec":
        found = _NOSEC_CODES.match(rest)
    elif use.marker == "noqa":  # flake8 and ruff read codes only after a colon
        found = _ASSIGNED.match(rest)
    else:
        found = _BRACKETED.match(rest) or _ASSIGNED.match(rest) or _LISTED_AFTER_SPACE.match(rest)
    if found is None:
        return None
    codes = frozenset(c for c in re.split(r"[\s,]+", found.group(1)) if c)
    return codes or None


def _silences_more(added: _Use, removed: _Use) -> bool:
    """Whether the added marker silences something the removed one did not: every code (`# noqa:
    E501` made `# noqa`), a code given too (`F401` beside it), or a code in place of one
    (`ignore[no-any-return]` made `ignore[arg-type]`: another error is silenced now). One that
    names the same codes or fewer silences nothing new."""
    if added.marker not in _CODED:
        return False
    kept = _codes(removed)
    if kept is None:
        return False
    now = _codes(added)
    if added.marker == "type-ignore":
        kept = kept.union(*(_MYPY_SUB_CODES.get(code, ()) for code in kept))
    return now is None or not now <= kept


# mypy's error codes that are parts of another (its `sub_code_of`), and `untyped-decorator`, which
# mypy reported as `misc` before giving it a code of its own: `ignore[misc]` made
# `ignore[untyped-decorator]` silences no more than before (urllib3 3abd481097, 28 decorators).
_MYPY_SUB_CODES = {
    "misc": ("call-arg", "overload-cannot-match", "overload-overlap", "prop-decorator", "untyped-decorator"),
    "import": ("import-not-found", "import-untyped"),
    "assignment": ("method-assign",),
    "typeddict-item": ("typeddict-unknown-key",),
}


class _Pool:
    """Removed uses filed under keys, each to be taken once whichever key it is taken by; a key's
    cursor only moves forward, so taking every one costs one pass."""

    def __init__(self) -> None:
        self._filed: dict[object, list[int]] = defaultdict(list)
        self._cursor: dict[object, int] = defaultdict(int)
        self._taken: set[int] = set()

    def file(self, key: object, index: int) -> None:
        self._filed[key].append(index)

    def take(self, key: object, fits: Callable[[int], bool]) -> bool:
        """Take the first use left under `key` that `fits`."""
        filed = self._filed.get(key, [])
        cursor = self._cursor[key]
        while cursor < len(filed) and filed[cursor] in self._taken:
            cursor += 1
        self._cursor[key] = cursor
        for index in filed[cursor:]:
            if index not in self._taken and fits(index):
                self._taken.add(index)
                return True
        return False


def _no_more_than(added: _Use, removed: list[_Use]) -> Callable[[int], bool]:
    """Whether the removed use at an index silences as much as `added` (so can account for it)."""
    return lambda index: not _silences_more(added, removed[index])


def _unpaired(added: list[_Use], removed: list[_Use], file: AddedFile, sides: _Scopes) -> list[_Use]:
    """The added uses no removed one accounts for. A removed use of the same marker accounts for
    one added use, each pass taking what the earlier ones left: the line the change rewrote (the
    same place among the changed lines, `_places`); the same line moved anywhere in the file (the
    same text); in the same hunk, the same code whose marker's codes changed, then the same marker
    and codes moved onto another line (a `def`'s onto its decorator), then any one (the line the
    change replaced); last, a Python test's skip by a skip of any form anywhere in the same test
    (`@skipif(...)` made `pytest.importorskip(...)` in its body: the test is skipped as before).
    Each removed use accounts for one, and only the same text or the same test reaches across
    hunks: a hunk never adds fewer markers than it adds less what it removes, and a marker moved to
    another hunk onto other code counts. A removed use never accounts for an added one that silences
    more (`_silences_more`). What is left is placed by `_realigned`."""
    added_places, removed_places = _places(file, LineKind.ADDED), _places(file, LineKind.REMOVED)
    passes: tuple[tuple[Callable[[_Use, tuple[int, int]], object], bool], ...] = (
        (lambda u, place: (u.marker, "place", place), False),
        (lambda u, place: (u.marker, "text", u.text), False),
        (lambda u, place: (u.marker, u.hunk, "code", u.code), False),
        (lambda u, place: (u.marker, u.hunk, "tail", u.tail), True),
        (lambda u, place: (u.marker, u.hunk, "tail", u.tail), False),
        (lambda u, place: (u.marker, u.hunk), False),
    )
    pool = _Pool()
    for index, use in enumerate(removed):
        for key, _ in passes:
            pool.file(key(use, removed_places[use.line]), index)
    left = added
    for number, (key, alike) in enumerate(passes):
        if number == len(passes) - 2:  # before any marker of the hunk is taken for any other
            left = _in_definitions(left, removed, pool, sides)
        left = [
            use
            for use in left
            if not pool.take(key(use, added_places[use.line]), _fits(use, removed, alike=alike))
        ]
    return _realigned(left, sides)


def _in_definition(use: _Use, scope: str | None) -> object:
    """The key of a use for the passes across hunks within one definition: a test's skip of any
    form; another marker with its codes as written."""
    if use.marker in _PYTHON_SKIPS:
        return ("test", scope)
    return ("definition", scope, use.marker, use.tail)


def _in_definitions(left: list[_Use], removed: list[_Use], pool: _Pool, sides: _Scopes) -> list[_Use]:
    """The uses no removed use in the same definition of a Python file accounts for, in any hunk:
    any skip of the same test, or the same marker and codes on the same code rewritten (most of its
    words kept: `x = os.path.expanduser(p)  # noqa: PTH111` made `return os.path.expanduser(p)  #
    noqa: PTH111`)."""
    if not left or sides.head_text is None or sides.base_text is None:
        return left
    for index, use in enumerate(removed):
        pool.file(_in_definition(use, sides.base(use.line)), index)
    return [
        use
        for use in left
        if sides.head(use.line) is None
        or not pool.take(
            _in_definition(use, sides.head(use.line)),
            _fits(use, removed, alike=use.marker not in _PYTHON_SKIPS),
        )
    ]


def _fits(use: _Use, removed: list[_Use], *, alike: bool) -> Callable[[int], bool]:
    """Whether the removed use at an index can account for `use`: it silences as much, and with
    `alike`, sits on code sharing most of the words of `use`'s."""
    if not alike:
        return _no_more_than(use, removed)
    words = _words(use.code)
    return lambda index: (
        not _silences_more(use, removed[index]) and _alike(words, _words(removed[index].code))
    )


_WORD = re.compile(r"\w+")


def _words(code: str) -> frozenset[str]:
    return frozenset(_WORD.findall(code))


def _alike(one: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two lines of code share most of their words (more than half of all they hold)."""
    return _share(one, other) > 0.5


# Skips of Python tests, of any form: each stops a test's failure from counting.
_PYTHON_SKIPS = frozenset(SKIPS.values())


@dataclass(frozen=True, slots=True)
class _Scopes:
    """A Python file's base and head text (None when unknown, or when the language's lines are
    not the diff's), to name the definition each line of a side belongs to (`pyscopes.py`)."""

    base_text: str | None
    head_text: str | None
    known: Scopes

    def base(self, line: int) -> str | None:
        return self.known.at(self.base_text, line)

    def head(self, line: int) -> str | None:
        return self.known.at(self.head_text, line)


def _scopes(file: AddedFile, removed: _Side, known: Scopes) -> _Scopes:
    if file.kind is not Kind.PYTHON:
        return _Scopes(None, None, known)
    base = removed.source if removed.lines is None else None
    return _Scopes(base, file.head if file.head_lines is None else None, known)


def _realigned(left: list[_Use], sides: _Scopes) -> list[_Use]:
    """The uses no removed one accounts for, each moved to the copy of its line the change adds.
    A diff pairs a run of identical lines in several functions by position, not by function (a
    vendored update adding `ensure_exists: bool = False,  # noqa: FBT001` to a new function shows
    the old function's copy as added and the new one's as kept). A use whose definition holds no
    more lines of its text than the base's same definition did is moved to a line of the same text
    in a definition that does hold more (even a line the diff shows unchanged); one with no such
    line stays. So the count never changes, only which copy is named."""
    if not left or sides.base_text is None or sides.head_text is None:
        return left
    texts = {use.text for use in left}
    head, base = _copies(sides.head_text, texts, sides.known), _copies(sides.base_text, texts, sides.known)
    if head is None or base is None:
        return left
    named = {(use.marker, use.line) for use in left}
    gaining: dict[tuple[str, str], deque[int]] = {}  # (marker, text): the copies it may move to, in order
    placed: list[_Use] = []
    for use in left:
        scope = sides.head(use.line)
        copies, before = head.get(use.text, {}), base.get(use.text, {})
        if len(copies.get(scope, ())) > len(before.get(scope, ())):
            placed.append(use)
            continue
        key = (use.marker, use.text)
        if key not in gaining:
            gaining[key] = deque(
                line
                for where, lines in copies.items()
                if len(lines) > len(before.get(where, ()))
                for line in lines
            )
        free = gaining[key]
        while free and (use.marker, free[0]) in named:
            free.popleft()
        if not free:
            placed.append(use)
        else:
            line = free.popleft()
            named.add((use.marker, line))
            placed.append(replace(use, line=line))
    return placed


def _copies(source: str, texts: set[str], known: Scopes) -> dict[str, dict[str | None, list[int]]] | None:
    """For each of `texts`, the lines of `source` that read it (stripped), by definition; None when
    the source does not parse."""
    scopes = known.of(source)
    if scopes is None:
        return None
    found: dict[str, dict[str | None, list[int]]] = {}
    for number, line in enumerate(source.split("\n"), start=1):
        text = line.strip()
        if text in texts:
            found.setdefault(text, {}).setdefault(scopes[number - 1], []).append(number)
    return found


# A definition's head: what a marker on a `def` or `class` line is followed by across files, whose
# signature is rewritten as it moves (a stub's annotations inlined).
_DEFINITION = re.compile(r"(?:async[ \t]+)?(def|class)[ \t]+(\w+)")


def _moved_code(use: _Use, scope: str | None) -> tuple[tuple[str, str], ...]:
    """What a marker sits on as followed across files, most exact first. A definition's line, or in
    a Python file that parses (`scope`, the definition the line belongs to) one of its decorators
    (`@overload  # type: ignore` stands for the `def` it decorates): its qualified name
    (`Headers.get`, so two classes' `update` stay apart), then its name alone (a class renamed as it
    moved: `Flask.name` become `App.name`). Any other line: its code, a stub's `: ...` body left
    out. Nothing for a marker with no code before it, or on a decorator whose definition is not
    known."""
    code = use.code.removesuffix("...").rstrip()
    definition = _DEFINITION.match(code)
    if scope and (definition is not None or code.startswith("@")):
        return ("definition", scope), ("name", scope.rpartition(".")[2])
    if definition is not None:
        # its name at both steps: a definition named at the first is met at the second
        return ("name", definition.group(2)), ("name", definition.group(2))
    if code.startswith("@") or not any(c.isalnum() for c in code):
        return ()
    return (("code", code),)


@dataclass(frozen=True, slots=True)
class _Placed:
    """A use of a marker on one side of one file of the change (`removed` or added), what it sits
    on (`_moved_code`), and the words of its code and of the lines around it (what tells copies of
    one line apart when several files hold it)."""

    path: str
    use: _Use
    removed: bool
    keys: tuple[tuple[str, str], ...]
    code: frozenset[str]
    around: frozenset[str]

    def closeness(self, other: _Placed) -> float:
        """How alike two uses are: their code first (a decorator's marker to a decorator's, where
        a definition holds several), then the lines around them."""
        return _share(self.code, other.code) + _share(self.around, other.around)


class _Elsewhere:
    """The change's other markers on the same code, read when first asked: code moved to another
    file (a module split in two, tests moved, a stub inlined into its module) carries its markers.
    For each code a marker sits on (`_moved_code`), the files that remove more markers of an id on
    it than they add have markers to spare, and those that add more need them: each spare marker
    accounts for one needed in another file (none silencing less than it), the closest first by
    the words of the lines around them, so a change that removes one `except ImportError:  #
    pragma: no cover` and adds two elsewhere adds the one whose surroundings are new. A definition
    is matched by its qualified name first, then what is left by its name alone. Within one file
    only the per-file pairing counts."""

    def __init__(self, change: Change, prefilter: Prefilter, known: Scopes) -> None:
        self._change = change
        self._prefilter = prefilter
        self._known = known
        self._accounted: dict[str, set[tuple[str, int]]] = {}

    def account_for(self, use: _Use, path: str) -> bool:
        if use.marker not in self._accounted:
            self._accounted[use.marker] = _accounted(list(self._placed(use.marker)))
        return (path, use.line) in self._accounted[use.marker]

    @cached_property
    def _sides(self) -> list[tuple[FileDiff, LineKind, list[_Use]]]:
        """Every file's removed and added uses of any marker, read once for all the markers asked
        about."""
        sides = []
        for file in self._change.diff.files:
            kind = kind_of(file.path)
            for line_kind in (LineKind.REMOVED, LineKind.ADDED):
                lines = [x for h in file.hunks for x in h.lines if x.kind is line_kind]
                if not lines:
                    continue
                fragment = Fragment(*read_lines([x.text for x in lines], [x.number for x in lines], kind))
                uses = list(_regex_uses(_Side(file.path, (), None), kind, 0, fragment, self._prefilter))
                if uses:
                    sides.append((file, line_kind, uses))
        return sides

    def _placed(self, marker: str) -> Iterator[_Placed]:
        for file, line_kind, every in self._sides:
            uses = [u for u in every if u.marker == marker]
            if not uses:
                continue
            kind = kind_of(file.path)
            text = _side_text(self._change, file, line_kind)
            scopes = self._known.of(text) if text is not None and kind is Kind.PYTHON else None
            rows = text.split("\n") if text is not None else []
            for u in uses:
                keys = _moved_code(u, scopes[u.line - 1] if scopes and u.line <= len(scopes) else None)
                around = rows[max(0, u.line - 4) : u.line - 1] + rows[u.line : u.line + 3]
                removed = line_kind is LineKind.REMOVED
                yield _Placed(file.path, u, removed, keys, _words(u.code), _words(" ".join(around)))


def _side_text(change: Change, file: FileDiff, line_kind: LineKind) -> str | None:
    """One side's whole text of a changed file: fetched, or all of the diff's lines of a file the
    change adds or deletes."""
    texts = change.texts_of(file)
    known = texts.head if line_kind is LineKind.ADDED else texts.base
    whole = FileStatus.ADDED if line_kind is LineKind.ADDED else FileStatus.DELETED
    if known is None and file.status is whole:
        return "\n".join(x.text for h in file.hunks for x in h.lines if x.kind is line_kind)
    return known


def _accounted(placed: list[_Placed]) -> set[tuple[str, int]]:
    """The added uses (path, line) that spare removed uses of other files account for: by each
    use's most exact key first (`_moved_code`), then by the next, among the uses left."""
    accounted: set[tuple[str, int]] = set()
    used: set[int] = set()  # the removed uses that have accounted for one
    for stage in range(max((len(p.keys) for p in placed), default=0)):
        groups: dict[tuple[str, str], list[int]] = defaultdict(list)
        for index, p in enumerate(placed):
            left = index not in used if p.removed else (p.path, p.use.line) not in accounted
            if left and len(p.keys) > stage:
                groups[p.keys[stage]].append(index)
        for members in groups.values():
            for giver, taker in _moves([placed[i] for i in members], alike=stage > 0):
                used.add(members[giver])
                accounted.add((placed[members[taker]].path, placed[members[taker]].use.line))
    return accounted


# Pairs of a code's removed and added uses ranked by closeness; past it (thousands of markers on one
# line of code), the added are paired in order, each with one of the next few removed left.
_RANKED = 1 << 14
_LOOKED_AT = 64


def _moves(uses: list[_Placed], *, alike: bool) -> Iterator[tuple[int, int]]:
    """(removed, added) indices of `uses` (all on one code) where a removed use moved to another
    file: the files that remove more than they add give, those that add more take, the closest
    pairs first, each file no more than its surplus or shortfall; with `alike` (a key less exact
    than the first: a definition's name alone), only uses on code that shares most of its words."""
    removed: Counter[str] = Counter(u.path for u in uses if u.removed)
    added: Counter[str] = Counter(u.path for u in uses if not u.removed)
    spare, needed = removed - added, added - removed
    givers = [i for i, u in enumerate(uses) if u.removed and spare[u.path]]
    takers = [j for j, u in enumerate(uses) if not u.removed and needed[u.path]]
    gave: set[int] = set()
    took: set[int] = set()

    def fits(i: int, j: int) -> bool:
        giver, taker = uses[i], uses[j]
        # (a file that gives does not take: it removes more than it adds)
        return not _silences_more(taker.use, giver.use) and (not alike or _alike(giver.code, taker.code))

    def paired(i: int, j: int) -> bool:
        giver, taker = uses[i], uses[j]
        if i in gave or j in took or not spare[giver.path] or not needed[taker.path]:
            return False
        gave.add(i)
        took.add(j)
        spare[giver.path] -= 1
        needed[taker.path] -= 1
        return True

    if len(givers) * len(takers) <= _RANKED:
        ranked = sorted((-uses[i].closeness(uses[j]), i, j) for i in givers for j in takers if fits(i, j))
        yield from ((i, j) for _, i, j in ranked if paired(i, j))
        return
    first = 0
    for j in takers:
        while first < len(givers) and givers[first] in gave:
            first += 1
        i = next((i for i in givers[first : first + _LOOKED_AT] if fits(i, j) and paired(i, j)), None)
        if i is not None:
            yield i, j


def _share(one: frozenset[str], other: frozenset[str]) -> float:
    """The share of the words either holds that both hold."""
    return len(one & other) / len(one | other) if one or other else 0.0


def _file_violations(
    change: Change, file: AddedFile, prefilter: Prefilter | None, elsewhere: _Elsewhere | None, known: Scopes
) -> Iterator[Violation]:
    own, _ = _compiled()
    shared = prefilter or own
    tree = _read_on_the_tree(file, shared)
    added = _uses(_added_side(file), file.kind, shared, tree=tree)
    if added and any(h.removed for h in file.file.hunks if h.old_len):
        base = change.texts_of(file.file).base
        removed_side = _removed_side(file, base)
        # a skip bound to a name in the base is one where the name is applied (`marks=[needs_x]`),
        # whether or not the added lines need the syntax tree
        removed = _uses(removed_side, file.kind, own, tree=tree or _aliasing(file.kind, removed_side.source))
        added = _unpaired(added, removed, file, _scopes(file, removed_side, known))
    if added and elsewhere is not None:
        added = [use for use in added if not elsewhere.account_for(use, file.path)]
    listed = [
        Violation(
            RuleId.SUPPRESSION,
            file.path,
            use.line,
            f"Adds `{use.written}`, which silences {use.silences}. {_OVERRIDE}",
            use.marker,
            # its own line's words, also where `_realigned` named a line the diff keeps
            content_basis(use.text),
        )
        for use in added
    ]
    return capped(
        listed, rule=RuleId.SUPPRESSION, path=file.path, what="suppression marker(s)", more_id="more"
    )


@dataclass(frozen=True, slots=True)
class SuppressionsRule:
    """`content.suppressions`: noqa, type: ignore, nosec, eslint-disable, skipped tests and the like.
    `prefilter`, the registry's shared one, must hold PREFILTER_GROUPS."""

    prefilter: Prefilter | None = None

    one_pass: ClassVar[bool] = False

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterator[Violation]:
        if not manifest.content.suppressions:
            return
        known = Scopes()
        elsewhere = _Elsewhere(change, _compiled()[0], known) if change.diff.removed else None
        for file in read_files(change, manifest, "suppressions", files):
            if file.kind is not Kind.DOCUMENT:
                yield from _file_violations(change, file, self.prefilter, elsewhere, known)
