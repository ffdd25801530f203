"""Claims a description makes that the receipt can check, and the ones it contradicts.

A claim is read sentence by sentence. A positive claim ("tests pass", "backward compatible")
does not count when its clause negates it before the match ("not all tests pass").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase

from bot.engine.diff import Diff
from bot.engine.report.facts import Observed
from bot.engine.report.kinds import FactKind


class ClaimKind(StrEnum):
    TESTS_PASS = "tests-pass"
    NO_BREAKING_CHANGES = "no-breaking-changes"
    NO_DEPENDENCY_CHANGES = "no-dependency-changes"
    NO_TEST_CHANGES = "no-test-changes"
    NO_CI_CHANGES = "no-ci-changes"
    NO_DELETIONS = "no-deletions"
    ONLY_TOUCHED = "only-touched"
    FORMATTING_ONLY = "formatting-only"


_NOT = r"(?:does ?n[o']t|did ?n[o']t|do ?n[o']t|does not|did not|without|never|no)"
_EDIT = r"(?:add|chang|modif|edit|touch|updat|bump|delet|remov)\w*"
_ALTERNATIVES: dict[ClaimKind, tuple[str, ...]] = {
    ClaimKind.TESTS_PASS: (
        r"\b(?:tests?|test suite|ci|checks?)\s+(?:(?:are|is|all|still|now)\s+)*"
        r"(?:pass(?:es|ed|ing)?|green|succeed\w*)\b",
        r"\bpassing tests\b",
    ),
    ClaimKind.NO_BREAKING_CHANGES: (
        r"\bno breaking changes?\b",
        r"\bbackwards?[- ]compatible\b",
        r"\bnon-breaking\b",
    ),
    ClaimKind.NO_DEPENDENCY_CHANGES: (
        r"\bno (?:new )?(?:dependency|dependencies|deps)\b",
        rf"\b{_NOT} {_EDIT} (?:any )?(?:new )?(?:dependency|dependencies|deps)\b",
        r"\bdependencies (?:are )?unchanged\b",
    ),
    ClaimKind.NO_TEST_CHANGES: (
        rf"\bno (?:existing )?tests? (?:(?:were|was) )?{_EDIT}",
        rf"\b{_NOT} {_EDIT} (?:any )?(?:existing |the )?tests?\b",
        r"\btests (?:are )?(?:unchanged|untouched)\b",
    ),
    ClaimKind.NO_CI_CHANGES: (
        r"\bno (?:ci|workflow) changes?\b",
        rf"\b{_NOT} {_EDIT} (?:the |any )?(?:ci|workflows?)\b",
    ),
    ClaimKind.NO_DELETIONS: (
        r"\bno files? (?:(?:were|was|are|is) )?(?:deleted|removed)\b",
        r"\bnothing (?:(?:is|was) )?(?:deleted|removed)\b",
    ),
    ClaimKind.ONLY_TOUCHED: (
        r"\b(?:only|just) (?:touch|chang|modif|edit|updat)\w*\s+(?P<what>.+)",
        r"\b(?:touch|chang|modif|edit|updat)\w* only\s+(?P<what2>.+)",
    ),
    ClaimKind.FORMATTING_ONLY: (
        r"\b(?:formatting|whitespace|style)[- ]only\b",
        r"\bonly (?:formatting|whitespace)\b",
    ),
}
PATTERNS = {kind: re.compile("|".join(parts), re.IGNORECASE) for kind, parts in _ALTERNATIVES.items()}
_POSITIVE = frozenset(
    {ClaimKind.TESTS_PASS, ClaimKind.NO_BREAKING_CHANGES, ClaimKind.ONLY_TOUCHED, ClaimKind.FORMATTING_ONLY}
)
_NEGATION = re.compile(r"\b(?:not|never|no|cannot)\b|n't\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_PATHLIKE = re.compile(r"`([^`\n]+)`|([\w.*-]*[\w*-]/[\w./*-]*|[\w*-][\w.*-]*\.\w+)")
# Which facts each claim denies: a description that denies a fact does not mention it.
DENIES: dict[ClaimKind, tuple[FactKind, ...]] = {
    ClaimKind.TESTS_PASS: (FactKind.TESTS_FAILED, FactKind.BROKEN_REFERENCES),
    ClaimKind.NO_BREAKING_CHANGES: (FactKind.BROKEN_REFERENCES,),
    ClaimKind.NO_DEPENDENCY_CHANGES: (FactKind.DEPENDENCIES, FactKind.LOCKFILES),
    ClaimKind.NO_TEST_CHANGES: (FactKind.TESTS_EDITED, FactKind.TESTS_DELETED),
    ClaimKind.NO_CI_CHANGES: (FactKind.CI,),
    ClaimKind.NO_DELETIONS: (FactKind.FILES_DELETED, FactKind.TESTS_DELETED),
    ClaimKind.ONLY_TOUCHED: (),
    ClaimKind.FORMATTING_ONLY: (),
}


@dataclass(frozen=True, slots=True)
class Claim:
    kind: ClaimKind
    quote: str  # the sentence it was read from, as written (bounded)
    contradiction: str  # what the receipt says instead


def _sentences(text: str) -> Iterator[str]:
    yield from (s.strip() for s in _SENTENCES.split(text) if s.strip())


def _negated(sentence: str, start: int) -> bool:
    clause = re.split(r"[,;:]", sentence[:start])[-1]
    return _NEGATION.search(clause) is not None


def _named(what: str) -> list[str]:
    return [a or b for a, b in _PATHLIKE.findall(what)]


def _covered(path: str, names: list[str]) -> bool:
    for name in (n.strip().rstrip("/").removeprefix("./") for n in names):
        if (
            path == name
            or path.endswith("/" + name)
            or path.startswith(name + "/")
            or fnmatchcase(path, name)
        ):
            return True
    return False


def _contradiction(
    kind: ClaimKind, match: re.Match[str], facts: dict[FactKind, Observed], diff: Diff, logical_lines: int
) -> str | None:
    if kind is ClaimKind.ONLY_TOUCHED:
        names = _named(match.group("what") or match.group("what2") or "")
        if not names:
            return None  # "only touched the parser": nothing the receipt can compare
        beyond = sorted({f.path for f in diff.files if not any(_covered(p, names) for p in f.paths)})
        if not beyond:
            return None
        shown = ", ".join(beyond[:5]) + (f" and {len(beyond) - 5} more" if len(beyond) > 5 else "")
        return f"the change also touches {shown}"
    if kind is ClaimKind.FORMATTING_ONLY:
        return f"{logical_lines} logical line(s) change more than formatting" if logical_lines else None
    denied = [facts[k] for k in DENIES[kind] if k in facts]
    return "; ".join(f.summary for f in denied) if denied else None


def contradicted(text: str, facts: list[Observed], diff: Diff, logical_lines: int) -> list[Claim]:
    """The description's claims that the receipt's facts contradict, in the order they appear."""
    by_kind = {f.kind: f for f in facts}
    found: list[Claim] = []
    for sentence in _sentences(text):
        for kind, pattern in PATTERNS.items():
            match = pattern.search(sentence)
            if match is None or (kind in _POSITIVE and _negated(sentence, match.start())):
                continue
            why = _contradiction(kind, match, by_kind, diff, logical_lines)
            if why is not None:
                found.append(Claim(kind, sentence[:300], why))
    return found
