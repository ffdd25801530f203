"""The replay report as one HTML page: tables and inline SVG plots, no script, nothing fetched.

Every string from the task set or the run (titles, arm commands, reasons) is escaped; the page's
Content-Security-Policy forbids scripts and every external load, so it is safe to open from a CI
artefact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}code{font-size:.9em}
.pass{color:#176c2d;font-weight:600}.fail{color:#b00020;font-weight:600}
.cell-f{background:#c8e6c9}.cell-s{background:#fff3c4}.cell-x{background:#f8c9c9}.cell-i{background:#ddd}
svg text{font:11px system-ui,sans-serif}table.arm{display:inline-table;margin-right:1em;vertical-align:top}
caption{text-align:left;font-weight:600}pre{white-space:pre-wrap;max-width:60em}figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _colour(index: int) -> str:
    return _COLOURS[index % len(_COLOURS)]


def _scale(low: float, high: float, left: float, right: float) -> Any:
    span = (high - low) or 1.0

    def at(value: float) -> float:
        return left + (value - low) / span * (right - left)

    return at


def excess_plot(report: Mapping[str, Any]) -> str:
    """Excess over passing repairs, one row per arm: every attempt a dot, the quartiles a box."""
    arms = [a["name"] for a in report["run"]["arms"]]
    values = [v for a in arms for v in report["arms"][a]["excess_values"]]
    low, high = min([0.0, *values]), max([0.0, *values])
    width, left, right, row = 760, 140, 740, 44
    height = 30 + row * len(arms)
    x = _scale(low, high, left, right)
    parts = [
        f'<svg id="plot-excess" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
    ]
    parts.append(
        f'<line x1="{x(0):.1f}" y1="10" x2="{x(0):.1f}" y2="{height - 20}" stroke="#999" stroke-dasharray="3"/>'
    )
    for i, arm in enumerate(arms):
        y = 20 + row * i + row / 2
        points = report["arms"][arm]["excess_values"]
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{_e(arm)}</text>')
        if points:
            q1, q2, q3 = (
                points[min(len(points) - 1, round(q * (len(points) - 1)))] for q in (0.25, 0.5, 0.75)
            )
            parts.append(
                f'<rect class="box" x="{x(q1):.1f}" y="{y - 10:.1f}" width="{max(1.0, x(q3) - x(q1)):.1f}" '
                f'height="20" fill="none" stroke="{_colour(i)}"/>'
                f'<line x1="{x(q2):.1f}" y1="{y - 10:.1f}" x2="{x(q2):.1f}" y2="{y + 10:.1f}" stroke="{_colour(i)}"/>'
            )
        for j, value in enumerate(points):
            jitter = ((j * 7919) % 13 - 6) * 1.2
            parts.append(
                f'<circle class="dot" cx="{x(value):.1f}" cy="{y + jitter:.1f}" r="2.5" fill="{_colour(i)}" '
                f'fill-opacity="0.6"><title>{_e(arm)}: {value:.4f}</title></circle>'
            )
        if not points:
            parts.append(f'<text x="{left}" y="{y + 4:.1f}" fill="#777">no passing attempt</text>')
    for value in (low, 0.0, high):
        parts.append(f'<text x="{x(value):.1f}" y="{height - 5}" text-anchor="middle">{value:.3g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def matrix_plot(report: Mapping[str, Any]) -> str:
    """The per-task matrix as cells: faithful share in green, functional-only amber, unsolved red."""
    arms = [a["name"] for a in report["run"]["arms"]]
    tasks = report["tasks"]
    cell_w = 60
    cell_h = max(3, min(16, 1200 // max(1, len(tasks))))
    left, top = 10, 20
    width = left + cell_w * len(arms) + 10
    height = top + cell_h * len(tasks) + 10
    parts = [
        f'<svg id="plot-matrix" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
    ]
    for j, arm in enumerate(arms):
        parts.append(
            f'<text x="{left + cell_w * j + cell_w / 2}" y="14" text-anchor="middle">{_e(arm)}</text>'
        )
    for i, row in enumerate(tasks):
        for j, arm in enumerate(arms):
            cell = row["arms"][arm]
            n = cell["attempts"] or 1
            if cell["attempts"] == 0:
                fill = "#fff"
            elif cell["infrastructure"] == cell["attempts"]:
                fill = "#bbb"
            elif cell["faithful"]:
                fill = f"rgba(46,125,50,{0.35 + 0.65 * cell['faithful'] / n:.2f})"
            elif cell["functional"]:
                fill = "#f2c94c"
            else:
                fill = "#e57373"
            label = f"{row['task']} / {arm}: faithful {cell['faithful']}/{cell['attempts']}, functional {cell['functional']}/{cell['attempts']}"
            parts.append(
                f'<rect class="cell" x="{left + cell_w * j}" y="{top + cell_h * i}" width="{cell_w - 1}" '
                f'height="{max(1, cell_h - 1)}" fill="{fill}"><title>{_e(label)}</title></rect>'
            )
    parts.append("</svg>")
    return "".join(parts)


def differences_plot(report: Mapping[str, Any]) -> str:
    """Each comparison's differences with their intervals: rates on one scale, means on another."""
    rows: list[tuple[str, str, Mapping[str, Any]]] = []
    for comparison in report["comparisons"]:
        for metric in ("functional", "faithful", "excess", "added_complexity"):
            rows.append((f"{comparison['arm']} − {comparison['baseline']}", metric, comparison[metric]))
    if not rows:
        return '<p id="plot-differences">One arm only: nothing to compare.</p>'
    width, left, right, step = 760, 250, 740, 22
    height = 30 + step * len(rows)
    spans = [
        abs(v)
        for _, m, c in rows
        if m not in ("functional", "faithful")
        for v in (c["low"], c["high"])
        if v is not None
    ]
    mean_span = max([1e-9, *spans])
    rate_x = _scale(-1.0, 1.0, left, right)
    mean_x = _scale(-mean_span, mean_span, left, right)
    parts = [
        f'<svg id="plot-differences" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
    ]
    parts.append(f'<line x1="{rate_x(0):.1f}" y1="5" x2="{rate_x(0):.1f}" y2="{height - 20}" stroke="#999"/>')
    for i, (pair, metric, interval) in enumerate(rows):
        y = 15 + step * i
        x = rate_x if metric in ("functional", "faithful") else mean_x
        parts.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{_e(pair)} {_e(metric)}</text>')
        if interval["difference"] is None:
            parts.append(f'<text x="{left + 4}" y="{y + 4}" fill="#777">no shared task</text>')
            continue
        low, high, mid = interval["low"], interval["high"], interval["difference"]
        parts.append(
            f'<line class="interval" x1="{x(low):.1f}" y1="{y}" x2="{x(high):.1f}" y2="{y}" stroke="#333" '
            f'stroke-width="2"/><circle class="estimate" cx="{x(mid):.1f}" cy="{y}" r="4" fill="#1f77b4">'
            f"<title>{_e(metric)} {mid:.4f} [{low:.4f}, {high:.4f}]</title></circle>"
        )
    parts.append(
        f'<text x="{left}" y="{height - 5}">rates: −1 … +1; excess and complexity: ±{mean_span:.3g}</text></svg>'
    )
    return "".join(parts)


