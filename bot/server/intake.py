"""The web process's recording of deliveries: one writer thread, deliveries recorded in batches.

SQLite takes one write transaction at a time. When each delivery had a transaction of its own,
from a thread of the request pool, every one paid its own BEGIN and COMMIT and the session's setup
under the write lock, and the pool's threads queued on that lock one at a time. Whenever the web
process got less CPU than the arrivals needed (the worker process judging a change on the other
core), that queue grew to the whole pool and every delivery behind it waited for all the others'
transactions: the hundreds of milliseconds of the acknowledgement's slowest 1%. Here a thread
takes whatever deliveries are waiting when the file is free and records them in one transaction
(a duplicate costs only itself; a failure is retried delivery by delivery, so it fails no other):
the longer the queue, the less each delivery costs, and a backlog drains instead of standing.

A delivery is answered only once its batch is committed and its jobs are enqueued, as before.
On PostgreSQL, where writers do not exclude one another, several threads record a delivery each.

A request awaits its answer on the event loop (`record`): the intake sets the loop's own future
there, one wake-up, where a thread's Future wrapped for the loop (`asyncio.wrap_future`) cost
each delivery its lock, its callbacks and a second hop, about 50 µs of CPU and 100 µs of wall.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.server import logs
from bot.server.plan import Plan
from bot.server.store.db import Database
from bot.server.store.jobs import DeliveryInfo, Recorded, mark_not_enqueued, record_deliveries

MAX_BATCH = 32  # recorded in a few ms, so a delivery behind a full batch still waits little
POSTGRES_THREADS = 8


class _Awaited:
    """A request's answer, a future of its event loop set on that loop."""

    __slots__ = ("future", "loop", "settled")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.future: asyncio.Future[Recorded] = loop.create_future()
        self.settled = False

    def set_running_or_notify_cancel(self) -> bool:
        """False once the request gave up (its task cancelled the future it awaited)."""
        return not self.future.cancelled()

    def done(self) -> bool:
        return self.settled

    def set_result(self, result: Recorded) -> None:
        self._settle(self.future.set_result, result)

    def set_exception(self, exception: BaseException | None) -> None:
        self._settle(self.future.set_exception, exception)

    def _settle(self, setter: Callable[[Any], None], value: object) -> None:
        self.settled = True
        with contextlib.suppress(RuntimeError):  # the loop is closed: no request is left to answer
            self.loop.call_soon_threadsafe(_unless_cancelled, self.future, setter, value)


def _unless_cancelled(future: asyncio.Future[Recorded], setter: Callable[[Any], None], value: object) -> None:
    if not future.cancelled():  # given up after the intake took it: recorded, answered to no one
        setter(value)


@dataclass(frozen=True, slots=True)
class _Waiting:
    info: DeliveryInfo
    plan: Plan
    answer: _Awaited


class Intake:
    """`record` a delivery, from the event loop: awaited, it is its `Recorded` once committed (and
    its jobs enqueued)."""

    def __init__(self, db: Database, enqueue: Callable[[int], None]) -> None:
        self._db = db
        self._enqueue = enqueue
        self._waiting: queue.SimpleQueue[_Waiting] = queue.SimpleQueue()
        batched = db.writers is not None  # SQLite: one writer per file
        self.max_batch = MAX_BATCH if batched else 1
        self._threads = 1 if batched else POSTGRES_THREADS
        self._started = False
        self._start_lock = threading.Lock()

    async def record(self, info: DeliveryInfo, plan: Plan) -> Recorded:
        """Hand the delivery to the intake's threads and await its answer on the running loop."""
        answer = _Awaited(asyncio.get_running_loop())
        self._put(_Waiting(info, plan, answer))
        return await answer.future

    def _put(self, waiting: _Waiting) -> None:
        self._waiting.put(waiting)
        if not self._started:
            self._start()

    def queued(self) -> int:
        """Deliveries handed over and not yet taken into a batch."""
        return self._waiting.qsize()

    def _start(self) -> None:
        with self._start_lock:
            if self._started:
                return
            for n in range(self._threads):
                threading.Thread(target=self._run, name=f"receipt-intake-{n}", daemon=True).start()
            self._started = True

    def _run(self) -> None:
        while True:
            batch = [self._waiting.get()]
            while len(batch) < self.max_batch:
                try:
                    batch.append(self._waiting.get_nowait())
                except queue.Empty:
                    break
            # A request given up (its client gone) is not recorded; one taken here cannot be.
            taken = [w for w in batch if w.answer.set_running_or_notify_cancel()]
            try:
                self._write(taken)
            except Exception as exc:  # the thread must outlive it: every later delivery waits on it
                logs.failure("the intake failed a batch of deliveries", exc=exc)
                for waiting in taken:
                    if not waiting.answer.done():
                        waiting.answer.set_exception(exc)

    def _write(self, batch: list[_Waiting]) -> None:
        if not batch:
            return
        try:
            results: list[Recorded | BaseException] = list(
                record_deliveries(self._db, [(w.info, w.plan) for w in batch])
            )
        except Exception as exc:
            if len(batch) == 1:
                results = [exc]
            else:  # one delivery failed the transaction: each alone, so it fails no other
                for waiting in batch:
                    self._write_alone(waiting)
                return
        for waiting, result in zip(batch, results, strict=True):
            self._answer(waiting, result)

    def _write_alone(self, waiting: _Waiting) -> None:
        try:
            [result] = record_deliveries(self._db, [(waiting.info, waiting.plan)])
        except Exception as exc:
            self._answer(waiting, exc)
        else:
            self._answer(waiting, result)

    def _answer(self, waiting: _Waiting, result: Recorded | BaseException) -> None:
        if isinstance(result, BaseException):
            waiting.answer.set_exception(result)
            return
        for job_id in result.job_ids:
            try:
                self._enqueue(job_id)
            except Exception as exc:
                logs.failure("could not enqueue a recorded job; the sweep will", exc=exc, job=job_id,
                             delivery=waiting.info.guid)  # fmt: skip
                self._not_enqueued(job_id)
        waiting.answer.set_result(result)

    def _not_enqueued(self, job_id: int) -> None:
        try:
            mark_not_enqueued(self._db, [job_id])
        except Exception as exc:  # the job still runs once its message looks lost
            logs.failure("could not mark a job not enqueued", exc=exc, job=job_id)
