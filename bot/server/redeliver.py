"""Nothing lost at GitHub's side: GitHub never retries a failed webhook delivery by itself, so the
App lists its deliveries (`GET /app/hook/deliveries`, as the App, cursor pagination) and asks for
each failed one again (`POST /app/hook/deliveries/{id}/attempts`).

A GUID is left alone when one of its attempts succeeded or the store already recorded it (the App
answered, GitHub did not see the answer in time). Otherwise its newest failed attempt is
redelivered, and recorded, so the next pass does not ask again; only when that redelivery failed
too (a newer failed attempt appears) is it asked again, at most `MOST_REQUESTS` times per GUID.

A pass looks back over GitHub's three days of history the first time, then only to where the
previous complete pass began (less a margin for attempts that were still in flight). It runs at
start-up and then every RECEIPT_REDELIVER_SECONDS, once across the fleet (a lease in the store).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlparse

from githubkit import GitHub

from bot.github.errors import GitHubError, UnexpectedResponse, translated
from bot.server import logs
from bot.server.store import redeliveries as store
from bot.server.store.db import Database, utcnow

HISTORY = timedelta(days=3)  # what GitHub keeps and lets an App redeliver
IN_FLIGHT = timedelta(minutes=2)  # an attempt GitHub was still making at the last pass shows up later
MOST_REQUESTS = 3
PER_PAGE = 100
MOST_PAGES = 100
SCAN = "app-hook-deliveries"


@dataclass(frozen=True, slots=True)
class Attempt:
    """One entry of GitHub's delivery list: one attempt at delivering the event `guid`."""

    id: int
    guid: str
    ok: bool
    delivered_at: datetime  # naive UTC
    event: str
    action: str | None


@dataclass(frozen=True, slots=True)
class Pass:
    listed: int
    redelivered: tuple[str, ...]  # GUIDs
    complete: bool  # False when the page cap cut the listing short


def _attempt(item: Any) -> Attempt:
    try:
        when = datetime.fromisoformat(str(item["delivered_at"]).replace("Z", "+00:00"))
        code = int(item.get("status_code") or 0)
        return Attempt(
            id=int(item["id"]),
            guid=str(item["guid"]),
            ok=200 <= code < 300,
            delivered_at=when.replace(tzinfo=None) - (when.utcoffset() or timedelta(0)),
            event=str(item.get("event") or ""),
            action=item.get("action") if isinstance(item.get("action"), str) else None,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedResponse(200, f"a webhook delivery without {exc}") from exc


def _next_cursor(link: str | None) -> str | None:
    """The `cursor` of the `rel="next"` page in a Link header."""
    for part in (link or "").split(","):
        url, _, params = part.partition(";")
        if 'rel="next"' in params:
            found = parse_qs(urlparse(url.strip().strip("<>")).query).get("cursor")
            return found[0] if found else None
    return None


def list_attempts(
    app: GitHub[Any], back_to: datetime, *, per_page: int = PER_PAGE, most_pages: int = MOST_PAGES
) -> tuple[list[Attempt], bool]:
    """The delivery list, newest first, until an attempt older than `back_to`; complete is False
    when `most_pages` pages did not reach it."""
    found: list[Attempt] = []
    cursor: str | None = None
    for _ in range(most_pages):
        options: dict[str, Any] = {"per_page": per_page} | ({"cursor": cursor} if cursor else {})
        with translated():
            response = app.rest.apps.list_webhook_deliveries(**options)
            items = response.json()
        if not isinstance(items, list):
            raise UnexpectedResponse(200, "the webhook delivery list is not a list")
        page = [_attempt(i) for i in items]
        found.extend(page)
        cursor = _next_cursor(response.headers.get("link"))
        if not page or cursor is None or min(a.delivered_at for a in page) < back_to:
            return found, True
    return found, False


def to_redeliver(
    attempts: Iterable[Attempt], *, recorded: set[str], asked: Mapping[str, tuple[int, int]]
) -> list[Attempt]:
    """For each GUID nobody has seen succeed, its newest failed attempt, oldest GUID first."""
    by_guid: dict[str, list[Attempt]] = defaultdict(list)
    for attempt in attempts:
        by_guid[attempt.guid].append(attempt)
    chosen = []
    for guid, tries in by_guid.items():
        if guid in recorded or any(t.ok for t in tries):
            continue
        newest = max(tries, key=lambda t: t.id)
        last_asked, requests = asked.get(guid, (0, 0))
        if newest.id <= last_asked or requests >= MOST_REQUESTS:  # ours is in flight, or we gave up
            continue
        chosen.append(newest)
    return sorted(chosen, key=lambda t: t.id)


def redeliver_failed(db: Database, app: GitHub[Any], *, now: datetime | None = None) -> Pass:
    """One pass over the delivery list; see the module's docstring."""
    now = now or utcnow()
    oldest = now - HISTORY
    covered = store.covered_to(db, SCAN)
    back_to = max(oldest, covered - IN_FLIGHT) if covered is not None else oldest
    attempts, complete = list_attempts(app, back_to)
    attempts = [a for a in attempts if a.delivered_at >= oldest]
    guids = {a.guid for a in attempts}
    chosen = to_redeliver(
        attempts, recorded=store.known_deliveries(db, guids), asked=store.requested(db, guids)
    )
    done = []
    for attempt in chosen:
        claimed = store.claim_redelivery(db, guid=attempt.guid, delivery_id=attempt.id, event=attempt.event,
                                         action=attempt.action, most=MOST_REQUESTS)  # fmt: skip
        if not claimed:
            continue
        try:
            with translated():
                app.rest.apps.redeliver_webhook_delivery(attempt.id)
        except GitHubError as exc:
            store.redelivery_refused(db, attempt.guid, str(exc))
            logs.failure(f"GitHub refused to redeliver a failed delivery: {exc}", delivery=attempt.guid,
                         event=attempt.event)  # fmt: skip
            continue
        done.append(attempt.guid)
        logs.event("asked GitHub to redeliver a failed delivery", delivery=attempt.guid, event=attempt.event,
                   outcome="redelivery")  # fmt: skip
    if not complete:
        logs.failure(
            f"the delivery list holds more than {MOST_PAGES * PER_PAGE:,} deliveries since the last pass; "
            "older failed ones were not examined"
        )
    store.set_covered_to(db, SCAN, now)
    return Pass(len(attempts), tuple(done), complete)
