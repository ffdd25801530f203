"""Webhook deliveries as GitHub sends them, and the record GitHub keeps of each.

GitHub POSTs the payload as compact UTF-8 JSON with `X-GitHub-Event`, `X-GitHub-Delivery` (a GUID,
kept across redeliveries), `X-GitHub-Hook-ID`, `X-GitHub-Hook-Installation-Target-ID`/`-Type`,
`X-Hub-Signature` (HMAC-SHA1) and `X-Hub-Signature-256` (HMAC-SHA256) over the exact body when the
hook has a secret, and a `GitHub-Hookshot/…` user agent. It waits 10 seconds for an answer; anything
but 2xx in time is a failed delivery, listed with its status ("OK", "Invalid HTTP Response: 503",
"timed out", "failed to connect to host") and never retried unless someone redelivers it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import queue
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from tests.fakegithub.apps import FakeApp, FakeInstallation, grants

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub

HOOKSHOT = "GitHub-Hookshot/a7f7e8c"
MAX_PAYLOAD_BYTES = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB and does not deliver larger ones


def encode(payload: Mapping[str, Any]) -> bytes:
    """The body as GitHub serializes it: compact JSON, non-ASCII characters as UTF-8."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def signature_256(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def signature_sha1(secret: str, body: bytes) -> str:
    return "sha1=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha1).hexdigest()


@dataclass
class Delivery:
    id: int
    guid: str
    app_id: int
    event: str
    action: str | None
    installation_id: int | None
    repository_id: int | None
    url: str
    request_headers: dict[str, str]
    body: bytes
    redelivery: bool
    delivered_at: datetime
    duration: float = 0.0
    status: str = "pending"
    status_code: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: str = ""
    throttled_at: str | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300 and self.status == "OK"

    def payload(self) -> Any:
        return json.loads(self.body)

    def item(self) -> dict[str, Any]:
        """The entry `GET /app/hook/deliveries` lists."""
        return {
            "id": self.id,
            "guid": self.guid,
            "delivered_at": self.delivered_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "redelivery": self.redelivery,
            "duration": round(self.duration, 2),
            "status": self.status,
            "status_code": self.status_code,
            "event": self.event,
            "action": self.action,
            "installation_id": self.installation_id,
            "repository_id": self.repository_id,
            "throttled_at": self.throttled_at,
        }

    def detail(self) -> dict[str, Any]:
        """`GET /app/hook/deliveries/{id}`: the item with the request and the answer."""
        try:
            payload: Any = self.payload()
        except ValueError:
            payload = None
        return {
            **self.item(),
            "url": self.url,
            "request": {"headers": dict(self.request_headers), "payload": payload},
            "response": {"headers": dict(self.response_headers), "payload": self.response_body or None},
        }


def headers_for(fake: FakeGitHub, app: FakeApp, event: str, body: bytes, *, guid: str | None = None,
                installation: int | None = None) -> dict[str, str]:  # fmt: skip
    headers = {
        "Accept": "*/*",
        "Content-Type": "application/json",
        "User-Agent": HOOKSHOT,
        "X-GitHub-Delivery": guid or str(uuid.uuid4()),
        "X-GitHub-Event": event,
        "X-GitHub-Hook-ID": str(app.hook_id),
        "X-GitHub-Hook-Installation-Target-ID": str(app.id),
        "X-GitHub-Hook-Installation-Target-Type": "integration",
    }
    if app.webhook_secret:
        headers["X-Hub-Signature"] = signature_sha1(app.webhook_secret, body)
        headers["X-Hub-Signature-256"] = signature_256(app.webhook_secret, body)
    return headers


def _ids(payload: Any) -> tuple[str | None, int | None, int | None]:
    if not isinstance(payload, dict):
        return None, None, None
    action = payload.get("action") if isinstance(payload.get("action"), str) else None
    installation = payload.get("installation")
    repository = payload.get("repository")
    inst_id = installation.get("id") if isinstance(installation, dict) else None
    repo_id = repository.get("id") if isinstance(repository, dict) else None
    return action, inst_id, repo_id


def _send(fake: FakeGitHub, delivery: Delivery, timeout: float | None) -> Delivery:
    with fake.lock:
        breaks = fake.delivery_breaks.get(delivery.app_id)
        broken = breaks.pop(0) if breaks else False
    started = time.monotonic()
    if broken is not False:
        delivery.status, delivery.status_code = (
            ("failed to connect to host", 0)
            if broken is None
            else (f"Invalid HTTP Response: {broken}", broken)
        )
    elif not delivery.url:
        delivery.status = "failed to connect to host"
    else:
        try:
            answer = httpx.post(
                delivery.url,
                content=delivery.body,
                headers=delivery.request_headers,
                timeout=fake.webhook_timeout if timeout is None else timeout,
            )
        except httpx.TimeoutException:
            delivery.status = "timed out"
        except httpx.TransportError:
            delivery.status = "failed to connect to host"
        else:
            delivery.status_code = answer.status_code
            delivery.status = "OK" if answer.is_success else f"Invalid HTTP Response: {answer.status_code}"
            delivery.response_headers = dict(answer.headers)
            delivery.response_body = answer.text[:10_000]
    delivery.duration = time.monotonic() - started
    return delivery


