"""`tests.dispatch`: the App starts the test workflow once per head of a same-repository pull
request; never a fork's, never a workflow file the pull request changes; refusals are shown."""

from __future__ import annotations

import time

from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost
from tests.server.test_app import _completed

POLICY = "version: 1\ntests:\n  checks: ['workflow:CI']\n  dispatch: ci.yml\n"


def test_the_test_workflow_is_dispatched_once_per_head_of_this_repository(
    github_app: AppWorld, host: AppHost
) -> None:
    fake = github_app.fake
    github_app.installation.permissions["actions"] = "write"
    github_app.commit_to_base({".github/receipt.yml": POLICY})
    pull = github_app.open_pull({"src/calc.py": "x = 1\n"}, number=30)
    fork = github_app.open_pull({"src/calc.py": "x = 2\n"}, number=31, fork=True)
    edits = github_app.open_pull(
        {".github/workflows/ci.yml": "name: CI\non: [workflow_dispatch]\n"}, number=32
    )
    host.serve()
    for each in (pull, fork, edits):
        github_app.send_pull_request("opened", pull=each)
    github_app.send_pull_request("ready_for_review", pull=pull)  # another evaluation of the same head

    [dispatch] = wait_until(lambda: list(fake.dispatches), what="the dispatch")
    assert (dispatch.workflow, dispatch.ref, dispatch.sha) == (
        ".github/workflows/ci.yml",
        pull.head_ref,
        pull.head_sha,
    )
    assert dispatch.credential.startswith("ghs_"), "as the installation"
    [flow] = wait_until(lambda: [r for r in fake.workflow_runs.values() if r["head_sha"] == pull.head_sha])
    fake.complete_workflow_run(flow["id"], "success")
    [done] = _completed(github_app, pull.head_sha, timeout=30)
    assert done["conclusion"] == "success", done["output"]["title"]

    forked = wait_until(lambda: fake.runs_for(fork.head_sha, "receipt"), what="the fork's run")[0]
    assert forked["status"] == "in_progress" and "dispatch" not in forked["output"]["summary"]
    [edited] = _completed(github_app, edits.head_sha, timeout=30)
    assert edited["conclusion"] == "failure", "the pull request changes CI: protected"
    github_app.send_pull_request("synchronize", pull=pull)
    time.sleep(1.0)  # room for a wrong second dispatch
    assert len(fake.dispatches) == 1


def test_a_refused_dispatch_is_shown_on_the_run(github_app: AppWorld, host: AppHost) -> None:
    github_app.commit_to_base({".github/receipt.yml": POLICY})  # the App holds actions: read only
    pull = github_app.open_pull({"src/calc.py": "x = 1\n"}, number=33)
    host.serve()
    github_app.send_pull_request("opened", pull=pull)
    run = wait_until(lambda: github_app.fake.runs_for(pull.head_sha, "receipt"), what="the run")[0]
    assert run["status"] == "in_progress"
    assert run["output"]["title"] == "pending: tests.dispatch could not start ci.yml"
    summary = run["output"]["summary"]
    assert "**`tests.dispatch`: `ci.yml` was not started**" in summary
    assert "Resource not accessible by integration" in summary and "Actions: write" in summary
    assert not github_app.fake.dispatches
