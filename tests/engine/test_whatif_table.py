"""The what-if table's own cases: a side without a receipt, long lists of differences."""

from __future__ import annotations

from bot.engine.render.whatif_text import whatif_markdown, whatif_terminal
from bot.engine.whatif import Judged, WhatIfRow, compare


def test_sides_without_receipts_say_their_problems() -> None:
    row = compare(
        "a" * 40, "t", Judged(None, "too large to assess: x"), Judged(None, "too large to assess: y")
    )
    assert (row.before, row.after, row.changed) == ("error", "error", False)
    assert row.why == ("base: too large to assess: x", "new: too large to assess: y")


def test_a_row_lists_five_differences_then_counts_the_rest() -> None:
    row = WhatIfRow("b" * 40, "a | title", "failure", "success", tuple(f"- finding {n}" for n in range(7)))
    text = whatif_terminal([row], base="base", new="new.yml")
    assert "- finding 4" in text and "- finding 5" not in text and "… and 2 more" in text
    markdown = whatif_markdown([row], base="base", new="new.yml")
    assert "a \\| title" in markdown  # a pipe in a title cannot open a table cell
    assert "1 of 1 merged change\\(s\\) would conclude differently" in markdown