def _arm_table(report: Mapping[str, Any]) -> str:
    head = (
        "<tr><th class=l>arm</th><th>attempts</th><th>functional</th><th>faithful</th><th>infrastructure</th>"
        "<th>errors</th><th>scope violations</th><th>files</th><th>hunks</th><th>logical lines</th>"
        "<th>excess (passing)</th><th>added complexity (passing)</th><th>read before edit</th>"
        "<th>tests after last edit</th></tr>"
    )
    rows = []
    for arm in [a["name"] for a in report["run"]["arms"]]:
        s = report["arms"][arm]
        violations = ", ".join(f"{_e(k)} {v}" for k, v in s["scope_violations"].items()) or "none"
        surface = s["review_surface"]
        trace = s["trace"]
        rows.append(
            f"<tr data-arm='{_e(arm)}'><td class=l>{_e(arm)}</td><td>{s['attempts']}</td>"
            f"<td class=functional>{_pct(s['functional_rate'])}</td><td class=faithful>{_pct(s['faithful_rate'])}</td>"
            f"<td>{s['statuses']['infrastructure']}</td><td>{s['statuses']['error']}</td><td class=l>{violations}</td>"
            f"<td>{_num(surface['files']['mean'], 2)}</td><td>{_num(surface['hunks']['mean'], 2)}</td>"
            f"<td>{_num(surface['logical_lines']['mean'], 2)}</td><td>{_num(s['excess']['mean'], 4)}</td>"
            f"<td>{_num(s['added_complexity']['mean'], 2)}</td><td>{_pct(trace['read_before_edit']['mean'])}</td>"
            f"<td>{_pct(trace['tests_after_last_edit']['mean'])}</td></tr>"
        )
    return f"<table id=arms>{head}{''.join(rows)}</table>"


