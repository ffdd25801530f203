"""The App scaled out (2 web + 2 worker processes on PostgreSQL and Redis) beside the embedded one
(`receipt serve` alone, SQLite, 2 worker threads), in the same run, on loopback.

    python bench/app_scaled.py [--pulls 60] [--clients 16]

For each deployment: a fresh fake GitHub world with `--pulls` pull requests, one signed
`pull_request.opened` delivery each, sent by `--clients` concurrent clients (spread over the web
processes), then waited for until every head has a completed `receipt` run. Reported: deliveries
acknowledged per second (first send to last 202), check runs completed per minute (first send to
last completed run), and what was lost or duplicated (heads without a completed run; heads with
more than one). The fake GitHub serves every API call from this process and shares the 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakegithub.server import serve as serve_fake
from tests.fakegithub.webhooks import encode
from tests.fakegithub.world import AppWorld, build_world
from tests.server.appprocess import AppHost
from tests.server.services import POSTGRES, REDIS, _probe, _with_schema


@dataclass(frozen=True)
class Result:
    name: str
    pulls: int
    ack_seconds: float
    done_seconds: float
    lost: int
    duplicated: int

    def row(self) -> str:
        per_second = self.pulls / self.ack_seconds
        per_minute = self.pulls / self.done_seconds * 60
        return (f"| {self.name} | {self.pulls} | {per_second:,.0f} | {per_minute:,.0f} | {self.lost} | "
                f"{self.duplicated} |")  # fmt: skip


async def _send(urls: list[str], deliveries: list[tuple[bytes, dict[str, str]]], clients: int) -> float:
    """Every delivery acknowledged (202) by one of `urls`, round robin; the seconds it took."""
    queue: asyncio.Queue[tuple[int, bytes, dict[str, str]]] = asyncio.Queue()
    for n, (body, headers) in enumerate(deliveries):
        queue.put_nowait((n, body, headers))
    async with httpx.AsyncClient(timeout=60) as client:

        async def worker() -> None:
            while not queue.empty():
                n, body, headers = queue.get_nowait()
                answer = await client.post(urls[n % len(urls)], content=body, headers=headers)
                if answer.status_code != 202:
                    raise RuntimeError(f"delivery {n}: {answer.status_code} {answer.text[:200]}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return time.perf_counter() - started


def _completed_heads(world: AppWorld, heads: set[str]) -> tuple[set[str], int]:
    runs: dict[str, list[dict[str, Any]]] = {}
    for run in list(world.fake.check_runs.values()):
        if run["name"] == "receipt" and run["head_sha"] in heads:
            runs.setdefault(run["head_sha"], []).append(run)
    done = {h for h, found in runs.items() if any(r["status"] == "completed" for r in found)}
    return done, sum(1 for found in runs.values() if len(found) > 1)


def measure(name: str, world: AppWorld, urls: list[str], *, pulls: int, clients: int) -> Result:
    made = [world.open_pull({f"src/bench_{n}.py": f"value = {n}\n"}, number=1000 + n) for n in range(pulls)]
    deliveries = []
    for pull in made:
        body = encode(world.pull_request_payload("opened", pull=pull))
        deliveries.append((body, world.fake.webhook_headers(world.app.id, "pull_request", body)))
    heads = {p.head_sha for p in made}
    started = time.perf_counter()
    ack = asyncio.run(_send([f"{u}/webhook" for u in urls], deliveries, clients))
    deadline = time.monotonic() + 60 + pulls * 5
    while True:
        done, duplicated = _completed_heads(world, heads)
        if len(done) == len(heads) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    finished = time.perf_counter() - started
    time.sleep(1.0)  # room for a duplicate run to show up
    done, duplicated = _completed_heads(world, heads)
    return Result(name, pulls, ack, finished, len(heads - done), duplicated)


def _embedded(server: Any, tmp: Path, pulls: int, clients: int) -> Result:
    server.state.reset()
    world = build_world(server, tmp)
    host = AppHost(world, tmp)
    try:
        app = host.serve(workers=2)
        name = "embedded: `receipt serve`, SQLite, 2 worker threads"
        return measure(name, world, [app.url or ""], pulls=pulls, clients=clients)
    finally:
        host.close()


def _scaled(server: Any, tmp: Path, pulls: int, clients: int) -> Result:
    import secrets

    import psycopg
    import redis

    suffix = secrets.token_hex(6)
    schema, name = f"receipt_bench_{suffix}", f"receiptbench{suffix}"
    with psycopg.connect(POSTGRES, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    server.state.reset()
    world = build_world(server, tmp)
    host = AppHost(world, tmp, _with_schema(POSTGRES, schema), REDIS, name)
    try:
        host.migrate()
        webs = [host.serve(workers=0, webhooks=False) for _ in range(2)]
        for _ in range(2):
            host.worker(workers=2)
        label = "scaled: 2 web + 2 workers (2 threads each), PostgreSQL + Redis"
        return measure(label, world, [w.url or "" for w in webs], pulls=pulls, clients=clients)
    finally:
        host.close()
        with psycopg.connect(POSTGRES, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        client = redis.Redis.from_url(REDIS)
        keys = list(client.scan_iter(match=f"huey.*{name}*"))
        if keys:
            client.delete(*keys)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pulls", type=int, default=60)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    results = []
    with serve_fake() as server, tempfile.TemporaryDirectory(prefix="receipt-bench-") as scratch:
        results.append(_embedded(server, Path(scratch) / "embedded", args.pulls, args.clients))
        problem = _probe()
        if problem is None:
            results.append(_scaled(server, Path(scratch) / "scaled", args.pulls, args.clients))
        else:
            print(f"scaled deployment not measured: {problem}")
    columns = ("deployment", "pull requests", "deliveries acknowledged / s", "check runs completed / min",
               "lost", "duplicated")  # fmt: skip
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|")
    for result in results:
        print(result.row())
    return 0 if all(r.lost == 0 and r.duplicated == 0 for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
