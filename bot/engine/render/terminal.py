"""The receipt as plain text for a terminal."""

from __future__ import annotations

from bot.engine.receipt import ManifestInfo, Receipt
from bot.engine.render.excess_text import headline, notes
from bot.engine.render.merge_text import merge_sentence
from bot.engine.render.policy_text import budgets_line, dry_run_errors
from bot.engine.render.waiver_text import entry_for, how, listed

_MAX_LISTED = 50
_INDENT = " " * 13  # continuation lines line up under the values


def one_line(text: str) -> str:
    """One line, no terminal control characters from a pull request's file names."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _formatting(receipt: Receipt) -> str:
    lines = sum(m.formatting_lines for m in receipt.locality.measures)
    return f" ({lines} formatting-only line(s))" if lines else ""


def _dry_run(m: ManifestInfo) -> list[str]:
    dry = m.dry_run
    if dry is None:
        return []
    if dry.valid and dry.verdict is not None:
        head = (
            "this change edits the policy; judged by the proposed one it would conclude "
            f"{dry.verdict.conclusion.value.upper()}:"
        )
        items = list(dry.verdict.reasons)
    else:
        problem = "too expensive to evaluate" if dry.too_expensive else "invalid"
        head = f"this change edits the policy, and the proposed one is {problem}:"
        shown, more = dry_run_errors(dry)
        items = [*shown, *([f"... and {more} more"] if more else [])]
    return [f"  dry run    {head}", *(f"{_INDENT}- {one_line(item)}" for item in items)]


def _report(receipt: Receipt) -> list[str]:
    report = receipt.report
    if report is None or not (report.unsaid or report.claims):
        return []
    lines = ["  report     the description does not say:"]
    lines += [f"  - [{f.observed.importance.label}] {one_line(f.observed.summary)}" for f in report.unsaid]
    lines += [
        f"  - contradicted: {one_line(c.quote[:120])!r}, but {one_line(c.contradiction)}"
        for c in report.claims
    ]
    return lines


def _waivers(receipt: Receipt) -> list[str]:
    waived, warnings = listed(receipt.waivers)
    lines = ["", *(f"waived: {one_line(w)}" for w in waived)] if waived else []
    return lines + [f"warning: {one_line(w)}" for w in warnings]


def render_terminal(receipt: Receipt) -> str:
    v = receipt.verdict
    c = receipt.change
    lines = [
        f"receipt: {v.conclusion.value.upper()}"
        + (f" (observe mode; enforce mode: {v.enforced.value.upper()})" if v.enforced is not None else ""),
        f"  change     {c.files} file(s), {c.hunks} hunk(s), +{c.added_lines} -{c.removed_lines}, "
        f"{c.logical_lines} logical line(s)",
        *([f"  merged     {one_line(merged)}"] if (merged := merge_sentence(receipt)) else []),
        f"  semantic   {receipt.semantic.value}",
        f"  scope      {'pass' if receipt.scope_pass else 'fail'}",
        f"  locality   {'pass' if receipt.locality_pass else 'fail'}{_formatting(receipt)}",
        f"  budgets    {one_line(budgets_line(receipt.locality.budgets))}",
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
    lines.extend(f"{_INDENT}{one_line(s)}" for s in [headline(x), *notes(x, str)])
    m = receipt.manifest
    origin = {
        "base": "from the base commit",
        "file": "from a file",
        "default": "absent: built-in default policy",
    }
    lines.append(f"  policy     {one_line(m.path)} ({origin[m.source.value]})")
    lines.extend(_dry_run(m))
    lines.extend(f"  - {one_line(r)}" for r in v.reasons)
    lines.extend(_report(receipt))
    found = [*receipt.scope, *receipt.locality_violations]
    if found:
        lines.append("")
    for item in found[:_MAX_LISTED]:
        where = (
            "the change"
            if item.path is None
            else one_line(item.path) + (f":{item.line}" if item.line else "")
        )
        lines.append(f"{where}: {item.rule.value}: {one_line(item.message)}")
        entry = entry_for(item, receipt.waivers)
        if entry is not None:
            from textwrap import indent  # only for a finding a waiver entry is offered for

            lines.append(indent(entry, "    "))
    if len(found) > _MAX_LISTED:
        lines.append(f"... and {len(found) - _MAX_LISTED} more (see --json or --markdown)")
    if found:
        lines.append(how(str))
    lines.extend(_waivers(receipt))
    for check in receipt.checks:
        if check.conclusion.value != "success" and check.details:
            lines.extend(["", f"--- {one_line(check.name)}: {check.conclusion.value} ---", check.details])
    return "\n".join(lines) + "\n"
