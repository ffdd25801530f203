"""The event that started the job, read from GITHUB_EVENT_PATH into frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.github.errors import UnexpectedResponse
from bot.github.pulls import PullRequest, pull_from_json
from bot.github.repo import RepoRef
from bot.jsonread import JsonInputError, load_json_object

PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
MAX_PAYLOAD_BYTES = 25 << 20  # GitHub caps webhook payloads at 25 MB
WORKFLOW_RUN = "workflow_run"


class EventError(ValueError):
    """The event is not one the action handles, or its payload lacks what it needs."""


@dataclass(frozen=True, slots=True)
class PullRequestEvent:
    name: str
    repo: RepoRef
    pull: PullRequest

    @property
    def is_target(self) -> bool:
        """`pull_request_target`: a write token beside the pull request's code; tests never run."""
        return self.name == "pull_request_target"

    @property
    def is_fork(self) -> bool:
        return self.pull.head_repo != self.repo.full_name


@dataclass(frozen=True, slots=True)
class PullRef:
    number: int
    head_sha: str


@dataclass(frozen=True, slots=True)
class WorkflowRunEvent:
    repo: RepoRef
    run_id: int
    workflow: str
    event: str
    head_sha: str
    head_branch: str | None
    head_repo: str | None
    pull_requests: tuple[PullRef, ...]
    html_url: str | None


Event = PullRequestEvent | WorkflowRunEvent


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            raise EventError(f"the event payload has no {'.'.join(keys)}")
        data = data[key]
    return data


def _repo(payload: Any) -> RepoRef:
    try:
        return RepoRef.parse(str(_get(payload, "repository", "full_name")))
    except ValueError as exc:
        raise EventError(f"repository.full_name: {exc}") from exc


def _pull_request_event(name: str, payload: Any) -> PullRequestEvent:
    try:
        pull = pull_from_json(_get(payload, "pull_request"))
    except UnexpectedResponse as exc:
        raise EventError(f"the event's pull_request: {exc.message}") from exc
    return PullRequestEvent(name, _repo(payload), pull)


def _optional_str(value: Any) -> str | None:
    return str(value) if value is not None else None


def _workflow_run_event(payload: Any) -> WorkflowRunEvent:
    run = _get(payload, "workflow_run")
    head_repo = run.get("head_repository") if isinstance(run, dict) else None
    try:
        pulls = tuple(
            PullRef(int(p["number"]), str(p["head"]["sha"]))
            for p in _get(payload, "workflow_run", "pull_requests")
        )
        return WorkflowRunEvent(
            repo=_repo(payload),
            run_id=int(_get(run, "id")),
            workflow=str(run.get("name") or ""),
            event=str(_get(run, "event")),
            head_sha=str(_get(run, "head_sha")),
            head_branch=_optional_str(run.get("head_branch")),
            head_repo=_optional_str(head_repo.get("full_name")) if isinstance(head_repo, dict) else None,
            pull_requests=pulls,
            html_url=_optional_str(run.get("html_url")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise EventError(f"the event's workflow_run: unexpected shape ({exc})") from exc


def load_event(name: str, path: Path) -> Event:
    """The event `name` (GITHUB_EVENT_NAME) from its payload file (GITHUB_EVENT_PATH)."""
    if name not in (*PULL_REQUEST_EVENTS, WORKFLOW_RUN):
        raise EventError(
            f"event {name!r} is not supported: run on pull_request or pull_request_target "
            "(mode check or compute), or on workflow_run (mode publish)"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EventError(f"cannot read the event payload {path}: {exc.strerror}") from exc
    try:
        payload = load_json_object(data, f"the event payload {path}", max_bytes=MAX_PAYLOAD_BYTES)
    except JsonInputError as exc:
        raise EventError(exc.problem) from exc
    if name == WORKFLOW_RUN:
        return _workflow_run_event(payload)
    return _pull_request_event(name, payload)
