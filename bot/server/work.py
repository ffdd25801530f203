"""The worker: one job at a time, from a claimed row to a published check run.

Every head the App was told about ends with a completed `receipt` run: a receipt, a problem that
stopped one (invalid manifest, too large to assess, GitHub failing past every retry), or a closing
note (superseded by a newer push, a merge group destroyed). The App never runs code from a pull
request: everything it reads comes through the API source.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from githubkit import GitHub

from bot.engine import (
    Conclusion,
    Inputs,
    MergeSource,
    ReceiptError,
    TestEvidence,
    evaluate,
    outcome_digest,
    render_json,
)
from bot.engine.render.whatif_text import pull_whatif_markdown
from bot.gather import MergeGiven, Request, Revisions, UsageError, gather
from bot.github.auth import InstallationTokens, installation_of_repo
from bot.github.cache import ObjectCache
from bot.github.checks import CheckRunRequest, PublishedCheckRun
from bot.github.diffs import HeadMoved, fetch_range_diff
from bot.github.errors import GitHubError, RateLimited
from bot.github.evidence import approval_notice, checks_evidence, held_for_approval, past_deadline
from bot.github.merges import MergePending, MergeWaits
from bot.github.publisher import (
    REEVALUATE_ACTION,
    Notice,
    Problem,
    closing_run,
    problem_of,
    problem_run,
    publish,
    receipt_run,
    waiting_run,
)
from bot.github.pulls import PullRequest, merge_base, pulls_with_head
from bot.github.remote import gather_pull
from bot.github.repo import RepoRef
from bot.github.source import ApiSource
from bot.github.whatif import manifest_whatif
from bot.server import logs
from bot.server.dispatch import dispatch_tests
from bot.server.metrics import JOB_SECONDS, JOB_WAIT_SECONDS, JOBS
from bot.server.plan import pull_from_spec
from bot.server.settings import Settings
from bot.server.store import jobs as store
from bot.server.store import runs
from bot.server.store.db import Database, utcnow
from bot.server.store.locks import exclusive
from bot.server.store.models import CheckRun, Job

NOT_RUN_YET = TestEvidence(not_run_reason="the tests have not been read yet")
_NOT_ON_BASE = "the merge group's head does not contain its base commit"
MAX_RETRY_DELAY = timedelta(minutes=30)
BUSY_DELAY_SECONDS = 2.0
# GitHub computes most test merges within a second or two of the first read: the first look waits
# that long in the worker; later looks are jobs of their own, put back with growing delays.
FIRST_LOOK_WAITS = (0.5, 1.0)

Post = Callable[[GitHub[Any], RepoRef, CheckRunRequest, int | None, int], PublishedCheckRun]


def post_to_github(
    gh: GitHub[Any], repo: RepoRef, run: CheckRunRequest, run_id: int | None, annotations_sent: int
) -> PublishedCheckRun:
    return publish(gh, repo, run, run_id=run_id, annotations_sent=annotations_sent)


@dataclass
class Context:
    """What every job needs; built once per process."""

    settings: Settings
    db: Database
    tokens: InstallationTokens | None
    enqueue: Callable[[int, float], None]
    post: Post = post_to_github
    at_deadline: Callable[[int, float], None] = lambda _run, _delay: None  # run id, seconds from now
    cache: ObjectCache = field(default_factory=ObjectCache)
    _write_locks: dict[int, threading.Lock] = field(default_factory=dict)
    _locks_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def app_id(self) -> int | None:
        return self.settings.app_id

    @contextmanager
    def write_lock(self, installation_id: int) -> Iterator[None]:
        """Writes of one installation go one at a time across the fleet (GitHub's secondary rate
        limits count per installation): this process's threads queue on a lock of their own
        before one of them waits on the fleet's (and holds a database connection for it)."""
        with self._locks_lock:
            local = self._write_locks.setdefault(installation_id, threading.Lock())
        with local, exclusive(self.db, f"check-run-writes:{installation_id}"):
            yield


class NotConfigured(ReceiptError):
    title = "the App is not configured"


