"""Serve the fake with a real uvicorn server on 127.0.0.1 (random port) in a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn

from tests.fakegithub.app import create_app
from tests.fakegithub.state import FakeGitHub


@dataclass(frozen=True)
class FakeServer:
    url: str
    state: FakeGitHub


@contextmanager
def serve(state: FakeGitHub | None = None) -> Iterator[FakeServer]:
    fake = state or FakeGitHub()
    config = uvicorn.Config(create_app(fake), host="127.0.0.1", port=0, log_level="warning", lifespan="off")
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
