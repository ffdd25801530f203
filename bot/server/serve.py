"""The App's commands: `receipt serve`, `receipt worker`, `receipt migrate`, `receipt receive`."""

from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
import uuid
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import uvicorn
from fastapi import FastAPI

from bot.engine.errors import ReceiptError
from bot.fileread import read_limited
from bot.github.checks import CheckRunRequest, PublishedCheckRun
from bot.github.repo import RepoRef
from bot.jsonread import MAX_PAYLOAD_BYTES, load_json_object
from bot.server.app import create_app, create_worker_app
from bot.server.logs import configure_logging, configure_terminal_logging
from bot.server.plan import plan
from bot.server.runtime import Runtime, settle
from bot.server.settings import Settings, SettingsError, load_settings
from bot.server.store.db import Database
from bot.server.store.jobs import DONE, DeliveryInfo, pending_job, record_delivery
from bot.server.supervise import exit_with_parent


class _Server(uvicorn.Server):
    """uvicorn, with two additions: once it listens, the start-up redelivery pass runs (GitHub's
    redeliveries then find it answering); on SIGTERM, `/readyz` answers 503 for
    RECEIPT_DRAIN_SECONDS while requests are still served, so a load balancer stops sending
    traffic before the process stops taking it."""

    def __init__(self, config: uvicorn.Config, app: FastAPI, drain_seconds: float) -> None:
        super().__init__(config)
        self._app = app
        self._drain = drain_seconds
        self._draining = False

    def _runtime(self) -> Runtime | None:
        return getattr(self._app.state, "runtime", None)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        runtime = self._runtime()
        if runtime is not None and not self.should_exit:
            threading.Thread(target=runtime.redeliver, name="receipt-redeliver", daemon=True).start()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        runtime = self._runtime()
        if runtime is not None:
            runtime.stopping = True
        if self._drain > 0 and not self._draining:
            self._draining = True
            threading.Timer(self._drain, super().handle_exit, args=(sig, frame)).start()
            return
        super().handle_exit(sig, frame)


def serve(host: str, port: int) -> int:
    settings = load_settings()
    configure_logging()
    # fail fast on settings and the store's schema before binding; a queue out of reach is not fatal:
    # deliveries are still recorded (the sweep enqueues them) and /healthz says 503 until it answers
    Runtime.build(settings).db.engine.dispose()
    app = create_app(lambda: Runtime.build(settings))
    config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False,
                            timeout_graceful_shutdown=30)  # fmt: skip
    _Server(config, app, settings.drain_seconds).run()
    return 0


def _listen(runtime: Runtime, host: str, port: int) -> None:
    """A standalone worker's `/healthz` and `/metrics`, served beside its jobs (its own thread:
    the consumer keeps the main thread and its signals). It listens before the jobs start, and
    a port already taken is an error at start, not a worker nobody can see."""
    app = create_worker_app(runtime)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listening = socket.create_server((host, port), family=family)
    except OSError as exc:
        why = exc.strerror or exc
        raise SettingsError(f"receipt worker --port {port}: cannot listen on {host}: {why}") from None
    threading.Thread(target=server.run, kwargs={"sockets": [listening]}, name="receipt-worker-http",
                     daemon=True).start()  # fmt: skip


def worker(*, supervised: bool = False, host: str = "127.0.0.1", port: int | None = None) -> int:
    """`receipt worker`; `supervised`: the worker process of a `receipt serve`, which has recovered
    the store's jobs and runs the redelivery pass itself, and whose end this process follows;
    `port`: serve `/healthz` and `/metrics` on it."""
    settings = load_settings()
    configure_logging()
    if supervised:
        exit_with_parent(sys.stdin.fileno())
    runtime = Runtime.build(settings, upgrade_schema=False)
    if port is not None:
        _listen(runtime, host, port)
    if not supervised:
        runtime.recover()
        threading.Thread(target=runtime.redeliver, name="receipt-redeliver", daemon=True).start()
    settle()
    runtime.consumer().run()
    return 0


def migrate() -> int:
    settings = load_settings()
    db = Database.open(settings.database_url)
    revision = db.migrate()
    print(f"receipt: the database is at schema revision {revision}")
    return 0


def _printer(out: TextIO) -> Any:
    counter = iter(range(1, 1_000_000))

    def post(
        _gh: Any, repo: RepoRef, run: CheckRunRequest, run_id: int | None, sent: int
    ) -> PublishedCheckRun:
        verb = f"PATCH check run {run_id}" if run_id else "POST check run"
        body = {
            "name": run.name, "head_sha": run.head_sha,
            "conclusion": run.conclusion.value if run.conclusion else None,
            "title": run.title, "summary": run.summary, "annotations": len(run.annotations) - sent,
            "details_url": run.details_url,
        }  # fmt: skip
        out.write(
            f"receipt would {verb} on {repo.full_name}:\n{json.dumps(body, indent=2, ensure_ascii=False)}\n"
        )
        return PublishedCheckRun(run_id or next(counter), "", len(run.annotations), 0)

    return post


def receive(event: str, payload_path: Path, out: TextIO = sys.stdout) -> int:
    """Run the App's handler on a saved delivery against the configured API; print what it would post.

    Everything but the check-run writes is real (the reads go to RECEIPT_GITHUB_API_URL); the
    store is a scratch SQLite file, so the deployment's own is never touched.
    """
    settings = load_settings(signing=False)
    if settings.app_id is None or (settings.private_key is None and settings.private_key_path is None):
        raise SettingsError(
            "receipt receive reads from GitHub as the App: set RECEIPT_APP_ID and RECEIPT_PRIVATE_KEY "
            "(or RECEIPT_PRIVATE_KEY_PATH), and RECEIPT_GITHUB_API_URL for GitHub Enterprise Server"
        )
    configure_terminal_logging()
    payload_bytes = read_limited(payload_path, MAX_PAYLOAD_BYTES)
    payload = load_json_object(payload_bytes, str(payload_path), max_bytes=MAX_PAYLOAD_BYTES)
    from bot.github.events import parse_event

    decided = plan(parse_event(event, payload), app_id=settings.app_id)
    out.write(f"receipt: {event}: {decided.outcome}: {decided.detail}\n")
    with tempfile.TemporaryDirectory(prefix="receipt-receive-") as scratch:
        local = Settings(**{**settings.model_dump(), "database_url": f"sqlite:///{scratch}/receive.sqlite3",
                            "queue_url": None, "workers": 0})  # fmt: skip
        runtime = Runtime.build(local, post=_printer(out))
        info = DeliveryInfo(f"receive-{uuid.uuid4()}", event, payload.get("action"), None, None)
        recorded = record_delivery(runtime.db, info, decided)
        unfinished = []
        for job_id in recorded.job_ids:
            runtime.run_job(job_id)
            job = pending_job(runtime.db, job_id)
            if job is not None and job.state != DONE:
                unfinished.append(job.last_error or f"the job ended {job.state}")
        runtime.db.engine.dispose()
    if unfinished:
        raise ReceiveFailed("the handler did not finish, so nothing above is what the App would post: "
                            + "; ".join(unfinished))  # fmt: skip
    return 0


class ReceiveFailed(ReceiptError):
    """`receipt receive` ran the handler, which failed (GitHub unreachable, a refused token...)."""

    title = "receive failed"