def _context(job: Job) -> dict[str, Any]:
    return {
        "job": job.id,
        "delivery": job.delivery_guid,
        "repo": job.repo,
        "pr": job.pr,
        "head": job.head_sha,
        "installation": job.installation_id,
    }


def run_job(ctx: Context, job_id: int) -> None:
    """Carry out job `job_id` if it can be claimed; otherwise leave it to whoever holds it."""
    job = store.claim(ctx.db, job_id, timedelta(seconds=ctx.settings.job_lease_seconds))
    if job is None:
        current = store.pending_job(ctx.db, job_id)
        if current is not None and current.state == store.PENDING:
            due = (current.not_before - utcnow()).total_seconds() if current.not_before else 0.0
            ctx.enqueue(job_id, max(due, BUSY_DELAY_SECONDS))
        return
    started = time.monotonic()
    due_at = max(job.created_at, job.not_before or job.created_at)
    JOB_WAIT_SECONDS.labels(kind=job.kind).observe(max(0.0, (utcnow() - due_at).total_seconds()))
    with logs.bound(**_context(job)):
        try:
            if job.kind == store.CANCEL:
                _cancel(ctx, job)
            elif job.concluding:
                _conclude(ctx, job)
            else:
                _evaluate(ctx, job)
        except MergePending as exc:
            outcome = _look_again(ctx, job, exc)
        except Exception as exc:
            outcome = _failed(ctx, job, exc)
        else:
            outcome = "done" if store.finish(ctx.db, job.id, lease=job.lease_until) else _lease_lost()
            if outcome == "done":
                logs.event("job done", outcome="done")
    JOBS.labels(kind=job.kind, outcome=outcome).inc()
    JOB_SECONDS.labels(kind=job.kind).observe(time.monotonic() - started)


def _lease_lost() -> str:
    """This worker ran past its job's lease and another took the job: the row is theirs now."""
    logs.failure("the job's lease ran out before it ended; another worker holds it now", outcome="lease_lost")
    return "lease_lost"


def merge_delay(looks: int) -> float:
    """Seconds before a job's next look at a test merge GitHub had not computed at look `looks`."""
    return min(2.0 * 2.0**looks, 30.0)


def merge_waits(settings: Settings, looks: int) -> MergeWaits:
    """How a job's look number `looks` at the test merge waits: its first look, in the worker;
    while RECEIPT_MERGE_WAIT_SECONDS is not used up, a merge still not computed puts the job back
    (MergePending) rather than holding a worker; the last look fails closed, naming every wait."""
    waits = FIRST_LOOK_WAITS if looks == 0 else ()
    before = sum(FIRST_LOOK_WAITS) + sum(merge_delay(i) for i in range(looks)) if looks else 0.0
    return MergeWaits(waits, pending=before + sum(waits) < settings.merge_wait_seconds, before=before)


def _look_again(ctx: Context, job: Job, pending: MergePending) -> str:
    delay = merge_delay(job.merge_looks)
    if not store.look_again(ctx.db, job.id, timedelta(seconds=delay), lease=job.lease_until):
        return _lease_lost()
    ctx.enqueue(job.id, delay)
    logs.event(f"{pending}: looking again in {delay:g} s", outcome="merge_pending")
    return "merge_pending"


def _describe(exc: BaseException, job: Job) -> str:
    """One line for the check run and the logs; never a traceback."""
    if isinstance(exc, GitHubError | ReceiptError):
        return str(exc)
    return (
        f"an internal error in receipt ({type(exc).__name__}, job {job.id}); the App's logs have the details"
    )