def _comparison_table(report: Mapping[str, Any]) -> str:
    rows = []
    for c in report["comparisons"]:
        cells = []
        for metric in ("functional", "faithful", "excess", "added_complexity"):
            i = c[metric]
            cells.append(
                "<td>–</td>"
                if i["difference"] is None
                else f"<td>{i['difference']:+.4f} [{i['low']:+.4f}, {i['high']:+.4f}] <small>n={i['tasks']}</small></td>"
            )
        rows.append(f"<tr><td class=l>{_e(c['arm'])} − {_e(c['baseline'])}</td>{''.join(cells)}</tr>")
    head = "<tr><th class=l>difference</th><th>functional</th><th>faithful</th><th>excess</th><th>added complexity</th></tr>"
    return f"<table id=comparisons>{head}{''.join(rows)}</table>"


def _matrix_table(report: Mapping[str, Any]) -> str:
    arms = [a["name"] for a in report["run"]["arms"]]
    head = (
        "<tr><th class=l>task</th><th class=l>title</th>"
        + "".join(f"<th>{_e(a)}</th>" for a in arms)
        + "</tr>"
    )
    rows = []
    for row in report["tasks"]:
        cells = []
        for arm in arms:
            c = row["arms"][arm]
            kind = (
                "i"
                if c["attempts"] and c["infrastructure"] == c["attempts"]
                else ("f" if c["faithful"] else "s" if c["functional"] else "x")
            )
            cells.append(f"<td class=cell-{kind}>{c['faithful']}/{c['functional']}/{c['attempts']}</td>")
        mark = " <strong>critical</strong>" if row["critical"] else ""
        rows.append(
            f"<tr><td class=l>{_e(row['task'])}{mark}</td><td class=l>{_e(row['title'])}</td>{''.join(cells)}</tr>"
        )
    return f"<table id=matrix>{head}{''.join(rows)}</table>"


def _gate(report: Mapping[str, Any]) -> str:
    gate = report["gate"]
    items = []
    for verdict in gate["arms"]:
        reasons = "".join(f"<li>{_e(f)}</li>" for f in verdict["failures"])
        word = "passes" if verdict["pass"] else "fails"
        css = "pass" if verdict["pass"] else "fail"
        items.append(f"<li><span class={css}>{_e(verdict['arm'])} {word}</span><ul>{reasons}</ul></li>")
    required = ", ".join(_e(r) for r in report["options"]["require"]) or "no requirement"
    css = "pass" if gate["pass"] else "fail"
    return f"<div id=gate><p class={css}>Gate: {'pass' if gate['pass'] else 'fail'} ({required})</p><ul>{''.join(items)}</ul></div>"


