"""What each delivery asks for, decided without I/O."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.github.events import parse_event
from bot.server.plan import Cancel, Evaluate, Refresh, plan, pr_key, pull_from_spec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "webhooks"
APP_ID = 29310  # the app that created the fixture's check run


def _payload(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened", "ready_for_review", "labeled"])
def test_pull_request_actions_that_change_the_receipt_evaluate_the_head(action: str) -> None:
    payload = _payload("pull_request.opened.json")
    payload["action"] = action
    decided = plan(parse_event("pull_request", payload), app_id=APP_ID)
    [intent] = decided.intents
    assert isinstance(intent, Evaluate)
    assert (
        intent.key == pr_key("Codertocat/Hello-World", 2)
        and intent.head_sha == payload["pull_request"]["head"]["sha"]
    )
    assert intent.supersede == (action in ("opened", "synchronize", "reopened"))
    assert pull_from_spec(intent.spec["pull"]).number == 2


def test_an_edit_counts_only_when_the_base_changed() -> None:
    payload = _payload("pull_request.opened.json")
    payload["action"] = "edited"
    assert plan(parse_event("pull_request", payload), app_id=APP_ID).intents == ()
    payload["changes"] = {"base": {"ref": {"from": "old"}}}
    [intent] = plan(parse_event("pull_request", payload), app_id=APP_ID).intents
    assert isinstance(intent, Evaluate) and intent.supersede


def test_an_edited_title_or_body_reevaluates_the_same_head_for_the_report() -> None:
    payload = _payload("pull_request.opened.json")
    payload.update(action="edited", changes={"body": {"from": "old text"}})
    [intent] = plan(parse_event("pull_request", payload), app_id=APP_ID).intents
    assert isinstance(intent, Evaluate) and not intent.supersede


def test_closing_cancels_pending_work() -> None:
    payload = _payload("pull_request.opened.json")
    payload["action"] = "closed"
    [intent] = plan(parse_event("pull_request", payload), app_id=APP_ID).intents
    assert isinstance(intent, Cancel) and intent.head_sha == payload["pull_request"]["head"]["sha"]


def test_the_apps_own_check_runs_never_start_an_evaluation() -> None:
    for action in ("created", "completed"):
        payload = _payload("check_run.completed.json")
        payload["action"] = action
        assert plan(parse_event("check_run", payload), app_id=APP_ID).intents == ()


def test_rerequest_and_the_reevaluate_button_ask_for_a_fresh_run() -> None:
    payload = _payload("check_run.completed.json")
    payload["action"] = "rerequested"
    [intent] = plan(parse_event("check_run", payload), app_id=APP_ID).intents
    assert isinstance(intent, Evaluate) and intent.fresh_run and intent.pr == 2
    payload.update(action="requested_action", requested_action={"identifier": "reevaluate"})
    assert plan(parse_event("check_run", payload), app_id=APP_ID).intents
    payload["requested_action"] = {"identifier": "something-else"}
    assert plan(parse_event("check_run", payload), app_id=APP_ID).intents == ()


def test_another_apps_completed_check_refreshes_the_head() -> None:
    [intent] = plan(parse_event("check_run", _payload("check_run.completed.json")), app_id=1).intents
    assert isinstance(intent, Refresh)
    [flow] = plan(parse_event("workflow_run", _payload("workflow_run.completed.json")), app_id=1).intents
    assert isinstance(flow, Refresh)


def test_ping_and_unknown_events() -> None:
    assert (
        plan(parse_event("ping", {"zen": "Keep it logically awesome.", "hook": {"id": 1}}), app_id=1).outcome
        == "ping"
    )
    assert plan(parse_event("star", {"action": "created"}), app_id=1).outcome == "ignored"
