"""The embedded store's writers: SQLite's one write lock is taken at a transaction's start, this
process's writers wait on a lock of their own (never in SQLite's polling busy handler), and the
embedded queue keeps its own file, so its writes never wait for the store's."""

from __future__ import annotations

import gc
import sqlite3
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select

from bot.server.app import create_app
from bot.server.plan import Evaluate, Plan, pr_key
from bot.server.queue import Queue
from bot.server.runtime import Runtime
from bot.server.settings import Settings
from bot.server.store import jobs, writer
from bot.server.store.db import Database, embedded_queue_url, utcnow
from bot.server.store.models import Delivery, Lease
from bot.server.store.writer import ReentryError, WriteLock
from tests.fakegithub.world import wait_until

REPO = "acme/widgets"
ROOT = Path(__file__).resolve().parents[2]


def _never_wait(database: Database) -> None:
    """SQLite's busy handler off on every new connection: a writer that finds the file locked
    fails at once, so a test sees whether it ever reached SQLite's lock while another held it."""

    def no_busy_wait(connection: Any, _record: Any) -> None:
        connection.execute("PRAGMA busy_timeout=0")

    database.engine.dispose()
    event.listen(database.engine, "connect", no_busy_wait)


def _plan(head: str) -> Plan:
    spec = {"pull": {"number": 7, "head_sha": head}}
    intent = Evaluate(REPO, head, 42, "synchronize", pr_key(REPO, 7), 7, spec, supersede=True)
    return Plan("queued", "synchronize", (intent,))


def _lease(name: str) -> Lease:
    return Lease(name=name, holder="test", held_until=utcnow() + timedelta(minutes=1))


def _recorded(db: Database, guid: str) -> bool:
    with db.read() as session:
        return session.get(Delivery, guid) is not None


def test_every_connection_is_wal_normal_with_a_busy_timeout_and_no_driver_transactions(db: Database) -> None:
    with db.engine.connect() as one, db.engine.connect() as two:
        for connection in (one, two):
            raw = connection.connection.dbapi_connection
            assert raw is not None
            pragmas = [raw.execute(f"PRAGMA {p}").fetchone()[0] for p in ("journal_mode", "synchronous", "busy_timeout")]  # fmt: skip
            assert pragmas == ["wal", 1, 10000]
            assert raw.isolation_level is None  # receipt begins its transactions itself


def test_a_write_transaction_holds_the_write_lock_from_its_start(db: Database, tmp_path: Path) -> None:
    """A transaction that reads first and writes later must not lose its write to a writer that
    came in between (SQLite would fail it at once: its snapshot is stale)."""
    other = sqlite3.connect(tmp_path / "store.sqlite3", timeout=0, isolation_level=None)
    with db.session() as session:
        assert session.scalars(select(Lease)).all() == []
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("INSERT INTO leases (name, holder, held_until) VALUES ('other', 'x', '2030-01-01')")
        session.add(_lease("mine"))
    with db.read() as session:
        assert [lease.name for lease in session.scalars(select(Lease))] == ["mine"]
    other.close()


def test_a_delivery_waits_its_turn_behind_an_open_worker_transaction_and_then_commits(db: Database) -> None:
    """A worker's write transaction is held open in a thread; the webhook's recording of a delivery
    neither fails nor polls SQLite (its busy handler is off here): it queues on this process's lock
    and commits as soon as the worker's transaction ends."""
    _never_wait(db)
    inside, finish = threading.Event(), threading.Event()

    def worker_transaction() -> None:
        with db.session() as session:
            session.add(_lease("worker"))
            session.flush()
            inside.set()
            finish.wait(30)

    worker = threading.Thread(target=worker_transaction)
    worker.start()
    assert inside.wait(30)
    outcome: list[object] = []
    webhook = threading.Thread(
        target=lambda: outcome.append(jobs.record_delivery(db, jobs.DeliveryInfo("g-1", "pull_request", "synchronize", 42, REPO), _plan("a" * 40)))
    )  # fmt: skip
    webhook.start()
    assert db.writers is not None
    wait_until(
        lambda: db.writers is not None and db.writers.waiters() == 1, what="the delivery waiting its turn"
    )
    assert not _recorded(db, "g-1")  # readers are not held up meanwhile
    finish.set()
    worker.join(30)
    webhook.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], jobs.Recorded) and len(outcome[0].job_ids) == 1
    assert _recorded(db, "g-1")


