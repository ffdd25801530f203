"""Deliveries and jobs: recorded together, claimed under a lease, retried, swept.

The job row is the durable truth; a queue message only wakes a worker. A worker claims a job with
one conditional UPDATE (so two workers never run the same job, nor two jobs of one pull request at
once), holds it under a lease, and a sweep re-enqueues what a dead worker left behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Insert, and_, bindparam, exists, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from bot.server.plan import Cancel, Evaluate, Intent, Plan, Refresh, head_key, pr_key
from bot.server.store.db import Database, utcnow
from bot.server.store.locks import serialize
from bot.server.store.models import CheckRun, Delivery, Job, Lease

PENDING, RUNNING, DONE, CANCELLED, FAILED = "pending", "running", "done", "cancelled", "failed"
EVALUATE, CANCEL = "evaluate", "cancel"


@dataclass(frozen=True, slots=True)
class DeliveryInfo:
    guid: str
    event: str
    action: str | None
    installation_id: int | None
    repo: str | None


@dataclass(frozen=True, slots=True)
class Recorded:
    duplicate: bool
    job_ids: tuple[int, ...] = ()


def _latest_run(session: Session, repo: str, head_sha: str) -> CheckRun | None:
    query = (
        select(CheckRun)
        .where(CheckRun.repo == repo, CheckRun.head_sha == head_sha)
        .order_by(CheckRun.created_at.desc(), CheckRun.id.desc())
        .limit(1)
    )
    return session.scalars(query).first()


def _active_job(session: Session, repo: str, head_sha: str) -> Job | None:
    query = (
        select(Job)
        .where(
            Job.repo == repo,
            Job.head_sha == head_sha,
            Job.kind == EVALUATE,
            Job.state.in_((PENDING, RUNNING)),
        )
        .order_by(Job.id.desc())
        .limit(1)
    )
    return session.scalars(query).first()


def _new_job(session: Session, intent: Evaluate, key: str, delivery: str | None) -> Job:
    now = utcnow()
    job = Job(
        key=key,
        kind=EVALUATE,
        reason=intent.reason,
        state=PENDING,
        installation_id=intent.installation_id,
        repo=intent.repo,
        head_sha=intent.head_sha,
        pr=intent.pr,
        spec={**intent.spec, "fresh_run": intent.fresh_run},
        delivery_guid=delivery,
        attempts=0,
        concluding=False,
        created_at=now,
        updated_at=now,
    )
    session.add(job)
    return job


# Built once: the statement every delivery of a pull request runs, its SQL compiled once too.
_PENDING_OF_KEY = select(Job).where(
    Job.key == bindparam("key"), Job.state == PENDING, Job.kind == EVALUATE, Job.superseded_by.is_(None)
)


def _evaluate(session: Session, intent: Evaluate, delivery: str | None) -> Job | None:
    key, pr = intent.key, intent.pr
    if key is None:
        run = _latest_run(session, intent.repo, intent.head_sha)
        if run is not None:
            key, pr = run.key, run.pr
        else:
            key = head_key(intent.repo, intent.head_sha)
    serialize(session, key)  # two deliveries for one pull request never both see "no job yet"
    intent = replace(intent, key=key, pr=pr)
    pending = session.scalars(_PENDING_OF_KEY, {"key": key}).all()
    waiting = None
    for job in pending:
        if job.head_sha == intent.head_sha:
            waiting = job
        elif intent.supersede:
            job.superseded_by, job.updated_at = intent.head_sha, utcnow()
    if waiting is not None:  # one pending job per head is enough: it reads everything afresh
        spec = {**waiting.spec, **intent.spec}
        spec["fresh_run"] = bool(waiting.spec.get("fresh_run")) or intent.fresh_run
        if spec != waiting.spec:
            waiting.spec = spec
        installation = waiting.installation_id or intent.installation_id
        if installation != waiting.installation_id:  # an unchanged row is left clean: no flush
            waiting.installation_id = installation
        return None
    return _new_job(session, intent, key, delivery)


def _refresh(session: Session, intent: Refresh, delivery: str | None) -> Job | None:
    run = _latest_run(session, intent.repo, intent.head_sha)
    active = _active_job(session, intent.repo, intent.head_sha)
    if run is None and active is None:
        return None  # not a head the App is watching
    source: CheckRun | Job = run if run is not None else active  # type: ignore[assignment]
    spec = {k: v for k, v in source.spec.items() if k != "fresh_run"}
    evaluate = Evaluate(
        intent.repo,
        intent.head_sha,
        intent.installation_id or source.installation_id,
        reason="refresh",
        key=source.key,
        pr=source.pr,
        spec=spec,
    )
    return _evaluate(session, evaluate, delivery)


def _cancel(session: Session, intent: Cancel, delivery: str | None) -> Job | None:
    serialize(session, intent.key)
    now = utcnow()
    session.execute(
        update(Job)
        .where(Job.key == intent.key, Job.state == PENDING, Job.kind == EVALUATE)
        .values(state=CANCELLED, last_error=intent.reason, updated_at=now)
    )
    if intent.head_sha is None:
        return None
    run = _latest_run(session, intent.repo, intent.head_sha)
    if run is None or run.status == "completed":
        return None
    job = Job(
        key=intent.key,
        kind=CANCEL,
        reason=intent.reason[:32],
        state=PENDING,
        installation_id=intent.installation_id or run.installation_id,
        repo=intent.repo,
        head_sha=intent.head_sha,
        pr=run.pr,
        spec={"run_id": run.id, "why": intent.reason},
        delivery_guid=delivery,
        attempts=0,
        concluding=False,
        created_at=now,
        updated_at=now,
    )
    session.add(job)
    return job


def _apply(session: Session, intent: Intent, delivery: str | None) -> Job | None:
    if isinstance(intent, Evaluate):
        return _evaluate(session, intent, delivery)
    if isinstance(intent, Refresh):
        return _refresh(session, intent, delivery)
    return _cancel(session, intent, delivery)


_NEW_DELIVERY: dict[str, Insert] = {
    name: dialect.insert(Delivery.__table__)
    .on_conflict_do_nothing(index_elements=["guid"])
    .returning(Delivery.__table__.c.guid)
    for name, dialect in (("sqlite", sqlite), ("postgresql", postgresql))
}


def _record(session: Session, delivery: DeliveryInfo, plan: Plan) -> Recorded:
    """The delivery's row, then its jobs; a GUID recorded before is a duplicate and adds nothing.

    The row is inserted unless its GUID is there already (`ON CONFLICT DO NOTHING` on the primary
    key, the row it returns telling which): a redelivery, an earlier copy in the same batch, or the
    loser of two racing copies (on PostgreSQL its insert waits for the winner's transaction to end,
    then inserts nothing; SQLite has one writer). Only a delivery that inserted its row gets jobs."""
    connection = session.connection()
    row = {
        "guid": delivery.guid,
        "event": delivery.event,
        "action": delivery.action,
        "installation_id": delivery.installation_id,
        "repo": delivery.repo,
        "outcome": plan.outcome,
        "detail": plan.detail[:1000],
        "received_at": utcnow(),
    }
    if connection.execute(_NEW_DELIVERY[connection.dialect.name], row).first() is None:
        return Recorded(duplicate=True)
    jobs = [j for j in (_apply(session, i, delivery.guid) for i in plan.intents) if j is not None]
    for job in jobs:
        job.enqueued_at = utcnow()  # the caller enqueues next; if it cannot, the sweep will
    session.flush()
    return Recorded(duplicate=False, job_ids=tuple(j.id for j in jobs))


def record_deliveries(db: Database, batch: Sequence[tuple[DeliveryInfo, Plan]]) -> list[Recorded]:
    """Record deliveries and their jobs in one transaction, in order: a later one sees what an
    earlier one recorded (its jobs to join or supersede, its GUID). A duplicate costs only itself
    (`_record`); any other failure fails the whole transaction, and the caller records each
    delivery alone (`Intake`), so that it fails no other."""
    with db.session() as session:
        return [_record(session, delivery, plan) for delivery, plan in batch]


def record_delivery(db: Database, delivery: DeliveryInfo, plan: Plan) -> Recorded:
    """One delivery recorded as `record_deliveries` records a batch."""
    [recorded] = record_deliveries(db, [(delivery, plan)])
    return recorded


def has_delivery(db: Database, guid: str) -> bool:
    with db.read() as session:
        return session.get(Delivery, guid) is not None


def record_intent(db: Database, intent: Intent) -> list[int]:
    """Work the App gives itself (a sweep), recorded like a delivery's but without one."""
    with db.session() as session:
        job = _apply(session, intent, None)
        session.flush()
        return [job.id] if job is not None else []