def _failed(ctx: Context, job: Job, exc: Exception) -> str:
    """Retry the job later, or turn it to ending its run, or give it up; returns which."""
    if isinstance(exc, GitHubError) and exc.status == 401 and job.installation_id and ctx.tokens:
        ctx.tokens.invalidate(job.installation_id)
    reason = _describe(exc, job)
    settings = ctx.settings
    logs.failure(f"job failed (attempt {job.attempts}): {reason}", exc=exc, **_context(job))
    retries_left = not job.concluding and job.attempts < settings.job_attempts
    if retries_left:
        delay = min(timedelta(seconds=settings.retry_base_seconds * 2 ** (job.attempts - 1)), MAX_RETRY_DELAY)
    elif utcnow() - job.created_at < timedelta(hours=settings.give_up_after_hours):
        # Past its retries the job turns to ending the run with the reason; that publish is
        # retried, more and more slowly, until GitHub accepts it or the horizon passes.
        steps = max(0, job.attempts - settings.job_attempts)
        delay = min(timedelta(seconds=max(settings.retry_base_seconds, 1.0) * 2**steps), MAX_RETRY_DELAY)
    else:
        if not store.finish(ctx.db, job.id, store.FAILED, reason, lease=job.lease_until):
            return _lease_lost()
        logs.failure("job given up", outcome="failed", **_context(job))
        return "failed"
    if isinstance(exc, RateLimited) and exc.retry_after:  # GitHub said when: wait exactly that
        delay = max(delay, timedelta(seconds=exc.retry_after))
    if not store.retry_later(
        ctx.db, job.id, delay, reason, concluding=not retries_left, lease=job.lease_until
    ):
        return _lease_lost()
    ctx.enqueue(job.id, delay.total_seconds())
    return "retry" if retries_left else "concluding"


def _client(ctx: Context, job: Job) -> GitHub[Any]:
    if ctx.tokens is None:
        raise NotConfigured("set RECEIPT_APP_ID and RECEIPT_PRIVATE_KEY (or RECEIPT_PRIVATE_KEY_PATH)")
    installation = job.installation_id
    if installation is None:
        repo = RepoRef.parse(job.repo)
        installation = installation_of_repo(ctx.tokens.app, repo.owner, repo.name)
    return ctx.tokens.client(installation)


def _run_to_update(job: Job, existing: CheckRun | None) -> CheckRun | None:
    """A run in progress is always brought to an end; a completed one is updated unless the job
    asks for a fresh run (GitHub does not reset a run that is re-requested)."""
    if existing is None:
        return None
    if existing.status == "in_progress":
        return existing
    return None if job.spec.get("fresh_run") else existing


def _publish(
    ctx: Context, job: Job, gh: GitHub[Any], run: CheckRunRequest, update: CheckRun | None
) -> PublishedCheckRun:
    run_id = update.id if update is not None else None
    sent = update.annotations_sent if update is not None else 0
    with ctx.write_lock(job.installation_id or 0):
        return ctx.post(gh, RepoRef.parse(job.repo), run, run_id, sent)


def _save(
    ctx: Context,
    job: Job,
    published: PublishedCheckRun,
    run: CheckRunRequest,
    *,
    waiting: list[str],
    deadline: datetime | None,
    receipt_id: str | None,
    digest: str | None,
) -> None:
    completed = run.conclusion is not None and run.conclusion is not Conclusion.PENDING
    runs.save_run(
        ctx.db,
        run_id=published.id,
        repo=job.repo,
        head_sha=job.head_sha,
        pr=job.pr,
        key=job.key,
        installation_id=job.installation_id,
        status="completed" if completed else "in_progress",
        conclusion=run.conclusion.value if completed and run.conclusion else None,
        annotations_sent=published.annotations_sent,
        spec={k: v for k, v in job.spec.items() if k != "fresh_run"},
        waiting=waiting,
        deadline=deadline,
        receipt_id=receipt_id,
        digest=digest,
    )


def _pull(gh: GitHub[Any], repo: RepoRef, job: Job) -> PullRequest:
    if "pull" in job.spec:
        return pull_from_spec(job.spec["pull"])
    found = pulls_with_head(gh, repo, job.head_sha)
    if not found:
        raise UsageError(
            f"no open pull request has {job.head_sha[:12]} as its head: there is no change to judge"
        )
    return found[0]


