"""Webhook payloads parsed as receipt reads them, and the signature check over raw bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.github.events import (
    CheckRunEvent,
    EventError,
    OtherEvent,
    PullRequestEvent,
    WorkflowRunEvent,
    parse_event,
    signature_of,
    verify_signature,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "webhooks"


def _payload(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_githubs_published_signature_vector() -> None:
    secret, body = b"It's a Secret to Everybody", b"Hello, World!"
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature_of(secret, body) == expected
    assert verify_signature(secret, body, expected)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",  # no prefix
        "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59",  # SHA-1 only
        "sha256=" + "0" * 64,
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1",  # one digit short
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17ü",
    ],
)
def test_missing_wrong_and_sha1_signatures_are_refused(header: str | None) -> None:
    assert not verify_signature(b"It's a Secret to Everybody", b"Hello, World!", header)


def test_an_empty_secret_never_verifies() -> None:
    assert not verify_signature(b"", b"x", signature_of(b"", b"x"))


def test_the_signature_covers_the_exact_bytes() -> None:
    secret = b"s"
    body = json.dumps({"a": 1}).encode()
    assert not verify_signature(secret, body + b" ", signature_of(secret, body))


def test_pull_request_opened() -> None:
    event = parse_event("pull_request", _payload("pull_request.opened.json"))
    assert isinstance(event, PullRequestEvent)
    assert (event.action, event.repo.full_name, event.pull.number) == ("opened", "Codertocat/Hello-World", 2)
    assert not event.base_changed and not event.is_target


def test_an_edit_that_changes_the_base_is_recognised() -> None:
    payload = _payload("pull_request.synchronize.json")
    payload.update(action="edited", changes={"base": {"ref": {"from": "old"}, "sha": {"from": "0" * 40}}})
    event = parse_event("pull_request", payload)
    assert isinstance(event, PullRequestEvent) and event.base_changed


def test_fields_github_adds_are_ignored() -> None:
    payload = _payload("check_run.completed.json")
    payload["a_field_from_the_future"] = {"x": [1, 2]}
    payload["check_run"]["another"] = None
    event = parse_event("check_run", payload)
    assert isinstance(event, CheckRunEvent)
    assert (event.name, event.conclusion, event.app_id) == ("Octocoders-linter", "failure", 29310)
    assert [p.number for p in event.pull_requests] == [2]


def test_workflow_run_completed() -> None:
    event = parse_event("workflow_run", _payload("workflow_run.completed.json"))
    assert isinstance(event, WorkflowRunEvent)
    assert (event.status, event.conclusion, event.run_id) == ("completed", "success", 289782451)


def test_a_missing_required_field_is_named() -> None:
    payload = _payload("check_run.completed.json")
    del payload["check_run"]["head_sha"]
    with pytest.raises(EventError, match=r"check_run\.head_sha|head_sha"):
        parse_event("check_run", payload)


@pytest.mark.parametrize("payload", [[], "x", None, 3])
def test_a_payload_that_is_not_an_object_is_refused(payload: Any) -> None:
    with pytest.raises(EventError, match="not a JSON object"):
        parse_event("pull_request", payload)


def test_a_wrongly_typed_field_is_an_event_error_not_a_crash() -> None:
    payload = _payload("check_run.completed.json")
    payload["check_run"]["id"] = "not a number"
    with pytest.raises(EventError, match="unexpected shape"):
        parse_event("check_run", payload)


def test_events_receipt_does_not_act_on_are_recognised_as_such() -> None:
    assert parse_event("star", {"action": "created"}) == OtherEvent("star", "created")
