"""The App's webhook under load, beside a bare FastAPI endpoint measured in the same run.

    python bench/app_webhook.py [--rate 200] [--seconds 10] [--pulls 20]

1. Acknowledgement latency (p50/p99) at a fixed arrival rate (open loop), for signed deliveries
   the App records with a job (`pull_request.synchronize`, joined to the head's pending job) and
   for ones it records and ignores (`star`); the baseline is a FastAPI endpoint that only answers
   202, served the same way.
2. Throughput: closed loop, 16 clients for a few seconds, App vs baseline.
   Beside each: the CPU time (user+sys, from /proc) the serving process spent per 1,000
   deliveries during that load, App web process (not its worker process) and baseline: a
   figure a loaded machine inflates far less than the latencies.
3. Nothing lost: every acknowledged delivery is in the store.
4. Delivery → completed `receipt` check run for a typical pull request (the fake GitHub), p50.

Everything runs on loopback: the fake GitHub in this process, `receipt serve` (SQLite, and its
worker process of 2 threads) and the baseline as subprocesses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.github.events import signature_of
from tests.fakegithub.server import serve as serve_fake
from tests.fakegithub.world import build_world, wait_until
from tests.server.appprocess import AppHost, free_port

BASELINE = """
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
app = FastAPI()
@app.post("/webhook")
async def webhook(request: Request) -> JSONResponse:
    await request.body()
    return JSONResponse({"outcome": "ok"}, status_code=202)
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    """User+sys CPU of the process `pid` so far (its threads, not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def signed(secret: str, event: str, payload: dict[str, object]) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": signature_of(secret.encode(), body),
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/bench",
    }
    return body, headers


class Connections:
    """HTTP/1.1 keep-alive connections to one server, for the open loop: a request takes an idle
    connection or opens one. httpx's pool (512 connections) spent time growing with the square of
    the requests waiting for one, so once a loaded machine put the generator behind, it fell
    further behind until its 30 s pool timeout ended the run; here a request costs the same
    however many wait."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(self, body: bytes, headers: dict[str, str]) -> int:
        head = [
            f"POST {self.path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"Content-Length: {len(body)}",
        ]
        request = ("\r\n".join(head + [f"{k}: {v}" for k, v in headers.items()]) + "\r\n\r\n").encode() + body
        reused = bool(self.idle)
        reader, writer = self.idle.pop() if reused else await asyncio.open_connection(self.host, self.port)
        try:
            writer.write(request)
            await writer.drain()
            status_line = await reader.readline()
        except (ConnectionResetError, BrokenPipeError):
            status_line = b""
        if not status_line:  # the server closed an idle connection (keep-alive timeout) unread
            writer.close()
            if reused:
                return await self.post(body, headers)
            raise ConnectionError("the server closed the connection without an answer")
        length, close = 0, False
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
            elif name.strip().lower() == "connection" and value.strip().lower() == "close":
                close = True
        await reader.readexactly(length)
        if close:
            writer.close()
        else:
            self.idle.append((reader, writer))
        return int(status_line.split()[1])

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()


async def open_loop(url: str, make: object, rate: float, seconds: float) -> tuple[list[float], list[str]]:
    """Send at a fixed rate whatever the answers take; return latencies (s) and acknowledged GUIDs."""
    latencies: list[float] = []
    acknowledged: list[str] = []
    connections = Connections(url)

    async def one(body: bytes, headers: dict[str, str]) -> None:
        started = time.perf_counter()
        status = await asyncio.wait_for(connections.post(body, headers), 60)
        latencies.append(time.perf_counter() - started)
        if 200 <= status < 300:
            acknowledged.append(headers["X-GitHub-Delivery"])

    tasks = []
    start = time.perf_counter()
    for n in range(int(rate * seconds)):
        due = start + n / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(*make())))  # type: ignore[operator]
    await asyncio.gather(*tasks)
    connections.close()
    return latencies, acknowledged


async def closed_loop(url: str, make: object, clients: int, seconds: float) -> float:
    done = 0
    stop = time.perf_counter() + seconds
    async with httpx.AsyncClient(timeout=30) as client:

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < stop:
                body, headers = make()  # type: ignore[operator]
                answer = await client.post(url, content=body, headers=headers)
                if answer.status_code < 300:
                    done += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return done / elapsed


def start_baseline(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    (tmp / "baseline_app.py").write_text(BASELINE, encoding="utf-8")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "baseline_app:app", "--port", str(port), "--log-level", "warning"],
        cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: _up(url), timeout=30, what="the baseline endpoint")
    return proc, url


def _up(url: str) -> bool:
    try:
        httpx.get(url + "/docs", timeout=1)
    except httpx.HTTPError:
        return False
    return True


def _generate(argv: list[str]) -> int:
    """`--generate MODE URL RATE_OR_CLIENTS SECONDS BODY_FILE HEADERS_JSON`: the load generator,
    run as its own process so the fake GitHub's threads do not share its interpreter."""
    mode, url, amount, seconds, body_file, headers_json = argv
    body = Path(body_file).read_bytes()
    fixed = json.loads(headers_json)

    def make() -> tuple[bytes, dict[str, str]]:
        return body, {**fixed, "X-GitHub-Delivery": str(uuid.uuid4())}

    if mode == "open":
        latencies, acknowledged = asyncio.run(open_loop(url, make, float(amount), float(seconds)))
        print(json.dumps({"latencies": latencies, "acknowledged": acknowledged}))
    else:
        print(json.dumps({"rate": asyncio.run(closed_loop(url, make, int(amount), float(seconds)))}))
    return 0


