"""`/healthz` (the store and the queue answer, the worker process runs), `/readyz` (ready for
traffic), `/metrics`."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST

from bot.server import logs
from bot.server.metrics import PENDING_JOBS, QUEUE_DEPTH, exposition
from bot.server.runtime import Runtime
from bot.server.store.jobs import pending_count
from bot.server.webhook import RuntimeDep

router = APIRouter()


def _checks(runtime: RuntimeDep) -> dict[str, str]:
    found: dict[str, str] = {}
    try:
        runtime.db.ping()
        found["store"] = "ok"
    except Exception as exc:
        found["store"] = f"error: {type(exc).__name__}"
    try:
        QUEUE_DEPTH.set(runtime.queue.ping())
        found["queue"] = "ok"
    except Exception as exc:
        found["queue"] = f"error: {type(exc).__name__}"
    return found


def _workers(runtime: Runtime) -> dict[str, str]:
    """`receipt serve`'s worker process, when it has one. Readiness leaves it out: a delivery is
    still recorded and waits for the restarted workers, so traffic should keep coming."""
    process = runtime.worker_process
    if process is None:
        return {}
    return {"workers": "ok" if process.alive() else "error: the worker process is down (restarting)"}


@router.get("/healthz")
async def healthz(runtime: RuntimeDep) -> JSONResponse:
    checks = {**await run_in_threadpool(_checks, runtime), **_workers(runtime)}
    healthy = all(v == "ok" for v in checks.values())
    return JSONResponse(
        {"status": "ok" if healthy else "unhealthy", **checks}, status_code=200 if healthy else 503
    )


@router.get("/readyz")
async def readyz(runtime: RuntimeDep) -> JSONResponse:
    checks = await run_in_threadpool(_checks, runtime)
    ready = all(v == "ok" for v in checks.values()) and not runtime.stopping
    return JSONResponse(
        {"status": "ready" if ready else "not ready", **checks}, status_code=200 if ready else 503
    )


def _gauges(runtime: Runtime) -> None:
    """What is waiting, read when scraped: the queue's messages and the store's due jobs."""
    try:
        QUEUE_DEPTH.set(runtime.queue.ping())
        PENDING_JOBS.set(pending_count(runtime.db))
    except Exception as exc:  # a scrape still answers; /healthz says what is down
        logs.failure("metrics: the queue or the store did not answer", exc=exc)


@router.get("/metrics")
async def metrics(runtime: RuntimeDep) -> Response:
    await run_in_threadpool(_gauges, runtime)
    return Response(await run_in_threadpool(exposition), media_type=CONTENT_TYPE_LATEST)
