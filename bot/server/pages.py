"""Receipt pages: `GET /receipts/{id}?token=…` (HTML) and `/receipts/{id}.json` (the receipt itself,
with the what-if of a manifest-editing pull request under `whatif`, outside the receipt's digest).

Capability URLs: a missing or wrong token answers 404, exactly as an unknown id does, so nothing
tells one from the other. Pages are never cached and never send a Referer carrying the token.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response

from bot.engine import render_json
from bot.server.receipt_page import render_page
from bot.server.store.models import StoredReceipt
from bot.server.store.runs import load_receipt
from bot.server.webhook import RuntimeDep

router = APIRouter()
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
    ),
    "X-Frame-Options": "DENY",
}


def _not_found() -> Response:
    return JSONResponse({"error": "not found"}, status_code=404, headers=HEADERS)


def _document(found: StoredReceipt) -> dict[str, object]:
    body: dict[str, object] = json.loads(found.body)
    return body if found.whatif is None else {**body, "whatif": json.loads(found.whatif)}


@router.get("/receipts/{receipt_id}.json")
async def receipt_json(receipt_id: str, request: Request, runtime: RuntimeDep) -> Response:
    found = await run_in_threadpool(load_receipt, runtime.db, receipt_id, request.query_params.get("token"))
    if found is None:
        return _not_found()
    body = found.body if found.whatif is None else render_json(_document(found))
    return Response(body, media_type="application/json", headers=HEADERS)


@router.get("/receipts/{receipt_id}")
async def receipt_page(receipt_id: str, request: Request, runtime: RuntimeDep) -> Response:
    found = await run_in_threadpool(load_receipt, runtime.db, receipt_id, request.query_params.get("token"))
    if found is None:
        return _not_found()
    page = render_page(_document(found), web_url=runtime.settings.web_url)
    return HTMLResponse(page, headers=HEADERS)
