"""The verdict: non-compensatory. A failing hard field fails the receipt whatever the others say."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.engine.excess import ExcessResult
from bot.engine.findings import Violation
from bot.engine.manifest import Manifest, Mode
from bot.engine.receipt import Conclusion, Verdict
from bot.engine.semantic import CheckConclusion, CheckResult, SemanticStatus


def _tally(violations: Sequence[Violation]) -> str:
    counts = Counter(v.rule.value for v in violations)
    return ", ".join(f"{rule} x{n}" if n > 1 else rule for rule, n in sorted(counts.items()))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


_BLOCKING = frozenset({Conclusion.FAILURE, Conclusion.ACTION_REQUIRED})


def observed(verdict: Verdict, mode: Mode) -> Verdict:
    """`mode: observe`: a blocking conclusion becomes neutral, keeping every reason, and says so."""
    if mode is Mode.ENFORCE or verdict.conclusion not in _BLOCKING:
        return verdict
    head = (
        f"would fail in enforce mode ({verdict.conclusion.value}); mode: observe makes it neutral. "
        "What would have failed:"
    )
    return Verdict(Conclusion.NEUTRAL, (head, *verdict.reasons), enforced=verdict.conclusion)


def decide(
    *,
    manifest: Manifest,
    not_covered: str | None,
    scope: Sequence[Violation],
    locality: Sequence[Violation],
    semantic: SemanticStatus,
    checks: Sequence[CheckResult],
    not_run_reason: str | None,
    excess: ExcessResult,
    notes: Sequence[str] = (),
) -> Verdict:
    if not_covered is not None:
        return Verdict(
            Conclusion.SKIPPED, (f"this pull request is not covered by applies_to: {not_covered}",)
        )
    reasons: list[str] = []
    failed = False
    if scope:
        failed = True
        reasons.append(f"scope failed: {_plural(len(scope), 'violation')} ({_tally(scope)})")
    if locality:
        failed = True
        reasons.append(f"locality failed: {_plural(len(locality), 'violation')} ({_tally(locality)})")
    bad = [c for c in checks if c.conclusion.value not in ("success", "skipped", "neutral")]
    timed_out = [c for c in bad if c.conclusion is CheckConclusion.TIMED_OUT]
    if semantic is SemanticStatus.FAIL:
        failed = True
        others = [c for c in bad if c.conclusion is not CheckConclusion.TIMED_OUT]
        if others:
            reasons.append("semantic failed: " + ", ".join(f"{c.name} ({c.conclusion})" for c in others))
        if timed_out:
            reasons.append("semantic timed out: " + ", ".join(c.name for c in timed_out))
    elif semantic is SemanticStatus.ERROR:
        failed = True
        reasons.append(
            "semantic could not be assessed: " + ", ".join(f"{c.name} ({c.conclusion})" for c in bad)
        )
    elif semantic is SemanticStatus.SKIPPED:
        reasons.append(f"semantic skipped: tests were not run ({not_run_reason or 'none configured'})")
    # every reason is stated, whichever of them decides the conclusion
    alarm = [f"excess alarm: {r}" for r in excess.alarm_reasons] if excess.alarm else []
    if failed:
        return Verdict(Conclusion.FAILURE, (*reasons, *alarm))
    if semantic is SemanticStatus.PENDING:
        waiting = ", ".join(c.name for c in checks if c.conclusion.value == "pending")
        return Verdict(Conclusion.PENDING, (*reasons, f"semantic pending: waiting for {waiting}", *alarm))
    if excess.alarm:
        return Verdict(Conclusion(manifest.excess.on_alarm.value), (*reasons, *alarm))
    if semantic is SemanticStatus.PASS:
        reasons[:0] = ["semantic passed: " + ", ".join(c.name for c in checks)] + [
            f"semantic evidence: {n}" for n in notes
        ]
    reasons.insert(0, "scope and locality passed")
    return Verdict(Conclusion.SUCCESS, tuple(reasons))
