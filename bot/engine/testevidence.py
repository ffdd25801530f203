"""What a run of the test command proves: the evidence rule, over what the runner observed.

An exit status is whatever the code under review makes it (`os._exit(0)` in a conftest). With
`tests.report` a pass also needs the JUnit report, written by this run, counting at least one
executed test (`tests.min_executed`: that many) and no failure or error; with `tests.compare_base`
no fewer executed tests than the base commit's run of the same command, and no test that ran there
skipped now. Evidence that contradicts a pass fails; evidence that cannot be read is an `error`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.engine.junit import JUnitCounts, JUnitError, parse_junit
from bot.engine.manifest import TestsPolicy
from bot.engine.semantic import CheckConclusion, CheckResult
from bot.engine.testoutput import output_tail

MAX_LISTED = 10
EXIT_ONLY = "the exit status was the only evidence (no tests.report in the manifest)"


class ReportState(StrEnum):
    WRITTEN = "written"  # absent before the run, present after it, not older than its start
    MISSING = "missing"
    COMMITTED = "committed"  # already in the tree before the run
    STALE = "stale"  # modified before the run started
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class ReportFile:
    path: str
    state: ReportState
    data: bytes = b""
    problem: str = ""  # why an UNREADABLE report could not be read


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What the runner saw of one run: plain data, judged here. `exit_status` is None when the
    command did not end by itself; `survivor` says how the run did not end cleanly (a process that
    outlived it, a supervisor something of the run killed); `report` is None when the manifest names none."""

    exit_status: int | None = None
    timed_out: bool = False
    start_error: str | None = None
    survivor: str | None = None
    elapsed_seconds: float = 0.0
    limit_seconds: float = 0.0
    output: bytes = b""
    isolation: str = ""
    report: ReportFile | None = None


@dataclass(frozen=True, slots=True)
class Judged:
    check: CheckResult
    notes: tuple[str, ...] = ()  # what the verdict should say beside pass or fail


class _Unassessable(Exception):
    """The evidence cannot be read: the check is an error, for this reason; `lines` are the counts
    that could be read before it."""

    def __init__(self, problem: str, lines: tuple[str, ...] = ()) -> None:
        super().__init__(problem)
        self.lines = lines


def _listed(names: frozenset[str]) -> str:
    shown = sorted(names)[:MAX_LISTED]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _counts(report: ReportFile | None) -> JUnitCounts:
    if report is None:
        raise _Unassessable("no report")
    where = f"the report {report.path}"
    if report.state is ReportState.MISSING:
        raise _Unassessable(f"{where} was not written (did the command exit before running the tests?)")
    if report.state is ReportState.COMMITTED:
        raise _Unassessable(f"{where} is in the commit: it must be written by the run, not committed")
    if report.state is ReportState.STALE:
        raise _Unassessable(f"{where} is older than the run: it was not written by it")
    if report.state is ReportState.UNREADABLE:
        raise _Unassessable(f"{where} could not be read: {report.problem}")
    try:
        return parse_junit(report.data, report.path)
    except JUnitError as exc:
        raise _Unassessable(exc.problem) from None


def _base_counts(base: RunOutcome) -> JUnitCounts:
    if base.start_error is not None:
        raise _Unassessable(f"the base run could not start: {base.start_error}")
    if base.timed_out:
        raise _Unassessable(f"the base run timed out after {base.limit_seconds:.0f} s")
    if base.survivor is not None:
        raise _Unassessable(f"the base run did not end cleanly: {base.survivor}")
    return _counts(base.report)


def _shortfalls(policy: TestsPolicy, counts: JUnitCounts, base: JUnitCounts | None) -> list[str]:
    found: list[str] = []
    if counts.failed or counts.errors:
        found.append(f"the report counts {counts.failed} failed and {counts.errors} errors")
    least = max(1, policy.min_executed or 1)
    if counts.executed < least:
        found.append(
            "the report counts no executed test"
            if counts.executed == 0
            else f"{counts.executed} executed tests, fewer than tests.min_executed ({least})"
        )
    if base is not None:
        if counts.executed < base.executed:
            found.append(f"{counts.executed} executed tests, the base commit's run executed {base.executed}")
        newly_skipped = base.ran & counts.skipped_ids
        if newly_skipped:
            found.append(f"skipped now, ran on the base: {_listed(newly_skipped)}")
    return found


def _evidence(policy: TestsPolicy, head: RunOutcome, base: RunOutcome | None) -> tuple[list[str], list[str]]:
    """(shortfalls, lines of counts); raises _Unassessable."""
    counts = _counts(head.report)
    lines = [f"tests: {counts.summary} (report {policy.report})"]
    base_counts: JUnitCounts | None = None
    if policy.compare_base:
        try:
            if base is None:
                raise _Unassessable("the base commit's tests were not run")
            base_counts = _base_counts(base)
        except _Unassessable as exc:
            raise _Unassessable(f"could not compare with the base commit: {exc}", tuple(lines)) from None
        lines.append(f"base: {base_counts.summary}")
    return _shortfalls(policy, counts, base_counts), lines


def _details(first: str, lines: list[str], head: RunOutcome) -> str:
    tail = output_tail(head.output)
    isolation = [f"isolation: {head.isolation}"] if head.isolation else []
    return "\n".join([first, *lines, *isolation, *([tail] if tail else [])])


def judge_run(name: str, policy: TestsPolicy, head: RunOutcome, base: RunOutcome | None = None) -> Judged:
    """The check for one run of the test command named `name`; `base` is the base commit's run."""
    if head.start_error is not None:
        first = f"could not start the test command: {head.start_error}"
        return Judged(CheckResult(name, CheckConclusion.ERROR, _details(first, [], head)))
    if head.timed_out:
        first = (
            f"timed out after {head.limit_seconds:.0f} s (tests.timeout_minutes); its processes were stopped"
        )
        return Judged(CheckResult(name, CheckConclusion.TIMED_OUT, _details(first, [], head)))
    if head.survivor is not None:
        first = f"the run did not end cleanly: {head.survivor}"
        return Judged(CheckResult(name, CheckConclusion.ERROR, _details(first, [], head)))
    status = f"exit status {head.exit_status} after {head.elapsed_seconds:.1f} s"
    if policy.report is None:
        if head.exit_status != 0:
            return Judged(CheckResult(name, CheckConclusion.FAILURE, _details(status, [], head)))
        first = f"{status}; {EXIT_ONLY}"
        return Judged(CheckResult(name, CheckConclusion.SUCCESS, _details(first, [], head)), (EXIT_ONLY,))
    try:
        shortfalls, lines = _evidence(policy, head, base)
    except _Unassessable as exc:
        conclusion = CheckConclusion.FAILURE if head.exit_status != 0 else CheckConclusion.ERROR
        return Judged(CheckResult(name, conclusion, _details(f"{status}; {exc}", list(exc.lines), head)))
    if head.exit_status != 0:
        return Judged(CheckResult(name, CheckConclusion.FAILURE, _details(status, lines, head)))
    if shortfalls:
        first = f"{status}, but " + "; ".join(shortfalls)
        return Judged(CheckResult(name, CheckConclusion.FAILURE, _details(first, lines, head)))
    return Judged(CheckResult(name, CheckConclusion.SUCCESS, _details(status, lines, head)))