def test_the_queue_keeps_a_file_of_its_own_and_enqueues_while_the_store_is_being_written(
    db: Database, tmp_path: Path
) -> None:
    queue_url = embedded_queue_url(db.url)
    assert queue_url == f"sqlite:///{tmp_path / 'store.queue.sqlite3'}"
    queue = Queue(queue_url, run_job=lambda _job: None, sweep=lambda: None)
    storage: Any = queue.huey.storage
    storage._timeout = 0  # fail at once, rather than after huey's busy timeout, if the file is shared
    with db.session() as session:
        session.add(_lease("worker"))
        session.flush()
        queue.enqueue(1)  # the acknowledgement's wake-up, while a store transaction is open
        assert queue.ping() == 1
    assert storage.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL, not FULL's fsyncs
    assert storage.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_default_queue_is_beside_the_store_and_other_urls_are_kept() -> None:
    assert embedded_queue_url("sqlite:///var/receipt.sqlite3") == "sqlite:///var/receipt.queue.sqlite3"
    assert embedded_queue_url("sqlite:///data/store") == "sqlite:///data/store.queue"
    assert embedded_queue_url("postgresql://db/receipt") == "postgresql://db/receipt"
    assert embedded_queue_url("sqlite://") == "sqlite://"
    base = {"webhook_secret": "s", "database_url": "sqlite:///x/app.sqlite3"}
    assert Settings(**base).queue == "sqlite:///x/app.queue.sqlite3"  # type: ignore[arg-type]
    assert Settings(**base, queue_url="redis://r:6379/0").queue == "redis://r:6379/0"  # type: ignore[arg-type]


def test_a_read_session_never_keeps_a_write(db: Database) -> None:
    with db.read() as session:
        session.add(_lease("slipped-in"))
        session.flush()
    with db.read() as session:
        assert session.scalars(select(Lease)).all() == []


def test_one_process_databases_on_one_file_share_its_write_lock(db: Database) -> None:
    again = Database.open(db.url)
    assert again.writers is db.writers is not None
    again.engine.dispose()


def test_a_waiting_writer_is_woken_when_the_holder_ends() -> None:
    lock = WriteLock()
    done: list[str] = []

    def take() -> None:
        with lock.held():
            done.append("in")

    with lock.held():
        waiter = threading.Thread(target=take)
        waiter.start()
        wait_until(lambda: lock.waiters() == 1, what="the second writer waiting")
        assert done == []
    waiter.join(30)
    assert done == ["in"] and lock.waiters() == 0
    with lock.held():  # free again
        pass


def test_a_holder_gets_the_interpreter_back_promptly_until_the_last_holder_ends(tmp_path: Path) -> None:
    """Overlapping holders of two files' locks on two threads: the short interval from the first
    hold to the end of the last, the process's own before and after."""
    store, queue = WriteLock(tmp_path / "store"), WriteLock(tmp_path / "queue")
    normal = sys.getswitchinterval()
    other_holds, release_other, other_done = threading.Event(), threading.Event(), threading.Event()

    def other() -> None:
        with queue.held():
            other_holds.set()
            release_other.wait(30)
        other_done.set()

    with store.held():
        assert sys.getswitchinterval() == pytest.approx(writer.HOLDER_SWITCH_SECONDS)
        threading.Thread(target=other, daemon=True).start()
        assert other_holds.wait(30)
    assert sys.getswitchinterval() == pytest.approx(writer.HOLDER_SWITCH_SECONDS)  # the other holds on
    release_other.set()
    assert other_done.wait(30)
    assert sys.getswitchinterval() == pytest.approx(normal)


