from __future__ import annotations

import hashlib

import pytest

from bot.engine.applies import PullRequestFacts, not_covered
from bot.engine.excess import ExcessResult
from bot.engine.findings import RuleId, Severity, Violation, sort_violations
from bot.engine.manifest import AppliesTo, Manifest, parse_manifest
from bot.engine.patterns import PatternStore
from bot.engine.receipt import Conclusion
from bot.engine.semantic import (
    CheckConclusion,
    CheckResult,
    SemanticStatus,
    SideEffect,
    SideEffectKind,
    TestEvidence,
    side_effect_violations,
    status_of,
)
from bot.engine.verdict import decide

OK = CheckResult("pytest", CheckConclusion.SUCCESS)
BAD = CheckResult("pytest", CheckConclusion.FAILURE)
SCOPE = Violation(RuleId.PROTECTED_PATH, "a.lock", None, "m", "lockfiles")
LOCALITY = Violation(RuleId.BUDGET, "a.py", None, "m", "budgets.files")


@pytest.mark.parametrize(
    ("conclusions", "status"),
    [
        ([], SemanticStatus.SKIPPED),
        ([CheckConclusion.SUCCESS], SemanticStatus.PASS),
        ([CheckConclusion.SUCCESS, CheckConclusion.SKIPPED, CheckConclusion.NEUTRAL], SemanticStatus.PASS),
        ([CheckConclusion.SUCCESS, CheckConclusion.TIMED_OUT], SemanticStatus.FAIL),
        ([CheckConclusion.CANCELLED, CheckConclusion.ERROR], SemanticStatus.FAIL),
        ([CheckConclusion.ERROR, CheckConclusion.PENDING], SemanticStatus.ERROR),
        ([CheckConclusion.PENDING, CheckConclusion.SUCCESS], SemanticStatus.PENDING),
    ],
)
def test_status_of(conclusions: list[CheckConclusion], status: SemanticStatus) -> None:
    assert status_of([CheckResult(f"c{i}", c) for i, c in enumerate(conclusions)]) is status


def _decide(**overrides: object) -> tuple[Conclusion, tuple[str, ...]]:
    args: dict[str, object] = {
        "manifest": Manifest(),
        "not_covered": None,
        "scope": (),
        "locality": (),
        "semantic": SemanticStatus.PASS,
        "checks": (OK,),
        "not_run_reason": None,
        "excess": ExcessResult(),
    }
    args.update(overrides)
    verdict = decide(**args)  # type: ignore[arg-type]
    return verdict.conclusion, verdict.reasons


def test_success_names_what_passed() -> None:
    assert _decide() == (Conclusion.SUCCESS, ("scope and locality passed", "semantic passed: pytest"))


def test_failures_are_non_compensatory_and_all_listed() -> None:
    conclusion, reasons = _decide(
        scope=(SCOPE, SCOPE), locality=(LOCALITY,), semantic=SemanticStatus.FAIL, checks=(BAD,)
    )
    assert conclusion is Conclusion.FAILURE
    assert reasons == (
        "scope failed: 2 violations (protected-path x2)",
        "locality failed: 1 violation (budget)",
        "semantic failed: pytest (failure)",
    )


def test_semantic_error_fails_closed() -> None:
    err = CheckResult("pytest", CheckConclusion.ERROR)
    assert _decide(semantic=SemanticStatus.ERROR, checks=(err,)) == (
        Conclusion.FAILURE,
        ("semantic could not be assessed: pytest (error)",),
    )


def test_skipped_tests_do_not_block_but_are_stated() -> None:
    assert _decide(semantic=SemanticStatus.SKIPPED, checks=(), not_run_reason="--no-tests was given") == (
        Conclusion.SUCCESS,
        ("scope and locality passed", "semantic skipped: tests were not run (--no-tests was given)"),
    )
    assert _decide(semantic=SemanticStatus.SKIPPED, checks=())[1][-1] == (
        "semantic skipped: tests were not run (none configured)"
    )


def test_pending_waits_unless_something_already_failed() -> None:
    pending = CheckResult("ci / test", CheckConclusion.PENDING)
    assert _decide(semantic=SemanticStatus.PENDING, checks=(pending,)) == (
        Conclusion.PENDING,
        ("semantic pending: waiting for ci / test",),
    )
    assert (
        _decide(semantic=SemanticStatus.PENDING, checks=(pending,), scope=(SCOPE,))[0] is Conclusion.FAILURE
    )


@pytest.mark.parametrize("on_alarm", ["neutral", "action_required", "failure"])
def test_excess_alarm_maps_through_on_alarm(on_alarm: str) -> None:
    manifest = parse_manifest(f"version: 1\nexcess: {{max_distance: 0.1, on_alarm: {on_alarm}}}\n")
    alarm = ExcessResult(distance=0.5, alarm=True, alarm_reasons=("distance 0.500 > max_distance 0.1",))
    assert _decide(manifest=manifest, excess=alarm) == (
        Conclusion(on_alarm),
        ("excess alarm: distance 0.500 > max_distance 0.1",),
    )


def test_the_excess_alarm_stays_among_the_reasons_when_another_field_failed() -> None:
    alarm = ExcessResult(distance=0.5, alarm=True, alarm_reasons=("distance 0.500 > max_distance 0.1",))
    assert _decide(scope=(SCOPE,), semantic=SemanticStatus.FAIL, checks=(BAD,), excess=alarm) == (
        Conclusion.FAILURE,
        (
            "scope failed: 1 violation (protected-path)",
            "semantic failed: pytest (failure)",
            "excess alarm: distance 0.500 > max_distance 0.1",
        ),
    )
    pending = CheckResult("ci / test", CheckConclusion.PENDING)
    assert _decide(semantic=SemanticStatus.PENDING, checks=(pending,), excess=alarm) == (
        Conclusion.PENDING,
        ("semantic pending: waiting for ci / test", "excess alarm: distance 0.500 > max_distance 0.1"),
    )