def _record(fake: FakeGitHub, app: FakeApp, body: bytes, headers: Mapping[str, str], *, event: str,
            redelivery: bool = False) -> Delivery:  # fmt: skip
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    action, installation, repository = _ids(parsed)
    lowered = {k.lower(): v for k, v in headers.items()}
    delivery = Delivery(
        id=fake.next_delivery_id(),
        guid=lowered.get("x-github-delivery", ""),
        app_id=app.id,
        event=event or lowered.get("x-github-event", ""),
        action=action,
        installation_id=installation,
        repository_id=repository,
        url=app.webhook_url or "",
        request_headers=dict(headers),
        body=body,
        redelivery=redelivery,
        delivered_at=fake.now(),
    )
    with fake.lock:
        fake.deliveries.append(delivery)
    return delivery


def deliver(fake: FakeGitHub, app: FakeApp, event: str, payload: Mapping[str, Any], *,
            guid: str | None = None) -> Delivery:  # fmt: skip
    body = encode(payload)
    if len(body) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"GitHub does not deliver payloads over 25 MB ({len(body)} bytes)")
    headers = headers_for(fake, app, event, body, guid=guid)
    return _send(fake, _record(fake, app, body, headers, event=event), None)


def deliver_raw(fake: FakeGitHub, app: FakeApp, body: bytes, headers: Mapping[str, str], *, event: str = "",
                timeout: float | None = None) -> Delivery:  # fmt: skip
    return _send(fake, _record(fake, app, body, headers, event=event), timeout)


def redeliver(fake: FakeGitHub, delivery_id: int) -> Delivery:
    """The same body and headers (same GUID) again, recorded as a new delivery marked redelivery."""
    with fake.lock:
        original = next(d for d in fake.deliveries if d.id == delivery_id)
        app = fake.apps[original.app_id]
    headers = dict(original.request_headers)
    if app.webhook_secret:  # GitHub signs the redelivery with the hook's current secret
        headers["X-Hub-Signature"] = signature_sha1(app.webhook_secret, original.body)
        headers["X-Hub-Signature-256"] = signature_256(app.webhook_secret, original.body)
    return _send(
        fake, _record(fake, app, original.body, headers, event=original.event, redelivery=True), None
    )


def emit(fake: FakeGitHub, event: str, payload_for: Callable[[FakeApp, FakeInstallation], dict[str, Any]], *,
         repo: str, permission: tuple[str, str], only_app: int | None = None) -> list[int]:  # fmt: skip
    if not fake.emit_events:
        return []
    targets = []
    with fake.lock:
        for installation in fake.installations.values():
            app = fake.apps[installation.app_id]
            if only_app is not None and app.id != only_app:
                continue
            if installation.suspended_at or not installation.covers(repo) or event not in installation.events:
                continue
            if not grants(installation.permissions, *permission) or not app.active:
                continue
            targets.append((app, installation))
    for app, installation in targets:
        fake.deliverer.put(app, event, payload_for(app, installation))
    return [app.id for app, _ in targets]


class Deliverer:
    """Sends the events the fake itself raises (check runs, workflow runs, redeliveries) from one
    background thread, in order, as GitHub does: never on the request that caused them."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.queue: queue.Queue[tuple[int, Callable[[], object]]] = queue.Queue()
        self.generation = 0
        self.thread = threading.Thread(target=self._run, name="fake-github-deliveries", daemon=True)
        self.thread.start()

    def put(self, app: FakeApp, event: str, payload: dict[str, Any]) -> None:
        self.call(lambda: deliver(self.fake, app, event, payload))

    def call(self, job: Callable[[], object]) -> None:
        self.queue.put((self.generation, job))

    def clear(self) -> None:
        """Drop what is queued (a test's reset); a delivery in flight finishes but lands in the
        previous test's list, so the next test's deliveries start empty."""
        self.generation += 1

    def wait_idle(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.queue.unfinished_tasks:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.queue.unfinished_tasks} webhook deliveries still pending")
            time.sleep(0.01)

    def _run(self) -> None:
        while True:
            generation, job = self.queue.get()
            try:
                if generation == self.generation:
                    job()
            except Exception:  # a failing delivery is recorded; it never stops the thread
                traceback.print_exc()
            finally:
                self.queue.task_done()