def claim(db: Database, job_id: int, lease: timedelta) -> Job | None:
    """Take the job under a lease, or None: done already, held by a live worker, not yet due, or
    another job of the same key is running (one pull request is evaluated by one worker at a time)."""
    now = utcnow()
    other = aliased(Job)
    busy = exists().where(
        and_(other.key == Job.key, other.id != Job.id, other.state == RUNNING, other.lease_until >= now)
    )
    with db.session() as session:
        key = session.scalar(select(Job.key).where(Job.id == job_id))
        if key is None:
            return None
        serialize(session, key)  # two jobs of one key are never claimed at once
        claimed = session.execute(
            update(Job)
            .where(
                Job.id == job_id,
                or_(Job.state == PENDING, and_(Job.state == RUNNING, Job.lease_until < now)),
                or_(Job.not_before.is_(None), Job.not_before <= now),
                ~busy,
            )
            .values(state=RUNNING, lease_until=now + lease, attempts=Job.attempts + 1, updated_at=now)
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            return None
        return session.get(Job, job_id)


def _held(job_id: int, lease: datetime | None) -> Any:
    """The job's row, and with `lease` (the lease a claim took) only while that claim still holds
    it: a worker that outlived its lease, whose job another worker took, writes nothing."""
    if lease is None:
        return Job.id == job_id
    return and_(Job.id == job_id, Job.state == RUNNING, Job.lease_until == lease)


def finish(
    db: Database, job_id: int, state: str = DONE, note: str | None = None, *, lease: datetime | None = None
) -> bool:
    """End the job; False when `lease` no longer holds it (nothing written)."""
    with db.session() as session:
        done = session.execute(
            update(Job)
            .where(_held(job_id, lease))
            .values(state=state, lease_until=None, last_error=note, updated_at=utcnow())
        )
        return bool(done.rowcount)  # type: ignore[attr-defined]


def retry_later(
    db: Database,
    job_id: int,
    delay: timedelta,
    error: str,
    *,
    concluding: bool = False,
    lease: datetime | None = None,
) -> bool:
    """Put the job back, due after `delay`; False when `lease` no longer holds it."""
    now = utcnow()
    with db.session() as session:
        done = session.execute(
            update(Job)
            .where(_held(job_id, lease))
            .values(
                state=PENDING,
                lease_until=None,
                not_before=now + delay,
                last_error=error[:4000],
                concluding=concluding,
                enqueued_at=None,
                updated_at=now,
            )
        )
        return bool(done.rowcount)  # type: ignore[attr-defined]


def look_again(db: Database, job_id: int, delay: timedelta, *, lease: datetime | None = None) -> bool:
    """Put a claimed job back without counting the attempt: GitHub had not computed its pull
    request's test merge yet. The look is counted instead. False when `lease` no longer holds it."""
    now = utcnow()
    with db.session() as session:
        done = session.execute(
            update(Job)
            .where(_held(job_id, lease))
            .values(
                state=PENDING,
                lease_until=None,
                not_before=now + delay,
                attempts=Job.attempts - 1,
                merge_looks=Job.merge_looks + 1,
                enqueued_at=None,
                updated_at=now,
            )
        )
        return bool(done.rowcount)  # type: ignore[attr-defined]


def jobs_to_enqueue(db: Database, *, stale_after: timedelta) -> list[tuple[int, float]]:
    """Jobs with no live queue message: due pending jobs never enqueued (or enqueued long ago), and
    running jobs whose worker's lease ran out. Returns (id, seconds until due)."""
    now = utcnow()
    with db.read() as session:
        rows = session.execute(
            select(Job.id, Job.not_before).where(
                or_(
                    and_(
                        Job.state == PENDING,
                        or_(Job.enqueued_at.is_(None), Job.enqueued_at < now - stale_after),
                    ),
                    and_(Job.state == RUNNING, Job.lease_until < now),
                )
            )
        ).all()
    return [(job_id, max(0.0, (due - now).total_seconds()) if due else 0.0) for job_id, due in rows]


def mark_enqueued(db: Database, job_ids: Sequence[int]) -> None:
    if not job_ids:
        return
    with db.session() as session:
        session.execute(update(Job).where(Job.id.in_(list(job_ids))).values(enqueued_at=utcnow()))


def mark_not_enqueued(db: Database, job_ids: Sequence[int]) -> None:
    """The queue refused these jobs' messages: the next sweep (or start) enqueues them without
    first waiting for them to look lost."""
    with db.session() as session:
        session.execute(update(Job).where(Job.id.in_(list(job_ids))).values(enqueued_at=None))


def take_lease(db: Database, name: str, holder: str, seconds: float) -> bool:
    """True for exactly one caller per period across the fleet (settled by the database)."""
    now = utcnow()
    until = now + timedelta(seconds=seconds)
    try:
        with db.session() as session:
            taken = session.execute(
                update(Lease)
                .where(Lease.name == name, Lease.held_until < now)
                .values(held_until=until, holder=holder)
            )
            if taken.rowcount == 1:  # type: ignore[attr-defined]
                return True
            if session.get(Lease, name) is not None:
                return False
            session.add(Lease(name=name, held_until=until, holder=holder))
        return True
    except IntegrityError:
        return False


def pending_count(db: Database) -> int:
    """Jobs waiting to run (due or not) or running."""
    with db.read() as session:
        return int(session.scalar(select(func.count()).where(Job.state.in_((PENDING, RUNNING)))) or 0)


def pending_job(db: Database, job_id: int) -> Job | None:
    with db.read() as session:
        return session.get(Job, job_id)


__all__ = [
    "CANCEL",
    "CANCELLED",
    "DONE",
    "EVALUATE",
    "FAILED",
    "PENDING",
    "RUNNING",
    "DeliveryInfo",
    "Recorded",
    "claim",
    "finish",
    "has_delivery",
    "jobs_to_enqueue",
    "look_again",
    "mark_enqueued",
    "pending_count",
    "pending_job",
    "pr_key",
    "record_deliveries",
    "record_delivery",
    "record_intent",
    "retry_later",
    "take_lease",
]
