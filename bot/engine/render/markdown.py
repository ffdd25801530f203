"""The receipt as Markdown: a check-run summary that fits GitHub's 65,535-character limit."""

from __future__ import annotations

import re
from collections.abc import Sequence
from textwrap import indent

from bot.engine.findings import Violation
from bot.engine.manifest import ManifestSource
from bot.engine.receipt import Conclusion, Receipt
from bot.engine.render.escape import md_code, md_text
from bot.engine.render.excess_text import headline, notes
from bot.engine.render.merge_text import merge_sentence
from bot.engine.render.policy_text import budgets_line, dry_run_errors
from bot.engine.render.waiver_text import entry_for, how, listed
from bot.engine.semantic import SemanticStatus
from bot.engine.waivers import WaiverResult

SUMMARY_LIMIT = 65_535
_URL = re.compile(r"https?://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+")
_MAX_LISTED = 20  # broken call sites, unsaid facts and claims shown in the summary
_ICONS = {
    Conclusion.SUCCESS: "✅", Conclusion.FAILURE: "❌", Conclusion.NEUTRAL: "⚠️",
    Conclusion.ACTION_REQUIRED: "⚠️", Conclusion.SKIPPED: "⏭️", Conclusion.PENDING: "⏳",
}  # fmt: skip
_SEMANTIC = {
    SemanticStatus.PASS: "✅ pass", SemanticStatus.FAIL: "❌ fail",
    SemanticStatus.PENDING: "⏳ pending", SemanticStatus.SKIPPED: "⏭️ skipped (tests not run)",
    SemanticStatus.ERROR: "❌ error (could not run)",
}  # fmt: skip


def _excess_line(receipt: Receipt) -> str:
    x = receipt.excess
    if x.distance is None:
        return "not measured"
    text = f"distance {x.distance:.3f}"
    if x.excess is not None:
        text += f", excess {x.excess:+.3f} over the reference"
    return text + (" ⚠️ alarm" if x.alarm else "")


def _table(receipt: Receipt) -> list[str]:
    scope = "✅ pass" if receipt.scope_pass else f"❌ {len(receipt.scope)} violation(s)"
    locality = "✅ pass" if receipt.locality_pass else (f"❌ {len(receipt.locality_violations)} violation(s)")
    return [
        "| field | result | detail |",
        "|---|---|---|",
        f"| semantic | {_SEMANTIC[receipt.semantic]} | "
        + md_text(", ".join(f"{c.name}: {c.conclusion}" for c in receipt.checks) or "—")
        + " |",
        f"| scope | {scope} | {len(receipt.scope)} finding(s) |",
        f"| locality | {locality} | {md_text(budgets_line(receipt.locality.budgets))}; "
        f"{receipt.change.logical_lines} logical line(s) |",
        f"| excess | {md_text(_excess_line(receipt))} | not a gate unless the policy says so |",
        *_merge_lines(receipt),
    ]


def _merge_lines(receipt: Receipt) -> list[str]:
    sentence = merge_sentence(receipt)
    return [] if sentence is None else ["", md_text(sentence[:1].upper() + sentence[1:]) + "."]


def _reported_lines(receipt: Receipt) -> list[str]:
    by = receipt.reported_by
    if by is None:
        return []
    safe_url = by.url is not None and _URL.fullmatch(by.url) is not None
    where = f"[{md_text(by.source)}]({by.url})" if safe_url else md_text(by.source)
    return [
        "",
        f"> **semantic** is as reported by {where}: the pull request's own code produced it. "
        "Scope, locality and excess were recomputed from GitHub by this run.",
    ]


def _references_lines(receipt: Receipt) -> list[str]:
    refs = receipt.references
    if refs is None or not refs.findings:
        return []
    lines = ["", "### Broken call sites"]
    lines += [f"- {md_code(f.path)} line {f.line}: {md_text(f.message)}" for f in refs.findings[:_MAX_LISTED]]
    rest = len(refs.findings) - _MAX_LISTED + refs.left_out
    if rest > 0:
        lines.append(f"- … and {rest} more (the annotations and the receipt JSON list them)")
    return lines


def _report_lines(receipt: Receipt) -> list[str]:
    report = receipt.report
    if report is None or not (report.unsaid or report.claims):
        return []
    heading = "What the description does not say" if report.description is not None else "No description"
    lines = ["", f"### {heading}"]
    for fact in report.unsaid[:_MAX_LISTED]:
        required = " (required by `report.require`)" if fact in report.missing_required else ""
        lines.append(f"- **{fact.observed.importance.label}** {md_text(fact.observed.summary)}{required}")
    lines += [
        f"- **contradicted**: “{md_text(c.quote[:120])}”, but {md_text(c.contradiction)}"
        for c in report.claims[:_MAX_LISTED]
    ]
    return lines


