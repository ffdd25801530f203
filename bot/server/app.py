"""The FastAPI application: routers composed in one place, the runtime created in the lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool

from bot import __version__
from bot.server import health, pages, webhook
from bot.server.runtime import Runtime, settle


def create_app(make_runtime: Callable[[], Runtime], *, embedded_workers: bool = True) -> FastAPI:
    """`make_runtime` runs at start-up (never at import); with `embedded_workers` the same process
    also runs the queue's workers, which is what `receipt serve` alone needs to be a whole App."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = await run_in_threadpool(make_runtime)
        app.state.runtime = runtime
        if embedded_workers and runtime.settings.workers > 0:
            runtime.start_workers(embedded=True)
        await run_in_threadpool(runtime.recover)
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
