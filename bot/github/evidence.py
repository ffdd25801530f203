"""Test evidence from the repository's own checks: the check runs and workflow runs of a head SHA.

`tests.checks` names check runs as GitHub shows them, or `workflow:NAME` for a workflow run. Each
name becomes one result: its conclusion when it has completed, `pending` while it is missing or
running (with what it is waiting for), so `semantic` is never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from githubkit import GitHub

from bot.engine import CheckConclusion, CheckResult, TestEvidence, md_code
from bot.github.errors import UnexpectedResponse, translated
from bot.github.publisher import Notice
from bot.github.repo import RepoRef

WORKFLOW_PREFIX = "workflow:"
PER_PAGE = 100
MAX_PAGES = 10
NO_CHECKS = "no tests.checks in the manifest: the App runs no tests itself"
_CONCLUSIONS = {
    "success": CheckConclusion.SUCCESS,
    "failure": CheckConclusion.FAILURE,
    "neutral": CheckConclusion.NEUTRAL,
    "cancelled": CheckConclusion.CANCELLED,
    "skipped": CheckConclusion.SKIPPED,
    "timed_out": CheckConclusion.TIMED_OUT,
    "stale": CheckConclusion.TIMED_OUT,  # GitHub gave up on a run left incomplete
    "startup_failure": CheckConclusion.ERROR,
}
_RUN_URL = re.compile(r"\((https?://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+)\)$")  # where result_of names the run
APPROVAL = (
    "waiting for approval: GitHub holds this workflow until someone with write access approves "
    "running it (a first-time contributor's or an agent's pull request)"
)


@dataclass(frozen=True, slots=True)
class Run:
    """A check run or workflow run, as far as the evidence needs it."""

    id: int
    name: str
    status: str
    conclusion: str | None
    app_id: int | None
    url: str | None


def _runs(items: Any, *, name_key: str, app_of: Any) -> list[Run]:
    if not isinstance(items, list):
        raise UnexpectedResponse(200, "a list of runs is not a list")
    try:
        return [
            Run(int(i["id"]), str(i[name_key]), str(i.get("status") or ""), i.get("conclusion"), app_of(i),
                i.get("html_url"))
            for i in items
        ]  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedResponse(200, f"a run without {exc}") from exc


def _app(item: Any) -> int | None:
    app = item.get("app")
    return int(app["id"]) if isinstance(app, dict) and isinstance(app.get("id"), int) else None


def check_runs(gh: GitHub[Any], repo: RepoRef, sha: str) -> list[Run]:
    found: list[Run] = []
    for page in range(1, MAX_PAGES + 1):
        with translated():
            data = gh.rest.checks.list_for_ref(
                repo.owner, repo.name, sha, filter_="latest", per_page=PER_PAGE, page=page
            ).json()
        listed = data.get("check_runs") if isinstance(data, dict) else None
        found.extend(_runs(listed, name_key="name", app_of=_app))
        if not isinstance(listed, list) or len(listed) < PER_PAGE:
            break
    return found


def workflow_runs(gh: GitHub[Any], repo: RepoRef, sha: str) -> list[Run]:
    with translated():
        data = gh.rest.actions.list_workflow_runs_for_repo(
            repo.owner, repo.name, head_sha=sha, per_page=PER_PAGE
        ).json()
    listed = data.get("workflow_runs") if isinstance(data, dict) else None
    return _runs(listed, name_key="name", app_of=lambda _: None)


def result_of(name: str, runs: Sequence[Run]) -> CheckResult:
    """The newest run of that name decides (a re-run supersedes the run before it)."""
    if not runs:
        return CheckResult(name, CheckConclusion.PENDING, "not started yet")
    run = max(runs, key=lambda r: r.id)
    where = f" ({run.url})" if run.url else ""
    if run.status == "completed" and run.conclusion in _CONCLUSIONS:
        return CheckResult(name, _CONCLUSIONS[run.conclusion], f"{run.conclusion}{where}")
    if _held(run):
        return CheckResult(name, CheckConclusion.PENDING, f"{APPROVAL}{where}")
    return CheckResult(name, CheckConclusion.PENDING, f"{run.status or 'queued'}{where}")


def _held(run: Run) -> bool:
    return run.conclusion == "action_required" or run.status in ("action_required", "waiting")


def _missing_while_held(name: str, held: Sequence[Run]) -> CheckResult:
    """A check run that does not exist yet while a workflow of the commit waits for approval: a
    held workflow has no jobs, so the check its job would create cannot start before someone
    approves (which workflow holds it, GitHub does not say: the newest held one is named)."""
    run = max(held, key=lambda r: r.id)
    where = f" ({run.url})" if run.url else ""
    return CheckResult(
        name,
        CheckConclusion.PENDING,
        f"{APPROVAL}: no {name!r} run yet, and the workflow {run.name!r} of this commit waits{where}",
    )


def checks_evidence(
    gh: GitHub[Any], repo: RepoRef, sha: str, names: Sequence[str], *, own_app_id: int | None
) -> TestEvidence:
    """What the configured checks say about commit `sha`; the App's own runs never count."""
    if not names:
        return TestEvidence(not_run_reason=NO_CHECKS)
    plain = [n for n in names if not n.startswith(WORKFLOW_PREFIX)]
    runs = (
        [r for r in check_runs(gh, repo, sha) if r.app_id is None or r.app_id != own_app_id] if plain else []
    )
    missing = [n for n in plain if not any(r.name == n for r in runs)]
    # A check not started yet may be a job of a workflow GitHub holds for approval: the workflow
    # runs say so (asked only then, or when a `workflow:` name needs them anyway).
    flows = workflow_runs(gh, repo, sha) if missing or len(plain) < len(names) else []
    held = [r for r in flows if _held(r)]
    results = []
    for name in names:
        if name.startswith(WORKFLOW_PREFIX):
            wanted = name.removeprefix(WORKFLOW_PREFIX)
            results.append(result_of(name, [r for r in flows if r.name == wanted]))
        elif name in missing and held:
            results.append(_missing_while_held(name, held))
        else:
            results.append(result_of(name, [r for r in runs if r.name == name]))
    return TestEvidence(checks=tuple(results))