def _inputs(gh: GitHub[Any], repo: RepoRef, job: Job, ctx: Context) -> tuple[Inputs, PullRequest | None]:
    """A pull request's change, or a merge group's (its base to its head, no pull request facts)."""
    source = ApiSource(gh, repo, shared=ctx.cache)
    group = job.spec.get("group")
    if group is None:
        pull = _pull(gh, repo, job)
        waits = merge_waits(ctx.settings, job.merge_looks)
        return gather_pull(gh, repo, pull, tests=NOT_RUN_YET, source=source, merge_waits=waits), pull
    base = str(group["base_sha"])
    revisions = Revisions(base, job.head_sha, merge_base(gh, repo, base, job.head_sha))

    def diff() -> bytes:
        return fetch_range_diff(gh, repo, revisions.merge_base, revisions.head, source).data

    # a group's head is already the merge onto its base: anything else has no merge to judge
    merge = None if revisions.fast_forward else MergeGiven(MergeSource.GITHUB, problem=_NOT_ON_BASE)
    request = Request(repo=repo.full_name)
    return gather(source, revisions, diff, request, merge=merge, tests=NOT_RUN_YET), None


def _evaluate(ctx: Context, job: Job) -> None:
    repo = RepoRef.parse(job.repo)
    existing = runs.latest_run(ctx.db, job.repo, job.head_sha)
    gh = _client(ctx, job)
    if job.superseded_by:
        text = f"The pull request's head moved on to `{job.superseded_by[:12]}`; its receipt is there."
        _close(ctx, job, gh, existing, (Conclusion.SKIPPED, "superseded by a newer push", text))
        return
    try:
        inputs, pull = _inputs(gh, repo, job, ctx)
    except HeadMoved as exc:
        _close(ctx, job, gh, existing, (Conclusion.SKIPPED, "superseded by a newer push", exc.problem))
        return
    except MergePending:
        if existing is None:  # say why the check has not started, rather than nothing for a minute
            _wait_for_merge(ctx, job, gh)
        raise
    except ReceiptError as exc:
        _problem(ctx, job, gh, existing, problem_of(exc))
        return
    tests = inputs.manifest.manifest.tests
    notices: list[Notice] = []
    if tests.dispatch and pull is not None:
        touched = {p for f in inputs.change.diff.files for p in f.paths}
        refused = dispatch_tests(ctx.db, gh, repo, pull, workflow=tests.dispatch, touched=touched)
        notices.extend([refused] if refused else [])
    evidence = checks_evidence(gh, repo, job.head_sha, tests.checks, own_app_id=ctx.app_id)
    now = utcnow()
    deadline = existing.deadline if existing is not None and existing.status == "in_progress" else None
    if deadline is not None and deadline <= now:
        evidence = past_deadline(evidence, tests.timeout_minutes)
    receipt = evaluate(replace(inputs, tests=evidence))
    body = render_json(receipt.as_json())
    # not the receipt's own digest: that holds the day it was judged on, and an unchanged pull
    # request would be published again every day
    digest = outcome_digest(receipt.as_json())
    unchanged = existing is not None and existing.digest == digest and not job.spec.get("fresh_run")
    if unchanged:
        return
    pending = receipt.verdict.conclusion is Conclusion.PENDING
    # The what-if does not depend on the test evidence: it is computed once, for the concluded
    # receipt, rather than again for each pending one (and never delays the first in-progress run).
    whatif = (
        manifest_whatif(
            gh, repo, inputs, branch=pull.base_ref, last=ctx.settings.whatif_last, cache=ctx.cache
        )
        if pull is not None and not pending
        else None
    )
    link = runs.store_receipt(
        ctx.db,
        body=body,
        repo=job.repo,
        pr=job.pr,
        head_sha=job.head_sha,
        conclusion=receipt.verdict.conclusion.value,
        whatif=None if whatif is None else render_json(whatif.as_json()),
    )
    held = held_for_approval(evidence)
    notices.extend([approval_notice(held, repo, tests.timeout_minutes)] if held else [])
    group = job.spec.get("group")
    # a merge group names its base as a full ref (refs/heads/main); the summary names the branch
    branch = str(group["base_ref"]).removeprefix("refs/heads/") if group else None
    base_ref = pull.base_ref if pull is not None else branch
    run = receipt_run(receipt, details_url=_details_url(ctx, link), actions=(REEVALUATE_ACTION,),
                      notices=notices if pending else (), appendix=pull_whatif_markdown(whatif),
                      base_ref=base_ref)  # fmt: skip
    published = _publish(ctx, job, gh, run, _run_to_update(job, existing))
    waiting = [c.name for c in receipt.checks if c.conclusion.value == "pending"] if pending else []
    starts_waiting = pending and deadline is None
    if starts_waiting:
        deadline = now + timedelta(minutes=tests.timeout_minutes)
    _save(ctx, job, published, run, waiting=waiting, deadline=deadline if pending else None,
          receipt_id=link.id, digest=digest)  # fmt: skip
    if starts_waiting:
        ctx.at_deadline(published.id, tests.timeout_minutes * 60)
    logs.event(
        f"published {receipt.verdict.conclusion.value}",
        outcome=receipt.verdict.conclusion.value,
        **_context(job),
    )


