"""The test command, run in a sandboxed copy of the head commit under the filesystem gate, after
(with `tests.compare_base`) one of the base commit; the engine judges what the runs left as evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.engine import ReportFile, ReportState, RunOutcome, TestEvidence, judge_run
from bot.engine.manifest import TestsPolicy
from bot.local.git import Git
from bot.local.sandbox import Collected, SandboxRun, minimal_environment, run_in_sandbox

SHELL = "/bin/sh"
# File times come from the kernel's coarse clock, which may lag the clock read at the start by a
# tick: a report written at once must not read as older than the run.
_CLOCK_SLACK_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class TestRun:
    command: str
    timeout_seconds: float
    environment: Mapping[str, str]  # the caller's; only what `minimal_environment` keeps is passed
    policy: TestsPolicy = field(default_factory=TestsPolicy)
    base: str | None = None  # the commit `tests.compare_base` compares with (the merge-base)
    hide: tuple[Path, ...] = ()  # more that the command must not read (replay: the caller's repository)


def _report(collected: Collected | None, started_ns: int) -> ReportFile | None:
    if collected is None:
        return None
    path = collected.path
    if collected.existed_before:
        return ReportFile(path, ReportState.COMMITTED)
    if collected.problem is not None:
        return ReportFile(path, ReportState.UNREADABLE, problem=collected.problem)
    if collected.data is None:
        return ReportFile(path, ReportState.MISSING)
    if collected.modified_ns < started_ns - _CLOCK_SLACK_NS:
        return ReportFile(path, ReportState.STALE)
    return ReportFile(path, ReportState.WRITTEN, collected.data)


def _outcome(run: SandboxRun, limit: float, report: str | None) -> RunOutcome:
    result = run.result
    return RunOutcome(
        exit_status=result.exit_status,
        timed_out=result.timed_out,
        start_error=result.start_error,
        survivor=result.survivor,
        elapsed_seconds=result.elapsed_seconds,
        limit_seconds=limit,
        output=result.output,
        isolation=result.isolation,
        report=_report(run.collected.get(report), run.started_ns) if report else None,
    )


def run_tests(git: Git, head: str, run: TestRun) -> TestEvidence:
    """Run the command on `head` (and on `run.base` for tests.compare_base) and judge the evidence."""
    policy = run.policy
    collect = (policy.report,) if policy.report else ()
    env = minimal_environment(run.environment, policy.environment)
    argv = (SHELL, "-c", run.command)

    def once(commit: str, *, gate: bool) -> SandboxRun:
        return run_in_sandbox(
            git,
            commit,
            argv,
            limit=run.timeout_seconds,
            environment=env,
            collect=collect,
            gate=gate,
            hide=run.hide,
        )

    # The base commit's run comes first: once the code under review has run, receipt runs nothing
    # (no git, no supervisor, no interpreter) that it could have rewritten or reconfigured.
    base = None
    if policy.compare_base and run.base is not None:
        base = _outcome(once(run.base, gate=False), run.timeout_seconds, policy.report)
    at_head = once(head, gate=True)
    judged = judge_run(run.command, policy, _outcome(at_head, run.timeout_seconds, policy.report), base)
    return TestEvidence(checks=(judged.check,), side_effects=at_head.side_effects, notes=judged.notes)
