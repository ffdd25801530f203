"""Failed deliveries are redelivered through GitHub's deliveries API: once per failure, never
for a GUID that succeeded or that the store holds, at most a few times, within GitHub's history."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from bot.github.auth import AppCredentials, InstallationTokens
from bot.server import redeliver
from bot.server.plan import Plan
from bot.server.redeliver import Attempt, list_attempts, redeliver_failed, to_redeliver
from bot.server.store import jobs
from bot.server.store.db import Database, utcnow
from tests.fakegithub.harness import AppWorld, wait_until


def _app(world: AppWorld):  # type: ignore[no-untyped-def]
    return InstallationTokens(AppCredentials(world.app.id, world.keys.private_pem, world.api_url)).app


def _attempts_of(world: AppWorld, guid: str) -> list[bool]:
    world.fake.wait_for_deliveries()
    return [d.ok for d in world.fake.deliveries if d.guid == guid]


def _ping(world: AppWorld) -> str:
    return world.send("ping", {"zen": "x", "hook_id": world.app.hook_id}).guid


def test_only_failed_unrecorded_deliveries_are_redelivered_once(github_app: AppWorld, db: Database) -> None:
    from tests.fakegithub.receiver import receiver

    with receiver() as endpoint:
        github_app.webhooks_to(endpoint.url)
        delivered = _ping(github_app)
        github_app.fake.break_deliveries(github_app.app.id, times=3)
        failed, recorded, fixed = _ping(github_app), _ping(github_app), _ping(github_app)
        [fixed_attempt] = [d for d in github_app.fake.deliveries if d.guid == fixed]
        assert github_app.fake.redeliver(fixed_attempt.id).ok  # someone redelivered it by hand
        jobs.record_delivery(db, jobs.DeliveryInfo(recorded, "ping", None, None, None), Plan("ping", "x"))

        done = redeliver_failed(db, _app(github_app))
        assert done.redelivered == (failed,) and done.complete
        assert _attempts_of(github_app, failed) == [False, True]
        assert _attempts_of(github_app, delivered) == [True]
        assert _attempts_of(github_app, recorded) == [False]
        assert _attempts_of(github_app, fixed) == [False, True]
        assert wait_until(
            lambda: [r for r in endpoint.received if r.headers.get("x-github-delivery") == failed]
        )

        assert redeliver_failed(db, _app(github_app)).redelivered == (), "not again and again"


def test_a_redelivery_that_fails_too_is_asked_again_a_few_times_only(
    github_app: AppWorld, db: Database
) -> None:
    github_app.webhooks_to(None)  # nobody answers: every attempt fails
    guid = _ping(github_app)
    for _ in range(redeliver.MOST_REQUESTS):
        assert redeliver_failed(db, _app(github_app)).redelivered == (guid,)
        github_app.fake.wait_for_deliveries()  # GitHub's new attempt, failed, is listed
    assert redeliver_failed(db, _app(github_app)).redelivered == ()
    assert _attempts_of(github_app, guid) == [False] * (1 + redeliver.MOST_REQUESTS)


def test_an_attempt_still_in_flight_is_not_asked_for_twice(github_app: AppWorld, db: Database) -> None:
    github_app.webhooks_to(None)
    guid = _ping(github_app)
    held = threading.Event()
    github_app.fake.deliverer.call(lambda: held.wait(30))  # GitHub has not made the new attempt yet
    try:
        assert redeliver_failed(db, _app(github_app)).redelivered == (guid,)
        assert redeliver_failed(db, _app(github_app)).redelivered == ()  # its attempt is not listed yet
    finally:
        held.set()
    github_app.fake.wait_for_deliveries()
    assert redeliver_failed(db, _app(github_app)).redelivered == (guid,), "that attempt failed too"


def test_the_listing_follows_the_cursor_and_stops_at_the_window(github_app: AppWorld, db: Database) -> None:
    github_app.webhooks_to(None)
    guids = [_ping(github_app) for _ in range(5)]
    app, long_ago = _app(github_app), datetime(2000, 1, 1)
    found, complete = list_attempts(app, long_ago, per_page=2)
    assert [a.guid for a in found] == guids[::-1] and complete
    assert len(github_app.fake.calls("GET", r"/app/hook/deliveries")) == 3
    found, complete = list_attempts(app, long_ago, per_page=2, most_pages=2)
    assert len(found) == 4 and not complete
    found, complete = list_attempts(app, utcnow() + timedelta(seconds=1), per_page=2)
    assert len(found) == 2 and complete, "a page older than where to stop is the last one"
    assert redeliver_failed(db, app, now=utcnow() + timedelta(days=4)).redelivered == (), (
        "past GitHub's 3 days"
    )


def _attempt(n: int, guid: str, *, ok: bool = False) -> Attempt:
    return Attempt(n, guid, ok, datetime.now(UTC).replace(tzinfo=None), "ping", None)


def test_which_guids_are_redelivered() -> None:
    attempts = [
        _attempt(1, "a"), _attempt(2, "b"), _attempt(3, "b", ok=True), _attempt(4, "c"),
        _attempt(5, "d"), _attempt(6, "e"), _attempt(7, "e"), _attempt(8, "f"),
    ]  # fmt: skip
    chosen = to_redeliver(
        attempts, recorded={"c"}, asked={"d": (5, 1), "e": (6, 1), "f": (2, redeliver.MOST_REQUESTS)}
    )
    assert [(a.guid, a.id) for a in chosen] == [("a", 1), ("e", 7)]
