"""Webhook and workflow events without I/O: the signature check over raw bytes, and payloads
parsed into frozen dataclasses.

Only the fields receipt uses are read, and unknown fields are ignored, so a field GitHub adds never
drops a delivery. A payload that lacks a field receipt needs raises EventError naming it.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import ReceiptError
from bot.github.errors import UnexpectedResponse
from bot.github.pulls import PullRequest, pull_from_json
from bot.github.repo import RepoRef

SIGNATURE_PREFIX = "sha256="
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")


class EventError(ReceiptError, ValueError):
    """The payload is not one receipt handles, or lacks what it needs. A ReceiptError like every
    error that stops a receipt (shells catch that once); a ValueError like the JSON reader's, so the
    webhook answers both with 400."""

    title = "unreadable event"


def signature_of(secret: bytes, body: bytes) -> str:
    """`X-Hub-Signature-256` as GitHub computes it: HMAC-SHA256 of the raw body."""
    return SIGNATURE_PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify_signature(secret: bytes, body: bytes, header: str | None) -> bool:
    """Constant-time check of `X-Hub-Signature-256`; the `sha256=` prefix is required (never SHA-1)."""
    if not secret or not header or not header.startswith(SIGNATURE_PREFIX):
        return False
    return hmac.compare_digest(
        signature_of(secret, body).encode("ascii"), header.strip().encode("ascii", "replace")
    )


@dataclass(frozen=True, slots=True)
class PullRequestEvent:
    name: str
    action: str
    repo: RepoRef
    pull: PullRequest
    installation_id: int | None = None
    base_changed: bool = False  # `edited` with a new base branch
    description_changed: bool = False  # `edited` title or body: the report reads them

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
    action: str = "completed"
    status: str | None = None
    conclusion: str | None = None
    installation_id: int | None = None


@dataclass(frozen=True, slots=True)
class CheckRunEvent:
    action: str
    repo: RepoRef
    run_id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    app_id: int | None
    pull_requests: tuple[PullRef, ...]
    installation_id: int | None = None
    requested_action: str | None = None  # the identifier of the button pressed


@dataclass(frozen=True, slots=True)
class CheckSuiteEvent:
    action: str
    repo: RepoRef
    suite_id: int
    head_sha: str
    status: str | None
    conclusion: str | None
    app_id: int | None
    pull_requests: tuple[PullRef, ...]
    installation_id: int | None = None


@dataclass(frozen=True, slots=True)
class MergeGroupEvent:
    action: str  # checks_requested | destroyed
    repo: RepoRef
    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str
    installation_id: int | None = None
    reason: str | None = None  # why a group was destroyed: merged, invalidated, dequeued


@dataclass(frozen=True, slots=True)
class InstallationEvent:
    name: str  # installation | installation_repositories
    action: str
    installation_id: int
    account: str | None
    repositories: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PingEvent:
    hook_id: int | None
    zen: str


@dataclass(frozen=True, slots=True)
class OtherEvent:
    """An event receipt does not act on; acknowledged and recorded."""

    name: str
    action: str | None


Event = (
    PullRequestEvent
    | WorkflowRunEvent
    | CheckRunEvent
    | CheckSuiteEvent
    | MergeGroupEvent
    | InstallationEvent
    | PingEvent
    | OtherEvent
)


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            raise EventError(f"the event payload has no {'.'.join(keys)}")
        data = data[key]
    return data


def _optional_str(value: Any) -> str | None:
    return str(value) if value is not None else None


def _optional_int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _repo(payload: Any) -> RepoRef:
    try:
        return RepoRef.parse(str(_get(payload, "repository", "full_name")))
    except ValueError as exc:
        raise EventError(f"repository.full_name: {exc}") from exc


def _installation(payload: Any) -> int | None:
    found = payload.get("installation") if isinstance(payload, dict) else None
    return _optional_int(found.get("id")) if isinstance(found, dict) else None


def _pull_refs(items: Any) -> tuple[PullRef, ...]:
    if not isinstance(items, list):
        return ()
    return tuple(PullRef(int(p["number"]), str(p["head"]["sha"])) for p in items)


def _app_id(data: Any) -> int | None:
    app = data.get("app") if isinstance(data, dict) else None
    return _optional_int(app.get("id")) if isinstance(app, dict) else None


def _pull_request_event(name: str, payload: Any) -> PullRequestEvent:
    try:
        pull = pull_from_json(_get(payload, "pull_request"))
    except UnexpectedResponse as exc:
        raise EventError(f"the event's pull_request: {exc.message}") from exc
    changes = payload.get("changes")
    return PullRequestEvent(
        name,
        str(payload.get("action") or ""),
        _repo(payload),
        pull,
        _installation(payload),
        base_changed=isinstance(changes, dict) and "base" in changes,
        description_changed=isinstance(changes, dict) and bool({"title", "body"} & changes.keys()),
    )


def _workflow_run_event(payload: Any) -> WorkflowRunEvent:
    run = _get(payload, "workflow_run")
    head_repo = run.get("head_repository") if isinstance(run, dict) else None
    return WorkflowRunEvent(
        repo=_repo(payload),
        run_id=int(_get(run, "id")),
        workflow=str(run.get("name") or ""),
        event=str(_get(run, "event")),
        head_sha=str(_get(run, "head_sha")),
        head_branch=_optional_str(run.get("head_branch")),
        head_repo=_optional_str(head_repo.get("full_name")) if isinstance(head_repo, dict) else None,
        pull_requests=_pull_refs(_get(run, "pull_requests")),
        html_url=_optional_str(run.get("html_url")),
        action=str(payload.get("action") or "completed"),
        status=_optional_str(run.get("status")),
        conclusion=_optional_str(run.get("conclusion")),
        installation_id=_installation(payload),
    )


def _check_run_event(payload: Any) -> CheckRunEvent:
    run = _get(payload, "check_run")
    requested = payload.get("requested_action")
    return CheckRunEvent(
        action=str(_get(payload, "action")),
        repo=_repo(payload),
        run_id=int(_get(run, "id")),
        name=str(_get(run, "name")),
        head_sha=str(_get(run, "head_sha")),
        status=str(run.get("status") or ""),
        conclusion=_optional_str(run.get("conclusion")),
        app_id=_app_id(run),
        pull_requests=_pull_refs(run.get("pull_requests")),
        installation_id=_installation(payload),
        requested_action=_optional_str(requested.get("identifier")) if isinstance(requested, dict) else None,
    )


def _check_suite_event(payload: Any) -> CheckSuiteEvent:
    suite = _get(payload, "check_suite")
    return CheckSuiteEvent(
        action=str(_get(payload, "action")),
        repo=_repo(payload),
        suite_id=int(_get(suite, "id")),
        head_sha=str(_get(suite, "head_sha")),
        status=_optional_str(suite.get("status")),
        conclusion=_optional_str(suite.get("conclusion")),
        app_id=_app_id(suite),
        pull_requests=_pull_refs(suite.get("pull_requests")),
        installation_id=_installation(payload),
    )


def _merge_group_event(payload: Any) -> MergeGroupEvent:
    group = _get(payload, "merge_group")
    return MergeGroupEvent(
        action=str(_get(payload, "action")),
        repo=_repo(payload),
        head_sha=str(_get(group, "head_sha")),
        head_ref=str(_get(group, "head_ref")),
        base_sha=str(_get(group, "base_sha")),
        base_ref=str(_get(group, "base_ref")),
        installation_id=_installation(payload),
        reason=_optional_str(payload.get("reason")),
    )


def _installation_event(name: str, payload: Any) -> InstallationEvent:
    installation = _get(payload, "installation")
    account = installation.get("account") if isinstance(installation, dict) else None
    key = "repositories" if name == "installation" else "repositories_added"
    listed = payload.get(key) or []
    return InstallationEvent(
        name=name,
        action=str(_get(payload, "action")),
        installation_id=int(_get(installation, "id")),
        account=_optional_str(account.get("login")) if isinstance(account, dict) else None,
        repositories=tuple(str(r["full_name"]) for r in listed if isinstance(r, dict) and "full_name" in r),
    )


def parse_event(name: str, payload: Any) -> Event:
    """The event `name` (`X-GitHub-Event`, or GITHUB_EVENT_NAME) from its decoded JSON payload."""
    if not isinstance(payload, dict):
        raise EventError("the event payload is not a JSON object")
    try:
        if name in PULL_REQUEST_EVENTS:
            return _pull_request_event(name, payload)
        if name == "workflow_run":
            return _workflow_run_event(payload)
        if name == "check_run":
            return _check_run_event(payload)
        if name == "check_suite":
            return _check_suite_event(payload)
        if name == "merge_group":
            return _merge_group_event(payload)
        if name in ("installation", "installation_repositories"):
            return _installation_event(name, payload)
        if name == "ping":
            hook = payload.get("hook")
            return PingEvent(
                _optional_int(hook.get("id")) if isinstance(hook, dict) else None,
                str(payload.get("zen") or ""),
            )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, EventError):
            raise
        raise EventError(f"the {name} payload has an unexpected shape ({exc!r})") from exc
    return OtherEvent(name, _optional_str(payload.get("action")))
