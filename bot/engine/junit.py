"""A JUnit XML report, bytes to counts, read defensively: the test command that wrote it is the code
under review.

Every runner's JUnit writer (pytest --junitxml, jest-junit, gotestsum --junitfile, cargo nextest,
Maven Surefire) emits `<testcase>` elements, each with at most a `<failure>`, `<error>` or
`<skipped>` child; the counts come from those elements, never from a suite's `tests=`/`failures=`
attributes, which a writer can set to anything. The parser is expat with every declaration
refused: a DOCTYPE (and with it any entity, internal or external, so no billion laughs and no file
read) is an error, as are input past `MAX_REPORT_BYTES`, nesting past `MAX_DEPTH` and more than
`MAX_TESTCASES` test cases. It streams: no tree is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn
from xml.parsers import expat

from bot.engine.errors import ReceiptError

MAX_REPORT_BYTES = 64 << 20
MAX_DEPTH = 64
MAX_TESTCASES = 1_000_000
_OUTCOMES = ("error", "failure", "skipped")  # most severe first: a case holding both is an error


class JUnitError(ReceiptError):
    """The report cannot be read as JUnit XML; `problem` says why and where."""

    title = "unreadable test report"


@dataclass(frozen=True, slots=True)
class JUnitCounts:
    """What a report says ran. `executed` counts every case that was not skipped (passed, failed
    or errored); `ran` and `skipped_ids` name cases as `classname::name`, for comparing two runs."""

    executed: int
    skipped: int
    failed: int
    errors: int
    ran: frozenset[str]
    skipped_ids: frozenset[str]

    @property
    def summary(self) -> str:
        return f"{self.executed} executed, {self.skipped} skipped, {self.failed} failed, {self.errors} errors"


class _Refused(Exception):
    """Raised from an expat handler: stops the parse at once."""


class _Counter:
    def __init__(self) -> None:
        self.depth = 0
        self.case_depth: int | None = None  # the depth of the open <testcase>, if any
        self.case_id = ""
        self.outcome: str | None = None
        self.cases = 0
        self.tally = dict.fromkeys(_OUTCOMES, 0)
        self.ran: set[str] = set()
        self.skipped_ids: set[str] = set()
        self.saw_root = False
        self.root_ok = False

    def start(self, name: str, attributes: dict[str, str]) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(f"elements nested deeper than {MAX_DEPTH}")
        if not self.saw_root:
            self.saw_root = True
            self.root_ok = name in ("testsuites", "testsuite")
        if name == "testcase" and self.case_depth is None:
            self.cases += 1
            if self.cases > MAX_TESTCASES:
                raise _Refused(f"more than {MAX_TESTCASES} test cases")
            self.case_depth = self.depth
            self.case_id = f"{attributes.get('classname', '')}::{attributes.get('name', '')}"
            self.outcome = None
        elif self.case_depth is not None and self.depth == self.case_depth + 1 and name in _OUTCOMES:
            self.outcome = min(name, self.outcome or name, key=_OUTCOMES.index)

    def end(self, name: str) -> None:
        del name
        if self.depth == self.case_depth:
            if self.outcome is not None:
                self.tally[self.outcome] += 1
            if self.outcome == "skipped":
                self.skipped_ids.add(self.case_id)
            else:
                self.ran.add(self.case_id)
            self.case_depth = None
        self.depth -= 1


def _refuse(what: str) -> NoReturn:
    raise _Refused(what)


def parse_junit(data: bytes, source: str) -> JUnitCounts:
    """Counts of the JUnit XML report `data` (named `source` in errors); JUnitError if unreadable."""
    if len(data) > MAX_REPORT_BYTES:
        raise JUnitError(f"{source}: larger than {MAX_REPORT_BYTES >> 20} MiB")
    counter = _Counter()
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = lambda *_: _refuse("a DOCTYPE (a test report needs no DTD or entities)")
    parser.EntityDeclHandler = lambda *_: _refuse("an entity declaration")
    parser.ExternalEntityRefHandler = lambda *_: _refuse("an external entity")
    parser.StartElementHandler = counter.start
    parser.EndElementHandler = counter.end
    try:
        parser.Parse(data, True)
    except _Refused as exc:
        raise JUnitError(f"{source}: refused at line {parser.CurrentLineNumber}: {exc}") from None
    except expat.ExpatError as exc:
        raise JUnitError(f"{source}: not well-formed XML: {exc}") from None
    if not counter.root_ok:
        raise JUnitError(f"{source}: not a JUnit report (its root element is not testsuites or testsuite)")
    tally = counter.tally
    return JUnitCounts(
        executed=counter.cases - tally["skipped"],
        skipped=tally["skipped"],
        failed=tally["failure"],
        errors=tally["error"],
        ran=frozenset(counter.ran),
        skipped_ids=frozenset(counter.skipped_ids),
    )
