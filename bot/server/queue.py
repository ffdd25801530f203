"""The task queue: huey, on a SQLite file beside the embedded store by default or on Redis for
several workers.

Why huey: one API over SQLite and Redis storage (the embedded default needs no server, the scaled
deployment shares Redis), thread workers, delayed tasks for
retries and a scheduler for periodic work. Its messages are wake-ups, not the record: the job row
in the store is, so a message lost with a killed worker or a Redis restart costs a sweep, not a job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from huey import Huey, RedisHuey, crontab
from huey.consumer import Consumer
from huey.storage import SqliteStorage

from bot.engine import ReceiptError
from bot.server.store.db import is_sqlite, normalize_url, sqlite_path
from bot.server.store.writer import lock_file, write_lock

JOB_TASK = "receipt.run_job"
SWEEP_TASK = "receipt.sweep"
DEADLINE_TASK = "receipt.deadline"
IDLE_POLL_SECONDS = 0.25  # how long an idle SQLite-backed worker waits before looking again


class QueueStorage(SqliteStorage):  # type: ignore[misc]
    """huey's SQLite storage with synchronous=NORMAL. huey offers FULL (an fsync on every commit,
    the acknowledgement's enqueue included) or OFF (no sync at all, which a power loss can corrupt).
    NORMAL in WAL mode keeps every commit through a crash of the process (kill -9) and loses at most
    the last ones to a power loss, which costs nothing here: a message only wakes a worker, and the
    sweep enqueues any job whose message is gone.

    Its writers (the web process's enqueues, the worker process's dequeues and scheduler) take the
    file's `WriteLock` first, as the store's do, rather than meet in SQLite's polling busy handler."""

    def __init__(self, name: str, *, filename: str, **kwargs: Any) -> None:
        path = Path(filename).resolve()
        self._writers = write_lock(str(path), lock_file(path))  # before huey creates its tables
        super().__init__(name, filename=filename, **kwargs)

    @contextmanager
    def db(self, commit: bool = False, close: bool = False) -> Iterator[Any]:
        if not commit:  # a read: WAL lets it run beside the writer
            with super().db(commit=False, close=close) as cursor:
                yield cursor
            return
        with self._writers.held(), super().db(commit=True, close=close) as cursor:
            yield cursor

    def _create_connection(self) -> Any:
        connection = super()._create_connection()
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection


class QueueError(ReceiptError):
    """RECEIPT_QUEUE_URL names a queue receipt cannot use."""

    title = "invalid queue"


def make_huey(url: str, name: str = "receipt") -> Huey:
    """`name` prefixes the queue's keys in Redis (deployments sharing one Redis use different names)."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisHuey(name, url=url, results=False, utc=True)
    normalized = normalize_url(url)
    if is_sqlite(normalized):
        path = sqlite_path(normalized)
        if path is None:
            raise QueueError("the embedded queue needs a SQLite file: RECEIPT_DATABASE_URL=sqlite:///PATH")
        path.parent.mkdir(parents=True, exist_ok=True)
        return Huey(
            name, storage_class=QueueStorage, filename=str(path), results=False, utc=True, journal_mode="wal"
        )
    scheme = url.split(":", maxsplit=1)[0]
    raise QueueError(f"RECEIPT_QUEUE_URL must be redis://… or sqlite:///…, not {scheme}:…")


class Queue:
    """The tasks receipt runs: a job (by id), the periodic sweep, and a run's deadline (by run id:
    scheduled when a run starts waiting for test checks, kept by the queue across restarts; the
    sweep finds any deadline whose message was lost)."""

    def __init__(
        self,
        url: str,
        *,
        run_job: Callable[[int], None],
        sweep: Callable[[], None],
        deadline: Callable[[int], None] = lambda _: None,
        name: str = "receipt",
    ) -> None:
        self.huey = make_huey(url, name)
        self._run_job = self.huey.task(name=JOB_TASK)(run_job)
        self._deadline = self.huey.task(name=DEADLINE_TASK)(deadline)
        self.huey.periodic_task(crontab(minute="*"), name=SWEEP_TASK)(sweep)

    def at_deadline(self, run_id: int, delay: float) -> None:
        self._deadline.schedule(args=(run_id,), delay=max(delay, 0.0))

    def enqueue(self, job_id: int, delay: float = 0.0) -> None:
        if delay > 0:
            self._run_job.schedule(args=(job_id,), delay=delay)
        else:
            self._run_job(job_id)

    def ping(self) -> int:
        """Pending messages; raises when the storage does not answer."""
        return int(self.huey.pending_count())

    def consumer(self, workers: int) -> Consumer:
        """Thread workers; huey's signals: SIGINT stops once the jobs in flight end, SIGTERM at once."""
        return Consumer(
            self.huey,
            workers=max(1, workers),
            worker_type="thread",
            initial_delay=0.05,
            backoff=1.5,
            max_delay=IDLE_POLL_SECONDS,
            check_worker_health=True,
        )
