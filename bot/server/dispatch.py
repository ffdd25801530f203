"""`tests.dispatch: WORKFLOW`: the App starts the test workflow with `workflow_dispatch`, once per
head of a pull request whose branch lives in the repository itself.

Never for a fork's head: a dispatched run uses the workflow file at the ref it is given, with the
repository's secrets, and a fork's branch is not the repository's to run. Nor for a pull request
that changes the workflow file it would start: it would choose how it is tested. The row claiming
the head is written before the request, so two workers never both start it; a refusal (a missing
permission, no `workflow_dispatch` trigger, no such file) is kept and shown on the receipt's run.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from githubkit import GitHub

from bot.engine import md_code, md_text
from bot.github.errors import GitHubError, RateLimited, translated
from bot.github.publisher import Notice
from bot.github.pulls import PullRequest
from bot.github.repo import RepoRef
from bot.server import logs
from bot.server.store.db import Database
from bot.server.store.dispatches import claim_dispatch, dispatch_error, dispatch_failed, release_dispatch

WORKFLOWS = ".github/workflows/"


def _refused(workflow: str, why: str) -> Notice:
    return Notice(
        f"tests.dispatch could not start {workflow}",
        f"> ⚠️ **`tests.dispatch`: {md_code(workflow)} was not started** for this head: {md_text(why)}\n"
        "> The App needs the **Actions: write** permission and the workflow an `on: workflow_dispatch` "
        "trigger; until its run arrives, `semantic` waits (and ends as timed out after "
        "`tests.timeout_minutes`).",
    )


def dispatch_tests(
    db: Database,
    gh: GitHub[Any],
    repo: RepoRef,
    pull: PullRequest,
    *,
    workflow: str,
    touched: Collection[str],
) -> Notice | None:
    """Start `workflow` on the pull request's head branch if this head has not had it yet."""
    if pull.head_repo != repo.full_name:
        return None
    if f"{WORKFLOWS}{workflow}" in touched:
        return _refused(workflow, "this pull request changes that workflow file")
    if not claim_dispatch(db, repo.full_name, pull.head_sha, workflow):
        error = dispatch_error(db, repo.full_name, pull.head_sha, workflow)
        return _refused(workflow, error) if error else None
    try:
        with translated():
            gh.rest.actions.create_workflow_dispatch(repo.owner, repo.name, workflow, ref=pull.head_ref)
    except GitHubError as exc:
        if exc.status == 0 or exc.status >= 500 or isinstance(exc, RateLimited):
            release_dispatch(db, repo.full_name, pull.head_sha, workflow)  # GitHub's trouble: try again
            raise
        dispatch_failed(db, repo.full_name, pull.head_sha, workflow, exc.message or str(exc))
        logs.failure(f"tests.dispatch: {workflow} refused: {exc}", repo=repo.full_name, head=pull.head_sha)
        return _refused(workflow, exc.message or str(exc))
    logs.event(f"tests.dispatch: started {workflow} on {pull.head_ref}", repo=repo.full_name,
               pr=pull.number, head=pull.head_sha)  # fmt: skip
    return None
