"""Every endpoint the fake serves, read through a real githubkit client and parsed with the response
models githubkit generates from GitHub's OpenAPI description: the fake's shapes cannot drift from
GitHub's. Webhook payloads are held to githubkit's webhook models the same way."""

from __future__ import annotations

from typing import Any

import pytest
from githubkit.webhooks import parse, parse_obj

from tests.fakegithub import payloads
from tests.fakegithub.harness import AppWorld, wait_until

OWNER, NAME = "acme", "widgets"


def _parsed(response: Any) -> Any:
    assert response.status_code < 300, response.text
    return response.parsed_data


def test_app_endpoints_parse_as_github_documents_them(github_app: AppWorld) -> None:
    gh = github_app.app_client()
    assert _parsed(gh.rest.apps.get_authenticated()).id == github_app.app.id
    [installation] = _parsed(gh.rest.apps.list_installations())
    assert installation.id == github_app.installation.id
    assert _parsed(gh.rest.apps.get_installation(github_app.installation.id)).app_slug == "receipt"
    assert _parsed(gh.rest.apps.get_repo_installation(OWNER, NAME)).id == github_app.installation.id
    token = _parsed(gh.rest.apps.create_installation_access_token(github_app.installation.id))
    assert token.token.startswith("ghs_") and token.repository_selection == "selected"
    narrowed = _parsed(gh.rest.apps.create_installation_access_token(
        github_app.installation.id, data={"repositories": [NAME], "permissions": {"checks": "write"}}
    ))  # fmt: skip
    assert narrowed.permissions.checks == "write" and [r.full_name for r in narrowed.repositories] == [
        github_app.repo
    ]


def test_deliveries_endpoints_parse(github_app: AppWorld) -> None:
    github_app.webhooks_to(None)
    delivery = github_app.send_pull_request("opened")
    gh = github_app.app_client()
    [item] = _parsed(gh.rest.apps.list_webhook_deliveries())
    assert (item.id, item.guid, item.status) == (delivery.id, delivery.guid, "failed to connect to host")
    detail = _parsed(gh.rest.apps.get_webhook_delivery(delivery.id))
    assert detail.request.headers.model_dump()["X-GitHub-Event"] == "pull_request"
    assert gh.rest.apps.redeliver_webhook_delivery(delivery.id).status_code == 202


def test_repository_endpoints_parse(github_app: AppWorld) -> None:
    gh = github_app.installation_client()
    pull = github_app.pull
    assert _parsed(gh.rest.repos.get(OWNER, NAME)).default_branch == "main"
    assert _parsed(gh.rest.repos.get_branch(OWNER, NAME, "main")).commit.sha == pull.base_sha
    assert _parsed(gh.rest.repos.get_commit(OWNER, NAME, pull.head_sha)).sha == pull.head_sha
    assert _parsed(gh.rest.pulls.get(OWNER, NAME, 7)).head.sha == pull.head_sha
    assert [p.number for p in _parsed(gh.rest.pulls.list(OWNER, NAME))] == [7]
    assert [f.filename for f in _parsed(gh.rest.pulls.list_files(OWNER, NAME, 7))] == ["src/calc.py"]
    assert [
        p.number
        for p in _parsed(gh.rest.repos.list_pull_requests_associated_with_commit(OWNER, NAME, pull.head_sha))
    ] == [7]
    assert (
        _parsed(gh.rest.repos.compare_commits(OWNER, NAME, f"{pull.base_sha}...{pull.head_sha}")).ahead_by
        == 1
    )
    commit = _parsed(gh.rest.git.get_commit(OWNER, NAME, pull.head_sha))
    assert [p.sha for p in commit.parents] == [pull.base_sha] and commit.tree.sha
    assert _parsed(gh.rest.git.get_ref(OWNER, NAME, "heads/main")).object_.sha == pull.base_sha
    tree = _parsed(gh.rest.git.get_tree(OWNER, NAME, pull.head_sha, recursive="1"))
    blob_sha = next(i.sha for i in tree.tree if i.path == "src/calc.py")
    assert _parsed(gh.rest.git.get_blob(OWNER, NAME, blob_sha)).encoding == "base64"
    assert (
        _parsed(gh.rest.repos.get_content(OWNER, NAME, "src/calc.py", ref=pull.head_sha)).path
        == "src/calc.py"
    )
    group = github_app.fake.add_merge_group(pull)
    assert _parsed(gh.rest.git.get_ref(OWNER, NAME, f"heads/{group.head_ref}")).object_.sha == group.head_sha
    assert [
        r.ref for r in _parsed(gh.rest.git.list_matching_refs(OWNER, NAME, "heads/gh-readonly-queue/"))
    ] == [f"refs/heads/{group.head_ref}"]


