"""The important facts of a change, read off the receipt and the diff; each with the words that
count as mentioning it in a description (README, "What the description leaves unsaid")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bot.engine.diff import Diff, FileDiff, FileStatus
from bot.engine.findings import RuleId
from bot.engine.globs import matches
from bot.engine.groups import GROUPS
from bot.engine.lazyre import lazy
from bot.engine.patterns import PatternStore
from bot.engine.report.kinds import IMPORTANCE, FactKind, Importance
from bot.engine.semantic import CheckConclusion

TEST_PATHS = (
    "test/", "tests/", "testing/", "__tests__/", "spec/", "test_*.py", "*_test.py", "conftest.py",
    "*_test.go", "*.test.[jt]s", "*.test.[jt]sx", "*.spec.[jt]s", "*.spec.[jt]sx", "*Test.java",
    "*Tests.java", "*_spec.rb",
)  # fmt: skip
_FAILED = (
    CheckConclusion.FAILURE,
    CheckConclusion.TIMED_OUT,
    CheckConclusion.ERROR,
    CheckConclusion.CANCELLED,
)
_TEST_NOUN = r"(?:unit |integration |regression |existing |the |a |some |two |three |several )*tests?\b"

# What counts as mentioning each kind of fact, besides naming one of its paths or file names.
WORDS: dict[FactKind, str] = {
    FactKind.PROTECTED_PATH: r"\bprotected\b",
    FactKind.TESTS_FAILED: r"\b(?:fail(?:s|ed|ing|ure|ures)?|broken|red)\b",
    FactKind.BROKEN_REFERENCES: r"\bbreak(?:s|ing)?\b|\bincompatib\w*|\brenam(?:e|es|ed|ing)\b",
    FactKind.TESTS_DELETED: (
        rf"\b(?:delet|remov|drop)\w*\s+{_TEST_NOUN}|\btests?\s+(?:\w+\s+)?(?:deleted|removed|dropped)\b"
    ),
    FactKind.TESTS_EDITED: (
        rf"\b(?:updat|edit|chang|modif|adjust|fix|rewr|tweak|amend|relax|loosen)\w*\s+{_TEST_NOUN}"
        r"|\btests?\s+(?:\w+\s+)?(?:updated|changed|edited|modified|adjusted|fixed|rewritten|relaxed)\b"
    ),
    FactKind.DEPENDENCIES: r"\bdependenc(?:y|ies)\b|\bdeps\b|\brequirements?\b|\bbump(?:s|ed)?\b|\bupgrad\w*",
    FactKind.LOCKFILES: r"\block ?files?\b|\block\b|\bdependenc(?:y|ies)\b",
    FactKind.CI: r"\bci\b|\bworkflows?\b|\bpipelines?\b|\bgithub actions\b",
    FactKind.FILES_DELETED: r"\b(?:delet|remov)\w*",
    FactKind.MODE_CHANGE: r"\bchmod\b|\bexecutable\b|\bpermissions?\b|\bfile modes?\b",
    FactKind.SYMLINK: r"\bsym(?:bolic )?links?\b",
    FactKind.TESTS_NOT_RUN: r"\bnot (?:been )?run\b|\buntested\b|\bdid(?:n't| not) run\b|\bwithout running\b",
    FactKind.EXCESS_ALARM: r"\brefactor\w*|\brewr\w*|\breformat\w*|\bclean ?up\w*|\brestructur\w*",
}
# Compiled when a fact of the kind is found: a change has few of the kinds.
WORD_PATTERNS = {kind: lazy(words, re.IGNORECASE) for kind, words in WORDS.items()}


@dataclass(frozen=True, slots=True)
class Observed:
    """One fact before the description is read: its kind, the paths it is about, a sentence,
    and names beside the paths that count as mentioning it (a removed function's name)."""

    kind: FactKind
    paths: tuple[str, ...]
    summary: str
    names: tuple[str, ...] = ()

    @property
    def importance(self) -> Importance:
        return IMPORTANCE[self.kind]


@dataclass(frozen=True, slots=True)
class ReceiptFacts:
    """What of a receipt the facts are read from (the receipt is built before its report)."""

    diff: Diff
    protected: tuple[str, ...]  # paths with a protected-path or manifest-change violation
    tests_ran: bool  # the tests (not receipt's own checks) gave any result
    failed_tests: tuple[str, ...]  # names of test checks that failed or errored
    not_run_reason: str | None
    references: tuple[tuple[str, str], ...]  # (caller path, definition's dotted name)
    excess_alarm: tuple[str, ...]  # the alarm's reasons


def protected_paths(rules_paths: Iterator[tuple[RuleId, str]]) -> tuple[str, ...]:
    wanted = (RuleId.PROTECTED_PATH, RuleId.MANIFEST_CHANGE)
    return tuple(sorted({path for rule, path in rules_paths if rule in wanted}))


def is_test(path: str, store: PatternStore) -> bool:
    return matches(TEST_PATHS, path, store)


def _files(kind: FactKind, files: list[FileDiff], what: str) -> Iterator[Observed]:
    if files:
        paths = tuple(sorted({f.path for f in files}))
        shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        yield Observed(kind, paths, f"{len(paths)} {what}: {shown}")


def observe(facts: ReceiptFacts, store: PatternStore) -> list[Observed]:
    """Every important fact of the change, most important first."""
    files = list(facts.diff.files)
    found: list[Observed] = []
    if facts.protected:
        found.append(
            Observed(
                FactKind.PROTECTED_PATH, facts.protected, f"{len(facts.protected)} protected path(s) touched"
            )
        )
    if facts.failed_tests:
        found.append(Observed(FactKind.TESTS_FAILED, (), "tests failed: " + ", ".join(facts.failed_tests)))
    if facts.references:
        callers = tuple(sorted({p for p, _ in facts.references}))
        names = tuple(sorted({t.rpartition(".")[2] for _, t in facts.references}))
        found.append(
            Observed(
                FactKind.BROKEN_REFERENCES, callers, f"{len(facts.references)} broken call site(s)", names
            )
        )
    tests = [f for f in files if any(is_test(p, store) for p in f.paths)]
    found += _files(
        FactKind.TESTS_DELETED, [f for f in tests if f.status is FileStatus.DELETED], "test file(s) deleted"
    )
    found += _files(
        FactKind.TESTS_EDITED,
        [f for f in tests if f.status in (FileStatus.MODIFIED, FileStatus.RENAMED)],
        "test file(s) edited",
    )
    found += _files(
        FactKind.DEPENDENCIES,
        [f for f in files if any(matches(GROUPS["dependency-manifests"], p, store) for p in f.paths)],
        "dependency manifest(s) changed",
    )
    found += _files(
        FactKind.CI,
        [f for f in files if any(matches(GROUPS["ci"], p, store) for p in f.paths)],
        "CI file(s) changed",
    )
    found += _files(
        FactKind.LOCKFILES,
        [f for f in files if any(matches(GROUPS["lockfiles"], p, store) for p in f.paths)],
        "lockfile(s) changed",
    )
    found += _files(
        FactKind.FILES_DELETED,
        [f for f in files if f.status is FileStatus.DELETED and f not in tests],
        "file(s) deleted",
    )
    found += _files(FactKind.MODE_CHANGE, [f for f in files if f.mode_changed], "file mode(s) changed")
    found += _files(FactKind.SYMLINK, [f for f in files if f.adds_symlink], "symlink(s) added or changed")
    if not facts.tests_ran:
        found.append(
            Observed(
                FactKind.TESTS_NOT_RUN,
                (),
                f"tests were not run ({facts.not_run_reason or 'none configured'})",
            )
        )
    if facts.excess_alarm:
        found.append(Observed(FactKind.EXCESS_ALARM, (), "excess alarm: " + "; ".join(facts.excess_alarm)))
    return sorted(found, key=lambda o: -o.importance)


def failed_test_names(checks: Iterator[tuple[str, CheckConclusion]]) -> tuple[str, ...]:
    return tuple(name for name, conclusion in checks if conclusion in _FAILED)
