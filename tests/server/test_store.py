"""The store settles duplicates and races: deliveries by their GUID, jobs by leased claims."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import pytest

from bot.server.plan import Cancel, Evaluate, Plan, Refresh, pr_key
from bot.server.store import jobs, locks, runs
from bot.server.store.db import Database, SchemaError
from bot.server.store.models import Job

T = TypeVar("T")

REPO = "acme/widgets"
HEAD_A, HEAD_B = "a" * 40, "b" * 40


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """Every store test runs on the embedded SQLite file and on PostgreSQL (a schema of its own)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    else:
        url = request.getfixturevalue("scaled").database_url
    database = Database.open(url)
    database.migrate()
    yield database
    database.engine.dispose()


def _delivery(guid: str) -> jobs.DeliveryInfo:
    return jobs.DeliveryInfo(guid, "pull_request", "synchronize", 42, REPO)


def _opened(head: str, *, number: int = 7) -> Plan:
    spec = {"pull": {"number": number, "head_sha": head}}
    intent = Evaluate(REPO, head, 42, "synchronize", pr_key(REPO, number), number, spec, supersede=True)
    return Plan("queued", "x", (intent,))


def _job(db: Database, job_id: int) -> Job:
    found = jobs.pending_job(db, job_id)
    assert found is not None
    return found


def test_a_delivery_is_recorded_once_with_its_job(db: Database) -> None:
    first = jobs.record_delivery(db, _delivery("g-1"), _opened(HEAD_A))
    again = jobs.record_delivery(db, _delivery("g-1"), _opened(HEAD_A))
    assert not first.duplicate and len(first.job_ids) == 1
    assert again.duplicate and again.job_ids == ()


