"""Suppression markers on added lines (`content.suppressions`): a change that silences a linter, a
type checker, a security scanner, coverage or a test instead of fixing what it reports.

Comment markers (`# noqa`, `// eslint-disable-line`) are matched as written; markers that are code
(`@pytest.mark.skip`, `it.skip(`) count only outside comments and strings (`linescan.py`).
Documents (Markdown, reStructuredText, plain text) are not read: they mention markers, not use them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.exclude import read_files
from bot.engine.content.filekinds import Kind
from bot.engine.content.limits import capped
from bot.engine.content.linescan import LineScan
from bot.engine.content.prefilter import Prefilter
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import Manifest
from bot.engine.regex import compile_re2


@dataclass(frozen=True, slots=True)
class Marker:
    """`regex` captures the marker in group 1; `code` markers must sit outside comments and strings."""

    id: str
    regex: str
    silences: str
    code: bool = False


_TEST = "a test: it stops running (or its failure stops counting), which turns a red suite green"

MARKERS: tuple[Marker, ...] = (
    Marker("noqa", r"(?i)#[ \t]*(noqa)\b", "flake8/ruff findings"),
    Marker("type-ignore", r"#[ \t]*(type:[ \t]*ignore)\b", "the type checker"),
    Marker("type-ignore", r"#[ \t]*(pyright:[ \t]*ignore)\b", "the type checker"),
    Marker("pylint-disable", r"#[ \t]*(pylint:[ \t]*disable)\b", "pylint findings"),
    Marker("nosec", r"#[ \t]*(nosec)\b", "security scanner findings (bandit, gosec)"),
    Marker("nosemgrep", r"\b(nosemgrep)\b", "Semgrep findings"),
    Marker("gitleaks-allow", r"(gitleaks:allow)", "gitleaks secret findings"),
    Marker(
        "pragma-allowlist-secret",
        r"(?i)(pragma:[ \t]*allowlist[ \t]+(?:nextline[ \t]+)?secret)",
        "detect-secrets findings",
    ),
    Marker("eslint-disable", r"(?://|/\*)[ \t]*(eslint-disable(?:-next-line|-line)?)\b", "ESLint rules"),
    Marker("ts-ignore", r"(@ts-ignore)\b", "TypeScript errors"),
    Marker("ts-ignore", r"(@ts-nocheck)\b", "TypeScript errors"),
    Marker("ts-ignore", r"(@ts-expect-error)\b", "TypeScript errors"),
    Marker("pragma-no-cover", r"(?i)#[ \t]*(pragma:?[ \t]*no[ \t]*cover)\b", "coverage measurement"),
    Marker("pragma-no-cover", r"/\*[ \t]*((?:istanbul|c8)[ \t]+ignore)\b", "coverage measurement"),
    Marker("pytest-skip", r"(pytest\.mark\.skip(?:if)?)\b", _TEST, code=True),
    Marker("pytest-skip", r"(pytest\.skip)[ \t]*\(", _TEST, code=True),
    Marker("pytest-xfail", r"(pytest\.mark\.xfail)\b", _TEST, code=True),
    Marker("pytest-xfail", r"(pytest\.xfail)[ \t]*\(", _TEST, code=True),
    Marker("unittest-skip", r"(unittest\.skip(?:If|Unless)?)\b", _TEST, code=True),
    Marker("unittest-skip", r"(\.skipTest)[ \t]*\(", _TEST, code=True),
    Marker("js-skip", r"(?m)(?:^|[^\w$.])((?:it|describe|test|context)\.skip)\b", _TEST, code=True),
    Marker("js-skip", r"(?m)(?:^|[^\w$.])(x(?:it|describe|test|context))[ \t]*\(", _TEST, code=True),
    Marker(
        "js-only",
        r"(?m)(?:^|[^\w$.])((?:it|describe|test|context)\.only|f(?:it|describe))\b[ \t]*\(",
        "every other test of the file: they stop running",
        code=True,
    ),
)

_OVERRIDE = (
    "Fix what it reports instead. If the suppression is right, that is a maintainer's call: merge with "
    "admin approval, or set content.suppressions: false in the base branch's manifest."
)


MARKED = "suppression-markers"
PREFILTER_GROUPS = {MARKED: tuple(m.regex for m in MARKERS)}


@cache
def _compiled() -> tuple[Prefilter, tuple[Any, ...]]:
    return Prefilter(PREFILTER_GROUPS), tuple(compile_re2(m.regex) for m in MARKERS)


def _fragment_violations(
    path: str, kind: Kind, fragment: Fragment, prefilter: Prefilter | None
) -> Iterator[Violation]:
    own, regexes = _compiled()
    for index in (prefilter or own).present(fragment, MARKED):
        marker = MARKERS[index]
        scan = LineScan(fragment.data, kind) if marker.code else None
        for match in regexes[index].finditer(fragment.data):
            if scan is not None and scan.hidden(match.start(1)):
                continue
            written = match.group(1).decode("utf-8", "replace")
            message = f"Adds `{written}`, which silences {marker.silences}. {_OVERRIDE}"
            yield Violation(RuleId.SUPPRESSION, path, fragment.line_at(match.start(1)), message, marker.id)


def _file_violations(file: AddedFile, prefilter: Prefilter | None) -> Iterator[Violation]:
    found: dict[tuple[str, int], Violation] = {}
    for fragment in file.fragments:
        for violation in _fragment_violations(file.path, file.kind, fragment, prefilter):
            found.setdefault((violation.id, violation.line or 0), violation)
    listed = list(found.values())
    return capped(
        listed, rule=RuleId.SUPPRESSION, path=file.path, what="suppression marker(s)", more_id="more"
    )


@dataclass(frozen=True, slots=True)
class SuppressionsRule:
    """`content.suppressions`: noqa, type: ignore, nosec, eslint-disable, skipped tests and the like.
    `prefilter`, the registry's shared one, must hold PREFILTER_GROUPS."""

    prefilter: Prefilter | None = None

    def scan(self, change: Change, manifest: Manifest) -> Iterator[Violation]:
        if not manifest.content.suppressions:
            return
        for file in read_files(change, manifest, "suppressions"):
            if file.kind is not Kind.DOCUMENT:
                yield from _file_violations(file, self.prefilter)
