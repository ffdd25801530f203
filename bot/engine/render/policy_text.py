"""Budgets against their limits and the dry run of a proposed policy, in words: shared by the
Markdown summary and the terminal text, which format them for their medium."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.locality import BudgetUse
from bot.engine.receipt import DryRun

MAX_DRY_RUN_ERRORS = 20


def budgets_line(budgets: Sequence[BudgetUse]) -> str:
    """`files 4/3 (over), logical lines 2/5 for src/core/**`, or that there are none."""
    shown = [
        f"{b.name.rsplit('.', 1)[-1].replace('_', ' ')} {b.used}/{b.limit}"
        + (f" for {', '.join(b.paths)}" if b.paths else "")
        + (" (over)" if b.exceeded else "")
        for b in budgets
    ]
    return ", ".join(shown) if shown else "no budgets set"


def dry_run_errors(dry: DryRun) -> tuple[tuple[str, ...], int]:
    """The errors of an invalid proposed policy a summary lists, and how many more it has."""
    return dry.errors[:MAX_DRY_RUN_ERRORS], max(0, len(dry.errors) - MAX_DRY_RUN_ERRORS)
