"""Waivers in words: what was waived, the warnings, and the entry that would waive a finding;
shared by the Markdown summary and the terminal text, which format them for their medium."""

from __future__ import annotations

from collections.abc import Callable

from bot.engine.findings import Violation
from bot.engine.waivers import UNWAIVABLE, Waived, WaiverResult, suggested_entry

MAX_LISTED = 20


def how(code: Callable[[str], str]) -> str:
    """How a maintainer waives a finding; `code` formats a key for the medium."""
    return (
        f"To accept a finding until a date, a maintainer adds the entry printed under it to "
        f"{code('waivers:')} in the base branch's manifest, with the reason."
    )


def waived_text(item: Waived) -> str:
    w, f = item.waiver, item.finding
    where = "the change" if f.path is None else f.path + (f":{f.line}" if f.line else "")
    return f"{f.rule.value} at {where} waived by {w.label} until {w.expires.iso()}: {w.reason}"


def listed(result: WaiverResult) -> tuple[list[str], list[str]]:
    """The waived findings and the warnings a summary lists, each with a count of the rest."""
    waived = [waived_text(w) for w in result.waived[:MAX_LISTED]]
    if len(result.waived) > MAX_LISTED:
        waived.append(f"… and {len(result.waived) - MAX_LISTED} more (the receipt JSON lists them)")
    warnings = list(result.warnings[:MAX_LISTED])
    if len(result.warnings) > MAX_LISTED:
        warnings.append(f"… and {len(result.warnings) - MAX_LISTED} more (the receipt JSON lists them)")
    return waived, warnings


def entry_for(finding: Violation, result: WaiverResult) -> str | None:
    """The YAML entry that would waive `finding` (None for a finding no waiver can accept)."""
    return None if finding.rule in UNWAIVABLE else suggested_entry(finding, result.today)
