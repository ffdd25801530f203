"""The FastAPI application: routers composed in one place, the runtime created in the lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool

from bot import __version__
from bot.server import health, pages, webhook
from bot.server.runtime import Runtime, settle


def create_app(make_runtime: Callable[[], Runtime]) -> FastAPI:
    """`make_runtime` runs at start-up (never at import). With RECEIPT_WORKERS above 0 the server
    also starts and supervises a worker process, which is what `receipt serve` alone needs to be
    a whole App; it is stopped after the server's drain."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = await run_in_threadpool(make_runtime)
        app.state.runtime = runtime
        await run_in_threadpool(runtime.recover)  # before the child starts: one of them enqueues
        if runtime.settings.workers > 0:
            runtime.start_worker_process()
        settle()
        try:
            yield
        finally:
            runtime.stopping = True
            await run_in_threadpool(runtime.stop_workers)

    app = FastAPI(title="receipt", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None)
    for module in (webhook, pages, health):
        app.include_router(module.router)
    return app


def create_worker_app(runtime: Runtime) -> FastAPI:
    """What a `receipt worker` given a port answers: `/healthz` (the store and the queue answer:
    the container's health check), `/readyz` and `/metrics` (its jobs and GitHub's answers), no
    webhook and no pages."""
    app = FastAPI(title="receipt worker", version=__version__, docs_url=None, redoc_url=None)
    app.state.runtime = runtime
    app.include_router(health.router)
    return app
