"""GitHub Actions as the App sees it: workflow runs (each with its own check suite of the
github-actions app), their jobs, the workflows a repository holds, and `workflow_dispatch`.

A run GitHub holds for approval (a first-time contributor's or a coding agent's pull request) is
`status: completed`, `conclusion: action_required`, with no jobs, until someone with write access
approves it; then it is queued again. `workflow_run` events go to apps subscribed to them that may
read actions.
"""

from __future__ import annotations

import copy
import re
import zlib
from typing import TYPE_CHECKING, Any

import yaml

from tests.fakegithub import checks, gitdata, payloads, shapes
from tests.fakegithub.apps import FakeApp, FakeInstallation

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub

ACTIONS_READ = ("actions", "read")
WORKFLOWS_DIR = ".github/workflows/"


def workflow_id(repo: str, path: str) -> int:
    return zlib.crc32(f"{repo}:{path}".encode()) % 90_000_000 + 10_000_000


def workflows_at(root: Any, ref: str) -> dict[str, str]:
    """The workflow files at `ref`: path -> text."""
    found = {}
    for item in gitdata.tree(root, ref):
        name = item.path.removeprefix(WORKFLOWS_DIR)
        if item.type == "blob" and name != item.path and "/" not in name and name.endswith((".yml", ".yaml")):
            found[item.path] = gitdata.blob(root, item.sha).decode("utf-8", "replace")
    return found


def triggers(text: str) -> set[str]:
    """The events a workflow file's `on:` names (YAML 1.1 reads a bare `on` key as True)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return set()
    if not isinstance(data, dict):
        return set()
    on = data.get("on", data.get(True))
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return {str(e) for e in on}
    if isinstance(on, dict):
        return {str(e) for e in on}
    return set()


def workflow_name(path: str, text: str) -> str:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    name = data.get("name") if isinstance(data, dict) else None
    return str(name) if name else path


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "workflow"


def _emit(fake: FakeGitHub, action: str, run: dict[str, Any]) -> None:
    def build(_: FakeApp, installation: FakeInstallation) -> dict[str, Any]:
        return payloads.workflow_run(fake, action, run, installation)

    fake.emit("workflow_run", build, repo=run["repository"]["full_name"], permission=ACTIONS_READ)


def add_workflow_run(
    fake: FakeGitHub,
    repo: str,
    head_sha: str,
    name: str = "CI",
    *,
    event: str = "pull_request",
    status: str = "queued",
    conclusion: str | None = None,
    path: str | None = None,
    head_branch: str | None = None,
    head_repo: str | None = None,
    actor: str = "octocat",
    awaiting_approval: bool = False,
    emit: bool = True,
) -> dict[str, Any]:
    """A workflow run for `head_sha`. `awaiting_approval` holds it as GitHub holds a first-time
    contributor's run (completed / action_required, no jobs). With `emit`, `workflow_run.requested`
    (and `completed` when it already is) go to subscribed apps."""
    path = path or f"{WORKFLOWS_DIR}{_slug(name)}.yml"
    pulls = fake.pulls_for_head(repo, head_sha, forks=True)
    branch = head_branch or (pulls[0].head_ref if pulls else fake.repo_info[repo].default_branch)
    head_repo = head_repo or (pulls[0].head_repo if pulls and pulls[0].head_repo else repo)
    suite = checks.suite_for(
        fake, repo, checks.app_object_for_slug(fake, "github-actions"), head_sha, new=True
    )
    run_id = fake.next_run_id()
    with fake.lock:
        number = 1 + sum(1 for r in fake.workflow_runs.values() if r["repository"]["full_name"] == repo)
    run = shapes.workflow_run(
        shapes.repo_of(fake, repo), shapes.repo_of(fake, head_repo), run_id, name=name,
        workflow_id=workflow_id(repo, path), path=path, event=event, head_sha=head_sha, head_branch=branch,
        head_commit=shapes.simple_commit(gitdata.commit_info(fake.repos[repo], head_sha)), suite_id=suite["id"],
        run_number=number, actor=shapes.user(actor), created_at=fake.iso_now(),
    )  # fmt: skip
    run["pull_requests"] = [shapes.minimal_pull(p, fake) for p in fake.pulls_for_head(repo, head_sha)]
    if awaiting_approval:
        status, conclusion = "completed", "action_required"
    run["status"], run["conclusion"] = status, conclusion
    suite.update(status=status if status in ("queued", "in_progress", "completed") else "queued",
                 conclusion=conclusion)  # fmt: skip
    with fake.lock:
        fake.workflow_runs[run_id] = run
    if emit and fake.emit_events:
        _emit(fake, "requested", run)
        if status == "in_progress":
            _emit(fake, "in_progress", run)
        if status == "completed":
            _emit(fake, "completed", run)
    return run


def update_workflow_run(
    fake: FakeGitHub,
    run_id: int,
    *,
    status: str | None = None,
    conclusion: str | None = None,
    emit: bool = True,
) -> dict[str, Any]:
    run = fake.workflow_runs[run_id]
    before = run["status"]
    if status is not None:
        run["status"] = status
    if conclusion is not None or status == "completed":
        run["status"], run["conclusion"] = "completed", conclusion or run["conclusion"] or "success"
    run["updated_at"] = fake.iso_now()
    suite = fake.check_suites.get(run["check_suite_id"])
    if suite is not None:
        suite.update(status=run["status"], conclusion=run["conclusion"], updated_at=run["updated_at"])
    if emit and fake.emit_events and run["status"] != before:
        if run["status"] == "in_progress":
            _emit(fake, "in_progress", run)
        elif run["status"] == "completed":
            _emit(fake, "completed", run)
    return run


def approve_workflow_run(fake: FakeGitHub, run_id: int) -> dict[str, Any]:
    run = fake.workflow_runs[run_id]
    if run["conclusion"] != "action_required":
        raise ValueError(f"workflow run {run_id} is not waiting for approval")
    run.update(status="queued", conclusion=None, updated_at=fake.iso_now())
    if fake.emit_events:
        _emit(fake, "requested", run)
    return run


def jobs_of(fake: FakeGitHub, run: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's jobs: the check runs in its suite (none while it waits for approval)."""
    if run["conclusion"] == "action_required":
        return []
    jobs = []
    for check in checks.runs_of_suite(fake, run["check_suite_id"]):
        jobs.append({
            "id": check["id"], "run_id": run["id"], "run_url": run["url"], "run_attempt": 1,
            "node_id": f"CR_{check['id']}", "head_sha": check["head_sha"],
            "url": f"{run['url'].rsplit('/runs/', 1)[0]}/jobs/{check['id']}", "html_url": check["html_url"],
            "status": check["status"], "conclusion": check["conclusion"], "created_at": check["started_at"],
            "started_at": check["started_at"], "completed_at": check["completed_at"], "name": check["name"],
            "steps": [], "check_run_url": check["url"], "labels": ["ubuntu-latest"], "runner_id": None,
            "runner_name": None, "runner_group_id": None, "runner_group_name": None,
            "workflow_name": run["name"], "head_branch": run["head_branch"],
        })  # fmt: skip
    return copy.deepcopy(jobs)
