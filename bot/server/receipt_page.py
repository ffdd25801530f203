"""The receipt as a page a reviewer reads: the four fields, the verdict and its reasons, findings
grouped by file with links to their lines on GitHub, budgets against their limits, the policy.

It renders the stored receipt JSON (`receipt/1`), every value escaped: paths, messages and check
details come from the pull request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

_MARK = {"pass": "✅", "fail": "❌", "pending": "⏳", "skipped": "➖", "error": "⚠️"}
_CONCLUSION_CLASS = {"success": "ok", "neutral": "warn", "skipped": "muted", "pending": "warn"}
STYLE = """
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#f6f8fa;color:#1f2328}
main{max-width:960px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px}
.sub{color:#59636e;margin:0 0 16px} code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace}
.verdict{padding:12px 16px;border-radius:6px;border:1px solid #d1d9e0;background:#fff}
.verdict.bad{border-color:#cf222e;background:#ffebe9} .verdict.ok{border-color:#1a7f37;background:#dafbe1}
.verdict.warn{border-color:#9a6700;background:#fff8c5} .verdict.muted{background:#f6f8fa}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d1d9e0;border-radius:6px}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #d1d9e0;vertical-align:top}
th{background:#f6f8fa;font-weight:600} tr:last-child td{border-bottom:0}
.file{margin:12px 0;background:#fff;border:1px solid #d1d9e0;border-radius:6px}
.file h3{font-size:14px;margin:0;padding:8px 12px;background:#f6f8fa;border-bottom:1px solid #d1d9e0}
.file ul{margin:0;padding:8px 12px 8px 32px} .rule{font-weight:600}
pre{white-space:pre-wrap;background:#fff;border:1px solid #d1d9e0;padding:8px;border-radius:6px;
max-height:320px;overflow:auto}
footer{margin-top:32px;color:#59636e;font-size:13px}
"""


def _get(body: Any, *keys: str) -> Any:
    for key in keys:
        body = body.get(key) if isinstance(body, Mapping) else None
    return body


def _text(value: Any) -> str:
    return escape("" if value is None else str(value))


def _line_link(web_url: str | None, repo: Any, head: Any, path: str, line: Any) -> str | None:
    if not web_url or not isinstance(repo, str) or not isinstance(head, str):
        return None
    anchor = f"#L{line}" if isinstance(line, int) and line > 0 else ""
    return f"{web_url}/{quote(repo)}/blob/{quote(head)}/{quote(path)}{anchor}"


def _fields(body: Mapping[str, Any]) -> str:
    semantic = _get(body, "semantic", "status") or "skipped"
    scope = "pass" if _get(body, "scope", "pass") else "fail"
    locality = "pass" if _get(body, "locality", "pass") else "fail"
    excess = _get(body, "excess") or {}
    distance = excess.get("distance")
    value = f"{distance:.1%} of tokens changed" if isinstance(distance, int | float) else "not measured"
    if isinstance(excess.get("excess"), int | float):
        value += f"; {excess['excess']:+.1%} beyond the reference"
    excess_mark = "⚠️ alarm" if excess.get("alarm") else "ℹ️"
    rows = [
        ("semantic", f"{_MARK.get(semantic, '')} {semantic}", "do the configured tests pass?"),
        ("scope", f"{_MARK[scope]} {scope}", f"{len(_get(body, 'scope', 'violations') or [])} finding(s)"),
        (
            "locality",
            f"{_MARK[locality]} {locality}",
            f"{len(_get(body, 'locality', 'violations') or [])} finding(s)",
        ),
        (
            "excess",
            f"{excess_mark} {_text(value)}",
            "a signal for review, not a gate unless the manifest says so",
        ),
    ]
    cells = "".join(f"<tr><th>{n}</th><td>{v}</td><td>{_text(note)}</td></tr>" for n, v, note in rows)
    return f"<table id=fields><tr><th>field</th><th>result</th><th></th></tr>{cells}</table>"


def _findings(body: Mapping[str, Any], web_url: str | None) -> str:
    found = [*(_get(body, "scope", "violations") or []), *(_get(body, "locality", "violations") or [])]
    if not found:
        return "<p>No findings.</p>"
    repo, head = _get(body, "subject", "repo"), _get(body, "subject", "head")
    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for v in found:
        if isinstance(v, Mapping):
            by_file.setdefault(str(v.get("path") or "the change as a whole"), []).append(v)
    parts = []
    for path in sorted(by_file):
        items = []
        for v in sorted(by_file[path], key=lambda v: (v.get("line") or 0, str(v.get("rule")))):
            line = v.get("line")
            link = _line_link(web_url, repo, head, path, line) if v.get("path") else None
            where = f"line {line}" if isinstance(line, int) else "whole file"
            where_html = f'<a href="{_text(link)}" rel="noreferrer">{where}</a>' if link else where
            rule, message = _text(v.get("rule")), _text(v.get("message"))
            items.append(f"<li><span class=rule>{rule}</span> · {where_html}: {message}</li>")
        parts.append(
            f"<section class=file><h3><code>{_text(path)}</code></h3><ul>{''.join(items)}</ul></section>"
        )
    return "".join(parts)


def _budgets(body: Mapping[str, Any]) -> str:
    budgets = _get(body, "locality", "budgets") or []
    change = _get(body, "change") or {}
    summary = (
        f"{_text(change.get('files'))} file(s), {_text(change.get('hunks'))} hunk(s), "
        f"+{_text(change.get('added_lines'))}/−{_text(change.get('removed_lines'))} lines, "
        f"{_text(change.get('logical_lines'))} logical line(s)"
    )
    if not budgets:
        return f"<p>{summary}. No budgets are set.</p>"
    rows = "".join(
        f"<tr><td>{_text(b.get('name'))}</td><td>{_text(b.get('used'))}</td><td>{_text(b.get('limit'))}</td>"
        f"<td>{'❌ over' if (b.get('used') or 0) > (b.get('limit') or 0) else '✅ within'}</td></tr>"
        for b in budgets
        if isinstance(b, Mapping)
    )
    head = "<tr><th>budget</th><th>used</th><th>limit</th><th></th></tr>"
    return f"<p>{summary}.</p><table id=budgets>{head}{rows}</table>"


def _checks(body: Mapping[str, Any]) -> str:
    checks = _get(body, "semantic", "checks") or []
    if not checks:
        return "<p>No test check is configured (<code>tests.checks</code>), so semantic is skipped.</p>"
    parts = []
    for c in checks:
        if isinstance(c, Mapping):
            details = f"<pre>{_text(c.get('details'))}</pre>" if c.get("details") else ""
            parts.append(f"<p><b>{_text(c.get('name'))}</b>: {_text(c.get('conclusion'))}</p>{details}")
    return "".join(parts)


def _policy(body: Mapping[str, Any]) -> str:
    manifest = _get(body, "manifest") or {}
    lines = [
        f"<tr><th>manifest</th><td><code>{_text(manifest.get('path'))}</code> from "
        f"{_text(manifest.get('source'))} (<code>{_text(manifest.get('digest'))}</code>)</td></tr>",
        f"<tr><th>base</th><td><code>{_text(_get(body, 'subject', 'base'))}</code></td></tr>",
        f"<tr><th>head</th><td><code>{_text(_get(body, 'subject', 'head'))}</code></td></tr>",
        f"<tr><th>receipt digest</th><td><code>{_text(body.get('digest'))}</code></td></tr>",
    ]
    dry = manifest.get("dry_run")
    if manifest.get("changed_in_pr") and isinstance(dry, Mapping):
        if dry.get("valid"):
            verdict = _get(dry, "verdict", "conclusion")
            lines.append(f"<tr><th>proposed manifest</th><td>would conclude {_text(verdict)}</td></tr>")
        else:
            errors = "<br>".join(_text(e) for e in dry.get("errors") or [])
            lines.append(f"<tr><th>proposed manifest</th><td>invalid:<br><code>{errors}</code></td></tr>")
    return f"<table id=policy>{''.join(lines)}</table>"


def _report(body: Mapping[str, Any]) -> str:
    """What the description does not say, most important first, and the claims the receipt
    contradicts (`report` in the receipt JSON)."""
    facts = [
        f for f in _get(body, "report", "facts") or [] if isinstance(f, Mapping) and not f.get("mentioned")
    ]
    claims = [c for c in _get(body, "report", "claims") or [] if isinstance(c, Mapping)]
    if not facts and not claims:
        return "<p>The description mentions every important fact of the change.</p>"
    items = [f"<li><b>{_text(f.get('importance'))}</b> {_text(f.get('summary'))}</li>" for f in facts]
    items += [
        f"<li><b>contradicted</b>: “{_text(c.get('quote'))}”, but {_text(c.get('contradiction'))}</li>"
        for c in claims
    ]
    return f"<ul id=report>{''.join(items)}</ul>"


def _whatif_rows(rows: Sequence[Any]) -> str:
    cells = []
    for r in rows:
        if isinstance(r, Mapping):
            mark = " <b>changed</b>" if r.get("changed") else ""
            why = "<br>".join(_text(w) for w in r.get("why") or []) or "no difference"
            change = f"<code>{_text(str(r.get('commit'))[:12])}</code> {_text(r.get('title'))}"
            cells.append(
                f"<tr><td>{change}</td><td>{_text(r.get('before'))}</td>"
                f"<td>{_text(r.get('after'))}{mark}</td><td>{why}</td></tr>"
            )
    head = "<tr><th>change</th><th>base policy</th><th>proposed policy</th><th>why</th></tr>"
    return f"<table id=whatif>{head}{''.join(cells)}</table>"


def _whatif(body: Mapping[str, Any]) -> str:
    """A manifest-editing pull request's what-if (`whatif`, kept beside the receipt): its recent
    merged changes judged under the base manifest and the proposed one; nothing for others."""
    whatif = body.get("whatif")
    if not isinstance(whatif, Mapping):
        return ""
    title = f"<h2>What-if: this pull request's <code>{_text(whatif.get('path'))}</code></h2>"
    if whatif.get("not_computed") is not None:
        return f"{title}<p id=whatif>what-if not computed: {_text(whatif.get('not_computed'))}</p>"
    which = "merged pull requests into" if whatif.get("over") == "merged-pulls" else "first-parent commits of"
    scope = (
        f"<p>{_text(whatif.get('changed'))} of {_text(whatif.get('compared'))} change(s) would conclude "
        f"differently: the last {which} <code>{_text(whatif.get('ref'))}</code> (up to "
        f"{_text(whatif.get('asked'))}), no tests run; this pull request's verdict is still the base "
        "manifest's.</p>"
    )
    return title + scope + _whatif_rows(whatif.get("rows") or [])


def render_page(body: Mapping[str, Any], *, web_url: str | None) -> str:
    """The whole page, as one string of HTML."""
    verdict = _get(body, "verdict") or {}
    conclusion = str(verdict.get("conclusion") or "unknown")
    reasons: Sequence[Any] = verdict.get("reasons") or []
    repo, pr = _get(body, "subject", "repo"), _get(body, "subject", "pr")
    title = f"receipt: {conclusion}"
    where = f"{_text(repo)}{f' #{_text(pr)}' if pr is not None else ''}"
    reason_items = "".join(f"<li>{_text(r)}</li>" for r in reasons)
    css_class = _CONCLUSION_CLASS.get(conclusion, "bad")
    short_head = _text(str(_get(body, "subject", "head"))[:12])
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        '<meta name=referrer content="no-referrer">'
        f"<title>{_text(title)}</title><style>{STYLE}</style></head><body><main>"
        f"<h1>{_text(title)}</h1><p class=sub>{where} · <code>{short_head}</code></p>"
        f'<div class="verdict {css_class}" id=verdict><b>{_text(conclusion)}</b><ul>{reason_items}</ul></div>'
        f"<h2>The four fields</h2>{_fields(body)}"
        f"<h2>Findings</h2>{_findings(body, web_url)}"
        f"<h2>What the description does not say</h2>{_report(body)}"
        f"<h2>Size and budgets</h2>{_budgets(body)}"
        f"<h2>Tests</h2>{_checks(body)}"
        f"<h2>Policy</h2>{_policy(body)}{_whatif(body)}"
        f"<footer>schema {_text(body.get('schema'))} · verify with <code>receipt inspect</code></footer>"
        "</main></body></html>"
    )