def test_uncovered_pull_requests_are_skipped() -> None:
    assert _decide(not_covered="it has none of labels (agent)", scope=(SCOPE,)) == (
        Conclusion.SKIPPED,
        ("this pull request is not covered by applies_to: it has none of labels (agent)",),
    )


@pytest.mark.parametrize(
    ("applies", "facts", "expected"),
    [
        (None, PullRequestFacts(), True),
        (AppliesTo(), PullRequestFacts(author="alice"), True),
        (AppliesTo(authors=("*[bot]",)), PullRequestFacts(author="dependabot[bot]"), True),
        (AppliesTo(authors=("*[bot]",)), PullRequestFacts(author="bot"), False),
        (AppliesTo(authors=("*[bot]",)), PullRequestFacts(author="robot"), False),
        (AppliesTo(authors=("codex-?",)), PullRequestFacts(author="Codex-1"), True),
        (AppliesTo(authors=("*[bot]",)), PullRequestFacts(), True),
        (AppliesTo(labels=("Agent",)), PullRequestFacts(labels=("agent", "bug")), True),
        (AppliesTo(labels=("agent",)), PullRequestFacts(labels=()), False),
        (AppliesTo(labels=("agent",)), PullRequestFacts(), True),
        (AppliesTo(branches=("codex/**",)), PullRequestFacts(head_branch="codex/fix-1"), True),
        (AppliesTo(branches=("codex/**",)), PullRequestFacts(head_branch="main"), False),
        (AppliesTo(branches=("codex/**",)), PullRequestFacts(), True),
        (
            AppliesTo(authors=("*[bot]",), labels=("agent",)),
            PullRequestFacts(author="alice", labels=("agent",)),
            True,
        ),
        (
            AppliesTo(authors=("*[bot]",), labels=("agent",)),
            PullRequestFacts(author="alice", labels=()),
            False,
        ),
    ],
)
def test_applies_to(applies: AppliesTo | None, facts: PullRequestFacts, expected: bool) -> None:
    assert (not_covered(applies, facts, PatternStore()) is None) is expected


def test_a_pull_request_applies_to_misses_is_told_each_criterion_it_missed() -> None:
    applies = AppliesTo(authors=("*[bot]",), labels=("agent", "ai"), branches=("codex/**",))
    facts = PullRequestFacts(author="alice", labels=("docs",), head_branch="fix/typo")
    assert not_covered(applies, facts, PatternStore()) == (
        "author 'alice' is none of authors (*[bot]); it has none of labels (agent, ai); "
        "branch 'fix/typo' matches none of branches (codex/**)"
    )


def test_side_effects_become_scope_violations_unless_ignored() -> None:
    evidence = TestEvidence(
        checks=(OK,),
        side_effects=(
            SideEffect(".env", SideEffectKind.CREATED, " (file)"),
            SideEffect("build/out.o", SideEffectKind.CREATED, " (file)"),
            SideEffect("src/app.py", SideEffectKind.MODIFIED),
        ),
    )
    manifest = parse_manifest("version: 1\ntests: {ignore_side_effects: ['build/**']}\n")
    found = side_effect_violations(evidence, manifest)
    assert [(v.rule, v.path, v.id) for v in found] == [
        (RuleId.SIDE_EFFECT, ".env", "side-effect:created"),
        (RuleId.SIDE_EFFECT, "src/app.py", "side-effect:modified"),
    ]
    assert found[0].message.startswith("The test run created '.env' (file) outside the change.")
    assert len(side_effect_violations(evidence, Manifest())) == 3


def test_violations_sort_deterministically_and_dedupe() -> None:
    a = Violation(RuleId.SECRET, "b.py", 3, "m", "x")
    b = Violation(RuleId.BINARY, "a.png", None, "m", "paths.allow_binary")
    c = Violation(RuleId.SECRET, "b.py", 1, "m", "x")
    assert sort_violations([a, b, c, a]) == (b, c, a)
    assert a.severity is Severity.CRITICAL and b.severity is Severity.FAILURE
    assert b.as_json() == {
        "rule": "binary",
        "path": "a.png",
        "line": None,
        "message": "m",
        "id": "paths.allow_binary",
        # rule, sub-rule, path and content (none for a path rule), NUL-separated, hashed
        "waiver_id": "binary:" + hashlib.sha256(b"binary\0paths.allow_binary\0a.png\0").hexdigest()[:16],
    }
    assert "id" not in b.as_json(with_id=False)


def test_a_timeout_is_its_own_reason() -> None:
    slow = CheckResult("pytest", CheckConclusion.TIMED_OUT)
    assert _decide(semantic=SemanticStatus.FAIL, checks=(slow,)) == (
        Conclusion.FAILURE,
        ("semantic timed out: pytest",),
    )
    lint = CheckResult("lint", CheckConclusion.FAILURE)
    assert _decide(semantic=SemanticStatus.FAIL, checks=(slow, lint))[1] == (
        "semantic failed: lint (failure)",
        "semantic timed out: pytest",
    )


def test_what_the_evidence_was_is_stated_beside_a_pass() -> None:
    assert _decide(notes=("the exit status was the only evidence",)) == (
        Conclusion.SUCCESS,
        (
            "scope and locality passed",
            "semantic passed: pytest",
            "semantic evidence: the exit status was the only evidence",
        ),
    )
