"""The replay report as one HTML page: tables and inline SVG plots, no script, nothing fetched.

The page carries the same data as the JSON report: every value of an arm's summary, a comparison,
a task's cell and an attempt is an element naming its JSON key (`data-key`, a dotted path in its
object) and holding its JSON value (`data-value`) beside the text shown.

Every string from the task set or the run (titles, arm commands, reasons) is escaped; the page's
Content-Security-Policy forbids scripts and every external load, so it is safe to open from a CI
artefact.
"""

from __future__ import annotations

import json
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


_LABEL_CHARS = 24  # task ids longer than this are cut in the matrix plot (the cell's title has them whole)
_LABEL_GAP = 12  # the least vertical room a task label needs: with thinner rows, every k-th task is labelled


def _task_label(task: str) -> str:
    return task if len(task) <= _LABEL_CHARS else task[: _LABEL_CHARS - 1] + "…"


def matrix_plot(report: Mapping[str, Any]) -> str:
    """The per-task matrix as cells: faithful share in green, functional-only amber, unsolved red;
    each row labelled with its task (every k-th when the rows are too thin for every one)."""
    arms = [a["name"] for a in report["run"]["arms"]]
    tasks = report["tasks"]
    cell_w = 60
    cell_h = max(3, min(16, 1200 // max(1, len(tasks))))
    every = -(-_LABEL_GAP // cell_h)
    longest = max((len(_task_label(t["task"])) for t in tasks), default=0)
    left, top = 10 + round(6.5 * longest), 20
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
        if i % every == 0:
            y = top + cell_h * i + min(cell_h, _LABEL_GAP) / 2 + 4
            parts.append(
                f'<g><title>{_e(row["task"])}</title><text class="task" x="{left - 6}" y="{y:.1f}" '
                f'text-anchor="end">{_e(_task_label(row["task"]))}</text></g>'
            )
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


# The panels of the differences plot, each on a scale of its own: rates are shares (−1 … +1),
# excess a distance, added complexity a count; one scale for the last two would flatten one of them.
_PANELS = (
    ("rates", "functional and faithful rates", ("functional", "faithful")),
    ("excess", "excess over the tasks both solved", ("excess",)),
    ("added_complexity", "added complexity over the tasks both solved", ("added_complexity",)),
)


def _span(intervals: Sequence[Mapping[str, Any]]) -> float:
    values = [abs(i[k]) for i in intervals for k in ("low", "high", "difference") if i[k] is not None]
    return max(values, default=0.0) or 1.0


def differences_plot(report: Mapping[str, Any]) -> str:
    """Each comparison's differences with their intervals, in three panels with their own scales."""
    comparisons = report["comparisons"]
    if not comparisons:
        return '<p id="plot-differences">One arm only: nothing to compare.</p>'
    width, left, right, step, head, foot = 760, 250, 740, 22, 22, 26
    rows = sum(len(metrics) for _, _, metrics in _PANELS) * len(comparisons)
    height = rows * step + len(_PANELS) * (head + foot)
    parts = [
        f'<svg id="plot-differences" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
    ]
    y = 0.0
    for panel, title, metrics in _PANELS:
        intervals = [c[m] for c in comparisons for m in metrics]
        span = 1.0 if panel == "rates" else _span(intervals)
        x = _scale(-span, span, left, right)
        bottom = y + head + step * len(intervals)
        parts.append(
            f'<g class="panel" data-panel="{panel}" data-span="{span!r}">'
            f'<text x="8" y="{y + 14:.1f}" font-weight="600">{_e(title)}</text>'
            f'<line x1="{x(0):.1f}" y1="{y + head - 6:.1f}" x2="{x(0):.1f}" y2="{bottom:.1f}" stroke="#999"/>'
            f'<line x1="{left}" y1="{bottom:.1f}" x2="{right}" y2="{bottom:.1f}" stroke="#ccc"/>'
        )
        row_y = y + head + step / 2
        for comparison in comparisons:
            for metric in metrics:
                interval = comparison[metric]
                name = f"{comparison['arm']} − {comparison['baseline']}" + (
                    f" {metric}" if panel == "rates" else ""
                )
                parts.append(f'<text x="{left - 8}" y="{row_y + 4:.1f}" text-anchor="end">{_e(name)}</text>')
                if interval["difference"] is None:
                    parts.append(
                        f'<text x="{left + 4}" y="{row_y + 4:.1f}" fill="#777">no shared task</text>'
                    )
                else:
                    low, high, mid = interval["low"], interval["high"], interval["difference"]
                    parts.append(
                        f'<line class="interval" x1="{x(low):.1f}" y1="{row_y:.1f}" x2="{x(high):.1f}" y2="{row_y:.1f}" '
                        f'stroke="#333" stroke-width="2"/><circle class="estimate" cx="{x(mid):.1f}" cy="{row_y:.1f}" '
                        f'r="4" fill="#1f77b4"><title>{_e(metric)} {mid:.4f} [{low:.4f}, {high:.4f}]</title></circle>'
                    )
                row_y += step
        for value in (-span, 0.0, span):
            parts.append(
                f'<text class="tick" x="{x(value):.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{value:+.3g}</text>'
            )
        parts.append("</g>")
        y = bottom + foot
    parts.append("</svg>")
    return "".join(parts)


def _v(key: str, value: Any, text: str | None = None) -> str:
    """A value of the report's JSON as the page shows it: `data-key` names it (a dotted path in its
    object), `data-value` holds it as JSON, so the page carries exactly the data the JSON does."""
    shown = text if text is not None else ("–" if value is None else str(value))
    data = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return f"<span data-key='{_e(key)}' data-value='{_e(data)}'>{_e(shown)}</span>"


def _yes(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "no")


def _stats(key: str, numbers: Mapping[str, Any], show: Any) -> str:
    """mean / median (n) of a summary's numbers, each its own value."""
    return (
        f"{_v(key + '.mean', numbers['mean'], show(numbers['mean']))} / "
        f"{_v(key + '.median', numbers['median'], show(numbers['median']))} "
        f"<small>n={_v(key + '.count', numbers['count'])}</small>"
    )


def _violations(key: str, counts: Mapping[str, int]) -> str:
    return ", ".join(f"{_e(rule)} {_v(f'{key}.{rule}', n)}" for rule, n in counts.items()) or "none"


def _share(value: float | None) -> str:
    return _num(value, 2)


# The rows of the arms table: a label, and how one arm's summary shows in its cell.
_ARM_ROWS: tuple[tuple[str, Any], ...] = (
    ("attempts", lambda s: _v("attempts", s["attempts"])),
    (
        "scored / infrastructure / error",
        lambda s: " / ".join(
            _v(f"statuses.{k}", s["statuses"][k]) for k in ("scored", "infrastructure", "error")
        ),
    ),
    ("functional rate", lambda s: _v("functional_rate", s["functional_rate"], _pct(s["functional_rate"]))),
    ("faithful rate", lambda s: _v("faithful_rate", s["faithful_rate"], _pct(s["faithful_rate"]))),
    (
        "infrastructure rate",
        lambda s: _v("infrastructure_rate", s["infrastructure_rate"], _pct(s["infrastructure_rate"])),
    ),
    ("empty attempts (unsolved)", lambda s: _v("empty_attempts", s["empty_attempts"])),
    (
        "attempts with scope violations",
        lambda s: _v("attempts_with_scope_violations", s["attempts_with_scope_violations"]),
    ),
    (
        "violations by rule (scope, locality)",
        lambda s: _violations("scope_violations", s["scope_violations"]),
    ),
    ("files: mean / median", lambda s: _stats("review_surface.files", s["review_surface"]["files"], _share)),
    ("hunks: mean / median", lambda s: _stats("review_surface.hunks", s["review_surface"]["hunks"], _share)),
    (
        "logical lines: mean / median",
        lambda s: _stats("review_surface.logical_lines", s["review_surface"]["logical_lines"], _share),
    ),
    (
        "excess over passing repairs: mean / median",
        lambda s: (
            _stats("excess", s["excess"], lambda v: _num(v, 4))
            + f"<details><summary>values</summary>{_v('excess_values', s['excess_values'], ', '.join(f'{v:.4f}' for v in s['excess_values']) or 'none')}</details>"
        ),
    ),
    (
        "added complexity over passing: mean / median",
        lambda s: _stats("added_complexity", s["added_complexity"], _share),
    ),
    ("attempts with a trace", lambda s: _v("trace.attempts", s["trace"]["attempts"])),
    (
        "read before edit (share of edited files)",
        lambda s: _stats("trace.read_before_edit", s["trace"]["read_before_edit"], _share),
    ),
    (
        "tests after the last edit (share)",
        lambda s: _stats("trace.tests_after_last_edit", s["trace"]["tests_after_last_edit"], _share),
    ),
    (
        "edits per failed test run",
        lambda s: _stats("trace.edits_per_failed_test_run", s["trace"]["edits_per_failed_test_run"], _share),
    ),
    (
        "reverted after a failure (share)",
        lambda s: _stats("trace.reverted_after_failure", s["trace"]["reverted_after_failure"], _share),
    ),
    (
        "diff within tool edits (share)",
        lambda s: _stats("trace.diff_within_tool_edits", s["trace"]["diff_within_tool_edits"], _share),
    ),
)


def _arm_table(report: Mapping[str, Any]) -> str:
    """One column per arm, in the run's order; one row per number of its summary."""
    arms = [a["name"] for a in report["run"]["arms"]]
    head = (
        "<tr><th class=l>per arm</th>"
        + "".join(f"<th data-arm='{_e(a)}'>{_e(a)}</th>" for a in arms)
        + "</tr>"
    )
    rows = [
        f"<tr><th class=l>{_e(label)}</th>"
        + "".join(f"<td data-arm='{_e(a)}'>{cell(report['arms'][a])}</td>" for a in arms)
        + "</tr>"
        for label, cell in _ARM_ROWS
    ]
    return f"<table id=arms>{head}{''.join(rows)}</table>"


_METRICS = ("functional", "faithful", "excess", "added_complexity")


def _comparison_table(report: Mapping[str, Any]) -> str:
    rows = []
    for c in report["comparisons"]:
        cells = []
        for metric in _METRICS:
            i = c[metric]
            shown = {k: (None if i[k] is None else f"{i[k]:+.4f}") for k in ("difference", "low", "high")}
            cells.append(
                f"<td>{_v(f'{metric}.difference', i['difference'], shown['difference'])} "
                f"[{_v(f'{metric}.low', i['low'], shown['low'])}, {_v(f'{metric}.high', i['high'], shown['high'])}] "
                f"<small>n={_v(f'{metric}.tasks', i['tasks'])}</small></td>"
            )
        rows.append(
            f"<tr data-arm='{_e(c['arm'])}'><td class=l>{_v('arm', c['arm'])} − {_v('baseline', c['baseline'])}</td>"
            f"{''.join(cells)}</tr>"
        )
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
            extra = "".join(
                f" <small>{word} {_v(key, c[key])}</small>"
                for key, word in (("infrastructure", "infra"), ("errors", "errors"))
                if c[key]
            )
            hidden = "".join(_v(key, c[key], "") for key in ("infrastructure", "errors") if not c[key])
            cells.append(
                f"<td class=cell-{kind} data-arm='{_e(arm)}'>{_v('faithful', c['faithful'])}/"
                f"{_v('functional', c['functional'])}/{_v('attempts', c['attempts'])}{extra}{hidden}</td>"
            )
        mark = " <strong>critical</strong>" if row["critical"] else ""
        rows.append(
            f"<tr data-task='{_e(row['task'])}' data-critical='{str(row['critical']).lower()}'><td class=l>"
            f"{_e(row['task'])}{mark}</td><td class=l>{_e(row['title'])}</td>{''.join(cells)}</tr>"
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


def _trace_cell(trace: Mapping[str, Any] | None) -> str:
    if trace is None:
        return _v("trace", None, "no trace")
    parts = [
        f"{_v('trace.format', trace['format'])}: {_v('trace.edits', trace['edits'])} edits, "
        f"{_v('trace.test_runs', trace['test_runs'])} test runs ({_v('trace.failed_test_runs', trace['failed_test_runs'])} failed)",
        f"read before edit {_v('trace.read_before_edit', trace['read_before_edit'], _share(trace['read_before_edit']))}",
        f"tests after the last edit {_v('trace.tests_after_last_edit', trace['tests_after_last_edit'], _yes(trace['tests_after_last_edit']))}",
        f"edits per failed test run {_v('trace.edits_per_failed_test_run', trace['edits_per_failed_test_run'], _share(trace['edits_per_failed_test_run']))}",
        f"reverted after a failure {_v('trace.reverted_after_failure', trace['reverted_after_failure'], _yes(trace['reverted_after_failure']))}",
        f"diff within tool edits {_v('trace.diff_within_tool_edits', trace['diff_within_tool_edits'], _yes(trace['diff_within_tool_edits']))}"
        + (
            f" (outside: {_v('trace.outside_tool_edits', trace['outside_tool_edits'], ', '.join(trace['outside_tool_edits']))})"
            if trace["outside_tool_edits"]
            else _v("trace.outside_tool_edits", trace["outside_tool_edits"], "")
        ),
    ]
    return "<br>".join(parts)


def _attempts_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Every attempt with every number the report holds for it."""
    head = (
        "<tr><th class=l>task</th><th class=l>arm</th><th>#</th><th class=l>status</th><th>functional</th>"
        "<th>faithful</th><th>empty</th><th class=l>receipt: semantic, scope, locality → conclusion</th>"
        "<th>files</th><th>hunks</th><th>logical lines</th><th>distance</th><th>excess</th>"
        "<th>added complexity</th><th class=l>violations</th><th class=l>how it worked (trace)</th>"
        "<th class=l>reason</th><th class=l>evidence</th></tr>"
    )
    body = []
    for r in rows:
        verdict = (
            f"{_v('semantic', r['semantic'])}, {_v('scope', r['scope'], _yes(r['scope']))}, "
            f"{_v('locality', r['locality'], _yes(r['locality']))} → {_v('conclusion', r['conclusion'])}"
        )
        evidence = f"record {_v('record', r['record'], r['record'][:19])}"
        if "receipt" in r:
            evidence += f"<br>receipt {_v('receipt', r['receipt'], str(r['receipt'])[:19])}"
        body.append(
            f"<tr data-task='{_e(r['task'])}' data-arm='{_e(r['arm'])}' data-attempt='{r['attempt']}'>"
            f"<td class=l>{_e(r['task'])}</td><td class=l>{_e(r['arm'])}</td><td>{r['attempt']}</td>"
            f"<td class=l>{_v('status', r['status'])}</td>"
            f"<td>{_v('functional', r['functional'], _yes(r['functional']))}</td>"
            f"<td>{_v('faithful', r['faithful'], _yes(r['faithful']))}</td>"
            f"<td>{_v('empty', r['empty'], _yes(r['empty']))}</td>"
            f"<td class=l>{verdict}</td><td>{_v('files', r['files'])}</td><td>{_v('hunks', r['hunks'])}</td>"
            f"<td>{_v('logical_lines', r['logical_lines'])}</td>"
            f"<td>{_v('distance', r['distance'], _num(r['distance'], 4))}</td>"
            f"<td>{_v('excess', r['excess'], _num(r['excess'], 4))}</td>"
            f"<td>{_v('added_complexity', r['added_complexity'])}</td>"
            f"<td class=l>{_violations('violations', r['violations'])}</td>"
            f"<td class=l>{_trace_cell(r['trace'])}</td>"
            f"<td class=l>{_v('infrastructure', r['infrastructure'], '')}{_v('reason', r['reason'], r['reason'] or '')}</td>"
            f"<td class=l>{evidence}</td></tr>"
        )
    return f"<details><summary>Every attempt ({len(rows)})</summary><table id=attempts>{head}{''.join(body)}</table></details>"


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
        f"<tr><th class=l>{label}</th><td class=l data-field='{_e(label)}'>{value}</td></tr>"
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
<p>Rates are per task, then averaged over tasks; infrastructure and error attempts count as unsolved,
and so does an attempt that changed nothing. Functional = tests pass; faithful = functional, scope and
locality pass. Trace numbers come from the attempts that wrote a trace.</p>
{_arm_table(report)}
<h2>Differences against the baseline</h2>
{_comparison_table(report)}
<figure>{differences_plot(report)}<figcaption>Each difference with its {options["confidence"]:.0%} interval; rates, excess and
added complexity each on a scale of its own (the ticks under each panel).</figcaption></figure>
<h2>Excess over passing repairs</h2>
<figure>{excess_plot(report)}<figcaption>nd(M,C) − nd(G,C) of every attempt whose tests passed; the box holds
the middle half.</figcaption></figure>
<h2>Per-task matrix</h2>
<figure>{matrix_plot(report)}<figcaption>One row per task (labelled on the left), one column per arm. Green:
faithful (darker: more attempts); amber: tests pass but scope or locality fails; red: unsolved; grey:
infrastructure.</figcaption></figure>
<p>Cells: faithful / functional / attempts.</p>
{_matrix_table(report)}
<h2>Attempts</h2>
{_attempts_table(report["attempts"])}
</body></html>
"""