def test_check_endpoints_parse(github_app: AppWorld) -> None:
    gh = github_app.installation_client()
    head = github_app.pull.head_sha
    actions = [{"label": "Re-evaluate", "description": "Run receipt again", "identifier": "reevaluate"}]
    run = _parsed(gh.rest.checks.create(OWNER, NAME, data={"name": "receipt", "head_sha": head, "status": "in_progress",
                                                             "actions": actions}))  # fmt: skip
    annotation = {
        "path": "src/calc.py",
        "start_line": 1,
        "end_line": 1,
        "annotation_level": "failure",
        "message": "m",
    }
    updated = _parsed(gh.rest.checks.update(OWNER, NAME, run.id, data={
        "conclusion": "failure", "output": {"title": "t", "summary": "s", "annotations": [annotation]}}))  # fmt: skip
    assert updated.status == "completed" and updated.app.id == github_app.app.id
    assert _parsed(gh.rest.checks.get(OWNER, NAME, run.id)).output.annotations_count == 1
    assert [a.path for a in _parsed(gh.rest.checks.list_annotations(OWNER, NAME, run.id))] == ["src/calc.py"]
    listed = _parsed(gh.rest.checks.list_for_ref(OWNER, NAME, head))
    assert listed.total_count == 1 and listed.check_runs[0].id == run.id
    suites = _parsed(gh.rest.checks.list_suites_for_ref(OWNER, NAME, head))
    assert [s.id for s in suites.check_suites] == [run.check_suite.id]
    suite = _parsed(gh.rest.checks.get_suite(OWNER, NAME, run.check_suite.id))
    assert suite.conclusion == "failure" and suite.app.id == github_app.app.id
    assert _parsed(gh.rest.checks.list_for_suite(OWNER, NAME, suite.id)).total_count == 1
    assert gh.rest.checks.rerequest_run(OWNER, NAME, run.id).status_code == 201
    assert gh.rest.checks.rerequest_suite(OWNER, NAME, suite.id).status_code == 201


def test_actions_endpoints_parse(github_app: AppWorld) -> None:
    fake, head = github_app.fake, github_app.pull.head_sha
    held = fake.add_workflow_run(github_app.repo, head, "CI", awaiting_approval=True)
    gh = github_app.installation_client()
    runs = _parsed(gh.rest.actions.list_workflow_runs_for_repo(OWNER, NAME, head_sha=head))
    assert [r.id for r in runs.workflow_runs] == [held["id"]]
    one = _parsed(gh.rest.actions.get_workflow_run(OWNER, NAME, held["id"]))
    assert (one.status, one.conclusion) == ("completed", "action_required")
    assert _parsed(gh.rest.actions.list_jobs_for_workflow_run(OWNER, NAME, held["id"])).total_count == 0
    assert (
        _parsed(gh.rest.actions.list_repo_workflows(OWNER, NAME)).workflows[0].path
        == ".github/workflows/ci.yml"
    )


def test_actions_dispatch_request_body_is_githubs(github_app: AppWorld) -> None:
    fake = github_app.fake
    fake.installation_for(github_app.app.id, github_app.repo).permissions["actions"] = "write"  # type: ignore[union-attr]
    gh = github_app.installation_client()
    assert (
        gh.rest.actions.create_workflow_dispatch(OWNER, NAME, "ci.yml", data={"ref": "main"}).status_code
        == 204
    )
    [dispatch] = fake.dispatches
    assert (dispatch.workflow, dispatch.ref) == (".github/workflows/ci.yml", "main")


