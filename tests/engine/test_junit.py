"""JUnit XML reports to counts, as runners write them, and as a hostile test command might."""

from __future__ import annotations

import pytest

from bot.engine.junit import MAX_DEPTH, JUnitError, parse_junit

PYTEST = b"""<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4">
<testcase classname="tests.test_a" name="test_ok" time="0.001" />
<testcase classname="tests.test_a" name="test_bad" time="0.001"><failure message="assert 1 == 2">E  assert</failure></testcase>
<testcase classname="tests.test_a" name="test_later" time="0.000"><skipped type="pytest.skip" message="later">skip</skipped></testcase>
<testcase classname="tests.test_a" name="test_broken" time="0.000"><error message="fixture">E</error><system-out>x</system-out></testcase>
</testsuite></testsuites>"""


def test_counts_come_from_the_test_cases() -> None:
    counts = parse_junit(PYTEST, "junit.xml")
    assert (counts.executed, counts.skipped, counts.failed, counts.errors) == (3, 1, 1, 1)
    assert counts.ran == {"tests.test_a::test_ok", "tests.test_a::test_bad", "tests.test_a::test_broken"}
    assert counts.skipped_ids == {"tests.test_a::test_later"}
    assert counts.summary == "3 executed, 1 skipped, 1 failed, 1 errors"


def test_a_suite_claiming_tests_it_does_not_list_counts_none() -> None:
    counts = parse_junit(b'<testsuite tests="500" failures="0"></testsuite>', "r.xml")
    assert (counts.executed, counts.skipped) == (0, 0)


def test_jest_and_go_style_reports_and_nesting() -> None:
    jest = (
        b'<testsuites tests="2"><testsuite name="sum"><testsuite name="inner">'
        b'<testcase classname="sum adds" name="sum adds" time="0.002"></testcase>'
        b'<testcase name="no class"><skipped/></testcase></testsuite></testsuite></testsuites>'
    )
    counts = parse_junit(jest, "jest.xml")
    assert (counts.executed, counts.skipped) == (1, 1) and counts.skipped_ids == {"::no class"}


def test_the_most_severe_outcome_of_a_case_counts_once() -> None:
    data = b"<testsuite><testcase name='t'><skipped/><failure/><error/><failure/></testcase></testsuite>"
    counts = parse_junit(data, "r.xml")
    assert (counts.executed, counts.skipped, counts.failed, counts.errors) == (1, 0, 0, 1)


def test_outcome_elements_deeper_than_the_case_do_not_count() -> None:
    data = b"<testsuite><testcase name='t'><properties><failure/></properties></testcase></testsuite>"
    assert parse_junit(data, "r.xml").failed == 0
    nested = b"<testsuite><testcase name='a'><testcase name='b'><failure/></testcase></testcase></testsuite>"
    counts = parse_junit(nested, "r.xml")
    assert (counts.executed, counts.failed) == (1, 0)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
            b"<testsuite><testcase name='&lol2;'/></testsuite>",
            "r.xml: refused at line 1: a DOCTYPE (a test report needs no DTD or entities)",
        ),
        (
            b'<!DOCTYPE r SYSTEM "file:///etc/passwd"><testsuite/>',
            "r.xml: refused at line 1: a DOCTYPE",
        ),
        (
            b"<testsuite><testcase name='&undefined;'/></testsuite>",
            "r.xml: not well-formed XML: undefined entity",
        ),
        (b"", "r.xml: not well-formed XML: no element found"),
        (b"<testsuite><testcase>", "r.xml: not well-formed XML: no element found"),
        (b"\xff\xfe garbage", "r.xml: not well-formed XML"),
        (b"<html><body>ok</body></html>", "r.xml: not a JUnit report (its root element is not testsuites"),
        (b"<a>" * (MAX_DEPTH + 1), f"r.xml: refused at line 1: elements nested deeper than {MAX_DEPTH}"),
    ],
)
def test_hostile_or_broken_reports_are_clear_errors(data: bytes, problem: str) -> None:
    with pytest.raises(JUnitError) as caught:
        parse_junit(data, "r.xml")
    assert caught.value.problem.startswith(problem)
    assert caught.value.title == "unreadable test report"


def test_entity_declarations_alone_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a DOCTYPE ever let through, its entities and external references still would not be."""
    import bot.engine.junit as junit

    create = junit.expat.ParserCreate

    class Permissive:
        def __init__(self) -> None:
            object.__setattr__(self, "parser", create())

        def __getattr__(self, name: str) -> object:
            return getattr(self.parser, name)

        def __setattr__(self, name: str, value: object) -> None:
            if name != "StartDoctypeDeclHandler":
                setattr(self.parser, name, value)

    monkeypatch.setattr(junit.expat, "ParserCreate", Permissive)
    with pytest.raises(JUnitError, match="refused at line 1: an entity declaration"):
        parse_junit(
            b'<!DOCTYPE t [<!ENTITY a SYSTEM "file:///etc/passwd">]><testsuite>&a;</testsuite>', "r.xml"
        )


def test_size_and_count_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.engine.junit as junit

    monkeypatch.setattr(junit, "MAX_REPORT_BYTES", 1 << 20)
    with pytest.raises(JUnitError, match="larger than 1 MiB"):
        parse_junit(b"<testsuite>" + b" " * (1 << 20) + b"</testsuite>", "r.xml")
    monkeypatch.setattr(junit, "MAX_TESTCASES", 2)
    with pytest.raises(JUnitError, match="more than 2 test cases"):
        parse_junit(b"<testsuite>" + b"<testcase name='x'/>" * 3 + b"</testsuite>", "r.xml")
