"""The event that started the job, read from GITHUB_EVENT_PATH; parsing lives in bot/github/events.py."""

from __future__ import annotations

from pathlib import Path

from bot.fileread import read_limited
from bot.github.events import (
    PULL_REQUEST_EVENTS,
    EventError,
    PullRef,
    PullRequestEvent,
    WorkflowRunEvent,
    parse_event,
)
from bot.jsonread import MAX_PAYLOAD_BYTES, JsonInputError, load_json_object

WORKFLOW_RUN = "workflow_run"

Event = PullRequestEvent | WorkflowRunEvent


def load_event(name: str, path: Path) -> Event:
    """The event `name` (GITHUB_EVENT_NAME) from its payload file (GITHUB_EVENT_PATH)."""
    if name not in (*PULL_REQUEST_EVENTS, WORKFLOW_RUN):
        raise EventError(
            f"event {name!r} is not supported: run on pull_request or pull_request_target "
            "(mode check or compute), or on workflow_run (mode publish)"
        )
    try:
        data = read_limited(path, MAX_PAYLOAD_BYTES)
    except OSError as exc:
        raise EventError(f"cannot read the event payload {path}: {exc.strerror}") from exc
    try:
        payload = load_json_object(data, f"the event payload {path}", max_bytes=MAX_PAYLOAD_BYTES)
    except JsonInputError as exc:
        raise EventError(exc.problem) from exc
    event = parse_event(name, payload)
    assert isinstance(event, PullRequestEvent | WorkflowRunEvent)
    return event


__all__ = ["Event", "EventError", "PullRef", "PullRequestEvent", "WorkflowRunEvent", "load_event"]
