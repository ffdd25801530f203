"""The receipt as plain text for a terminal."""

from __future__ import annotations

from bot.engine.receipt import Receipt
from bot.engine.render.excess_text import headline, notes

_MAX_LISTED = 50


def _clean(text: str) -> str:
    """One line, no terminal control characters from a pull request's file names."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _formatting(receipt: Receipt) -> str:
    lines = sum(m.formatting_lines for m in receipt.locality.measures)
    return f" ({lines} formatting-only line(s))" if lines else ""


def _report(receipt: Receipt) -> list[str]:
    report = receipt.report
    if report is None or not (report.unsaid or report.claims):
        return []
    lines = ["  report     the description does not say:"]
    lines += [f"  - [{f.observed.importance.label}] {_clean(f.observed.summary)}" for f in report.unsaid]
    lines += [
        f"  - contradicted: {_clean(c.quote[:120])!r}, but {_clean(c.contradiction)}" for c in report.claims
    ]
    return lines


def render_terminal(receipt: Receipt) -> str:
    v = receipt.verdict
    c = receipt.change
    lines = [
        f"receipt: {v.conclusion.value.upper()}",
        f"  change     {c.files} file(s), {c.hunks} hunk(s), +{c.added_lines} -{c.removed_lines}, "
        f"{c.logical_lines} logical line(s)",
        f"  semantic   {receipt.semantic.value}",
        f"  scope      {'pass' if receipt.scope_pass else 'fail'}",
        f"  locality   {'pass' if receipt.locality_pass else 'fail'}{_formatting(receipt)}",
    ]
    x = receipt.excess
    lines.append(
        "  excess     "
        + (
            "not measured"
            if x.distance is None
            else f"distance {x.distance:.3f}"
            + (f", excess {x.excess:+.3f}" if x.excess is not None else "")
            + (" (alarm)" if x.alarm else "")
        )
    )
    lines.extend(f"             {_clean(s)}" for s in [headline(x), *notes(x, str)])
    m = receipt.manifest
    origin = {
        "base": "from the base commit",
        "file": "from a file",
        "default": "absent: built-in default policy",
    }
    lines.append(f"  policy     {_clean(m.path)} ({origin[m.source.value]})")
    lines.extend(f"  - {_clean(r)}" for r in v.reasons)
    lines.extend(_report(receipt))
    found = [*receipt.scope, *receipt.locality_violations]
    if found:
        lines.append("")
    for item in found[:_MAX_LISTED]:
        where = _clean(item.path) + (f":{item.line}" if item.line else "")
        lines.append(f"{where}: {item.rule.value}: {_clean(item.message)}")
    if len(found) > _MAX_LISTED:
        lines.append(f"... and {len(found) - _MAX_LISTED} more (see --json or --markdown)")
    for check in receipt.checks:
        if check.conclusion.value != "success" and check.details:
            lines.extend(["", f"--- {_clean(check.name)}: {check.conclusion.value} ---", check.details])
    return "\n".join(lines) + "\n"
