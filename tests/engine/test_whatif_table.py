"""The what-if table's own cases: a side without a receipt, long lists of differences."""

from __future__ import annotations

from bot.engine.render.whatif_text import pull_whatif_markdown, whatif_markdown, whatif_terminal
from bot.engine.whatif import Judged, Over, PullWhatIf, WhatIfRow, compare


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
    whatif = PullWhatIf(".github/receipt.yml", Over.MERGED_PULLS, "main", 10, rows=(row,))
    text = pull_whatif_markdown(whatif)
    heading, rest = text.split("\n", 1)
    assert heading == "### What-if: this pull request's `.github/receipt.yml` against the base branch's"
    assert "1 change(s) compared" in rest and "up to 10" in rest and "still the base manifest's" in rest
    assert (
        "No tests are run" in rest and "| `cccccccccccc` \\#3 add x | success | failure **changed** |" in rest
    )
    assert text.count("### ") == 1  # the CLI table's own heading is replaced, not repeated
    assert "merged pull requests into `main`" in rest


def test_a_checkouts_section_names_the_first_parent_history_it_read() -> None:
    row = WhatIfRow("c" * 40, "add x", "success", "success", ())
    text = pull_whatif_markdown(PullWhatIf("p.yml", Over.FIRST_PARENT, "d" * 40, 5, rows=(row,)))
    assert "1 change(s) compared: the last commits of the base `dddddddddddd`'s first-parent" in text
    assert "(up to 5)" in text and "merged pull requests into" not in text


def test_no_what_if_is_no_section() -> None:
    assert pull_whatif_markdown(None) == ""


def test_the_what_if_as_json_counts_its_rows() -> None:
    rows = (
        WhatIfRow("a" * 40, "one", "success", "failure", ("scope: pass → fail",)),
        WhatIfRow("b" * 40, "two", "success", "success", ()),
    )
    data = PullWhatIf("p.yml", Over.MERGED_PULLS, "main", 10, rows=rows).as_json()
    assert (data["over"], data["ref"], data["asked"], data["compared"], data["changed"]) == (
        "merged-pulls",
        "main",
        10,
        2,
        1,
    )
    assert data["rows"][0] == {
        "commit": "a" * 40, "title": "one", "before": "success", "after": "failure", "changed": True,
        "why": ["scope: pass → fail"],
    }  # fmt: skip
    assert data["not_computed"] is None


def test_a_section_that_could_not_be_computed_says_why() -> None:
    whatif = PullWhatIf("p.yml", Over.MERGED_PULLS, "main", 10, not_computed="GitHub answered 502 <b>")
    text = pull_whatif_markdown(whatif)
    assert text.endswith("\n\nwhat-if not computed: GitHub answered 502 \\<b\\>\n")  # GitHub's text, escaped
