"""`receipt serve`'s worker process: started with the server, restarted when it dies, stopped
after the server's drain, and never left running without its parent.

The workers judge changes (pure-Python CPU); in the web process they held the interpreter lock
the event loop needs to acknowledge deliveries. In a child process of their own (the same work
`receipt worker` does) they share nothing with the web side but the store and the queue.

The child's standard input is a pipe whose only writer is the parent, which never writes: the
child reads it until end of file, which comes when the parent is gone however it ended (kill -9
included), and then exits at once. What it was running is left to its lease, like a worker that
was killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO

from bot.server import logs

WORKER_COMMAND = (sys.executable, "-m", "bot.cli", "worker", "--supervised")
FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 30.0
STEADY_SECONDS = 60.0  # a child that lived this long starts the backoff again from the first step
PARENT_GONE_EXIT = 70


@dataclass
class WorkerProcess:
    """The supervisor, in the parent. `lost` is called a lease after each unexpected exit: by then
    every claim the dead child held has run out, and its jobs can be enqueued again at once
    instead of at the next sweep."""

    lost: Callable[[], object]
    lease_seconds: float
    command: Sequence[str] = WORKER_COMMAND
    stop_seconds: float = 30.0
    _proc: subprocess.Popen[bytes] | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None
    exits: int = 0

    def start(self) -> WorkerProcess:
        self._spawn()
        self._thread = threading.Thread(target=self._watch, name="receipt-worker-supervisor", daemon=True)
        self._thread.start()
        return self

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def alive(self) -> bool:
        return self.pid is not None

    def _spawn(self) -> None:
        with self._lock:
            if self._stopping.is_set():
                return
            # A session of its own: a terminal's Ctrl-C reaches the server alone, which then stops
            # the child after its drain instead of both stopping at once.
            self._proc = subprocess.Popen(list(self.command), stdin=subprocess.PIPE, start_new_session=True)
            pid = self._proc.pid
        logs.event(f"worker process {pid} started", outcome="worker")

    def _watch(self) -> None:
        backoff = FIRST_BACKOFF_SECONDS
        while not self._stopping.is_set():
            proc = self._proc
            assert proc is not None
            started = time.monotonic()
            code = proc.wait()
            if self._stopping.is_set():
                return
            self.exits += 1
            if time.monotonic() - started >= STEADY_SECONDS:
                backoff = FIRST_BACKOFF_SECONDS
            logs.failure(
                f"worker process {proc.pid} exited ({_exit_status(code)}); restarting in {backoff:g} s",
                outcome="worker",
            )
            _close(proc.stdin)
            recover = threading.Timer(self.lease_seconds, self._recover)
            recover.daemon = True
            recover.start()
            if self._stopping.wait(backoff):
                return
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
            try:
                self._spawn()
            except OSError as exc:
                logs.failure("could not start the worker process; trying again", exc=exc, outcome="worker")

    def _recover(self) -> None:
        if self._stopping.is_set():
            return
        try:
            self.lost()
        except Exception as exc:  # the sweep tries again
            logs.failure("could not recover the dead worker's jobs; the sweep will", exc=exc,
                         outcome="worker")  # fmt: skip

    def stop(self) -> None:
        """After the server's drain: the child finishes the jobs in flight (huey's graceful stop,
        on SIGINT) for up to `stop_seconds`, then is killed; an unfinished job's lease runs out
        and the next start runs it again."""
        with self._lock:
            self._stopping.set()
            proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(self.stop_seconds)
            if code not in (0, -signal.SIGINT):
                logs.failure(f"worker process {proc.pid} stopped with {_exit_status(code)}", outcome="worker")
        except subprocess.TimeoutExpired:
            logs.failure(f"worker process {proc.pid} did not stop in {self.stop_seconds:g} s; killed",
                         outcome="worker")  # fmt: skip
            proc.kill()
            proc.wait()
        _close(proc.stdin)
        if self._thread is not None:
            self._thread.join(timeout=5)


def _exit_status(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:  # a real-time signal has no name; the supervisor must not die of it
            return f"signal {-code}"
    return f"status {code}"


def _close(pipe: IO[bytes] | None) -> None:
    if pipe is not None:
        pipe.close()


def exit_with_parent(fd: int) -> threading.Thread:
    """In the child: a thread that ends the process as soon as the pipe `fd` (from the parent)
    closes. It reads the descriptor itself: a daemon thread blocked inside a buffered file holds
    that file's lock, which the interpreter's shutdown then cannot take (a fatal error)."""

    def watch() -> None:
        while os.read(fd, 4096):
            pass
        logs.failure("the serve process is gone; the worker process exits", outcome="worker")
        os._exit(PARENT_GONE_EXIT)

    thread = threading.Thread(target=watch, name="receipt-parent-watch", daemon=True)
    thread.start()
    return thread
