"""The what-if table: one row per merged change, its conclusion under both policies and why they
differ; as Markdown (a pull request's summary) and as terminal text."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.render.escape import md_code, md_text
from bot.engine.render.terminal import one_line
from bot.engine.whatif import WhatIfRow

NO_TESTS = (
    "No tests are run: semantic is skipped under both policies, so only scope, locality, excess "
    "and report can differ."
)
MAX_WHY = 5  # differences listed per row, then a count


def _why(row: WhatIfRow) -> list[str]:
    shown = list(row.why[:MAX_WHY])
    if len(row.why) > MAX_WHY:
        shown.append(f"… and {len(row.why) - MAX_WHY} more")
    return shown or ["no difference"]


def _tally(rows: Sequence[WhatIfRow]) -> str:
    changed = sum(r.changed for r in rows)
    return f"{changed} of {len(rows)} merged change(s) would conclude differently"


def whatif_markdown(rows: Sequence[WhatIfRow], *, base: str, new: str) -> str:
    lines = [
        f"### What-if: {md_text(new)} against {md_text(base)}",
        "",
        md_text(_tally(rows)) + ". " + md_text(NO_TESTS),
        "",
        "| change | base policy | new policy | why |",
        "|---|---|---|---|",
    ]
    for row in rows:
        mark = " **changed**" if row.changed else ""
        why = "<br>".join(md_text(w) for w in _why(row))
        change = f"{md_code(row.commit[:12])} {md_text(row.title[:80])}"
        lines.append(f"| {change} | {row.before} | {row.after}{mark} | {why} |")
    return "\n".join(lines) + "\n"


def whatif_terminal(rows: Sequence[WhatIfRow], *, base: str, new: str) -> str:
    lines = [f"what-if: {one_line(new)} against {one_line(base)}", _tally(rows), NO_TESTS, ""]
    for row in rows:
        arrow = f"{row.before} -> {row.after}" + ("  CHANGED" if row.changed else "")
        lines.append(f"{row.commit[:12]}  {arrow:<34} {one_line(row.title[:70])}")
        lines.extend(f"{'':14}{one_line(w)}" for w in _why(row))
    return "\n".join(lines) + "\n"