@dataclass(frozen=True)
class Load:
    mode: str  # open (a fixed rate) or closed (clients as fast as answers come)
    url: str
    amount: float  # deliveries per second, or clients
    seconds: float


def _load(
    tmp: Path, load: Load, body: bytes, headers: dict[str, str], server: int | None = None
) -> dict[str, Any]:
    """One load; with `server` (its pid), also that process's CPU per 1,000 requests sent."""
    body_file = tmp / f"body-{uuid.uuid4()}.json"
    body_file.write_bytes(body)
    fixed = json.dumps({k: v for k, v in headers.items() if k != "X-GitHub-Delivery"})
    argv = [sys.executable, __file__, "--generate", load.mode, load.url, str(load.amount), str(load.seconds)]
    before = cpu_seconds(server) if server is not None else 0.0
    done = subprocess.run([*argv, str(body_file), fixed], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the load generator failed ({done.returncode}):\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    if server is not None:
        result["cpu_per_1000"] = (cpu_seconds(server) - before) * 1000 / max(1, len(result["latencies"]))
    return result


def main() -> int:
    if sys.argv[1:2] == ["--generate"]:
        return _generate(sys.argv[2:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pulls", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="receipt-bench-app-") as scratch, serve_fake() as fake_server:
        tmp = Path(scratch)
        world = build_world(fake_server, tmp)
        host = AppHost(world, tmp)
        app = host.serve(workers=2)
        baseline, baseline_url = start_baseline(tmp)
        secret = world.webhook_secret
        pull_payload = world.pull_request_payload("synchronize")
        star_payload = {
            "action": "created",
            "repository": pull_payload["repository"],
            "sender": pull_payload["sender"],
        }
        try:
            rows = []
            acknowledged: list[str] = []
            for label, event, payload in (("pull_request.synchronize (a job)", "pull_request", pull_payload),
                                          ("star (ignored)", "star", star_payload)):  # fmt: skip
                body, headers = signed(secret, event, payload)
                app_load = Load("open", f"{app.url}/webhook", args.rate, args.seconds)
                app_run = _load(tmp, app_load, body, headers, app.proc.pid)
                base_load = Load("open", f"{baseline_url}/webhook", args.rate, args.seconds)
                base_run = _load(tmp, base_load, body, headers, baseline.pid)
                acknowledged.extend(app_run["acknowledged"])
                rows.append((label, app_run, base_run))
            body, headers = signed(secret, "star", star_payload)
            app_rps = _load(tmp, Load("closed", f"{app.url}/webhook", 16, 5), body, headers)["rate"]
            base_rps = _load(tmp, Load("closed", f"{baseline_url}/webhook", 16, 5), body, headers)["rate"]
            with sqlite3.connect(tmp / "app.sqlite3") as db:
                stored = {guid for (guid,) in db.execute("SELECT guid FROM deliveries")}
            lost = [guid for guid in acknowledged if guid not in stored]
            # Delivery -> completed check run, one typical pull request at a time (3 files).
            spans = []
            for n in range(args.pulls):
                files = {f"src/m{n}_{k}.py": f"def f{k}(x):\n    return x + {k}\n" for k in range(3)}
                pull = world.open_pull(files, number=100 + n)
                started = time.perf_counter()
                world.send_pull_request("opened", pull=pull)
                wait_until(lambda p=pull: [r for r in world.fake.runs_for(p.head_sha, "receipt")
                                           if r["status"] == "completed"], timeout=60)  # fmt: skip
                spans.append(time.perf_counter() - started)
        finally:
            baseline.terminate()
            host.close()
        cores = os.cpu_count()
        load = f"{args.rate:.0f} deliveries/s for {args.seconds:.0f} s"
        print(f"# receipt App webhook benchmark ({cores} cores, loopback, {load})\n")
        print("| deliveries | App p50 | App p99 | bare FastAPI p50 | bare p99 | acknowledged "
              "| CPU per 1,000: App web process | bare |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|")
        for label, app_run, base_run in rows:
            latencies = (app_run["latencies"], base_run["latencies"])
            cells = [f"{percentile(v, q) * 1e3:.1f} ms" for v in latencies for q in (0.5, 0.99)]
            cells.append(f"{len(app_run['acknowledged'])}/{len(app_run['latencies'])}")
            cells += [f"{run['cpu_per_1000']:.2f} s" for run in (app_run, base_run)]
            print(f"| {label} | {' | '.join(cells)} |")
        print(f"\nthroughput (16 clients, closed loop): App {app_rps:.0f}/s, bare FastAPI {base_rps:.0f}/s "
              f"= {app_rps / base_rps:.0%} of the baseline")  # fmt: skip
        print(f"lost: {len(lost)} of {len(acknowledged)} acknowledged deliveries (each checked in the store)")
        print(f"delivery -> completed check run (typical pull request, {args.pulls} runs): "
              f"p50 {statistics.median(spans):.2f} s, max {max(spans):.2f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
