"""The semantic field: what the configured tests said, and what their run left behind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.engine.findings import RuleId, Violation
from bot.engine.globs import matches
from bot.engine.manifest import Manifest


class SemanticStatus(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    PENDING = "pending"
    SKIPPED = "skipped"
    ERROR = "error"


class CheckConclusion(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    ERROR = "error"
    PENDING = "pending"
    SKIPPED = "skipped"
    NEUTRAL = "neutral"


_FAILED = frozenset({CheckConclusion.FAILURE, CheckConclusion.TIMED_OUT, CheckConclusion.CANCELLED})


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    conclusion: CheckConclusion
    details: str = ""


class SideEffectKind(StrEnum):
    CREATED = "created"
    DELETED = "deleted"
    MODIFIED = "modified"


@dataclass(frozen=True, slots=True)
class SideEffect:
    """A path the test run created, deleted or changed in the tree it ran in (or in the caller's
    git directory, when that was within its reach)."""

    path: str
    kind: SideEffectKind
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ReportedBy:
    """Where test results came from when the publisher did not run the tests itself.

    A fork's receipt is published by a trusted job from an artifact that the pull request's own
    workflow run wrote: code under review produced these results, and the receipt says so.
    """

    source: str
    url: str | None = None
    receipt_digest: str | None = None


@dataclass(frozen=True, slots=True)
class TestEvidence:
    """Everything the gatherer observed about the tests; `ran=False` with no checks means none."""

    checks: tuple[CheckResult, ...] = ()
    side_effects: tuple[SideEffect, ...] = ()
    not_run_reason: str | None = None
    reported_by: ReportedBy | None = None
    notes: tuple[str, ...] = ()  # what the verdict says of the evidence (an exit status alone)


def status_of(checks: Sequence[CheckResult]) -> SemanticStatus:
    conclusions = {c.conclusion for c in checks}
    if not conclusions:
        return SemanticStatus.SKIPPED
    if conclusions & _FAILED:
        return SemanticStatus.FAIL
    if CheckConclusion.ERROR in conclusions:
        return SemanticStatus.ERROR
    if CheckConclusion.PENDING in conclusions:
        return SemanticStatus.PENDING
    return SemanticStatus.PASS


def side_effect_violations(evidence: TestEvidence, manifest: Manifest) -> list[Violation]:
    ignored = manifest.tests.ignore_side_effects
    return [
        Violation(
            RuleId.SIDE_EFFECT,
            effect.path,
            None,
            f"The test run {effect.kind} {effect.path!r}{effect.detail} outside the change. Tests "
            "must not write into the repository; fix the test, or a maintainer can list the path "
            "in tests.ignore_side_effects.",
            f"side-effect:{effect.kind}",
        )
        for effect in evidence.side_effects
        if not (ignored and matches(ignored, effect.path, manifest.patterns))
    ]
