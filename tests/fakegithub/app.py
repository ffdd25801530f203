"""The fake's HTTP surface: the REST endpoints receipt uses, as GitHub answers them.

Every request passes one gate first, in GitHub's order: authentication (401), the hourly quota
(403 with `x-ratelimit-remaining: 0`), repository visibility (404) and permissions (403), injected
faults, then the secondary limit on content-creating requests. Every answer carries the
`x-ratelimit-*` headers and an `x-github-request-id`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from tests.fakegithub import (
    routes_actions,
    routes_apps,
    routes_checks,
    routes_git,
    routes_pulls,
    shapes,
)
from tests.fakegithub.answers import GitHubAnswer
from tests.fakegithub.gate import WRITE_METHODS, Principal, Refusal, authenticate, authorize
from tests.fakegithub.ratelimit import (
    RATE_DOCS,
    SECONDARY_DOCS,
    Quota,
    primary_message,
    request_id,
    secondary_message,
)
from tests.fakegithub.state import FakeGitHub, Recorded

UNAUTHENTICATED_LIMIT = 60
TRANSPORT = "fakegithub.transport"  # set by the server's protocol so a fault can drop the connection


def create_app(fake: FakeGitHub) -> FastAPI:
    app = FastAPI(title="fake GitHub REST API")

    @app.exception_handler(GitHubAnswer)
    async def _answer(_: Request, exc: GitHubAnswer) -> JSONResponse:
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        # An unknown route or method: GitHub answers in its own shape, never FastAPI's {"detail": ...}.
        message = "Not Found" if exc.status_code == 404 else str(exc.detail)
        return JSONResponse(shapes.error(exc.status_code, message), status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _query(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'/'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
        return JSONResponse(shapes.error(422, f"Invalid request.\n\n{problems}"), status_code=422)

    @app.middleware("http")
    async def _gate(request: Request, call_next: Any) -> Response:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        rid = request_id()
        generation = fake.generation
        response, quota, principal = await _admit(fake, request, rid, generation)
        if response is None:
            response = await call_next(request)
        for name, value in quota.headers().items():
            response.headers.setdefault(name, value)
        response.headers["x-github-request-id"] = rid
        response.headers["x-github-media-type"] = "github.v3; format=json"
        version = request.headers.get("x-github-api-version")
        if version:
            response.headers["x-github-api-version-selected"] = version
        fake.record(
            Recorded(
                request.method,
                request.url.path,
                dict(request.query_params),
                request.headers.get("accept", ""),
                body,
                response.status_code,
                principal.credential if principal else "",
            ),
            generation,
        )
        return response

    # routes_git last: its `commits/{ref:path}` would swallow `commits/{ref}/check-runs`.
    for module in (routes_pulls, routes_checks, routes_actions, routes_apps, routes_git):
        app.include_router(module.router(fake))
    return app


def _refusal(refusal: Refusal) -> JSONResponse:
    return JSONResponse(refusal.body, status_code=refusal.status, headers=refusal.headers)


async def _admit(
    fake: FakeGitHub, request: Request, rid: str, generation: int
) -> tuple[Response | None, Quota, Principal | None]:
    """The gate: an answer that stops the request (or None to serve it), its quota, and who asked.
    `generation`: the fake's state the request arrived in."""
    now = fake.timestamp()
    who = authenticate(fake, request.headers.get("authorization", ""))
    if isinstance(who, Refusal):
        return _refusal(who), fake.rate.peek("unauthenticated", now), None
    request.state.principal = who
    if who.kind == "none":
        quota = fake.rate.peek("unauthenticated", now)
        quota = Quota(UNAUTHENTICATED_LIMIT, quota.used, quota.reset)
    elif request.url.path == "/rate_limit":  # GitHub does not count asking for the quota
        quota = fake.rate.peek(who.subject, now)
    else:
        quota, allowed = fake.rate.spend(who.subject, now)
        if not allowed:
            body = shapes.error(403, primary_message(who.quota_owner), doc=RATE_DOCS)
            return JSONResponse(body, status_code=403), quota, who
    refusal = authorize(who, request.method, request.url.path, fake)
    if refusal is not None:
        return _refusal(refusal), quota, who
    fault = fake.take_fault(request.method, request.url.path)
    if fault is not None:
        if fault.delay:
            await asyncio.sleep(fault.delay)
            if fake.generation != generation:  # its test is over: serve nothing from the next one's state
                return (
                    JSONResponse(shapes.error(503, "the fake was reset meanwhile"), status_code=503),
                    quota,
                    who,
                )
        if fault.reset:
            _drop(request)
            return Response(status_code=500), quota, who
        if fault.status:
            body = fault.body or shapes.error(fault.status, "fault injected by the test")
            return JSONResponse(body, status_code=fault.status, headers=fault.headers), quota, who
    if request.method in WRITE_METHODS and who.kind != "none":
        wait = fake.rate.content_write(who.subject, now)
        if wait is not None:
            body = {"message": secondary_message(rid), "documentation_url": SECONDARY_DOCS}
            return (
                JSONResponse(body, status_code=403, headers={"retry-after": str(max(int(wait), 1))}),
                quota,
                who,
            )
    return None, quota, who


def _drop(request: Request) -> None:
    """Reset the TCP connection (RST, no answer), as a failing proxy in front of GitHub does."""
    transport = request.scope.get(TRANSPORT)
    if transport is None:
        raise RuntimeError("the fake was not served by tests.fakegithub.server; cannot drop connections")
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