def test_a_write_transaction_inside_another_on_one_thread_is_refused(db: Database) -> None:
    with db.session(), pytest.raises(ReentryError), db.session():
        pass
    with db.session() as session:  # the outer one ended cleanly: the lock is free again
        session.add(_lease("after"))


def test_a_started_server_moves_its_start_up_heap_out_of_the_collectors_reach(tmp_path: Path) -> None:
    settings = Settings(webhook_secret="s", database_url=f"sqlite:///{tmp_path / 'app.sqlite3'}", workers=0)  # type: ignore[arg-type]
    gc.unfreeze()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # the interpreter's default
    try:
        with TestClient(create_app(lambda: Runtime.build(settings))) as client:
            assert gc.get_freeze_count() > 0
            assert sys.getswitchinterval() == pytest.approx(0.001)  # workers yield the lock sooner
            assert client.get("/healthz").status_code == 200
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)


_HOLD_A_WRITE = """
import sys
from bot.server.queue import Queue
from bot.server.store.db import Database
from tests.server.test_sqlite_writers import _lease, _never_wait

kind, url = sys.argv[1:]
if kind == "store":
    db = Database.open(url)
    _never_wait(db)
    held = db.session()
    session = held.__enter__()
    session.add(_lease("other process"))
    session.flush()
else:
    storage = Queue(url, run_job=lambda _job: None, sweep=lambda: None).huey.storage
    storage._timeout = 0
    held = storage.db(commit=True)
    held.__enter__().execute("insert into task (queue, data, priority) values ('receipt', x'00', 0)")
print("holding", flush=True)
sys.stdin.readline()
held.__exit__(None, None, None)
"""


def _other_process_writing(kind: str, url: str) -> subprocess.Popen[str]:
    """A process that opens a write transaction on `url` (the store or the queue) and holds it
    until its standard input gets a line; SQLite's busy handler is off there too."""
    other = subprocess.Popen(
        [sys.executable, "-c", _HOLD_A_WRITE, kind, url], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert other.stdout is not None and other.stdout.readline() == "holding\n"
    return other


def _waits_then_commits(other: subprocess.Popen[str], write: Any) -> None:
    """`write` (SQLite's busy handler off) neither fails nor goes ahead while `other` holds the
    file: it waits for it, then commits."""
    outcome: list[object] = []

    def attempt() -> None:
        try:
            write()
            outcome.append("committed")
        except Exception as exc:
            outcome.append(exc)

    writer = threading.Thread(target=attempt)
    writer.start()
    writer.join(0.5)
    assert outcome == [], "the write did not wait for the other process"
    assert other.stdin is not None
    other.stdin.write("\n")
    other.stdin.close()
    assert other.wait(30) == 0
    writer.join(30)
    assert outcome == ["committed"]


def test_a_write_waits_for_another_process_writing_the_store_then_commits(db: Database) -> None:
    _never_wait(db)
    other = _other_process_writing("store", db.url)

    def write() -> None:
        with db.session() as session:
            session.add(_lease("this process"))

    _waits_then_commits(other, write)
    with db.read() as session:
        assert {lease.name for lease in session.scalars(select(Lease))} == {"other process", "this process"}


def test_an_enqueue_waits_for_another_process_writing_the_queue_then_commits(
    db: Database, tmp_path: Path
) -> None:
    url = embedded_queue_url(db.url)
    queue = Queue(url, run_job=lambda _job: None, sweep=lambda: None)
    queue.huey.storage._timeout = 0
    other = _other_process_writing("queue", url)
    _waits_then_commits(other, lambda: queue.enqueue(1))
    assert queue.ping() == 2
