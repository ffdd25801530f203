"""The App as a user runs it: `receipt serve` (and `receipt worker`) as real processes on loopback,
configured through the environment, pointed at the fake GitHub."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.fakegithub.world import AppWorld

ROOT = Path(__file__).resolve().parents[2]
FAST = {
    "RECEIPT_JOB_LEASE_SECONDS": "3",
    "RECEIPT_RETRY_BASE_SECONDS": "0.2",
    "RECEIPT_JOB_ATTEMPTS": "3",
    "RECEIPT_GITHUB_BACKOFF_SECONDS": "0.05",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class AppProcess:
    proc: subprocess.Popen[bytes]
    log: Path
    url: str | None = None

    def logs(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """kill -9: no shutdown, nothing flushed; what survives is what the store already holds."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class AppHost:
    """Starts App processes for one test, all sharing one store (a SQLite file, or given URLs)."""

    world: AppWorld
    tmp: Path
    database_url: str | None = None
    queue_url: str | None = None
    queue_name: str | None = None
    started: list[AppProcess] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        settings = {
            **self.world.app_env(),
            **FAST,
            "RECEIPT_DATABASE_URL": self.database_url or f"sqlite:///{self.tmp / 'app.sqlite3'}",
            **({"RECEIPT_QUEUE_URL": self.queue_url} if self.queue_url else {}),
            **({"RECEIPT_QUEUE_NAME": self.queue_name} if self.queue_name else {}),
            **extra,
        }
        base = {k: v for k, v in os.environ.items() if not k.startswith("RECEIPT_")}
        return {**base, **settings, "PYTHONUNBUFFERED": "1"}

    def _spawn(self, args: list[str], env: Mapping[str, str], name: str) -> AppProcess:
        log = self.tmp / f"{name}-{len(self.started)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "bot.cli", *args],
                cwd=self.tmp,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        process = AppProcess(proc, log)
        self.started.append(process)
        return process

    def migrate(self) -> str:
        """`receipt migrate`, as an operator runs it before starting a fleet on PostgreSQL."""
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", "migrate"], cwd=self.tmp, env=self.env(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def logs(self) -> str:
        """Everything every process of this host wrote."""
        return "".join(p.logs() for p in self.started)

    def serve(
        self, *, workers: int = 2, port: int | None = None, webhooks: bool = True, healthy: bool = True,
        **extra: str,
    ) -> AppProcess:  # fmt: skip
        """`receipt serve`; with `webhooks`, GitHub delivers to it once it is up: healthy, or with
        `healthy=False` answering `/healthz` at all (a 503 naming a store or queue out of reach)."""
        port = port or free_port()
        url = f"http://127.0.0.1:{port}"
        env = self.env(RECEIPT_WORKERS=str(workers), RECEIPT_PUBLIC_URL=url, **extra)
        process = self._spawn(["serve", "--host", "127.0.0.1", "--port", str(port)], env, "serve")
        process.url = url
        deadline = time.monotonic() + 30
        while True:
            if process.proc.poll() is not None:
                raise AssertionError(f"receipt serve exited {process.proc.returncode}:\n{process.logs()}")
            try:
                answer = httpx.get(f"{url}/healthz", timeout=1)
                if answer.status_code == 200 or (not healthy and answer.json().get("status") == "unhealthy"):
                    break
            except (httpx.HTTPError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"receipt serve did not become healthy:\n{process.logs()}")
            time.sleep(0.05)
        if webhooks:
            self.world.webhooks_to(f"{url}/webhook")
        return process

    def worker(self, *, workers: int = 2, port: int | None = None, **extra: str) -> AppProcess:
        """`receipt worker`; with `port`, its `/healthz` and `/metrics` there (`url` set)."""
        listen = ["--port", str(port)] if port is not None else []
        process = self._spawn(["worker", *listen], self.env(RECEIPT_WORKERS=str(workers), **extra), "worker")
        process.url = None if port is None else f"http://127.0.0.1:{port}"
        return process

    def close(self) -> None:
        for process in self.started:
            process.stop()
