"""The receipt page's report section: what the description does not say, and contradicted claims."""

from __future__ import annotations

from bot.server.receipt_page import render_page


def test_the_page_lists_unsaid_facts_and_contradicted_claims_escaped() -> None:
    body = {
        "report": {
            "facts": [
                {
                    "kind": "tests-edited",
                    "importance": "high",
                    "summary": "1 test file(s) edited: <t>.py",
                    "mentioned": False,
                },
                {"kind": "ci", "importance": "high", "summary": "1 CI file(s) changed", "mentioned": True},
                "not a fact",
            ],
            "claims": [
                {"kind": "tests-pass", "quote": "All tests pass.", "contradiction": "tests failed: pytest"}
            ],
        }
    }
    page = render_page(body, web_url=None)
    assert "<h2>What the description does not say</h2><ul id=report>" in page
    assert "<li><b>high</b> 1 test file(s) edited: &lt;t&gt;.py</li>" in page
    assert "1 CI file(s) changed" not in page
    assert "<b>contradicted</b>: “All tests pass.”, but tests failed: pytest" in page


def test_a_page_without_anything_unsaid_says_so() -> None:
    assert "The description mentions every important fact of the change." in render_page({}, web_url=None)
