"""Serve the fake with a real uvicorn server on 127.0.0.1 (random port) in a background thread."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from tests.fakegithub.app import TRANSPORT, create_app
from tests.fakegithub.state import FakeGitHub


@dataclass(frozen=True)
class FakeServer:
    url: str
    state: FakeGitHub


class _Protocol(H11Protocol):
    """h11 with the connection's transport in each request's scope, so a fault can reset it."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        inner = self.app

        async def app(scope: Any, receive: Any, send: Any) -> None:
            scope[TRANSPORT] = transport
            await inner(scope, receive, send)

        self.app = app


@contextmanager
def serve(state: FakeGitHub | None = None) -> Iterator[FakeServer]:
    fake = state or FakeGitHub()
    config = uvicorn.Config(create_app(fake), host="127.0.0.1", port=0, log_level="warning", lifespan="off",
                            http=_Protocol)  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="fake-github", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the fake GitHub server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield FakeServer(f"http://127.0.0.1:{port}", fake)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
