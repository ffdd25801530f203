"""Waivers: the manifest's `waivers` accept specific findings, by waiver_id, until a date.

The date is an input (the engine reads no clock). Nothing is silently ignored: a waiver past its
date no longer waives, and the finding it named says so; one that matches nothing is a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.engine.days import Day
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import Waiver

SUGGESTED_DAYS = 30  # how long a waiver the summary suggests lasts
# The manifest is changed by review, never waived: a waiver would let any pull request rewrite it.
UNWAIVABLE = frozenset({RuleId.MANIFEST_CHANGE})


@dataclass(frozen=True, slots=True)
class Waived:
    finding: Violation
    waiver: Waiver

    def as_json(self) -> dict[str, object]:
        return {
            "waiver": self.waiver.label,
            "reason": self.waiver.reason,
            "expires": self.waiver.expires.iso(),
            "finding": self.finding.as_json(),
        }


@dataclass(frozen=True, slots=True)
class WaiverResult:
    """`kept`: the findings that still count, group by group as given (an expired waiver's finding
    says so); `today`: the date they were judged on (None: not given, and then no waiver applies)."""

    today: Day | None
    kept: tuple[tuple[Violation, ...], ...] = ()
    waived: tuple[Waived, ...] = ()
    warnings: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {
            "as_of": self.today.iso() if self.today is not None else None,
            "waived": [w.as_json() for w in self.waived],
            "warnings": list(self.warnings),
        }


def _expired(waiver: Waiver, today: Day) -> bool:
    return waiver.expires < today


def _expired_note(waiver: Waiver) -> str:
    return (
        f" The waiver {waiver.label} ({waiver.id}) expired on {waiver.expires.iso()}, so it no "
        "longer waives this finding: fix the finding, or renew the waiver with a later expires."
    )


def apply_waivers(
    groups: Sequence[Sequence[Violation]], waivers: Sequence[Waiver], today: Day | None
) -> WaiverResult:
    """Every finding a live waiver names is waived; each waiver that waives nothing is a warning."""
    if today is None:
        warning = "no date was given to judge waivers by, so none applies"
        return WaiverResult(today, tuple(map(tuple, groups)), warnings=(warning,) if waivers else ())
    by_id = {w.id: w for w in waivers}
    kept: list[tuple[Violation, ...]] = []
    waived: list[Waived] = []
    matched: set[str] = set()
    refused: set[str] = set()
    for group in groups:
        still: list[Violation] = []
        for finding in group:
            waiver = by_id.get(finding.waiver_id)
            if waiver is None:
                still.append(finding)
            elif finding.rule in UNWAIVABLE:
                refused.add(waiver.id)
                still.append(finding)
            elif _expired(waiver, today):
                matched.add(waiver.id)
                still.append(replace(finding, message=finding.message + _expired_note(waiver)))
            else:
                matched.add(waiver.id)
                waived.append(Waived(finding, waiver))
        kept.append(tuple(still))
    return WaiverResult(today, tuple(kept), tuple(waived), _warnings(waivers, today, matched, refused))


def _warnings(waivers: Sequence[Waiver], today: Day, matched: set[str], refused: set[str]) -> tuple[str, ...]:
    out: list[str] = []
    for waiver in waivers:
        name = f"{waiver.label} ({waiver.id})"
        if waiver.id in refused:
            out.append(f"{name} names a {RuleId.MANIFEST_CHANGE.value} finding, which cannot be waived")
        elif _expired(waiver, today):
            found = "" if waiver.id in matched else "; it matches no finding of this change"
            out.append(f"{name} expired on {waiver.expires.iso()}{found}")
        elif waiver.id not in matched:
            out.append(f"{name} matches no finding of this change")
    return tuple(out)


def suggested_entry(finding: Violation, today: Day | None) -> str:
    """The YAML a maintainer adds under `waivers:` to accept `finding` (a reason to write)."""
    expires = today.plus(SUGGESTED_DAYS).iso() if today is not None else "YYYY-MM-DD"
    return (
        f'- id: {finding.waiver_id}\n  reason: "TODO: why this finding is acceptable"\n  expires: {expires}'
    )


def waived_note(result: WaiverResult) -> str | None:
    """The verdict's reason naming what was waived, and by which entries."""
    if not result.waived:
        return None
    labels = ", ".join(dict.fromkeys(w.waiver.label for w in result.waived))
    count = len(result.waived)
    return f"waived: {count} finding{'' if count == 1 else 's'} ({labels})"
