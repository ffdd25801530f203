"""Webhook payloads shaped like @octokit/webhooks-examples, rewritten onto the fake's own objects.

Each builder starts from the vendored example for its event and action (tests/fixtures/webhooks,
one `event.action.json` per file), keeps its envelope, and puts in the fake's repository, pull
request, check run, suite, workflow run, installation and sender, so a payload names only things
the fake serves. Three actions have no example in the package and are derived from a sibling, as
GitHub's schema describes them: `pull_request.edited` (from synchronize, plus `changes`),
`workflow_run.in_progress` (from requested) and `merge_group.destroyed` (from checks_requested, plus
`reason`). Check, suite and workflow-run payloads list only same-repository pull requests: GitHub
leaves `pull_requests` empty for a fork's head.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import TYPE_CHECKING, Any

from tests.fakegithub import gitdata, shapes
from tests.fakegithub.apps import FakeApp, FakeInstallation

if TYPE_CHECKING:
    from tests.fakegithub.mergequeue import MergeGroup
    from tests.fakegithub.state import FakeGitHub, FakePull

DERIVED = {
    "pull_request.edited": "pull_request.synchronize",
    "workflow_run.in_progress": "workflow_run.requested",
    "merge_group.destroyed": "merge_group.checks_requested",
}
OCTOCAT = "octocat"


@cache
def _example_text(name: str) -> str:
    return (shapes.FIXTURES / f"{name}.json").read_text(encoding="utf-8")


def example(event: str, action: str | None = None) -> dict[str, Any]:
    """A fresh copy of the vendored example for `event.action` (or the sibling it is derived from)."""
    name = event if action is None else f"{event}.{action}"
    data: dict[str, Any] = json.loads(_example_text(DERIVED.get(name, name)))
    if action is not None:
        data["action"] = action
    return data


def _installation_ref(installation: FakeInstallation) -> dict[str, Any]:
    return {"id": installation.id, "node_id": f"MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u{installation.id}"}


def _envelope(
    fake: FakeGitHub, event: str, action: str | None, *, repo: str | None,
    installation: FakeInstallation | None, sender: dict[str, Any] | None,
) -> dict[str, Any]:  # fmt: skip
    data = example(event, action)
    data.pop("organization", None)
    data.pop("enterprise", None)
    if repo is not None:
        data["repository"] = shapes.repo_of(fake, repo)
    else:
        data.pop("repository", None)
    data["sender"] = sender or shapes.user(OCTOCAT)
    if installation is not None:
        data["installation"] = _installation_ref(installation)
    return data


def _pull_requests(fake: FakeGitHub, repo: str, head_sha: str) -> list[dict[str, Any]]:
    return [shapes.minimal_pull(p, fake) for p in fake.pulls_for_head(repo, head_sha)]


def pull_request(
    fake: FakeGitHub,
    action: str,
    pull: FakePull,
    installation: FakeInstallation | None = None,
    *,
    before: str | None = None,
    changes: dict[str, Any] | None = None,
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`pull_request.<action>` for `pull`; `synchronize` needs `before` (the previous head),
    `edited` takes `changes` (e.g. `{"base": {"ref": {"from": "old"}, "sha": {"from": sha}}}`)."""
    data = _envelope(fake, "pull_request", action, repo=pull.repo, installation=installation,
                     sender=sender or shapes.user(pull.author, "Bot" if pull.author.endswith("[bot]") else "User"))  # fmt: skip
    data["number"] = pull.number
    data["pull_request"] = shapes.pull(pull, fake.repos[pull.repo], fake)
    if action == "closed":
        data["pull_request"]["state"] = "closed"
    if action == "synchronize":
        data["before"], data["after"] = before or pull.base_sha, pull.head_sha
    else:
        data.pop("before", None)
        data.pop("after", None)
    if action == "edited":
        data["changes"] = changes if changes is not None else {}
    return data


def pull_request_base_changed(
    fake: FakeGitHub, pull: FakePull, installation: FakeInstallation, *, old_ref: str, old_sha: str
) -> dict[str, Any]:
    """`pull_request.edited` as GitHub sends it when the base branch was changed."""
    changes = {"base": {"ref": {"from": old_ref}, "sha": {"from": old_sha}}}
    return pull_request(fake, "edited", pull, installation, changes=changes)