def _excess_lines(receipt: Receipt) -> list[str]:
    x = receipt.excess
    return ["", "### Excess", " ".join([headline(x), *notes(x, md_code)])]


def _violation_item(v: Violation, waivers: WaiverResult) -> str:
    where = "the change" if v.path is None else md_code(v.path) + (f" line {v.line}" if v.line else "")
    item = f"- **{v.rule.value}** {where}: {md_text(v.message)}"
    entry = entry_for(v, waivers)  # its text is receipt's own (a hex id, a date): safe in a fence
    return item if entry is None else item + "\n  ```yaml\n" + indent(entry, "  ") + "\n  ```"


def _waiver_lines(receipt: Receipt) -> list[str]:
    waived, warnings = listed(receipt.waivers)
    lines = ["", "### Waived findings", *(f"- {md_text(w)}" for w in waived)] if waived else []
    if warnings:
        lines += ["", "### Waiver warnings", *(f"- ⚠️ {md_text(w)}" for w in warnings)]
    return lines


def _changer(receipt: Receipt) -> str:
    """What the receipt judges, as its reader knows it (a merge queue's group has no number)."""
    return "This pull request" if receipt.subject.pr is not None else "This change"


def _policy_lines(receipt: Receipt, base_ref: str | None) -> list[str]:
    m = receipt.manifest
    at = f"{base_ref}:" if base_ref else ""
    origin = {
        ManifestSource.BASE: f"from the base commit, {md_code(f'{at}{m.path}@{receipt.subject.base[:12]}')}",
        ManifestSource.FILE: "from a file given on the command line",
        ManifestSource.DEFAULT: "none found: the built-in default policy applies",
    }[m.source]
    lines = ["", "### Policy", f"{md_code(m.path)} {origin} ({md_code(m.digest)})."]
    dry = m.dry_run
    if dry is not None:
        lines.append("")
        lines.append(
            f"{_changer(receipt)} edits the policy. It is judged by the base branch's "
            "policy; **dry run** of the proposed policy:"
        )
        if dry.valid and dry.verdict is not None:
            lines.append(f"- would conclude **{dry.verdict.conclusion.value}**")
            lines.extend(f"- {md_text(r)}" for r in dry.verdict.reasons)
        else:
            lines.append(
                "- the proposed policy is too expensive to evaluate:"
                if dry.too_expensive
                else "- the proposed policy is invalid:"
            )
            shown, more = dry_run_errors(dry)
            lines.extend(f"  - {md_code(e)}" for e in shown)
            if more:
                lines.append(f"  - … and {more} more")
    return lines


def render_markdown(receipt: Receipt, *, limit: int = SUMMARY_LIMIT, base_ref: str | None = None) -> str:
    """The check-run summary. Violation lists are cut, with a count, to stay under `limit`.
    `base_ref`: the base branch, where the caller knows it, named beside the policy's commit."""
    v = receipt.verdict
    head = [
        f"## {_ICONS[v.conclusion]} receipt: {v.conclusion.value}"
        + (f" (observe mode; enforce mode: {v.enforced.value})" if v.enforced is not None else ""),
        "",
        *(f"- {md_text(r)}" for r in v.reasons),
        "",
        *_table(receipt),
        *_reported_lines(receipt),
        *_references_lines(receipt),
        *_report_lines(receipt),
        *_excess_lines(receipt),
        *_waiver_lines(receipt),
    ]
    tail = [
        *_policy_lines(receipt, base_ref),
        "",
        f"<sub>{md_text(receipt.subject.merge_base[:12])}..{md_text(receipt.subject.head[:12])} · "
        f"receipt/1 · {md_code(receipt.as_json()['digest'])}</sub>",
    ]
    sections: list[tuple[str, Sequence[Violation]]] = [
        ("Scope violations", receipt.scope),
        ("Locality violations", receipt.locality_violations),
    ]
    fixed = "\n".join(head + tail)
    budget = limit - len(fixed) - 400
    body: list[str] = []
    cut = 0
    for title, items in sections:
        if cut:
            cut += len(items)
            continue
        if not items:
            continue
        body.extend(["", f"### {title}", "", how(md_code)])
        budget -= len(title) + len(body[-1]) + 8
        for n, item in enumerate(items):
            line = _violation_item(item, receipt.waivers)
            if len(line) + 1 > budget:
                cut += len(items) - n
                break
            body.append(line)
            budget -= len(line) + 1
    if cut:
        body.extend(
            [
                "",
                f"_{cut} more violation(s) not shown to stay within GitHub's "
                f"{limit:,}-character limit; the annotations and the receipt JSON list "
                "them all._",
            ]
        )
    return "\n".join(head + body + tail)
