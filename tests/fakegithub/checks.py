"""Check runs and check suites as GitHub keeps them, and the check events it raises.

A check run belongs to the app that created it (`app`) and to that app's suite for the head SHA (one
suite per app and head SHA). GitHub echoes `check_run.created` and `.completed` to every app
installed on the repository that subscribes to check_run and may read checks (the creator
included: an app must recognise its own runs by `app.id`), sends `check_suite.completed` once every
run of a suite has completed, and sends `rerequested` / `requested_action` only to the app that owns
the run.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from tests.fakegithub import gitdata, payloads, shapes
from tests.fakegithub.apps import FakeApp, FakeInstallation

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub
    from tests.fakegithub.webhooks import Delivery

# A completed suite takes the most severe conclusion among its runs.
SEVERITY = ("action_required", "cancelled", "timed_out", "failure", "stale", "neutral", "success", "skipped")
CHECKS_READ = ("checks", "read")


def app_object_for_slug(fake: FakeGitHub, slug: str) -> dict[str, Any]:
    """A registered app's object, GitHub Actions', or a third party's with an id stable per slug."""
    for app in fake.apps.values():
        if app.slug == slug:
            return shapes.app_object(app)
    if slug == shapes.GITHUB_ACTIONS_APP["slug"]:
        return copy.deepcopy(shapes.GITHUB_ACTIONS_APP)
    other = copy.deepcopy(shapes.GITHUB_ACTIONS_APP)
    other_id = 800_000 + sum(ord(c) for c in slug)
    other.update(id=other_id, slug=slug, node_id=f"A_{other_id}", name=slug, client_id=f"Iv1.{other_id}",
                 html_url=f"{shapes.WEB}/apps/{slug}")  # fmt: skip
    return other


def repo_of_run(run: dict[str, Any]) -> str:
    return str(run["url"].split("/repos/", 1)[1].rsplit("/check-runs/", 1)[0])


def suite_for(
    fake: FakeGitHub, repo: str, app: dict[str, Any], head_sha: str, *, new: bool = False
) -> dict[str, Any]:
    """The app's suite for `head_sha`, created on first use (or always, with `new`: a workflow run)."""
    with fake.lock:
        if not new:
            for suite in fake.check_suites.values():
                if (suite["repository"]["full_name"], suite["app"]["id"], suite["head_sha"]) == (
                    repo,
                    app["id"],
                    head_sha,
                ):
                    return suite  # fmt: skip
        root = fake.repos[repo]
        info = gitdata.commit_info(root, head_sha)
        branches = [p.head_ref for p in fake.pulls_for_head(repo, head_sha)]
        suite = shapes.check_suite(
            shapes.repo_of(fake, repo), fake.next_suite_id(), app=app, head_sha=head_sha,
            head_branch=branches[0] if branches else None, head_commit=shapes.simple_commit(info),
            before=info.parents[0] if info.parents else None, created_at=fake.iso_now(),
        )  # fmt: skip
        fake.check_suites[suite["id"]] = suite
        return suite


def runs_of_suite(fake: FakeGitHub, suite_id: int) -> list[dict[str, Any]]:
    with fake.lock:
        return [r for r in fake.check_runs.values() if r["check_suite"]["id"] == suite_id]


def _roll_up(fake: FakeGitHub, suite: dict[str, Any]) -> bool:
    """Set the suite's status and conclusion from its runs; whether it has just completed."""
    runs = runs_of_suite(fake, suite["id"])
    was = suite["status"]
    if runs and all(r["status"] == "completed" for r in runs):
        status = "completed"
        found = {r["conclusion"] for r in runs}
        suite["conclusion"] = next(c for c in SEVERITY if c in found)
    else:
        status = "in_progress" if any(r["status"] != "queued" for r in runs) else "queued"
        suite["conclusion"] = None
    suite["status"] = status
    suite["latest_check_runs_count"] = len({r["name"] for r in runs})
    suite["updated_at"] = fake.iso_now()
    return status == "completed" and was != "completed"


def apply(fake: FakeGitHub, run: dict[str, Any], body: dict[str, Any]) -> bool:
    """Apply a create/update body to `run`; whether it completed with this change."""
    was_completed = run["status"] == "completed"
    for key in ("name", "details_url", "external_id", "started_at"):
        if key in body:
            run[key] = body[key]
    if "conclusion" in body:
        run["status"], run["conclusion"] = "completed", body["conclusion"]
        run["completed_at"] = body.get("completed_at") or fake.iso_now()
    elif "status" in body:
        run["status"] = body["status"]
    output = body.get("output")
    if isinstance(output, dict):
        for key in ("title", "summary", "text"):
            if key in output:
                run["output"][key] = output[key]
        added = [
            {
                "blob_href": "",
                "start_column": None,
                "end_column": None,
                "title": None,
                "raw_details": None,
                **a,
            }
            for a in output.get("annotations", [])
        ]
        with fake.lock:
            fake.annotations.setdefault(run["id"], []).extend(added)
            run["output"]["annotations_count"] = len(fake.annotations[run["id"]])
    if "actions" in body:
        with fake.lock:
            fake.check_run_actions[run["id"]] = list(body["actions"])
    return run["status"] == "completed" and not was_completed


def _emit_run(fake: FakeGitHub, action: str, run: dict[str, Any], sender: dict[str, Any]) -> None:
    def build(_: FakeApp, installation: FakeInstallation) -> dict[str, Any]:
        return payloads.check_run(fake, action, run, installation, sender=sender)

    fake.emit("check_run", build, repo=repo_of_run(run), permission=CHECKS_READ)


