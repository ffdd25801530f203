"""What an operator sees: JSON logs with the context of every line and no secret in any of them,
Prometheus metrics, and readiness that goes false before the process stops."""

from __future__ import annotations

import json
import re
import signal
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost, free_port
from tests.server.forward import Forwarder
from tests.server.services import Scaled
from tests.server.test_app import _completed, _manifest

JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
PROCESS_LINES = ("redelivery", "recovered", "worker")  # the processes' own work, about no delivery


def _full_run(world: AppWorld, host: AppHost) -> str:
    """A pull request through its whole life: waiting for a check, a failing GitHub, the check
    completing, a re-run asked for; returns the server's URL."""
    _manifest(world, "version: 1\ntests:\n  checks: [test]\n")
    app = host.serve(RECEIPT_GITHUB_RETRIES="1")
    head = world.pull.head_sha
    ci = world.fake.add_check_run(world.repo, head, "test", status="in_progress", emit=False)
    world.fake.inject_server_error("GET", r"/repos/.*/compare/.*", status=502, times=2)  # one attempt fails
    world.send_pull_request("opened")
    wait_until(lambda: world.fake.runs_for(head, "receipt"), timeout=30, what="the pending run")
    world.fake.complete_check_run(ci["id"], "success")
    [done] = _completed(world, head, timeout=30)
    world.fake.rerequest_check_run(done["id"])
    _completed(world, head, count=2, timeout=30)
    assert app.url is not None
    return app.url


def test_the_logs_of_a_full_run_carry_their_context_and_no_secret(
    github_app: AppWorld, host: AppHost
) -> None:
    _full_run(github_app, host)
    github_app.fake.wait_for_deliveries()
    time.sleep(0.5)  # the last lines reach the file
    text = host.logs()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line is JSON
    ours = [line for line in lines if line["logger"] == "receipt"]
    assert any(line.get("error") == "GitHubError" or "502" in line["msg"] for line in ours), (
        "a failure was logged"
    )
    for line in ours:
        if line.get("outcome") in PROCESS_LINES:
            continue
        assert "delivery" in line or "job" in line, line
        if "job" in line:
            assert {"repo", "head", "installation", "delivery"} <= line.keys(), line
        else:
            assert {"event", "installation", "repo"} <= line.keys(), line
    assert any(
        line.get("pr") == github_app.pull.number and "head" in line for line in ours if "job" not in line
    )

    secrets = {github_app.webhook_secret, *github_app.fake.issued}
    secrets |= {r.credential for r in github_app.fake.requests if r.credential}
    secrets |= {
        line for line in github_app.keys.private_pem.splitlines() if "PRIVATE KEY" not in line and line
    }
    assert len(github_app.fake.issued) >= 1 and any(JWT.match(s) for s in secrets), "the run used both"
    for secret in secrets:
        assert secret not in text, f"a secret in the logs: {secret[:6]}…"
    assert not JWT.search(text)


def test_metrics_count_deliveries_jobs_github_answers_and_what_waits(
    github_app: AppWorld, host: AppHost
) -> None:
    url = _full_run(github_app, host)
    text = httpx.get(f"{url}/metrics").text
    for wanted in (
        'receipt_deliveries_total{event="pull_request",outcome="queued"} 1.0',
        'receipt_jobs_total{kind="evaluate",outcome="done"}',
        'receipt_jobs_total{kind="evaluate",outcome="retry"} 1.0',
        'receipt_job_seconds_count{kind="evaluate"}',
        'receipt_job_wait_seconds_count{kind="evaluate"}',
        'receipt_github_requests_total{method="POST",status="201"}',
        'receipt_github_requests_total{method="GET",status="502"} 2.0',
        f'receipt_github_rate_limit_remaining{{quota="{github_app.installation.id}",resource="core"}}',
        "receipt_queue_depth ",
        "receipt_pending_jobs 0.0",
    ):
        assert wanted in text, wanted


def test_readyz_goes_false_while_draining_and_requests_are_still_served(
    github_app: AppWorld, host: AppHost
) -> None:
    app = host.serve(RECEIPT_DRAIN_SECONDS="3")
    assert httpx.get(f"{app.url}/readyz").status_code == 200
    app.proc.send_signal(signal.SIGTERM)
    not_ready = wait_until(lambda: httpx.get(f"{app.url}/readyz"), what="/readyz during the drain")
    assert not_ready.status_code == 503 and not_ready.json()["status"] == "not ready"
    assert httpx.get(f"{app.url}/healthz").status_code == 200
    assert github_app.send_pull_request("opened").status_code == 202, "still taking deliveries"
    app.proc.wait(timeout=30)
    host.serve()
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"


def test_a_worker_given_a_port_already_taken_says_so_in_one_line(github_app: AppWorld, host: AppHost) -> None:
    host.migrate()
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        worker = host.worker(workers=1, port=port)
        assert worker.proc.wait(timeout=60) == 2
    [line] = [line for line in worker.logs().splitlines() if line.strip()]
    assert f"receipt worker --port {port}: cannot listen on 127.0.0.1: Address already in use" in line
    assert "Traceback" not in worker.logs()


Answers = list[tuple[int, dict[str, str]]]


def _health(url: str | None) -> Answers:
    """`/healthz`'s and `/readyz`'s answers."""
    return [
        (a.status_code, a.json())
        for a in (httpx.get(f"{url}/{p}", timeout=30) for p in ("healthz", "readyz"))
    ]


def _down(part: str, error: str) -> Answers:
    checks = {"store": "ok", "queue": "ok", part: f"error: {error}"}
    return [(503, {"status": "unhealthy", **checks}), (503, {"status": "not ready", **checks})]


UP = [
    (200, {"status": "ok", "store": "ok", "queue": "ok"}),
    (200, {"status": "ready", "store": "ok", "queue": "ok"}),
]


def test_a_queue_out_of_reach_is_named_by_healthz_and_readyz_and_deliveries_are_still_taken(
    github_app: AppWorld, host: AppHost
) -> None:
    closed = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    app = host.serve(workers=0, healthy=False, RECEIPT_QUEUE_URL=closed)
    assert _health(app.url) == _down("queue", "ConnectionError")
    assert github_app.send_pull_request("opened").status_code == 202, "recorded all the same"
    app.stop()
    host.serve()  # the embedded queue: the job recorded meanwhile is enqueued at start-up
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"


def _through(url: str, forwarder: Forwarder) -> str:
    """`url` with its host and port replaced by the forwarder's."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@127.0.0.1:{forwarder.port}" if credentials else f"127.0.0.1:{forwarder.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def test_healthz_and_readyz_name_the_store_or_the_queue_that_stops_answering(
    github_app: AppWorld, tmp_path: Path, scaled: Scaled
) -> None:
    database, queue = urlsplit(scaled.database_url), urlsplit(scaled.queue_url)
    with Forwarder(database.port or 5432) as store, Forwarder(queue.port or 6379) as redis:
        host = AppHost(github_app, tmp_path, _through(scaled.database_url, store.open()),
                       _through(scaled.queue_url, redis.open()), scaled.queue_name)  # fmt: skip
        try:
            host.migrate()
            url = host.serve(workers=0).url
            assert _health(url) == UP
            store.close()
            assert _health(url) == _down("store", "OperationalError")
            store.open()
            wait_until(lambda: _health(url) == UP, what="the store answering again")
            redis.close()
            assert _health(url) == _down("queue", "ConnectionError")
            redis.open()
            wait_until(lambda: _health(url) == UP, what="the queue answering again")
        finally:
            host.close()
