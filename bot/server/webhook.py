"""`POST /webhook`: verify, parse, record the delivery with its jobs, enqueue, answer 202.

Nothing here calls GitHub: the answer goes back in milliseconds (GitHub allows 10 s), and the
work happens in the worker. The signature is checked over the raw bytes before anything is parsed.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse

from bot.github.events import parse_event, verify_signature
from bot.jsonread import load_json_object
from bot.server import logs
from bot.server.metrics import DELIVERIES
from bot.server.plan import plan
from bot.server.runtime import Runtime
from bot.server.store.jobs import DeliveryInfo

router = APIRouter()
MAX_GUID = 64
MAX_EVENT = 64


async def runtime_of(request: Request) -> Runtime:
    """Async, so FastAPI resolves it on the event loop: a plain function it runs in its thread
    pool, a hand-off to another thread and back for every delivery."""
    return _runtime(request)


def _runtime(request: Request) -> Runtime:
    runtime: Runtime | None = getattr(request.app.state, "runtime", None)
    if runtime is None:  # still starting: the schema is not checked yet
        raise HTTPException(503, "starting")
    return runtime


RuntimeDep = Annotated[Runtime, Depends(runtime_of)]


def _answer(status: int, event: str, outcome: str, **body: object) -> JSONResponse:
    DELIVERIES.labels(event=event[:MAX_EVENT] or "unknown", outcome=outcome).inc()
    return JSONResponse({"outcome": outcome, **body}, status_code=status)


async def _body(request: Request, limit: int) -> bytes | None:
    """The raw body, or None once it exceeds `limit` bytes (read no further than that)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def webhook(request: Request) -> JSONResponse:
    runtime = _runtime(request)
    settings = runtime.settings
    name = request.headers.get("x-github-event", "")
    guid = request.headers.get("x-github-delivery", "")
    raw = await _body(request, settings.max_body_bytes)
    if raw is None:
        return _answer(413, name, "too_large", error=f"the body exceeds {settings.max_body_bytes:,} bytes")
    secret = settings.webhook_secret.get_secret_value().encode("utf-8")
    if not verify_signature(secret, raw, request.headers.get("x-hub-signature-256")):
        logs.failure(
            "refused a delivery: bad or missing X-Hub-Signature-256", delivery=guid[:MAX_GUID] or None
        )
        return _answer(401, name, "bad_signature", error="missing or invalid X-Hub-Signature-256 (sha256=…)")
    if not name or not guid or len(guid) > MAX_GUID or len(name) > MAX_EVENT:
        return _answer(400, name, "bad_headers", error="X-GitHub-Event and X-GitHub-Delivery are required")
    try:
        payload = load_json_object(raw, "the body")
        event = parse_event(name, payload)
    except ValueError as exc:  # the reader's errors and EventError are ValueErrors
        reason = str(exc)
        logs.failure(f"refused a delivery: {reason}", delivery=guid, event=name)
        return _answer(400, name, "bad_payload", error=reason)
    decided = plan(event, app_id=settings.app_id)
    action = payload.get("action") if isinstance(payload.get("action"), str) else None
    installation = payload.get("installation")
    repository = payload.get("repository")
    info = DeliveryInfo(
        guid=guid,
        event=name,
        action=action,
        installation_id=installation.get("id") if isinstance(installation, dict) else None,
        repo=repository.get("full_name") if isinstance(repository, dict) else None,
    )
    first = decided.intents[0] if decided.intents else None
    context = {"delivery": guid, "event": name, "installation": info.installation_id, "repo": info.repo,
               "pr": getattr(first, "pr", None), "head": getattr(first, "head_sha", None)}  # fmt: skip
    with logs.bound(**context):
        recorded = await runtime.intake.record(info, decided)
        if recorded.duplicate:
            logs.event("duplicate delivery: already recorded", outcome="duplicate")
            return _answer(200, name, "duplicate", delivery=guid)
        logs.event(decided.detail, outcome=decided.outcome)
    status = 200 if decided.outcome == "ping" else 202
    return _answer(
        status, name, decided.outcome, delivery=guid, jobs=len(recorded.job_ids), detail=decided.detail
    )


# A plain route, not a FastAPI one: it takes nothing FastAPI would parse or validate, and resolving
# a dependency and wrapping the endpoint cost about a tenth of the web process's CPU per delivery.
router.add_route("/webhook", webhook, methods=["POST"])
