"""A webhook receiver on loopback that records exactly what arrives (for the fake's own tests, and
for App tests that need to see what GitHub would have sent)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names, as HTTP/1.1 carries them case-insensitively
    body: bytes


@dataclass
class Receiver:
    url: str = ""
    received: list[Received] = field(default_factory=list)
    status: int = 202
    delay: float = 0.0  # seconds before answering

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        self.received.append(Received(scope["method"], scope["path"], headers, b"".join(chunks)))
        if self.delay:
            await asyncio.sleep(self.delay)
        await send({"type": "http.response.start", "status": self.status,
                    "headers": [(b"content-type", b"application/json")]})  # fmt: skip
        await send({"type": "http.response.body", "body": b'{"ok":true}'})


@contextmanager
def receiver() -> Iterator[Receiver]:
    app = Receiver()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, name="webhook-receiver", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the webhook receiver did not start")
        time.sleep(0.01)
    app.url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/webhook"
    try:
        yield app
    finally:
        server.should_exit = True
        thread.join(timeout=10)
