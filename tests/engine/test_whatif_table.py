"""The what-if table's own cases: a side without a receipt, long lists of differences."""

from __future__ import annotations

from bot.engine.render.whatif_text import (
    pull_whatif_markdown,
    whatif_markdown,
    whatif_not_computed,
    whatif_terminal,
)
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


def test_a_pull_requests_section_says_its_scope_and_keeps_the_table() -> None:
    row = WhatIfRow("c" * 40, "#3 add x", "success", "failure", ("+ budget budgets.files at the change",))
    text = pull_whatif_markdown([row], branch="main", asked=10, path=".github/receipt.yml")
    heading, rest = text.split("\n", 1)
    assert heading == "### What-if: this pull request's `.github/receipt.yml` against the base branch's"
    assert "1 change(s) compared" in rest and "up to 10" in rest and "still the base manifest's" in rest
    assert (
        "No tests are run" in rest and "| `cccccccccccc` \\#3 add x | success | failure **changed** |" in rest
    )
    assert text.count("### ") == 1  # the CLI table's own heading is replaced, not repeated


def test_a_section_that_could_not_be_computed_says_why() -> None:
    text = whatif_not_computed("GitHub answered 502 <b>", path="p.yml")
    assert text.endswith("\n\nwhat-if not computed: GitHub answered 502 \\<b\\>\n")  # GitHub's text, escaped