def _emit_suite_completed(fake: FakeGitHub, suite: dict[str, Any], sender: dict[str, Any]) -> None:
    def build(_: FakeApp, installation: FakeInstallation) -> dict[str, Any]:
        return payloads.check_suite(fake, "completed", suite, installation, sender=sender)

    fake.emit("check_suite", build, repo=suite["repository"]["full_name"], permission=CHECKS_READ)


def create_run(
    fake: FakeGitHub, repo: str, body: dict[str, Any], app: dict[str, Any], *, emit: bool = True
) -> dict[str, Any]:
    suite = suite_for(fake, repo, app, str(body["head_sha"]))
    run_id = fake.next_id()
    pulls = [shapes.minimal_pull(p, fake) for p in fake.pulls_for_head(repo, str(body["head_sha"]))]
    run = shapes.check_run(
        repo, run_id, body, fake.iso_now(), app=app, suite_id=suite["id"], pull_requests=pulls
    )
    with fake.lock:
        fake.check_runs[run_id] = run
    completed = apply(fake, run, body)
    suite_done = _roll_up(fake, suite)
    if emit:
        sender = shapes.bot_user(app["slug"])
        _emit_run(fake, "created", run, sender)
        if completed:
            _emit_run(fake, "completed", run, sender)
        if suite_done:
            _emit_suite_completed(fake, suite, sender)
    return run


def update_run(
    fake: FakeGitHub, run: dict[str, Any], body: dict[str, Any], *, emit: bool = True
) -> dict[str, Any]:
    completed = apply(fake, run, body)
    suite = fake.check_suites.get(run["check_suite"]["id"])
    suite_done = _roll_up(fake, suite) if suite is not None else False
    if emit:
        sender = shapes.bot_user(run["app"]["slug"])
        if completed:
            _emit_run(fake, "completed", run, sender)
        if suite_done and suite is not None:
            _emit_suite_completed(fake, suite, sender)
    return run


def add_check_run(
    fake: FakeGitHub, repo: str, head_sha: str, name: str, *, status: str, conclusion: str | None,
    app_slug: str, emit: bool, **fields: Any,
) -> dict[str, Any]:  # fmt: skip
    body: dict[str, Any] = {"name": name, "head_sha": head_sha, "status": status, **fields}
    if conclusion is not None:
        body["conclusion"] = conclusion
    return create_run(fake, repo, body, app_object_for_slug(fake, app_slug), emit=emit and fake.emit_events)


def complete_check_run(
    fake: FakeGitHub, run_id: int, conclusion: str, *, emit: bool, **fields: Any
) -> dict[str, Any]:
    run = fake.check_runs[run_id]
    return update_run(fake, run, {"conclusion": conclusion, **fields}, emit=emit and fake.emit_events)


def _owner(fake: FakeGitHub, app_id: int, repo: str) -> tuple[FakeApp, FakeInstallation] | None:
    app = fake.apps.get(app_id)
    installation = fake.installation_for(app_id, repo) if app is not None else None
    if app is None or installation is None:
        return None
    return app, installation


def reset_for_rerequest(fake: FakeGitHub, suite: dict[str, Any]) -> None:
    """GitHub resets a rerequested suite to queued and clears its conclusion."""
    suite.update(status="queued", conclusion=None, updated_at=fake.iso_now())


def user_rerequest_check_run(
    fake: FakeGitHub, run_id: int, *, sender: dict[str, Any] | None = None
) -> Delivery | None:
    run = fake.check_runs[run_id]
    repo = repo_of_run(run)
    suite = fake.check_suites.get(run["check_suite"]["id"])
    if suite is not None:
        reset_for_rerequest(fake, suite)
    owner = _owner(fake, run["app"]["id"], repo)
    if owner is None:
        return None
    app, installation = owner
    payload = payloads.check_run(fake, "rerequested", run, installation, sender=sender)
    return fake.deliver(app.id, "check_run", payload)


def user_requested_action(fake: FakeGitHub, run_id: int, identifier: str) -> Delivery | None:
    run = fake.check_runs[run_id]
    offered = [a.get("identifier") for a in fake.check_run_actions.get(run_id, [])]
    if identifier not in offered:
        raise ValueError(f"check run {run_id} offers no button {identifier!r} (it offers {offered})")
    owner = _owner(fake, run["app"]["id"], repo_of_run(run))
    if owner is None:
        return None
    app, installation = owner
    payload = payloads.check_run(fake, "requested_action", run, installation, requested_action=identifier)
    return fake.deliver(app.id, "check_run", payload)


def user_rerequest_check_suite(fake: FakeGitHub, suite_id: int) -> Delivery | None:
    suite = fake.check_suites[suite_id]
    reset_for_rerequest(fake, suite)
    owner = _owner(fake, suite["app"]["id"], suite["repository"]["full_name"])
    if owner is None:
        return None
    app, installation = owner
    return fake.deliver(app.id, "check_suite", payloads.check_suite(fake, "rerequested", suite, installation))


def latest_only(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`filter=latest`: the newest run of each name per app."""
    newest: dict[tuple[int, str], dict[str, Any]] = {}
    for run in runs:
        key = (run["app"]["id"], run["name"])
        if key not in newest or run["id"] > newest[key]["id"]:
            newest[key] = run
    return sorted(newest.values(), key=lambda r: -r["id"])