def _attempts_table(rows: Sequence[Mapping[str, Any]]) -> str:
    head = (
        "<tr><th class=l>task</th><th class=l>arm</th><th>#</th><th class=l>status</th><th>functional</th>"
        "<th>faithful</th><th>excess</th><th>files</th><th class=l>reason</th></tr>"
    )
    body = "".join(
        f"<tr><td class=l>{_e(r['task'])}</td><td class=l>{_e(r['arm'])}</td><td>{r['attempt']}</td>"
        f"<td class=l>{_e(r['status'])}</td><td>{'yes' if r['functional'] else 'no'}</td>"
        f"<td>{'yes' if r['faithful'] else 'no'}</td><td>{_num(r['excess'], 4)}</td>"
        f"<td>{'–' if r['files'] is None else r['files']}</td><td class=l>{_e(r['reason'] or '')}</td></tr>"
        for r in rows
    )
    return f"<details><summary>Every attempt ({len(rows)})</summary><table id=attempts>{head}{body}</table></details>"


def _arm_configuration(arm: Mapping[str, Any]) -> str:
    """One arm as the run recorded it: every key of its configuration, the prompt's text folded."""
    rows = [("command", f"<code>{_e(arm['command'])}</code>")]
    if arm.get("file"):
        rows.append(
            ("arm file", f"<code>{_e(arm['file']['path'])}</code> <code>{_e(arm['file']['digest'])}</code>")
        )
    for key, label in (
        ("model", "model"),
        ("agent_version", "agent version"),
        ("description", "description"),
    ):
        if arm.get(key) is not None:
            rows.append((label, _e(arm[key])))
    if arm.get("tools") is not None:
        rows.append(("tools", ", ".join(f"<code>{_e(t)}</code>" for t in arm["tools"]) or "none"))
    if arm.get("env"):
        rows.append(("environment", ", ".join(f"<code>{_e(n)}</code>" for n in arm["env"])))
    prompt = arm.get("prompt")
    if prompt:
        rows.append(
            (
                "prompt",
                f"<code>{_e(prompt['file'])}</code> <code>{_e(prompt['digest'])}</code>"
                f"<details><summary>text</summary><pre>{_e(prompt['text'])}</pre></details>",
            )
        )
    body = "".join(
        f"<tr><th class=l>{label}</th><td class=l data-key='{_e(label)}'>{value}</td></tr>"
        for label, value in rows
    )
    return f"<table class=arm data-arm='{_e(arm['name'])}'><caption><code>{_e(arm['name'])}</code></caption>{body}</table>"


def render_html(report: Mapping[str, Any]) -> str:
    run, options = report["run"], report["options"]
    arms = "".join(_arm_configuration(a) for a in run["arms"])
    incomplete = (
        "" if run["complete"] else f"<p class=fail>Incomplete run: {run['missing']} attempt(s) missing.</p>"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>receipt replay report</title><style>{_STYLE}</style></head>
<body>
<h1>receipt replay report</h1>
<p>Task set <code>{_e(run["task_set"]["digest"])}</code> ({run["task_set"]["tasks"]} tasks), {run["attempts"]}
attempt(s) per task and arm; baseline <code>{_e(options["baseline"])}</code>. Intervals: {options["confidence"]:.0%}
paired bootstrap by task, {options["iterations"]} iterations, seed {options["seed"]}. Report digest
<code>{_e(report["digest"])}</code>.</p>
{incomplete}
<h2>Arms as configured</h2>
<div id=configurations>{arms}</div>
{_gate(report)}
<h2>Arms</h2>
<p>Rates are per task, then averaged over tasks; infrastructure and error attempts count as unsolved.
Faithful = tests pass, scope and locality pass.</p>
{_arm_table(report)}
<h2>Differences against the baseline</h2>
{_comparison_table(report)}
<figure>{differences_plot(report)}<figcaption>Each difference with its 95% interval.</figcaption></figure>
<h2>Excess over passing repairs</h2>
<figure>{excess_plot(report)}<figcaption>nd(M,C) − nd(G,C) of every attempt whose tests passed; the box holds
the middle half.</figcaption></figure>
<h2>Per-task matrix</h2>
<figure>{matrix_plot(report)}<figcaption>Green: faithful (darker: more attempts); amber: tests pass but scope or
locality fails; red: unsolved; grey: infrastructure.</figcaption></figure>
<p>Cells: faithful / functional / attempts.</p>
{_matrix_table(report)}
<h2>Attempts</h2>
{_attempts_table(report["attempts"])}
</body></html>
"""
