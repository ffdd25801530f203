"""`receipt serve`'s worker process: restarted when it dies (and its job still lands), gone when
its parent is, stopped with it on SIGTERM; the supervisor's restarts, backoff and stop."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from bot.server import health, supervise
from bot.server.supervise import PARENT_GONE_EXIT, WorkerProcess
from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost, AppProcess
from tests.server.test_app import _completed
from tests.server.test_durability import _running_jobs

STARTED = re.compile(r"worker process (\d+) started")


def _children(host: AppHost) -> list[int]:
    return [int(pid) for pid in STARTED.findall(host.logs())]


def _running(pid: int) -> bool:
    """Whether `pid` runs; a zombie (exited, not yet reaped by whoever adopted it) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _child_of(host: AppHost, server: AppProcess) -> int:
    [pid] = wait_until(lambda: _children(host), what="the worker process")
    assert _running(pid) and pid != server.proc.pid
    return pid


def test_a_killed_worker_process_is_restarted_and_its_job_still_lands(
    github_app: AppWorld, host: AppHost
) -> None:
    server = host.serve(workers=1)
    first = _child_of(host, server)
    held = github_app.fake.inject_delay("GET", r"/repos/.*/compare/.*", 30.0, times=1)
    github_app.send_pull_request("opened")
    wait_until(lambda: held.times == 0 and _running_jobs(host), timeout=20, what="the job held mid-way")
    os.kill(first, signal.SIGKILL)
    restarted = wait_until(lambda: [p for p in _children(host) if p != first], timeout=20, what="a restart")
    assert not _running(first) and _running(restarted[0])
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=30)  # a lease (3 s) after the kill
    assert run["conclusion"] == "success"
    assert len(github_app.fake.runs_for(github_app.pull.head_sha, "receipt")) == 1
    assert f"worker process {first} exited (signal SIGKILL)" in host.logs()
    assert server.url is not None
    assert httpx.get(f"{server.url}/healthz").json()["workers"] == "ok"


def test_the_worker_process_exits_when_serve_is_killed(github_app: AppWorld, host: AppHost) -> None:
    server = host.serve()
    child = _child_of(host, server)
    server.kill()
    wait_until(lambda: not _running(child), timeout=10, what="the orphaned worker process to exit")
    assert "the serve process is gone" in host.logs()


def test_sigterm_stops_serve_and_its_worker_process_cleanly(github_app: AppWorld, host: AppHost) -> None:
    server = host.serve()
    child = _child_of(host, server)
    github_app.send_pull_request("opened")
    _completed(github_app, github_app.pull.head_sha)
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=30) == -signal.SIGTERM  # uvicorn ends by the signal it caught
    assert not _running(child)
    text = host.logs()
    assert "database is locked" not in text and "Traceback" not in text
    assert "Fatal Python error" not in text and "stopped with" not in text, "the child ended cleanly"
    assert "exited (" not in text, "the stop is not mistaken for a crash"
    assert "the serve process is gone" not in text, "the child was stopped, not orphaned"


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_child_that_keeps_dying_is_restarted_with_growing_waits_and_its_jobs_recovered() -> None:
    lost: list[float] = []
    started = time.monotonic()
    process = WorkerProcess(lambda: lost.append(time.monotonic()), 0.05, _python("raise SystemExit(3)"))
    process.start()
    try:
        wait_until(lambda: process.exits >= 3, timeout=20, what="three exits")
        assert lost, "each exit recovers the dead child's jobs a lease later"
    finally:
        process.stop()
    # 0.5 s, then 1 s between the first restarts: the third exit comes no sooner than 1.5 s
    assert time.monotonic() - started >= 1.5


def test_a_child_killed_by_a_signal_without_a_name_is_still_restarted() -> None:
    """A real-time signal has no name in `signal.Signals`; describing the exit must not end the
    supervisor, which would leave the App without workers for good."""
    rt = signal.SIGRTMIN + 2
    process = WorkerProcess(lambda: None, 0.05, _python(f"import os; os.kill(os.getpid(), {int(rt)})"))
    process.start()
    try:
        wait_until(lambda: process.exits >= 2, timeout=20, what="two exits")
    finally:
        process.stop()
    assert supervise._exit_status(-int(rt)) == f"signal {int(rt)}"
    assert supervise._exit_status(-signal.SIGKILL) == "signal SIGKILL"


def test_healthz_says_when_the_worker_process_is_down(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervise, "FIRST_BACKOFF_SECONDS", 30.0)
    process = WorkerProcess(lambda: None, 60.0, _python("raise SystemExit(3)")).start()
    try:
        wait_until(lambda: process.exits == 1, what="the exit")
        runtime = SimpleNamespace(worker_process=process)
        assert health._workers(runtime) == {"workers": "error: the worker process is down (restarting)"}  # type: ignore[arg-type]
    finally:
        process.stop()
    alive = WorkerProcess(lambda: None, 60.0, _python("import time; time.sleep(60)")).start()
    try:
        assert health._workers(SimpleNamespace(worker_process=alive)) == {"workers": "ok"}  # type: ignore[arg-type]
    finally:
        alive.stop()
    assert health._workers(SimpleNamespace(worker_process=None)) == {}  # type: ignore[arg-type]


def test_stop_waits_for_a_graceful_end_then_kills(tmp_path: Path) -> None:
    graceful = WorkerProcess(lambda: None, 60.0, _python("import time; time.sleep(60)")).start()
    pid = graceful.pid
    began = time.monotonic()
    graceful.stop()  # SIGINT: Python's KeyboardInterrupt ends the sleep
    assert time.monotonic() - began < 10 and pid is not None and not _running(pid)
    ready = tmp_path / "ready"
    stubborn_code = (
        "import pathlib, signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "time.sleep(60)\n"
    )
    stubborn = WorkerProcess(lambda: None, 60.0, _python(stubborn_code), stop_seconds=1.0).start()
    wait_until(ready.exists, timeout=20, what="the child ignoring SIGINT")
    began = time.monotonic()
    stubborn.stop()
    assert 1.0 <= time.monotonic() - began < 10 and stubborn.exits == 0


def test_the_child_side_exits_once_its_parent_pipe_closes() -> None:
    code = (
        "import sys, time\n"
        "from bot.server.supervise import exit_with_parent\n"
        "exit_with_parent(sys.stdin.fileno())\n"
        "print('watching', flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(_python(code), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdin is not None
    assert child.stdout.readline() == b"watching\n"
    child.stdin.close()
    assert child.wait(timeout=10) == PARENT_GONE_EXIT