def test_racing_copies_of_one_delivery_give_one_job(db: Database) -> None:
    results: list[jobs.Recorded] = []
    barrier = threading.Barrier(8)

    def deliver() -> None:
        barrier.wait()
        results.append(jobs.record_delivery(db, _delivery("g-race"), _opened(HEAD_A)))

    threads = [threading.Thread(target=deliver) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(not r.duplicate for r in results) == 1
    assert sum(len(r.job_ids) for r in results) == 1


def _race(count: int, work: Callable[[int], T]) -> list[T]:
    """`work(i)` in `count` threads released at once; their results."""
    barrier = threading.Barrier(count)
    results: list[T] = []
    lock = threading.Lock()

    def run(i: int) -> None:
        barrier.wait()
        value = work(i)
        with lock:
            results.append(value)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_racing_events_for_one_watched_head_give_one_job(db: Database) -> None:
    runs.save_run(
        db, run_id=99, repo=REPO, head_sha=HEAD_A, pr=7, key=pr_key(REPO, 7), installation_id=42,
        status="in_progress", conclusion=None, annotations_sent=0, spec={"pull": {"number": 7}},
        waiting=["test"], deadline=None, receipt_id=None, digest=None,
    )  # fmt: skip
    plan = Plan("queued", "x", (Refresh(REPO, HEAD_A, 42),))
    for round_ in range(5):
        results = _race(6, lambda i: jobs.record_delivery(db, _delivery(f"g-{round_}-{i}"), plan))
        assert sum(len(r.job_ids) for r in results) == 1, results
        assert not any(r.duplicate for r in results)
        [job_id] = [j for r in results for j in r.job_ids]
        jobs.finish(db, job_id)


def test_racing_claims_of_one_pull_requests_jobs_run_one_at_a_time(db: Database) -> None:
    """Two jobs of one key (an old head still to be closed, the new one) claimed at once by many
    workers: one claim succeeds, whichever job it is; under READ COMMITTED as under SQLite."""
    for round_ in range(5):
        [old] = jobs.record_delivery(db, _delivery(f"g-{round_}-a"), _opened(HEAD_A)).job_ids
        [new] = jobs.record_delivery(db, _delivery(f"g-{round_}-b"), _opened(HEAD_B)).job_ids
        claimed = _race(8, lambda i: jobs.claim(db, (old, new)[i % 2], timedelta(minutes=5)))
        won = [j for j in claimed if j is not None]
        assert len(won) == 1, [j.id for j in won]
        for job_id in (old, new):
            jobs.finish(db, job_id)


def test_a_worker_past_its_lease_writes_nothing_over_the_worker_that_took_the_job(db: Database) -> None:
    """The lease a claim took is its token: once another worker has claimed the job (the first
    one's lease ran out), the first one's finish, retry or look again changes nothing."""
    [job_id] = jobs.record_delivery(db, _delivery("g-lease"), _opened(HEAD_A)).job_ids
    slow = jobs.claim(db, job_id, timedelta(seconds=-1))  # a lease already run out
    assert slow is not None
    fast = jobs.claim(db, job_id, timedelta(minutes=5))
    assert fast is not None and fast.lease_until != slow.lease_until
    assert not jobs.finish(db, job_id, jobs.FAILED, "late", lease=slow.lease_until)
    assert not jobs.retry_later(db, job_id, timedelta(seconds=1), "late", lease=slow.lease_until)
    assert not jobs.look_again(db, job_id, timedelta(seconds=1), lease=slow.lease_until)
    assert _job(db, job_id).state == jobs.RUNNING and _job(db, job_id).last_error is None
    assert jobs.finish(db, job_id, lease=fast.lease_until)
    assert _job(db, job_id).state == jobs.DONE


def test_a_new_head_supersedes_the_pending_older_one(db: Database) -> None:
    [old] = jobs.record_delivery(db, _delivery("g-1"), _opened(HEAD_A)).job_ids
    [new] = jobs.record_delivery(db, _delivery("g-2"), _opened(HEAD_B)).job_ids
    assert _job(db, old).superseded_by == HEAD_B
    assert _job(db, new).superseded_by is None


def test_a_batch_records_each_delivery_as_if_alone(db: Database) -> None:
    """One transaction, a savepoint a delivery: a copy later in the batch (or of one recorded
    before it) is a duplicate that costs only itself, and a newer head in the batch supersedes the
    job an earlier delivery of the batch created."""
    jobs.record_delivery(db, _delivery("g-0"), _opened(HEAD_A, number=8))
    first, copy, before, newer = jobs.record_deliveries(
        db,
        [(_delivery("g-1"), _opened(HEAD_A)), (_delivery("g-1"), _opened(HEAD_A)),
         (_delivery("g-0"), _opened(HEAD_A, number=8)), (_delivery("g-2"), _opened(HEAD_B))],
    )  # fmt: skip
    assert isinstance(first, jobs.Recorded) and isinstance(newer, jobs.Recorded)
    assert copy == jobs.Recorded(duplicate=True) and before == jobs.Recorded(duplicate=True)
    [old], [new] = first.job_ids, newer.job_ids
    assert _job(db, old).superseded_by == HEAD_B
    assert _job(db, new).superseded_by is None
    assert jobs.has_delivery(db, "g-1") and jobs.has_delivery(db, "g-2")


def test_a_second_event_for_a_pending_head_joins_its_job(db: Database) -> None:
    jobs.record_delivery(db, _delivery("g-1"), _opened(HEAD_A))
    assert jobs.record_delivery(db, _delivery("g-2"), _opened(HEAD_A)).job_ids == ()


def test_joining_leaves_the_job_clean_unless_it_gains_an_installation(db: Database) -> None:
    """Most deliveries of a busy pull request join its pending job and change nothing in it; a
    row left unmodified costs its transaction no unit of work at the flush."""
    without = Evaluate(REPO, HEAD_A, None, "synchronize", pr_key(REPO, 7), 7, {"pull": {"number": 7}})
    [job_id] = jobs.record_delivery(db, _delivery("g-1"), Plan("queued", "x", (without,))).job_ids
    with db.session() as session:
        assert jobs._apply(session, without, "g-2") is None
        assert not session.dirty
    with db.session() as session:
        assert jobs._apply(session, replace(without, installation_id=42), "g-3") is None
        assert session.dirty
    assert _job(db, job_id).installation_id == 42
    with db.session() as session:
        assert jobs._apply(session, without, "g-4") is None
        assert not session.dirty
    assert _job(db, job_id).installation_id == 42


def test_a_claim_is_exclusive_and_a_lease_that_runs_out_is_reclaimed(db: Database) -> None:
    [job_id] = jobs.record_delivery(db, _delivery("g-1"), _opened(HEAD_A)).job_ids
    assert jobs.claim(db, job_id, timedelta(minutes=5)) is not None
    assert jobs.claim(db, job_id, timedelta(minutes=5)) is None
    [other] = jobs.record_delivery(db, _delivery("g-2"), _opened(HEAD_B)).job_ids
    assert jobs.claim(db, other, timedelta(minutes=5)) is None, "one job of a pull request at a time"
    jobs.finish(db, job_id)
    assert jobs.claim(db, other, timedelta(seconds=-1)) is not None  # taken, with a lease already over
    assert [j for j, _ in jobs.jobs_to_enqueue(db, stale_after=timedelta(0))] == [other]
    reclaimed = jobs.claim(db, other, timedelta(minutes=5))
    assert reclaimed is not None and reclaimed.attempts == 2


def test_refresh_only_for_heads_the_app_watches(db: Database) -> None:
    plan = Plan("queued", "x", (Refresh(REPO, HEAD_A, 42),))
    assert jobs.record_delivery(db, _delivery("g-1"), plan).job_ids == ()
    runs.save_run(
        db, run_id=99, repo=REPO, head_sha=HEAD_A, pr=7, key=pr_key(REPO, 7), installation_id=42,
        status="in_progress", conclusion=None, annotations_sent=0, spec={"pull": {"number": 7}},
        waiting=["test"], deadline=None, receipt_id=None, digest=None,
    )  # fmt: skip
    [job_id] = jobs.record_delivery(db, _delivery("g-2"), plan).job_ids
    job = _job(db, job_id)
    assert (job.key, job.pr, job.reason, job.spec["pull"]) == (pr_key(REPO, 7), 7, "refresh", {"number": 7})


def test_cancel_drops_pending_work_and_ends_a_run_in_progress(db: Database) -> None:
    [job_id] = jobs.record_delivery(db, _delivery("g-1"), _opened(HEAD_A)).job_ids
    runs.save_run(
        db, run_id=5, repo=REPO, head_sha=HEAD_A, pr=7, key=pr_key(REPO, 7), installation_id=42,
        status="in_progress", conclusion=None, annotations_sent=0, spec={}, waiting=[], deadline=None,
        receipt_id=None, digest=None,
    )  # fmt: skip
    plan = Plan("queued", "x", (Cancel(REPO, pr_key(REPO, 7), HEAD_A, 42, "the pull request was closed"),))
    [cancel] = jobs.record_delivery(db, _delivery("g-2"), plan).job_ids
    assert _job(db, job_id).state == jobs.CANCELLED
    assert _job(db, cancel).kind == jobs.CANCEL and _job(db, cancel).spec["run_id"] == 5


def test_a_lease_is_held_by_one_process_at_a_time(db: Database) -> None:
    assert jobs.take_lease(db, "sweep", "a", 60)
    assert not jobs.take_lease(db, "sweep", "b", 60)


def test_receipts_open_only_with_their_token(db: Database) -> None:
    link = runs.store_receipt(db, body="{}", repo=REPO, pr=7, head_sha=HEAD_A, conclusion="success")
    assert runs.load_receipt(db, link.id, link.token) is not None
    for receipt_id, token in ((link.id, "wrong"), (link.id, None), ("nope", link.token), (link.id, "")):
        assert runs.load_receipt(db, receipt_id, token) is None


def test_a_schema_from_a_newer_receipt_is_refused(db: Database) -> None:
    with db.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(SchemaError, match="does not know"):
        db.check_schema(upgrade=True)


def test_an_empty_database_needs_migrating_unless_upgrades_are_allowed(tmp_path: Path) -> None:
    fresh = Database.open(f"sqlite:///{tmp_path / 'new.sqlite3'}")
    with pytest.raises(SchemaError, match="receipt migrate"):
        fresh.check_schema(upgrade=False)
    fresh.check_schema(upgrade=True)
    assert fresh.current_revision() == fresh.head_revision()


def test_an_exclusive_lock_is_held_by_one_holder_at_a_time(db: Database) -> None:
    """Each call is its own holder (its own connection, or its own open file), as another process is."""
    inside, most = 0, 0
    guard = threading.Lock()

    def hold(_: int) -> None:
        nonlocal inside, most
        with locks.exclusive(db, "check-run-writes:42"):
            with guard:
                inside += 1
                most = max(most, inside)
            time.sleep(0.05)
            with guard:
                inside -= 1

    _race(4, hold)
    assert most == 1


def test_exclusive_locks_of_other_names_do_not_wait(db: Database) -> None:
    entered = threading.Event()

    def other() -> None:
        with locks.exclusive(db, "check-run-writes:43"):
            entered.set()

    with locks.exclusive(db, "check-run-writes:42"):
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(5), "another installation's writes were held up"
    thread.join()