def _suite_for_payload(suite: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(suite)
    data.pop("repository", None)
    return data


def check_run(
    fake: FakeGitHub,
    action: str,
    run: dict[str, Any],
    installation: FakeInstallation | None,
    *,
    requested_action: str | None = None,
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    repo = run["url"].split("/repos/", 1)[1].rsplit("/check-runs/", 1)[0]
    data = _envelope(fake, "check_run", action, repo=repo, installation=installation, sender=sender)
    body = copy.deepcopy(run)
    body["pull_requests"] = _pull_requests(fake, repo, run["head_sha"])
    suite = fake.check_suites.get(run["check_suite"]["id"])
    if suite is not None:
        body["check_suite"] = _suite_for_payload(suite)
        body["check_suite"]["pull_requests"] = body["pull_requests"]
    data["check_run"] = body
    if action == "requested_action":
        data["requested_action"] = {"identifier": requested_action or ""}
    else:
        data.pop("requested_action", None)
    return data


def check_suite(
    fake: FakeGitHub,
    action: str,
    suite: dict[str, Any],
    installation: FakeInstallation | None,
    *,
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    repo = suite["repository"]["full_name"]
    data = _envelope(fake, "check_suite", action, repo=repo, installation=installation, sender=sender)
    body = _suite_for_payload(suite)
    body["pull_requests"] = _pull_requests(fake, repo, suite["head_sha"])
    data["check_suite"] = body
    return data


def workflow_run(
    fake: FakeGitHub,
    action: str,
    run: dict[str, Any],
    installation: FakeInstallation | None,
    *,
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    repo = run["repository"]["full_name"]
    data = _envelope(fake, "workflow_run", action, repo=repo, installation=installation,
                     sender=sender or run["actor"])  # fmt: skip
    body = copy.deepcopy(run)
    body["pull_requests"] = _pull_requests(fake, repo, run["head_sha"])
    data["workflow_run"] = body
    data["workflow"] = shapes.workflow(repo, run["workflow_id"], run["name"], run["path"])
    return data


def merge_group(
    fake: FakeGitHub,
    action: str,
    group: MergeGroup,
    installation: FakeInstallation | None,
    *,
    reason: str = "merged",
) -> dict[str, Any]:
    """`merge_group.checks_requested`, or `destroyed` with `reason` (merged, invalidated, dequeued)."""
    data = _envelope(fake, "merge_group", action, repo=group.repo, installation=installation, sender=None)
    root = fake.repos[group.repo]
    data["merge_group"] = {
        "head_sha": group.head_sha,
        "head_ref": f"refs/heads/{group.head_ref}",
        "base_sha": group.base_sha,
        "base_ref": f"refs/heads/{group.base_ref}",
        "head_commit": shapes.simple_commit(gitdata.commit_info(root, group.head_sha)),
    }
    if action == "destroyed":
        data["reason"] = reason
    return data


def installation_event(fake: FakeGitHub, action: str, installation: FakeInstallation) -> dict[str, Any]:
    """`installation.created` / `deleted`, listing the repositories it covers."""
    app = fake.apps[installation.app_id]
    data = _envelope(fake, "installation", action, repo=None, installation=None, sender=None)
    data["installation"] = shapes.installation_object(installation, app)
    data["repositories"] = [_repo_ref(fake, r) for r in sorted(fake.repos) if installation.covers(r)]
    data.pop("requester", None)
    return data


def _repo_ref(fake: FakeGitHub, full_name: str) -> dict[str, Any]:
    info = fake.repo_info.get(full_name)
    return {"id": fake.repo_id(full_name), "node_id": f"R_{fake.repo_id(full_name)}",
            "name": full_name.split("/")[1], "full_name": full_name,
            "private": bool(info and info.private)}  # fmt: skip


def installation_repositories(
    fake: FakeGitHub,
    action: str,
    installation: FakeInstallation,
    *,
    added: list[str] = (),  # type: ignore[assignment]
    removed: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    app = fake.apps[installation.app_id]
    data = _envelope(fake, "installation_repositories", action, repo=None, installation=None, sender=None)
    data["installation"] = shapes.installation_object(installation, app)
    data["repository_selection"] = installation.repository_selection
    data["repositories_added"] = [_repo_ref(fake, r) for r in added]
    data["repositories_removed"] = [_repo_ref(fake, r) for r in removed]
    data["requester"] = None
    return data


def ping(fake: FakeGitHub, app: FakeApp) -> dict[str, Any]:
    """The ping GitHub sends when an App's webhook is set up."""
    data = example("ping")
    data.pop("repository", None)
    data["sender"] = shapes.user(app.owner, "Organization")
    data["hook_id"] = app.hook_id
    data["hook"].update(
        type="App", id=app.hook_id, app_id=app.id, events=list(app.events),
        config={"content_type": "json", "insecure_ssl": "0", "url": app.webhook_url or ""},
        created_at=app.created_at, updated_at=app.created_at,
    )  # fmt: skip
    for key in ("url", "test_url", "ping_url"):
        data["hook"].pop(key, None)
    data["hook"]["deliveries_url"] = f"{shapes.API}/app/hook/deliveries"
    return data
