"""Test evidence from a head's runs: a workflow GitHub holds for approval is pending and explained,
first in the run (what waits, who must act, what happens otherwise); a deadline ends what waits."""

from __future__ import annotations

from bot.engine import CheckConclusion, TestEvidence
from bot.github.evidence import APPROVAL, Run, approval_notice, held_for_approval, past_deadline, result_of
from bot.github.repo import RepoRef

REPO = RepoRef.parse("acme/widgets")
URL = "https://github.com/acme/widgets/actions/runs/5"


def _held(name: str = "CI", url: str | None = URL) -> Run:
    return Run(5, name, "completed", "action_required", None, url)


def test_a_run_held_for_approval_is_pending_and_says_so() -> None:
    result = result_of("workflow:CI", [_held()])
    assert result.conclusion is CheckConclusion.PENDING
    assert result.details == f"{APPROVAL} ({URL})"


def test_the_notice_names_what_waits_who_must_act_and_what_happens_otherwise() -> None:
    evidence = TestEvidence(checks=(result_of("workflow:CI", [_held()]), result_of("test", [])))
    held = held_for_approval(evidence)
    assert [c.name for c in held] == ["workflow:CI"], "a check not started yet is not held"
    notice = approval_notice(held, REPO, 60)
    assert notice.title == "workflow:CI waits for approval by someone with write access"
    assert "**Waiting for approval: `workflow:CI`.**" in notice.text
    assert "**write access** to `acme/widgets`" in notice.text and "**Approve and run**" in notice.text
    assert "timed out after `tests.timeout_minutes` (60 min)" in notice.text
    assert f"[the run waiting for approval]({URL})" in notice.text


def test_several_held_runs_and_one_without_a_link() -> None:
    evidence = TestEvidence(
        checks=(result_of("workflow:CI", [_held()]), result_of("workflow:Lint", [_held("Lint", None)]))
    )
    notice = approval_notice(held_for_approval(evidence), REPO, 0.5)
    assert notice.title.startswith("workflow:CI, workflow:Lint wait for approval")
    assert notice.text.count("the run waiting for approval") == 1 and "(0.5 min)" in notice.text


def test_past_the_deadline_nothing_is_held_any_more() -> None:
    evidence = past_deadline(TestEvidence(checks=(result_of("workflow:CI", [_held()]),)), 0.1)
    assert evidence.checks[0].conclusion is CheckConclusion.TIMED_OUT
    assert not held_for_approval(evidence)
