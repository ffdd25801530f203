"""What-if: one merged change judged by two policies, and what differs between the two receipts
(the conclusion, each field's pass, the findings). Tests are not run for either."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.engine.findings import Violation
from bot.engine.receipt import Receipt


@dataclass(frozen=True, slots=True)
class Judged:
    """One side of a row: the receipt's conclusion, or the problem that stopped a receipt."""

    receipt: Receipt | None
    problem: str | None = None

    @property
    def conclusion(self) -> str:
        return self.receipt.verdict.conclusion.value if self.receipt is not None else "error"


@dataclass(frozen=True, slots=True)
class WhatIfRow:
    commit: str
    title: str
    before: str  # the conclusion under the base manifest ("error": no receipt)
    after: str  # under the new one
    why: tuple[str, ...]  # what differs: fields, findings gained and lost, problems

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def as_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit, "title": self.title, "before": self.before, "after": self.after,
            "changed": self.changed, "why": list(self.why),
        }  # fmt: skip


class Over(StrEnum):
    """Which changes a pull request's what-if replays."""

    MERGED_PULLS = "merged-pulls"  # over the API: the pull requests merged into a branch
    FIRST_PARENT = "first-parent"  # in a checkout: a commit's first-parent history


@dataclass(frozen=True, slots=True)
class PullWhatIf:
    """A manifest-editing pull request's what-if: up to `asked` changes `over` `ref` (a branch, or
    a commit) judged under the base manifest and under the pull request's `path`; the rows, or why
    there are none."""

    path: str
    over: Over
    ref: str
    asked: int
    rows: tuple[WhatIfRow, ...] = ()
    not_computed: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "over": self.over.value, "ref": self.ref, "asked": self.asked,
            "compared": len(self.rows), "changed": sum(r.changed for r in self.rows),
            "rows": [r.as_json() for r in self.rows], "not_computed": self.not_computed,
        }  # fmt: skip


def _finding(v: Violation) -> str:
    where = "the change" if v.path is None else v.path + (f":{v.line}" if v.line else "")
    return f"{v.rule.value} {v.id} at {where}"


def _findings(receipt: Receipt) -> dict[tuple[str, int | None], Violation]:
    return {(v.waiver_id, v.line): v for v in (*receipt.scope, *receipt.locality_violations)}


def _fields(receipt: Receipt) -> dict[str, str]:
    report = receipt.report
    return {
        "scope": "pass" if receipt.scope_pass else "fail",
        "locality": "pass" if receipt.locality_pass else "fail",
        "excess": "alarm" if receipt.excess.alarm else "no alarm",
        "report": "fail" if report is not None and report.missing_required else "pass",
        "mode": "observe" if receipt.verdict.enforced is not None else "enforce",
    }


def _differences(before: Receipt, after: Receipt) -> list[str]:
    was, now = _fields(before), _fields(after)
    why = [f"{name}: {was[name]} → {now[name]}" for name in was if was[name] != now[name]]
    old, new = _findings(before), _findings(after)
    why += [f"+ {_finding(v)}" for key, v in new.items() if key not in old]
    why += [f"- {_finding(v)}" for key, v in old.items() if key not in new]
    return why


def compare(commit: str, title: str, before: Judged, after: Judged) -> WhatIfRow:
    """The row for one change: both conclusions and why they differ."""
    if before.receipt is not None and after.receipt is not None:
        why = _differences(before.receipt, after.receipt)
    else:
        why = [f"{side}: {j.problem}" for side, j in (("base", before), ("new", after)) if j.problem]
    return WhatIfRow(commit, title, before.conclusion, after.conclusion, tuple(why))
