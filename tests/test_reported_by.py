"""semantic.reported_by: present only when someone else ran the tests, and labelled in Markdown."""

from __future__ import annotations

from dataclasses import replace

from bot.engine import semantic
from bot.engine.change import change_from_diff
from bot.engine.evaluation import Inputs, evaluate
from bot.engine.manifest import ManifestSource, load_manifest
from bot.engine.receipt import Subject, digest_of
from bot.engine.render.markdown import render_markdown
from bot.engine.semantic import CheckConclusion, CheckResult, ReportedBy

SHA = "a" * 40


def _inputs(reported_by: ReportedBy | None) -> Inputs:
    return Inputs(
        change=change_from_diff(b""),
        manifest=load_manifest(None, ".github/receipt.yml", ManifestSource.BASE),
        subject=Subject(SHA, SHA, SHA),
        tests=semantic.TestEvidence(
            checks=(CheckResult("t", CheckConclusion.SUCCESS),), reported_by=reported_by
        ),
    )


def test_absent_by_default_so_existing_receipts_keep_their_bytes() -> None:
    receipt = evaluate(_inputs(None))
    assert "reported_by" not in receipt.as_json()["semantic"]
    assert "as reported by" not in render_markdown(receipt)


def test_recorded_in_the_json_and_the_digest() -> None:
    by = ReportedBy(
        "the pull request's own workflow run 'CI' #9", "https://github.com/o/r/actions/runs/9", "sha256:x"
    )
    body = evaluate(_inputs(by)).as_json()
    assert body["semantic"]["reported_by"] == {
        "source": by.source, "url": by.url, "receipt_digest": "sha256:x",
    }  # fmt: skip
    assert body["digest"] == digest_of(body)
    assert body["digest"] != evaluate(_inputs(replace(by, receipt_digest="sha256:y"))).as_json()["digest"]


def test_markdown_links_only_plain_web_urls() -> None:
    linked = render_markdown(evaluate(_inputs(ReportedBy("run #9", "https://github.com/o/r/actions/runs/9"))))
    assert "as reported by [run \\#9](https://github.com/o/r/actions/runs/9)" in linked
    unsafe = render_markdown(evaluate(_inputs(ReportedBy("run", "javascript:alert(1)"))))
    assert "javascript:" not in unsafe and "as reported by run:" in unsafe
    no_url = render_markdown(evaluate(_inputs(ReportedBy("run"))))
    assert "as reported by run:" in no_url
