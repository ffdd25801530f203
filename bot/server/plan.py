"""What a delivery asks for, decided without I/O: an event in, intents out.

The store turns intents into jobs in the transaction that records the delivery (it knows which
heads the App is already watching); the worker carries the jobs out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.github.events import (
    CheckRunEvent,
    CheckSuiteEvent,
    Event,
    InstallationEvent,
    MergeGroupEvent,
    OtherEvent,
    PingEvent,
    PullRequestEvent,
    WorkflowRunEvent,
)
from bot.github.publisher import REEVALUATE
from bot.github.pulls import PullRequest

EVALUATED_ACTIONS = frozenset(
    {"opened", "synchronize", "reopened", "ready_for_review", "labeled", "unlabeled"}
)
NEW_HEAD_ACTIONS = frozenset({"opened", "synchronize", "reopened"})


def pr_key(repo: str, number: int) -> str:
    return f"pr:{repo}#{number}"


def group_key(repo: str, head_sha: str) -> str:
    return f"group:{repo}@{head_sha}"


def head_key(repo: str, head_sha: str) -> str:
    return f"head:{repo}@{head_sha}"


@dataclass(frozen=True, slots=True)
class Evaluate:
    """Compute and publish the receipt of `head_sha`."""

    repo: str
    head_sha: str
    installation_id: int | None
    reason: str
    key: str | None  # None: the store finds the pull request the head belongs to
    pr: int | None = None
    spec: dict[str, Any] = field(default_factory=dict)
    supersede: bool = False  # a new head: older pending heads of the same key are superseded
    fresh_run: bool = False  # post a new run rather than update the head's latest one


@dataclass(frozen=True, slots=True)
class Refresh:
    """Another app's check finished on `head_sha`: re-evaluate if the App is watching that head."""

    repo: str
    head_sha: str
    installation_id: int | None


@dataclass(frozen=True, slots=True)
class Cancel:
    """Drop pending work for `key`; a run in progress on `head_sha` ends, saying why."""

    repo: str
    key: str
    head_sha: str | None
    installation_id: int | None
    reason: str


Intent = Evaluate | Refresh | Cancel


@dataclass(frozen=True, slots=True)
class Plan:
    outcome: str  # queued | ignored | ping
    detail: str
    intents: tuple[Intent, ...] = ()


def pull_spec(pull: PullRequest) -> dict[str, Any]:
    """What the worker needs of a pull request, as the delivery described it (JSON)."""
    return {
        "number": pull.number,
        "state": pull.state,
        "base_ref": pull.base_ref,
        "base_sha": pull.base_sha,
        "head_ref": pull.head_ref,
        "head_sha": pull.head_sha,
        "head_repo": pull.head_repo,
        "author": pull.author,
        "labels": list(pull.labels),
        "changed_files": pull.changed_files,
        "title": pull.title,
        "body": pull.body,
    }


def pull_from_spec(spec: dict[str, Any]) -> PullRequest:
    return PullRequest(
        number=int(spec["number"]),
        state=str(spec.get("state") or "open"),
        base_ref=str(spec["base_ref"]),
        base_sha=str(spec["base_sha"]),
        head_ref=str(spec["head_ref"]),
        head_sha=str(spec["head_sha"]),
        head_repo=spec.get("head_repo"),
        author=spec.get("author"),
        labels=tuple(spec.get("labels") or ()),
        changed_files=spec.get("changed_files"),
        title=spec.get("title"),
        body=spec.get("body"),
    )


def _ignored(detail: str) -> Plan:
    return Plan("ignored", detail)


