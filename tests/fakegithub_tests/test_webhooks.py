"""Deliveries as GitHub sends them, and GitHub's record of them (list, detail, redelivery)."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.fakegithub import webhooks
from tests.fakegithub.harness import AppWorld, wait_until
from tests.fakegithub.receiver import Receiver, receiver


@pytest.fixture
def rx(github_app: AppWorld) -> Iterator[Receiver]:
    with receiver() as found:
        github_app.webhooks_to(found.url)
        yield found


def test_githubs_published_signature_vector() -> None:
    body = b"Hello, World!"
    assert webhooks.signature_256("It's a Secret to Everybody", body) == (
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    )
    assert webhooks.signature_sha1("It's a Secret to Everybody", body) == (
        "sha1=" + hmac.new(b"It's a Secret to Everybody", body, hashlib.sha1).hexdigest()
    )


def test_a_delivery_carries_exactly_githubs_headers_and_a_signed_raw_body(
    github_app: AppWorld, rx: Receiver
) -> None:
    github_app.pull.title = "Fix add() — ünïcode"
    delivery = github_app.send_pull_request("opened")
    [got] = rx.received
    assert got.method == "POST" and got.path == "/webhook"
    assert uuid.UUID(got.headers["x-github-delivery"]).version == 4
    assert got.headers["x-github-event"] == "pull_request"
    assert got.headers["x-github-hook-id"] == str(github_app.app.hook_id)
    assert got.headers["x-github-hook-installation-target-id"] == str(github_app.app.id)
    assert got.headers["x-github-hook-installation-target-type"] == "integration"
    assert got.headers["content-type"] == "application/json"
    assert got.headers["user-agent"].startswith("GitHub-Hookshot/")
    secret = github_app.webhook_secret.encode()
    assert (
        got.headers["x-hub-signature-256"]
        == "sha256=" + hmac.new(secret, got.body, hashlib.sha256).hexdigest()
    )
    assert got.headers["x-hub-signature"] == "sha1=" + hmac.new(secret, got.body, hashlib.sha1).hexdigest()
    assert "ünïcode".encode() in got.body and b": " not in got.body[:200], (
        "compact UTF-8, as GitHub serializes"
    )
    payload = json.loads(got.body)
    assert payload["installation"]["id"] == github_app.installation.id
    assert (delivery.status, delivery.status_code, delivery.guid) == (
        "OK",
        202,
        got.headers["x-github-delivery"],
    )


def test_failed_deliveries_are_recorded_with_githubs_status(github_app: AppWorld, rx: Receiver) -> None:
    rx.status = 503
    assert github_app.send_pull_request().status == "Invalid HTTP Response: 503"
    rx.status, rx.delay = 202, 1.0
    github_app.fake.webhook_timeout = 0.3
    slow = github_app.send_pull_request()
    assert (slow.status, slow.status_code) == ("timed out", 0)
    github_app.webhooks_to("http://127.0.0.1:9/nothing-listens")
    assert github_app.send_pull_request().status == "failed to connect to host"


def test_deliveries_can_fail_at_githubs_side(github_app: AppWorld, rx: Receiver) -> None:
    github_app.fake.break_deliveries(github_app.app.id, times=1)
    github_app.fake.break_deliveries(github_app.app.id, times=1, status=502)
    first, second, third = (github_app.send_pull_request() for _ in range(3))
    assert (first.status, second.status, third.status) == (
        "failed to connect to host",
        "Invalid HTTP Response: 502",
        "OK",
    )
    assert len(rx.received) == 1


def test_forged_and_malformed_deliveries_are_sent_as_given(github_app: AppWorld, rx: Receiver) -> None:
    body = b'{"action": "opened",'  # malformed JSON, validly signed
    headers = github_app.fake.webhook_headers(github_app.app.id, "pull_request", body)
    del headers["X-Hub-Signature-256"]  # SHA-1 only
    delivery = github_app.fake.deliver_raw(github_app.app.id, body, headers)
    assert rx.received[-1].body == body and "x-hub-signature-256" not in rx.received[-1].headers
    assert delivery.event == "pull_request" and delivery.action is None
    big = b'{"zen":"' + b"x" * (webhooks.MAX_PAYLOAD_BYTES + 1) + b'"}'
    github_app.fake.deliver_raw(
        github_app.app.id, big, {"X-GitHub-Event": "ping", "Content-Type": "application/json"}
    )
    assert len(rx.received[-1].body) == len(big)
    with pytest.raises(ValueError, match="25 MB"):
        github_app.fake.deliver(github_app.app.id, "ping", {"zen": "x" * webhooks.MAX_PAYLOAD_BYTES})


def test_the_deliveries_list_pages_with_a_cursor_link_as_github_does(
    github_app: AppWorld, rx: Receiver
) -> None:
    rx.status = 500
    sent = [github_app.send_pull_request() for _ in range(5)]
    gh = github_app.app_client()
    first = gh.rest.apps.list_webhook_deliveries(per_page=2)
    assert [d.id for d in first.parsed_data] == [sent[4].id, sent[3].id]
    link = first.headers["link"]
    assert link == f'<{github_app.api_url}/app/hook/deliveries?per_page=2&cursor=v1_{sent[3].id}>; rel="next"'
    second = httpx.get(
        link[1:].split(">")[0], headers={"Authorization": first.raw_request.headers["authorization"]}
    )
    assert [d["id"] for d in second.json()] == [sent[2].id, sent[1].id]
    item = second.json()[0]
    assert item["status"] == "Invalid HTTP Response: 500" and item["status_code"] == 500
    assert (item["event"], item["action"], item["redelivery"]) == ("pull_request", "opened", False)
    assert item["installation_id"] == github_app.installation.id
    assert item["repository_id"] == github_app.fake.repo_id("acme/widgets")
    assert [d.id for d in gh.rest.apps.list_webhook_deliveries(status="failure").parsed_data][:1] == [
        sent[4].id
    ]
    assert gh.rest.apps.list_webhook_deliveries(status="success").parsed_data == []


def test_redelivery_resends_the_same_body_and_guid_as_a_new_delivery(
    github_app: AppWorld, rx: Receiver
) -> None:
    rx.status = 503
    failed = github_app.send_pull_request()
    rx.status = 202
    gh = github_app.app_client()
    detail = gh.rest.apps.get_webhook_delivery(failed.id).parsed_data
    assert detail.response.payload and detail.request.payload.model_dump()["action"] == "opened"
    assert gh.rest.apps.redeliver_webhook_delivery(failed.id).status_code == 202
    redone = wait_until(
        lambda: [d for d in github_app.fake.deliveries if d.redelivery and d.status != "pending"],
        what="the redelivery",
    )[0]
    assert (redone.guid, redone.body, redone.status) == (failed.guid, failed.body, "OK")
    assert redone.id != failed.id
    assert rx.received[-1].headers["x-github-delivery"] == failed.guid
    listed = gh.rest.apps.list_webhook_deliveries().parsed_data
    assert [(d.id, d.redelivery) for d in listed] == [(redone.id, True), (failed.id, False)]
    missing = httpx.post(f"{github_app.api_url}/app/hook/deliveries/123/attempts",
                         headers={"Authorization": f"Bearer {github_app.fake.requests[-1].credential}"})  # fmt: skip
    assert missing.status_code == 404