def past_deadline(evidence: TestEvidence, minutes: float) -> TestEvidence:
    """The checks still pending when `tests.timeout_minutes` ran out end as timed out."""
    checks = tuple(
        CheckResult(
            c.name,
            CheckConclusion.TIMED_OUT,
            f"did not complete within tests.timeout_minutes ({minutes} min): {c.details}",
        )
        if c.conclusion is CheckConclusion.PENDING
        else c
        for c in evidence.checks
    )
    return replace(evidence, checks=checks)


def held_for_approval(evidence: TestEvidence) -> tuple[CheckResult, ...]:
    """The configured checks GitHub holds until someone approves their workflow."""
    pending = (c for c in evidence.checks if c.conclusion is CheckConclusion.PENDING)
    return tuple(c for c in pending if c.details.startswith(APPROVAL))


def approval_notice(held: Sequence[CheckResult], repo: RepoRef, timeout_minutes: float) -> Notice:
    """What is waiting, who must act and what happens otherwise, for the top of the summary."""
    names = ", ".join(md_code(c.name) for c in held)
    lines = [
        f"> ⏸️ **Waiting for approval: {names}.** GitHub holds this pull request's workflow runs "
        "until someone with **write access** to "
        f"{md_code(repo.full_name)} approves them (a first-time contributor's or a coding agent's pull "
        "request): open the workflow run and press **Approve and run**.",
        f"> The receipt concludes once they complete; unapproved, they end as timed out after "
        f"`tests.timeout_minutes` ({timeout_minutes:g} min).",
    ]
    for check in held:
        url = _RUN_URL.search(check.details)
        if url is not None:
            lines.append(f"> - {md_code(check.name)}: [the run waiting for approval]({url.group(1)})")
    plain = ", ".join(c.name for c in held)
    verb = "waits" if len(held) == 1 else "wait"
    return Notice(f"{plain} {verb} for approval by someone with write access", "\n".join(lines))
