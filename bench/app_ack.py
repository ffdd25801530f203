"""The webhook's acknowledgement path inside one `receipt serve` process, without HTTP.

    python bench/app_ack.py [--rate 200] [--seconds 10] [--runs 3]

What `POST /webhook` does once a delivery is verified and parsed (hand it to the intake, which
records it with its job, wakes a worker and answers; awaited on an event loop) is called at a
fixed rate, while the App's worker process (2 threads) runs the jobs against the fake GitHub
(which runs in another process) on the same store and queue: `pull_request.synchronize`
deliveries of one head, as in `bench/app_webhook.py`. Printed per run: percentiles of the time
from submission to the answer, the longest pause of the garbage collector, and the CPU of the
process (the web process's part of a delivery: the event loop and the intake; the workers run in
a process of their own). Measures in-process, so a loaded machine's HTTP and scheduling noise
stays out of it (its CPU contention does not).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakegithub.server import serve as serve_fake
from tests.fakegithub.world import build_world


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _measure(env: dict[str, str], payload: dict[str, Any], rate: float, seconds: float) -> dict[str, Any]:
    """In the child process: the App's runtime and the load; returns the timings."""
    os.environ.update(env)
    from fastapi.testclient import TestClient

    from bot.github.events import parse_event
    from bot.server.app import create_app
    from bot.server.runtime import Runtime
    from bot.server.settings import load_settings

    settings = load_settings()
    # The application's own start-up (the lifespan: runtime, workers, recovery), as `receipt serve`
    # runs it; only the HTTP around the handler is left out.
    app = create_app(lambda: Runtime.build(settings))
    with TestClient(app):
        runtime: Runtime = app.state.runtime
        return _load(runtime, parse_event("pull_request", payload), rate, seconds)


def _load(runtime: Any, event: Any, rate: float, seconds: float) -> dict[str, Any]:
    """Deliveries at `rate` for `seconds`, each awaited on an event loop as the webhook awaits it,
    while the workers work."""
    from bot.server.plan import plan
    from bot.server.store.jobs import DeliveryInfo

    decided = plan(event, app_id=runtime.settings.app_id)
    repo = event.repo.full_name
    pauses: list[float] = []
    started_at: dict[str, float] = {}

    def collector(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            started_at["gc"] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - started_at["gc"])

    totals: list[float] = []

    async def deliver(info: Any) -> None:
        submitted = time.perf_counter()
        await runtime.intake.record(info, decided)
        totals.append(time.perf_counter() - submitted)

    async def arrivals() -> None:
        pending = []
        start = time.perf_counter()
        for n in range(int(rate * seconds)):
            delay = start + n / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            info = DeliveryInfo(str(uuid.uuid4()), "pull_request", "synchronize", None, repo)
            pending.append(asyncio.create_task(deliver(info)))
        await asyncio.gather(*pending)

    gc.callbacks.append(collector)
    cpu = time.process_time()
    asyncio.run(arrivals())
    cpu = time.process_time() - cpu
    gc.callbacks.remove(collector)
    return {"columns": [totals], "gc_max": max(pauses, default=0.0), "cpu": cpu}


def one_run(rate: float, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="receipt-bench-ack-") as scratch, serve_fake() as fake_server:
        tmp = Path(scratch)
        world = build_world(fake_server, tmp)
        env = {**world.app_env(), "RECEIPT_DATABASE_URL": f"sqlite:///{tmp / 'app.sqlite3'}",
               "RECEIPT_WORKERS": "2", "RECEIPT_JOB_LEASE_SECONDS": "3"}  # fmt: skip
        payload = world.pull_request_payload("synchronize")
        out = tmp / "result.json"
        # The App runs in a forked child: the fake GitHub keeps serving from this process's threads.
        child = os.fork()
        if child == 0:
            try:
                out.write_text(json.dumps(_measure(env, payload, rate, seconds)), encoding="utf-8")
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    names = ("submitted to answered",)
    load = f"{args.rate:.0f}/s for {args.seconds:.0f} s"
    print(f"# acknowledgement path in-process ({os.cpu_count()} cores, {load})\n")
    print("| run | " + " | ".join(f"{n} p50 / p99 / max" for n in names) + " | longest GC pause | CPU |")
    print("|---|" + "---|" * (len(names) + 2))
    for run in range(1, args.runs + 1):
        found = one_run(args.rate, args.seconds)
        cells = [
            " / ".join(f"{percentile(column, q) * 1e3:.1f}" for q in (0.5, 0.99, 1.0)) + " ms"
            for column in found["columns"]
        ]
        print(f"| {run} | {' | '.join(cells)} | {found['gc_max'] * 1e3:.0f} ms | {found['cpu']:.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
