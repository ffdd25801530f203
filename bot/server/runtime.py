"""One process's App: the store, the queue, the worker context, and the sweeps that keep them
honest. `receipt serve` builds one that supervises a worker process, `receipt worker` (that
process, or one of a fleet's) one that only works."""

from __future__ import annotations

import gc
import os
import socket
import sys
from dataclasses import dataclass, field
from datetime import timedelta

from huey.consumer import Consumer

from bot.github.auth import AppCredentials, InstallationTokens
from bot.github.client import RetryPolicy
from bot.server import logs
from bot.server.intake import Intake
from bot.server.metrics import github_observer
from bot.server.plan import Evaluate
from bot.server.queue import Queue
from bot.server.redeliver import redeliver_failed
from bot.server.settings import Settings
from bot.server.store import jobs as store
from bot.server.store import runs
from bot.server.store.db import Database, is_sqlite, utcnow
from bot.server.store.models import CheckRun
from bot.server.supervise import WorkerProcess
from bot.server.work import Context, Post, post_to_github, run_job

SWEEP_LEASE = "sweep"
REDELIVER_LEASE = "redeliver"


def settle() -> None:
    """Start-up is over: what it built (modules, the engine's tables, the store and the queue)
    lives as long as the process, so the cyclic collector stops walking it. A full collection
    that walks it all stops every thread for 100 ms or more, acknowledgements included. A thread
    that keeps the interpreter lock (a worker judging a change) holds it until the switch interval
    ends each time another asks for it back: 1 ms instead of 5 bounds that wait, for the other
    worker's short transactions in a worker process, and for the event loop and its thread pool
    in the web process."""
    gc.freeze()
    sys.setswitchinterval(0.001)


@dataclass
class Runtime:
    settings: Settings
    db: Database
    queue: Queue = field(init=False)
    intake: Intake = field(init=False)  # the web process's recording of deliveries
    context: Context = field(init=False)
    holder: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    worker_process: WorkerProcess | None = None
    stopping: bool = False

    @classmethod
    def build(
        cls, settings: Settings, *, post: Post = post_to_github, upgrade_schema: bool | None = None
    ) -> Runtime:
        db = Database.open(settings.database_url)
        db.check_schema(upgrade=is_sqlite(db.url) if upgrade_schema is None else upgrade_schema)
        runtime = cls(settings, db)
        runtime.queue = Queue(
            settings.queue,
            run_job=runtime.run_job,
            sweep=runtime.sweep,
            deadline=runtime.deadline,
            name=settings.queue_name,
        )
        tokens = None
        key = settings.private_key_pem
        if settings.app_id is not None and key:
            retry = RetryPolicy(
                server_retries=settings.github_retries, backoff_seconds=settings.github_backoff_seconds
            )
            tokens = InstallationTokens(
                AppCredentials(settings.app_id, key, settings.github_api_url),
                retry=retry,
                observe=github_observer,
            )
        runtime.intake = Intake(db, lambda job_id: runtime.enqueue(job_id, recorded=True))
        runtime.context = Context(
            settings, db, tokens, enqueue=runtime.enqueue, post=post, at_deadline=runtime.queue.at_deadline
        )
        return runtime

    def enqueue(self, job_id: int, delay: float = 0.0, *, recorded: bool = False) -> None:
        """Wake a worker for the job; `recorded` when its row already says it was enqueued."""
        self.queue.enqueue(job_id, delay)
        if not recorded:
            store.mark_enqueued(self.db, [job_id])

    def run_job(self, job_id: int) -> None:
        run_job(self.context, job_id)

    def recover(self) -> int:
        """Re-enqueue every job without a live message (a restart, a killed worker, a lost message)."""
        found = store.jobs_to_enqueue(self.db, stale_after=timedelta(seconds=self.settings.job_lease_seconds))
        for job_id, delay in found:
            self.queue.enqueue(job_id, delay)
        store.mark_enqueued(self.db, [job_id for job_id, _ in found])
        if found:
            logs.event(f"re-enqueued {len(found)} job(s)", outcome="recovered")
        return len(found)

    def sweep(self) -> None:
        """Periodic, once across the fleet: recover lost jobs and end waits past their deadline."""
        if not store.take_lease(self.db, SWEEP_LEASE, self.holder, self.settings.sweep_seconds * 0.9):
            return
        self.recover()
        for run in runs.overdue_runs(self.db, utcnow()):
            self._end_wait(run)
        self.redeliver()

    def redeliver(self) -> None:
        """A pass over GitHub's failed deliveries, at most once per RECEIPT_REDELIVER_SECONDS
        across the fleet; a failure is logged and left to the next pass."""
        if self.context.tokens is None:
            return
        seconds = self.settings.redeliver_seconds
        if not store.take_lease(self.db, REDELIVER_LEASE, self.holder, seconds * 0.9):
            return
        try:
            done = redeliver_failed(self.db, self.context.tokens.app)
        except Exception as exc:
            logs.failure("the redelivery pass failed; the next one tries again", exc=exc)
            return
        logs.event(f"redelivery pass: {done.listed} attempt(s) listed, {len(done.redelivered)} redelivered",
                   outcome="redelivery")  # fmt: skip

    def deadline(self, run_id: int) -> None:
        """A run's deadline message: re-evaluate it if it is still waiting once the time is up."""
        run = runs.get_run(self.db, run_id)
        if run is None or run.status != "in_progress" or run.deadline is None:
            return
        left = (run.deadline - utcnow()).total_seconds()
        if left > 0:  # early (clocks, or a deadline moved): come back when it is due
            self.queue.at_deadline(run_id, left)
            return
        self._end_wait(run)

    def _end_wait(self, run: CheckRun) -> None:
        """Evaluate `run`'s head again; its checks still pending are then past the deadline."""
        intent = Evaluate(
            run.repo, run.head_sha, run.installation_id, "deadline", run.key, run.pr, dict(run.spec)
        )
        for job_id in store.record_intent(self.db, intent):
            self.enqueue(job_id)

    def consumer(self) -> Consumer:
        """huey's consumer of this process's RECEIPT_WORKERS worker threads (`receipt worker`)."""
        return self.queue.consumer(self.settings.workers)

    def start_worker_process(self) -> WorkerProcess:
        self.worker_process = WorkerProcess(self.recover, self.settings.job_lease_seconds).start()
        return self.worker_process

    def stop_workers(self) -> None:
        if self.worker_process is not None:
            self.worker_process.stop()
            self.worker_process = None
