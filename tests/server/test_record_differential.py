"""Deliveries recorded as before the insert settled duplicates by itself: the same random streams
of deliveries (copies within and across batches, new heads, joins, refreshes, cancels, claims and
finished jobs between batches) recorded by the earlier algorithm (an ORM insert in a savepoint per
delivery, a duplicate told by the primary key's IntegrityError) and by `record_deliveries` leave
the same answers and the same rows."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.server.plan import Cancel, Evaluate, Intent, Plan, Refresh, pr_key
from bot.server.store import jobs, runs
from bot.server.store.db import Database, utcnow
from bot.server.store.models import Delivery, Job

REPO = "acme/widgets"
HEADS = tuple(c * 40 for c in "abcdef")
Record = Callable[[Database, Sequence[tuple[jobs.DeliveryInfo, Plan]]], list[Any]]


def _earlier_record(session: Session, delivery: jobs.DeliveryInfo, plan: Plan) -> jobs.Recorded:
    session.add(
        Delivery(
            guid=delivery.guid,
            event=delivery.event,
            action=delivery.action,
            installation_id=delivery.installation_id,
            repo=delivery.repo,
            outcome=plan.outcome,
            detail=plan.detail[:1000],
            received_at=utcnow(),
        )
    )
    session.flush()
    found = [jobs._apply(session, i, delivery.guid) for i in plan.intents]
    recorded = [j for j in found if j is not None]
    for job in recorded:
        job.enqueued_at = utcnow()
    session.flush()
    return jobs.Recorded(duplicate=False, job_ids=tuple(j.id for j in recorded))


def _earlier(db: Database, batch: Sequence[tuple[jobs.DeliveryInfo, Plan]]) -> list[Any]:
    results: list[Any] = []
    with db.session() as session:
        for delivery, plan in batch:
            try:
                with session.begin_nested():
                    results.append(_earlier_record(session, delivery, plan))
            except IntegrityError as exc:
                duplicate = session.get(Delivery, delivery.guid) is not None
                results.append(jobs.Recorded(duplicate=True) if duplicate else exc)
    return results


def _intent(rng: random.Random) -> Intent:
    number = rng.choice((7, 8))
    head = rng.choice(HEADS)
    key = pr_key(REPO, number)
    roll = rng.random()
    if roll < 0.6:
        spec = {"pull": {"number": number, "head_sha": head, "labels": [rng.choice("xy")]}}
        return Evaluate(REPO, head, rng.choice((42, None)), "synchronize", key, number, spec,
                        supersede=rng.random() < 0.7, fresh_run=rng.random() < 0.2)  # fmt: skip
    if roll < 0.75:
        return Evaluate(REPO, head, 42, "rerequested", None, spec={}, fresh_run=True)
    if roll < 0.9:
        return Refresh(REPO, head, rng.choice((42, None)))
    return Cancel(REPO, key, rng.choice((head, None)), 42, "the pull request was closed")


def _stream(seed: int) -> Iterator[tuple[str, Any]]:
    """Batches of deliveries, and between them what workers do to the jobs."""
    rng = random.Random(seed)
    guids: list[str] = []
    for n in range(30):
        batch = []
        for _ in range(rng.randint(1, 8)):
            copy = guids and rng.random() < 0.25
            guid = rng.choice(guids) if copy else f"g-{seed}-{len(guids)}"
            guids.append(guid)
            intents = tuple(_intent(rng) for _ in range(rng.choice((0, 1, 1, 1, 2))))
            plan = Plan("queued" if intents else "ignored", f"delivery {n}", intents)
            batch.append(
                (jobs.DeliveryInfo(guid, "pull_request", rng.choice(("opened", None)), 42, REPO), plan)
            )
        yield "batch", batch
        yield "work", (rng.random(), rng.randint(0, 10_000), rng.choice(HEADS))


def _work(db: Database, choice: tuple[float, int, str]) -> None:
    roll, pick, head = choice
    with db.read() as session:
        ids = list(session.scalars(select(Job.id).order_by(Job.id)))
    if roll < 0.2:
        runs.save_run(
            db, run_id=1000 + pick % 5, repo=REPO, head_sha=head, pr=7, key=pr_key(REPO, 7),
            installation_id=42, status=("in_progress", "completed")[pick % 2], conclusion=None,
            annotations_sent=0, spec={"pull": {"number": 7}}, waiting=[], deadline=None,
            receipt_id=None, digest=None,
        )  # fmt: skip
    elif ids and roll < 0.6:
        jobs.claim(db, ids[pick % len(ids)], timedelta(minutes=5))
    elif ids:
        jobs.finish(db, ids[pick % len(ids)])


def _rows(db: Database) -> tuple[list[Any], list[Any]]:
    with db.read() as session:
        deliveries = [
            (d.guid, d.event, d.action, d.installation_id, d.repo, d.outcome, d.detail)
            for d in session.scalars(select(Delivery).order_by(Delivery.guid))
        ]
        found = [
            (j.id, j.key, j.kind, j.reason, j.state, j.installation_id, j.repo, j.head_sha, j.pr, j.spec,
             j.delivery_guid, j.superseded_by, j.attempts, j.concluding, j.last_error,
             j.enqueued_at is None, j.lease_until is None)
            for j in session.scalars(select(Job).order_by(Job.id))
        ]  # fmt: skip
    return deliveries, found


def _open(path: Path) -> Database:
    db = Database.open(f"sqlite:///{path}")
    db.migrate()
    return db


@pytest.mark.parametrize("seed", range(12))
def test_recording_matches_the_earlier_algorithm(tmp_path: Path, seed: int) -> None:
    earlier, now = _open(tmp_path / "earlier.sqlite3"), _open(tmp_path / "now.sqlite3")
    record: tuple[tuple[Database, Record], ...] = ((earlier, _earlier), (now, jobs.record_deliveries))
    duplicates = 0
    for step, value in _stream(seed):
        if step == "work":
            for db, _ in record:
                _work(db, value)
            continue
        answers = [recorder(db, value) for db, recorder in record]
        assert answers[0] == answers[1]
        duplicates += sum(a.duplicate for a in answers[1])
        assert _rows(earlier) == _rows(now)
    assert duplicates > 0
    for db, _ in record:
        db.engine.dispose()


def test_the_pending_jobs_query_is_the_earlier_one() -> None:
    """`_evaluate`'s query, now built once with the key bound at each call, is the SQL it was."""
    key = pr_key(REPO, 7)
    inline = select(Job).where(
        Job.key == key, Job.state == jobs.PENDING, Job.kind == jobs.EVALUATE, Job.superseded_by.is_(None)
    )
    for dialect in (sqlite.dialect(), postgresql.dialect()):
        earlier, built = inline.compile(dialect=dialect), jobs._PENDING_OF_KEY.compile(dialect=dialect)
        assert str(earlier).replace("key_1", "key") == str(built)
        assert {k.replace("key_1", "key"): v for k, v in earlier.params.items()} == {
            **built.params,
            "key": key,
        }