@pytest.mark.parametrize(
    ("event", "action"),
    [
        ("pull_request", "opened"), ("pull_request", "synchronize"), ("pull_request", "reopened"),
        ("pull_request", "ready_for_review"), ("pull_request", "edited"), ("pull_request", "closed"),
        ("check_run", "created"), ("check_run", "completed"), ("check_run", "rerequested"),
        ("check_run", "requested_action"), ("check_suite", "completed"), ("check_suite", "requested"),
        ("check_suite", "rerequested"), ("workflow_run", "requested"), ("workflow_run", "in_progress"),
        ("workflow_run", "completed"), ("merge_group", "checks_requested"), ("merge_group", "destroyed"),
        ("installation", "created"), ("installation", "deleted"), ("installation_repositories", "added"),
        ("installation_repositories", "removed"), ("ping", None),
    ],
)  # fmt: skip
def test_every_payload_parses_with_githubs_webhook_models(
    github_app: AppWorld, event: str, action: str | None
) -> None:
    payload = build_payload(github_app, event, action)
    parsed = parse_obj(event, payload)  # type: ignore[call-overload]
    if action is not None:
        assert parsed.action == action


def build_payload(world: AppWorld, event: str, action: str | None) -> dict[str, Any]:
    fake, inst, pull = world.fake, world.installation, world.pull
    if event == "pull_request":
        if action == "edited":
            return payloads.pull_request_base_changed(
                fake, pull, inst, old_ref="develop", old_sha=pull.base_sha
            )
        return payloads.pull_request(fake, str(action), pull, inst, before=pull.base_sha)
    if event == "check_run":
        run = fake.add_check_run(world.repo, pull.head_sha, "test", status="completed", conclusion="success",
                                 app_slug="receipt", emit=False)  # fmt: skip
        return payloads.check_run(fake, str(action), run, inst, requested_action="reevaluate")
    if event == "check_suite":
        run = fake.add_check_run(world.repo, pull.head_sha, "test", status="completed", conclusion="success",
                                 app_slug="receipt", emit=False)  # fmt: skip
        return payloads.check_suite(fake, str(action), fake.check_suites[run["check_suite"]["id"]], inst)
    if event == "workflow_run":
        wf = fake.add_workflow_run(world.repo, pull.head_sha, "CI", emit=False)
        if action == "completed":
            wf = fake.complete_workflow_run(wf["id"], "failure")
        return payloads.workflow_run(fake, str(action), wf, inst)
    if event == "merge_group":
        return payloads.merge_group(fake, str(action), fake.add_merge_group(pull), inst, reason="dequeued")
    if event == "installation":
        return payloads.installation_event(fake, str(action), inst)
    if event == "installation_repositories":
        return payloads.installation_repositories(fake, str(action), inst, added=[world.repo] if action == "added" else [],
                                                  removed=[world.repo] if action == "removed" else [])  # fmt: skip
    assert event == "ping"
    return payloads.ping(fake, world.app)


def test_an_apps_own_run_comes_back_as_a_check_run_event(github_app: AppWorld) -> None:
    from tests.fakegithub.receiver import receiver

    with receiver() as rx:
        github_app.webhooks_to(rx.url)
        gh = github_app.installation_client()
        gh.rest.checks.create(OWNER, NAME, data={"name": "receipt", "head_sha": github_app.pull.head_sha,
                                                  "conclusion": "success"})  # fmt: skip
        github_app.fake.wait_for_deliveries()
        events = wait_until(lambda: [(r.headers["x-github-event"], parse(r.headers["x-github-event"], r.body))  # type: ignore[call-overload]
                                     for r in rx.received], what="the echoed events")  # fmt: skip
    kinds = [(e, p.action) for e, p in events]
    assert kinds == [("check_run", "created"), ("check_run", "completed"), ("check_suite", "completed")]
    assert all(p.check_run.app.id == github_app.app.id for e, p in events if e == "check_run")
