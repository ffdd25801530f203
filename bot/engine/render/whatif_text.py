"""The what-if table: one row per merged change, its conclusion under both policies and why they
differ; as Markdown (a pull request's summary) and as terminal text."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.render.escape import md_code, md_text
from bot.engine.render.terminal import one_line
from bot.engine.whatif import Over, PullWhatIf, WhatIfRow

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


def _scope(whatif: PullWhatIf) -> str:
    if whatif.over is Over.MERGED_PULLS:
        which = (
            f"the last merged pull requests into {md_code(whatif.ref)} (up to {whatif.asked}), each "
            "judged as merged (its merge commit's first parent to the merge commit)"
        )
    else:
        which = (
            f"the last commits of the base {md_code(whatif.ref[:12])}'s first-parent history in the "
            f"checkout (up to {whatif.asked}), each judged from its first parent"
        )
    return (
        f"{len(whatif.rows)} change(s) compared: {which}. This pull request's own verdict above is "
        "still the base manifest's."
    )


def pull_whatif_markdown(whatif: PullWhatIf | None) -> str:
    """The section a pull request that edits the manifest gets below its receipt: the table, or
    why there is none; nothing for a pull request that has no what-if."""
    if whatif is None:
        return ""
    heading = f"### What-if: this pull request's {md_code(whatif.path)} against the base branch's"
    if whatif.not_computed is not None:
        return f"{heading}\n\nwhat-if not computed: {md_text(whatif.not_computed)}\n"
    table = whatif_markdown(whatif.rows, base=f"base {whatif.path}", new=f"proposed {whatif.path}")
    return heading + "\n\n" + _scope(whatif) + "\n" + table.split("\n", 1)[1]
