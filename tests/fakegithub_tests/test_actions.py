"""Workflow runs, approval holds, jobs and workflow_dispatch, as the App reads and triggers them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fakegithub.harness import AppWorld
from tests.fakegithub.receiver import Receiver, receiver


@pytest.fixture
def token(github_app: AppWorld) -> str:
    github_app.installation.permissions["actions"] = "write"
    gh = github_app.app_client()
    return gh.rest.apps.create_installation_access_token(github_app.installation.id).parsed_data.token


@pytest.fixture
def rx(github_app: AppWorld) -> Iterator[Receiver]:
    with receiver() as found:
        github_app.webhooks_to(found.url)
        yield found


def _get(world: AppWorld, token: str, path: str, **params: Any) -> httpx.Response:
    return httpx.get(world.api_url + path, params=params, headers={"Authorization": f"token {token}"})


def _dispatch(world: AppWorld, token: str, workflow: str, body: Any) -> httpx.Response:
    return httpx.post(f"{world.api_url}/repos/acme/widgets/actions/workflows/{workflow}/dispatches", json=body,
                      headers={"Authorization": f"token {token}"})  # fmt: skip


def test_runs_are_listed_with_githubs_filters(github_app: AppWorld, token: str) -> None:
    fake, head = github_app.fake, github_app.pull.head_sha
    ci = fake.add_workflow_run(github_app.repo, head, "CI", emit=False)
    lint = fake.add_workflow_run(
        github_app.repo, head, "Lint", event="push", status="completed", conclusion="success", emit=False
    )
    other = fake.add_workflow_run(github_app.repo, github_app.pull.base_sha, "CI", event="push", emit=False)

    def ids(**params: Any) -> list[int]:
        return [
            r["id"]
            for r in _get(github_app, token, "/repos/acme/widgets/actions/runs", **params).json()[
                "workflow_runs"
            ]
        ]

    assert ids() == [other["id"], lint["id"], ci["id"]]
    assert ids(head_sha=head) == [lint["id"], ci["id"]]
    assert ids(event="pull_request") == [ci["id"]]
    assert ids(status="success") == [lint["id"]]
    assert ids(status="queued") == [other["id"], ci["id"]]
    run = _get(github_app, token, f"/repos/acme/widgets/actions/runs/{ci['id']}").json()
    assert (run["name"], run["event"], run["head_sha"], run["status"]) == (
        "CI",
        "pull_request",
        head,
        "queued",
    )
    assert [p["number"] for p in run["pull_requests"]] == [7]


def test_a_run_held_for_approval_has_no_jobs_until_approved(
    github_app: AppWorld, token: str, rx: Receiver
) -> None:
    fake = github_app.fake
    held = fake.add_workflow_run(github_app.repo, github_app.pull.head_sha, "CI", awaiting_approval=True)
    fake.wait_for_deliveries()
    assert [json.loads(r.body)["action"] for r in rx.received] == ["requested", "completed"]
    assert json.loads(rx.received[-1].body)["workflow_run"]["conclusion"] == "action_required"
    jobs = _get(github_app, token, f"/repos/acme/widgets/actions/runs/{held['id']}/jobs").json()
    assert jobs == {"total_count": 0, "jobs": []}
    fake.approve_workflow_run(held["id"])
    fake.add_check_run(github_app.repo, github_app.pull.head_sha, "test", status="in_progress", emit=False)
    fake.update_workflow_run(held["id"], status="in_progress")
    fake.complete_workflow_run(held["id"], "success")
    fake.wait_for_deliveries()
    actions = [
        json.loads(r.body)["action"] for r in rx.received if r.headers["x-github-event"] == "workflow_run"
    ]
    assert actions == ["requested", "completed", "requested", "in_progress", "completed"]
    assert (
        _get(github_app, token, f"/repos/acme/widgets/actions/runs/{held['id']}/jobs").json()["total_count"]
        == 1
    )


def test_dispatch_needs_a_workflow_with_the_trigger_at_the_ref(github_app: AppWorld, token: str) -> None:
    fake = github_app.fake
    assert _dispatch(github_app, token, "ci.yml", {"ref": "main", "inputs": {"pr": "7"}}).status_code == 204
    [dispatch] = fake.dispatches
    assert (dispatch.repo, dispatch.workflow, dispatch.ref, dispatch.inputs) == (
        "acme/widgets",
        ".github/workflows/ci.yml",
        "main",
        {"pr": "7"},
    )
    [run] = fake.workflow_runs.values()
    assert (run["event"], run["head_branch"], run["status"]) == ("workflow_dispatch", "main", "queued")
    missing = _dispatch(github_app, token, "deploy.yml", {"ref": "main"})
    assert missing.status_code == 404
    no_ref = _dispatch(github_app, token, "ci.yml", {"ref": "nowhere"})
    assert (no_ref.status_code, no_ref.json()["message"]) == (422, "No ref found for: nowhere")
    assert _dispatch(github_app, token, "ci.yml", {}).status_code == 422
    github_app.commit_to_base({".github/workflows/ci.yml": "name: CI\non: [pull_request]\njobs: {}\n"})
    no_trigger = _dispatch(github_app, token, "ci.yml", {"ref": "main"})
    assert (no_trigger.status_code, no_trigger.json()["message"]) == (
        422,
        "Workflow does not have 'workflow_dispatch' trigger",
    )
    gh = github_app.app_client()
    read_only = gh.rest.apps.create_installation_access_token(
        github_app.installation.id, data={"permissions": {"actions": "read"}}
    ).parsed_data.token
    refused = _dispatch(github_app, read_only, "ci.yml", {"ref": "feature"})
    assert refused.status_code == 403 and refused.headers["x-accepted-github-permissions"] == "actions=write"
