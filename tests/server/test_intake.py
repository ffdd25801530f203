"""The web process records deliveries in batches: those that wait for the store's file together
are recorded in one transaction, and one that fails fails alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any, cast

import pytest
from sqlalchemy import event

from bot.server.intake import Intake, _Awaited
from bot.server.plan import Evaluate, Intent, Plan, pr_key
from bot.server.store import jobs
from bot.server.store.db import Database
from tests.fakegithub.world import wait_until

REPO = "acme/widgets"
HEAD = "a" * 40


def _delivery(guid: str) -> jobs.DeliveryInfo:
    return jobs.DeliveryInfo(guid, "pull_request", "synchronize", 42, REPO)


def _plan(*intents: Intent) -> Plan:
    spec = {"pull": {"number": 7, "head_sha": HEAD}}
    evaluate = Evaluate(REPO, HEAD, 42, "synchronize", pr_key(REPO, 7), 7, spec, supersede=True)
    return Plan("queued", "synchronize", intents or (evaluate,))


def _write_transactions(db: Database) -> list[object]:
    begun: list[object] = []

    def count(connection: Any) -> None:
        if connection.get_execution_options().get("receipt_write"):
            begun.append(connection)

    event.listen(db.engine, "begin", count)
    return begun


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop in a thread of its own, as the web process runs one: requests await there."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join()
    running.close()


def _submit(loop: asyncio.AbstractEventLoop, intake: Intake, guid: str, plan: Plan) -> Future[jobs.Recorded]:
    """A request recording a delivery on `loop`; its answer as this thread can wait for it."""
    return asyncio.run_coroutine_threadsafe(intake.record(_delivery(guid), plan), loop)


def _submitted_while_the_file_is_held(
    db: Database, intake: Intake, plans: list[tuple[str, Plan]], loop: asyncio.AbstractEventLoop
) -> list[Future[jobs.Recorded]]:
    """Hand over the first delivery, then the rest once the intake waits for the file: they queue
    behind it, as deliveries do while the worker process writes."""
    assert db.writers is not None
    with db.writers.held():
        (guid, plan), *rest = plans
        answers = [_submit(loop, intake, guid, plan)]
        wait_until(lambda: intake.queued() == 0 and db.writers is not None and db.writers.waiters() == 1,
                   what="the intake waiting for the file")  # fmt: skip
        answers += [_submit(loop, intake, g, p) for g, p in rest]
        wait_until(lambda: intake.queued() == len(rest), what="the deliveries queued")
    return answers


def test_deliveries_that_wait_for_the_file_are_recorded_in_one_transaction(
    db: Database, loop: asyncio.AbstractEventLoop
) -> None:
    enqueued: list[int] = []
    intake = Intake(db, enqueued.append)
    begun = _write_transactions(db)
    plans = [(f"g-{n}", _plan()) for n in range(12)]
    answers = _submitted_while_the_file_is_held(db, intake, plans, loop)
    recorded = [answer.result(timeout=30) for answer in answers]
    assert len(begun) == 2  # the first alone, then the eleven that queued behind it
    assert not any(r.duplicate for r in recorded)
    [job_id] = [j for r in recorded for j in r.job_ids]  # one job for the head, the others join it
    assert enqueued == [job_id]
    assert all(jobs.has_delivery(db, f"g-{n}") for n in range(12))


def test_a_delivery_that_fails_its_batch_fails_alone(db: Database, loop: asyncio.AbstractEventLoop) -> None:
    intake = Intake(db, lambda _job: None)
    poison = _plan(cast(Intent, object()))  # not an intent: recording it raises
    answers = _submitted_while_the_file_is_held(
        db, intake, [("g-0", _plan()), ("g-1", _plan()), ("g-bad", poison), ("g-2", _plan())], loop
    )
    with pytest.raises(AttributeError):
        answers[2].result(timeout=30)
    assert all(not answers[n].result(timeout=30).duplicate for n in (0, 1, 3))
    assert [jobs.has_delivery(db, g) for g in ("g-0", "g-1", "g-bad", "g-2")] == [True, True, False, True]


def test_postgresql_is_not_batched() -> None:
    """Writers to PostgreSQL do not exclude one another: several threads, a delivery each."""
    database = Database.open("postgresql://nobody@127.0.0.1:1/none")
    intake = Intake(database, lambda _job: None)
    assert intake.max_batch == 1


def test_the_intake_outlives_a_failure_of_its_own(
    db: Database, monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    """A failure outside any delivery's recording fails the deliveries it met, not the thread
    every later delivery waits on."""
    intake = Intake(db, lambda _job: None)
    answer = intake._answer

    def broken(waiting: Any, result: Any) -> None:
        monkeypatch.setattr(intake, "_answer", answer)
        raise RuntimeError("broken once")

    monkeypatch.setattr(intake, "_answer", broken)
    with pytest.raises(RuntimeError, match="broken once"):
        _submit(loop, intake, "g-1", _plan()).result(timeout=30)
    assert not _submit(loop, intake, "g-2", _plan()).result(timeout=30).duplicate


def test_a_request_awaits_its_answer_on_its_event_loop(db: Database) -> None:
    intake = Intake(db, lambda _job: None)

    async def deliver() -> tuple[jobs.Recorded, jobs.Recorded]:
        first = await intake.record(_delivery("g-1"), _plan())
        return first, await intake.record(_delivery("g-1"), _plan())

    first, again = asyncio.run(deliver())
    assert not first.duplicate and len(first.job_ids) == 1
    assert again.duplicate and again.job_ids == ()


def _taken_and_waiting_for_the_file(db: Database, intake: Intake) -> None:
    assert db.writers is not None
    wait_until(lambda: intake.queued() == 0 and db.writers is not None and db.writers.waiters() == 1,
               what="the intake waiting for the file")  # fmt: skip


def test_a_request_given_up_before_the_intake_takes_it_is_not_recorded(db: Database) -> None:
    """A request whose task was cancelled while it waited is not recorded; the others are, and
    are answered."""
    intake = Intake(db, lambda _job: None)
    assert db.writers is not None

    async def deliver() -> list[object]:
        with db.writers.held():  # type: ignore[union-attr]
            tasks = [asyncio.create_task(intake.record(_delivery("g-0"), _plan()))]
            await asyncio.sleep(0)  # the task hands its delivery to the intake
            _taken_and_waiting_for_the_file(db, intake)
            tasks += [asyncio.create_task(intake.record(_delivery(f"g-{n}"), _plan())) for n in (1, 2)]
            await asyncio.sleep(0)
            tasks[2].cancel()
            await asyncio.sleep(0)
        return await asyncio.gather(*tasks, return_exceptions=True)

    answers = asyncio.run(deliver())
    assert not any(isinstance(a, BaseException) for a in answers[:2])
    assert isinstance(answers[2], asyncio.CancelledError)
    assert [jobs.has_delivery(db, f"g-{n}") for n in range(3)] == [True, True, False]


def test_an_answer_for_a_closed_loop_is_dropped() -> None:
    """A server stopped while a delivery was recorded: its request went with the loop, and the
    intake answering it raises nothing (which would fail the rest of its batch)."""
    loop = asyncio.new_event_loop()
    answer = _Awaited(loop)
    assert answer.set_running_or_notify_cancel() and not answer.done()
    loop.close()
    answer.set_result(jobs.Recorded(duplicate=False))
    assert answer.done() and not answer.future.done()