def _pull_request(event: PullRequestEvent) -> Plan:
    repo, pull = event.repo.full_name, event.pull
    if event.name != "pull_request":
        return _ignored("pull_request_target is the Action's event; the App acts on pull_request")
    key = pr_key(repo, pull.number)
    if event.action == "closed":
        cancel = Cancel(repo, key, pull.head_sha, event.installation_id, "the pull request was closed")
        return Plan("queued", "closed: pending work dropped", (cancel,))
    edited = event.action == "edited" and (event.base_changed or event.description_changed)
    if event.action in EVALUATED_ACTIONS or edited:
        intent = Evaluate(
            repo,
            pull.head_sha,
            event.installation_id,
            reason=event.action,
            key=key,
            pr=pull.number,
            spec={"pull": pull_spec(pull)},
            supersede=event.action in NEW_HEAD_ACTIONS or (edited and event.base_changed),
        )
        return Plan("queued", f"{event.action}: receipt for {pull.head_sha[:12]}", (intent,))
    return _ignored(f"pull_request.{event.action} does not change the receipt")


def _pull_number(head_sha: str, refs: Any) -> int | None:
    numbers = [p.number for p in refs if p.head_sha == head_sha]
    return numbers[0] if len(numbers) == 1 else None


def _own_check(event: CheckRunEvent | CheckSuiteEvent, what: str) -> Plan:
    repo = event.repo.full_name
    wanted = event.action == "rerequested" or (
        isinstance(event, CheckRunEvent)
        and event.action == "requested_action"
        and event.requested_action == REEVALUATE
    )
    if not wanted:
        return _ignored(f"the App's own {what}.{event.action}")
    pr = _pull_number(event.head_sha, event.pull_requests)
    intent = Evaluate(
        repo,
        event.head_sha,
        event.installation_id,
        reason=event.action,
        key=pr_key(repo, pr) if pr is not None else None,
        pr=pr,
        fresh_run=True,
    )
    return Plan("queued", f"{what}.{event.action}: a new receipt for {event.head_sha[:12]}", (intent,))


def _others_check(event: CheckRunEvent | CheckSuiteEvent | WorkflowRunEvent, what: str) -> Plan:
    if event.action not in ("completed", "requested", "in_progress"):
        return _ignored(f"{what}.{event.action} does not change the receipt")
    intent = Refresh(event.repo.full_name, event.head_sha, event.installation_id)
    return Plan("queued", f"{what}.{event.action} on {event.head_sha[:12]}", (intent,))


def _merge_group(event: MergeGroupEvent) -> Plan:
    repo = event.repo.full_name
    key = group_key(repo, event.head_sha)
    if event.action == "destroyed":
        reason = f"the merge group was destroyed ({event.reason or 'no reason given'})"
        return Plan("queued", reason, (Cancel(repo, key, event.head_sha, event.installation_id, reason),))
    if event.action != "checks_requested":
        return _ignored(f"merge_group.{event.action} does not change the receipt")
    spec = {"group": {"base_sha": event.base_sha, "base_ref": event.base_ref, "head_ref": event.head_ref}}
    intent = Evaluate(repo, event.head_sha, event.installation_id, reason="merge_group", key=key, spec=spec)
    return Plan("queued", f"merge group {event.head_ref}", (intent,))


def plan(event: Event, *, app_id: int | None) -> Plan:
    """What the App does for one delivery. Its own check runs never start an evaluation loop."""
    if isinstance(event, PingEvent):
        return Plan("ping", event.zen or "pong")
    if isinstance(event, PullRequestEvent):
        return _pull_request(event)
    if isinstance(event, CheckRunEvent | CheckSuiteEvent):
        what = "check_run" if isinstance(event, CheckRunEvent) else "check_suite"
        if app_id is not None and event.app_id == app_id:
            return _own_check(event, what)
        return _others_check(event, what)
    if isinstance(event, WorkflowRunEvent):
        return _others_check(event, "workflow_run")
    if isinstance(event, MergeGroupEvent):
        return _merge_group(event)
    if isinstance(event, InstallationEvent):
        return _ignored(f"{event.name}.{event.action} acknowledged for installation {event.installation_id}")
    assert isinstance(event, OtherEvent)
    return _ignored(f"{event.name} is not an event the App acts on")