def _wait_for_merge(ctx: Context, job: Job, gh: GitHub[Any]) -> None:
    explanation = (
        "The base branch has moved on since this pull request branched off it, and receipt judges "
        "what merging would do: from GitHub's test merge, which GitHub is still computing "
        f"(`mergeable: null`). receipt looks again, for up to {ctx.settings.merge_wait_seconds:g} "
        "seconds; if GitHub has not computed it by then, the receipt fails. Bringing the branch up "
        "to date with its base needs no test merge."
    )
    run = waiting_run(job.head_sha, "waiting for GitHub's test merge", explanation)
    published = _publish(ctx, job, gh, run, None)
    _save(ctx, job, published, run, waiting=[], deadline=None, receipt_id=None, digest=None)


def _details_url(ctx: Context, link: runs.ReceiptLink) -> str | None:
    base = ctx.settings.public_url
    return f"{base}/receipts/{link.id}?token={link.token}" if base else None


def _problem(ctx: Context, job: Job, gh: GitHub[Any], existing: CheckRun | None, problem: Problem) -> None:
    run = problem_run(job.head_sha, problem, actions=(REEVALUATE_ACTION,))
    published = _publish(ctx, job, gh, run, _run_to_update(job, existing))
    _save(ctx, job, published, run, waiting=[], deadline=None, receipt_id=None, digest=None)
    logs.event(f"published a failing run: {problem.title}", outcome="problem", **_context(job))


def _close(
    ctx: Context, job: Job, gh: GitHub[Any], existing: CheckRun | None, note: tuple[Conclusion, str, str]
) -> None:
    """End the head's run with `note` (conclusion, title, explanation) instead of a receipt."""
    run = closing_run(job.head_sha, *note)
    published = _publish(ctx, job, gh, run, _run_to_update(job, existing))
    _save(ctx, job, published, run, waiting=[], deadline=None, receipt_id=None, digest=None)


def _conclude(ctx: Context, job: Job) -> None:
    """The job used up its retries: end the head's run with the reason instead of leaving it."""
    gh = _client(ctx, job)
    existing = runs.latest_run(ctx.db, job.repo, job.head_sha)
    reason = job.last_error or "the receipt could not be computed"
    problem = Problem(
        "GitHub could not give what the receipt needs",
        f"After {ctx.settings.job_attempts} attempts: {reason}\n\n"
        "Press Re-evaluate, or push again, once GitHub recovers.",
    )
    _problem(ctx, job, gh, existing, problem)


def _cancel(ctx: Context, job: Job) -> None:
    run_id = job.spec.get("run_id")
    existing = runs.latest_run(ctx.db, job.repo, job.head_sha)
    if existing is None or existing.status == "completed" or existing.id != run_id:
        return
    gh = _client(ctx, job)
    why = str(job.spec.get("why") or "cancelled")
    _close(ctx, job, gh, existing, (Conclusion.CANCELLED, "cancelled", why[:1].upper() + why[1:] + "."))
