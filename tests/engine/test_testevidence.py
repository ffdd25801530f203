"""The evidence rule: what a run of the test command proves, state by state."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.engine.manifest import TestsPolicy
from bot.engine.semantic import CheckConclusion
from bot.engine.testevidence import EXIT_ONLY, ReportFile, ReportState, RunOutcome, judge_run


def _report(*cases: tuple[str, str], path: str = "r.xml") -> ReportFile:
    body = "".join(
        f'<testcase classname="{c.split("::")[0]}" name="{c.split("::")[1]}">{outcome}</testcase>'
        for c, outcome in cases
    )
    return ReportFile(path, ReportState.WRITTEN, f"<testsuite>{body}</testsuite>".encode())


GREEN = _report(("a::ok", ""), ("a::two", ""), ("a::three", ""))
POLICY = TestsPolicy(report="r.xml")
OK = RunOutcome(
    exit_status=0, elapsed_seconds=1.25, isolation="own PID namespace", output=b"3 passed\n", report=GREEN
)


def _judge(
    policy: TestsPolicy = POLICY, head: RunOutcome = OK, base: RunOutcome | None = None
) -> tuple[CheckConclusion, list[str]]:
    judged = judge_run("pytest", policy, head, base)
    return judged.check.conclusion, judged.check.details.splitlines()


def test_a_green_run_with_its_report() -> None:
    assert _judge() == (
        CheckConclusion.SUCCESS,
        [
            "exit status 0 after 1.2 s",
            "tests: 3 executed, 0 skipped, 0 failed, 0 errors (report r.xml)",
            "isolation: own PID namespace",
            "3 passed",
        ],
    )
    assert judge_run("pytest", POLICY, OK).notes == ()


def test_without_a_report_the_exit_status_is_the_only_evidence() -> None:
    judged = judge_run("pytest", TestsPolicy(), replace(OK, report=None, isolation="", output=b""))
    assert judged.check.conclusion is CheckConclusion.SUCCESS and judged.notes == (EXIT_ONLY,)
    assert judged.check.details == f"exit status 0 after 1.2 s; {EXIT_ONLY}"
    failed = judge_run("pytest", TestsPolicy(), replace(OK, exit_status=2, report=None))
    assert failed.check.conclusion is CheckConclusion.FAILURE and failed.notes == ()


def test_could_not_start_timed_out_and_survivors() -> None:
    assert _judge(head=RunOutcome(start_error="[Errno 2] No such file"))[1][0] == (
        "could not start the test command: [Errno 2] No such file"
    )
    assert _judge(head=RunOutcome(start_error="x"))[0] is CheckConclusion.ERROR
    conclusion, lines = _judge(head=RunOutcome(timed_out=True, limit_seconds=60, output=b"slow"))
    assert conclusion is CheckConclusion.TIMED_OUT
    assert lines == ["timed out after 60 s (tests.timeout_minutes); its processes were stopped", "slow"]
    conclusion, lines = _judge(head=replace(OK, survivor="a process still held the output open"))
    assert conclusion is CheckConclusion.ERROR
    assert lines[0] == "the run did not end cleanly: a process still held the output open"


@pytest.mark.parametrize(
    ("report", "problem"),
    [
        (None, "no report"),
        (ReportFile("r.xml", ReportState.MISSING), "the report r.xml was not written (did the command exit"),
        (ReportFile("r.xml", ReportState.COMMITTED), "the report r.xml is in the commit"),
        (ReportFile("r.xml", ReportState.STALE), "the report r.xml is older than the run"),
        (
            ReportFile("r.xml", ReportState.UNREADABLE, problem="Permission denied"),
            "the report r.xml could not be read: Permission denied",
        ),
        (ReportFile("r.xml", ReportState.WRITTEN, b"<nope"), "r.xml: not well-formed XML"),
    ],
)
def test_evidence_that_cannot_be_read_is_an_error(report: ReportFile | None, problem: str) -> None:
    conclusion, lines = _judge(head=replace(OK, report=report))
    assert conclusion is CheckConclusion.ERROR
    assert lines[0].startswith(f"exit status 0 after 1.2 s; {problem}")


def test_a_failing_exit_stays_a_failure_whatever_the_report() -> None:
    assert _judge(head=replace(OK, exit_status=1, report=ReportFile("r.xml", ReportState.MISSING)))[0] is (
        CheckConclusion.FAILURE
    )
    conclusion, lines = _judge(head=replace(OK, exit_status=1))
    assert conclusion is CheckConclusion.FAILURE and lines[:2] == [
        "exit status 1 after 1.2 s",
        "tests: 3 executed, 0 skipped, 0 failed, 0 errors (report r.xml)",
    ]


def test_a_green_exit_contradicted_by_the_report_fails() -> None:
    failing = _report(("a::ok", ""), ("a::bad", "<failure/>"), ("a::err", "<error/>"))
    conclusion, lines = _judge(head=replace(OK, report=failing))
    assert conclusion is CheckConclusion.FAILURE
    assert lines[0] == "exit status 0 after 1.2 s, but the report counts 1 failed and 1 errors"
    empty = _report()
    assert _judge(head=replace(OK, report=empty))[1][0].endswith("but the report counts no executed test")
    few = TestsPolicy(report="r.xml", min_executed=5)
    assert _judge(policy=few)[1][0].endswith("but 3 executed tests, fewer than tests.min_executed (5)")


def test_compare_base_counts_and_newly_skipped_tests() -> None:
    policy = TestsPolicy(report="r.xml", compare_base=True)
    base = replace(
        OK, report=_report(("a::ok", ""), ("a::two", ""), ("a::three", ""), ("a::four", "<failure/>"))
    )
    skipping = _report(("a::ok", ""), ("a::two", "<skipped/>"), ("a::three", "<skipped/>"), ("a::new", ""))
    conclusion, lines = _judge(policy, replace(OK, report=skipping), base)
    assert conclusion is CheckConclusion.FAILURE
    assert lines[0] == (
        "exit status 0 after 1.2 s, but 2 executed tests, the base commit's run executed 4; "
        "skipped now, ran on the base: a::three, a::two"
    )
    assert lines[2] == "base: 4 executed, 0 skipped, 1 failed, 0 errors"
    assert _judge(policy, OK, replace(base, report=GREEN))[0] is CheckConclusion.SUCCESS


def test_many_newly_skipped_tests_are_listed_with_a_count() -> None:
    names = [f"a::t{i:02}" for i in range(15)]
    policy = TestsPolicy(report="r.xml", compare_base=True)
    base = replace(OK, report=_report(*((n, "") for n in names)))
    head = replace(
        OK, report=_report(*((n, "<skipped/>") for n in names[:12]), *((n, "") for n in names[12:]))
    )
    line = _judge(policy, head, base)[1][0]
    assert line.endswith("a::t09 and 2 more")


@pytest.mark.parametrize(
    ("base", "problem"),
    [
        (None, "the base commit's tests were not run"),
        (
            RunOutcome(start_error="boom"),
            "could not compare with the base commit: the base run could not start: boom",
        ),
        (
            RunOutcome(timed_out=True, limit_seconds=30),
            "could not compare with the base commit: the base run timed out after 30 s",
        ),
        (
            RunOutcome(exit_status=0, survivor="held"),
            "could not compare with the base commit: the base run did not end cleanly: held",
        ),
        (
            RunOutcome(exit_status=1, report=ReportFile("r.xml", ReportState.MISSING)),
            "could not compare with the base commit: the report r.xml was not written",
        ),
    ],
)
def test_a_base_run_that_cannot_be_compared_is_an_error(base: RunOutcome | None, problem: str) -> None:
    conclusion, lines = _judge(TestsPolicy(report="r.xml", compare_base=True), OK, base)
    assert conclusion is CheckConclusion.ERROR and problem in lines[0]
    assert lines[1] == "tests: 3 executed, 0 skipped, 0 failed, 0 errors (report r.xml)", (
        "the head's counts stay"
    )


def test_a_failing_head_keeps_its_counts_beside_the_base() -> None:
    policy = TestsPolicy(report="r.xml", compare_base=True)
    failing = replace(OK, exit_status=1, report=_report(("a::ok", "<failure/>"), ("a::two", "")))
    conclusion, lines = _judge(policy, failing, OK)
    assert conclusion is CheckConclusion.FAILURE
    assert lines[:3] == [
        "exit status 1 after 1.2 s",
        "tests: 2 executed, 0 skipped, 1 failed, 0 errors (report r.xml)",
        "base: 3 executed, 0 skipped, 0 failed, 0 errors",
    ]
    conclusion, lines = _judge(policy, failing, None)
    assert conclusion is CheckConclusion.FAILURE
    assert lines[:2] == [
        "exit status 1 after 1.2 s; could not compare with the base commit: the base commit's tests were not run",
        "tests: 2 executed, 0 skipped, 1 failed, 0 errors (report r.xml)",
    ]
