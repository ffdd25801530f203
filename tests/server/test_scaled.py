"""The App scaled out: `receipt serve` web processes and `receipt worker` processes sharing
PostgreSQL and Redis (this machine's servers; a schema and a queue of each test's own)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psycopg
import redis

from bot.server.store.db import utcnow
from tests.fakegithub.harness import AppWorld, wait_until
from tests.fakegithub.state import Recorded
from tests.fakegithub.webhooks import encode
from tests.server.appprocess import AppHost, free_port
from tests.server.services import Scaled
from tests.server.test_app import _completed, _manifest


def _rows(scaled: Scaled, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(scaled.database_url) as connection:
        return connection.execute(sql).fetchall()


def _post(url: str, world: AppWorld, event: str, payload: dict[str, Any], guid: str) -> int:
    body = encode(payload)
    headers = world.fake.webhook_headers(world.app.id, event, body)
    headers["X-GitHub-Delivery"] = guid
    return httpx.post(f"{url}/webhook", content=body, headers=headers, timeout=30).status_code


def test_two_web_processes_and_two_workers_handle_a_burst_with_no_duplicate_and_none_lost(
    github_app: AppWorld, fleet: AppHost, scaled: Scaled
) -> None:
    webs = [fleet.serve(workers=0, webhooks=False), fleet.serve(workers=0, webhooks=False)]
    fleet.worker(workers=2)
    fleet.worker(workers=2)
    pulls = [github_app.open_pull({f"src/burst_{n}.py": f"x = {n}\n"}, number=100 + n) for n in range(12)]
    sent = [("pull_request", github_app.pull_request_payload("opened", pull=p)) for p in pulls]
    for pull in pulls[:6]:  # half get a new head straight away: the old one is superseded or judged
        before = github_app.push({f"src/burst_{pull.number}.py": "x = 'again'\n"}, pull=pull)
        sent.append(
            ("pull_request", github_app.pull_request_payload("synchronize", pull=pull, before=before))
        )
    # every delivery reaches both web processes at once (a load balancer's retry, GitHub's redelivery)
    jobs = [(n, event, payload, f"burst-{n:04d}") for n, (event, payload) in enumerate(sent)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(
            lambda job: sorted(_post(webs[(job[0] + k) % 2].url or "", github_app, job[1], job[2], job[3])
                               for k in (0, 1)),
            jobs,
        ))  # fmt: skip
    assert answers == [[200, 202]] * len(jobs), "one copy recorded, the other a duplicate"
    for pull in pulls:
        [run] = _completed(github_app, pull.head_sha, timeout=180)
        assert run["conclusion"] == "success", run["output"]["title"]
    heads = {r["head_sha"] for r in github_app.fake.check_runs.values() if r["name"] == "receipt"}
    for head in heads:
        assert len(github_app.fake.runs_for(head, "receipt")) == 1, f"one receipt run per head ({head[:12]})"
    [(recorded,)] = _rows(scaled, "SELECT count(*) FROM deliveries WHERE guid LIKE 'burst-%'")
    assert recorded == len(jobs)
    # Superseded heads' jobs end their own runs a moment later; none is left behind.
    unfinished = "SELECT id FROM jobs WHERE state NOT IN ('done', 'cancelled')"
    wait_until(lambda: not _rows(scaled, unfinished), timeout=60, what="every job finished")


def test_a_worker_of_the_fleet_answers_its_health_check_and_counts_its_jobs_on_its_own_port(
    github_app: AppWorld, fleet: AppHost
) -> None:
    fleet.serve(workers=0)
    worker = fleet.worker(workers=1, port=free_port())
    url = worker.url or ""

    def healthy() -> dict[str, Any] | None:
        try:
            answer = httpx.get(f"{url}/healthz", timeout=2)
        except httpx.HTTPError:
            return None
        return answer.json() if answer.status_code == 200 else None

    assert wait_until(healthy, timeout=30, what="the worker's /healthz") == {
        "status": "ok", "store": "ok", "queue": "ok"
    }  # fmt: skip
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"
    metrics = httpx.get(f"{url}/metrics", timeout=5).text
    assert 'receipt_jobs_total{kind="evaluate",outcome="done"} 1.0' in metrics
    assert 'receipt_github_requests_total{method="POST",status="201"}' in metrics  # the check run
    assert "receipt_job_seconds_bucket" in metrics and "receipt_queue_depth" in metrics
    assert httpx.post(f"{url}/webhook", content=b"{}", timeout=5).status_code == 404  # no intake here


def test_a_worker_killed_mid_job_on_the_fleet_leaves_the_job_to_run_again(
    github_app: AppWorld, fleet: AppHost, scaled: Scaled
) -> None:
    fleet.serve(workers=0)
    first = fleet.worker(workers=1)
    held = github_app.fake.inject_delay("GET", r"/repos/.*/compare/.*", 30.0, times=1)
    github_app.send_pull_request("opened")
    wait_until(lambda: held.times == 0 and _rows(scaled, "SELECT id FROM jobs WHERE state = 'running'"),
               timeout=30, what="the job held mid-way")  # fmt: skip
    first.kill()
    time.sleep(3.5)  # the lease (3 s in tests) runs out
    fleet.worker(workers=1)
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    assert run["conclusion"] == "success"
    assert len(github_app.fake.runs_for(github_app.pull.head_sha, "receipt")) == 1


def test_a_delivery_that_failed_at_githubs_side_is_redelivered_when_the_fleet_starts(
    github_app: AppWorld, fleet: AppHost, scaled: Scaled
) -> None:
    port = free_port()
    github_app.webhooks_to(f"http://127.0.0.1:{port}/webhook")  # nothing listens there yet
    failed = github_app.send_pull_request("opened")
    assert not failed.ok and failed.status == "failed to connect to host"
    fleet.serve(port=port, RECEIPT_REDELIVER_SECONDS="1")
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    assert run["conclusion"] == "success"
    attempts = [d for d in github_app.fake.deliveries if d.guid == failed.guid]
    assert [(d.ok, d.redelivery) for d in attempts] == [(False, False), (True, True)]
    assert _rows(scaled, f"SELECT requests FROM redeliveries WHERE guid = '{failed.guid}'") == [(1,)]
    assert github_app.fake.calls("POST", rf"/app/hook/deliveries/{failed.id}/attempts")


def test_test_checks_on_the_fleet_later_held_for_approval_and_never(
    github_app: AppWorld, fleet: AppHost
) -> None:
    """`tests.timeout_minutes` takes fractions: 0.1 is six seconds."""
    _manifest(github_app, "version: 1\ntests:\n  checks: [test, 'workflow:CI']\n  timeout_minutes: 0.1\n")
    fake, repo = github_app.fake, github_app.repo
    later, held, never = (github_app.open_pull({"src/calc.py": f"x = {n}\n"}, number=n) for n in (21, 22, 23))
    fake.add_check_run(repo, held.head_sha, "test", status="completed", conclusion="success", emit=False)
    fake.add_workflow_run(repo, held.head_sha, "CI", awaiting_approval=True, emit=False)
    fake.add_check_run(repo, never.head_sha, "test", status="completed", conclusion="success", emit=False)
    ci = fake.add_check_run(repo, later.head_sha, "test", status="in_progress", emit=False)
    flow = fake.add_workflow_run(repo, later.head_sha, "CI", status="in_progress", emit=False)
    fleet.serve()
    for pull in (later, held, never):
        github_app.send_pull_request("opened", pull=pull)

    waiting = wait_until(lambda: fake.runs_for(held.head_sha, "receipt"), what="the held head's run")[0]
    assert waiting["status"] == "in_progress"
    assert (
        waiting["output"]["title"] == "pending: workflow:CI waits for approval by someone with write access"
    )
    summary = waiting["output"]["summary"]
    assert summary.startswith("> ⏸️ **Waiting for approval: `workflow:CI`.**")
    assert f"write access** to `{repo}`" in summary and "Approve and run" in summary
    assert "scope" in summary, "scope, locality and excess are shown while it waits"

    first = wait_until(lambda: fake.runs_for(later.head_sha, "receipt"), what="the later head's run")[0]
    assert first["status"] == "in_progress"
    fake.complete_check_run(ci["id"], "success")
    fake.complete_workflow_run(flow["id"], "success")
    [done] = _completed(github_app, later.head_sha, timeout=30)
    assert done["id"] == first["id"] and done["conclusion"] == "success", done["output"]["title"]

    for pull, what in ((never, "not started yet"), (held, "waiting for approval")):
        [ended] = _completed(github_app, pull.head_sha, timeout=60)
        assert ended["conclusion"] == "failure"
        assert ended["output"]["title"] == "failure: semantic timed out: workflow:CI"
        details = ended["output"]["text"]
        assert "did not complete within tests.timeout_minutes (0.1 min)" in details and what in details


def test_a_server_on_an_unmigrated_postgresql_schema_refuses_to_start(
    github_app: AppWorld, scaled: Scaled, tmp_path: Path
) -> None:
    host = AppHost(github_app, tmp_path, scaled.database_url, scaled.queue_url, scaled.queue_name)
    for args in (["serve", "--port", str(free_port())], ["worker"]):
        done = subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, env=host.env(),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 2, done.stdout + done.stderr
        assert "run `receipt migrate` first" in done.stderr
    assert "schema revision 0004" in host.migrate()


def test_a_waiting_runs_deadline_outlives_the_fleet_and_its_queue(
    github_app: AppWorld, fleet: AppHost, scaled: Scaled
) -> None:
    """The fleet is killed while a run waits for `test` and Redis loses every message (the
    deadline's too); started again after the deadline, its first sweep finds the run in the store
    and ends it timed out."""
    _manifest(github_app, "version: 1\ntests:\n  checks: [test]\n  timeout_minutes: 0.1\n")
    fake, head = github_app.fake, github_app.pull.head_sha
    sweeps = {"RECEIPT_SWEEP_SECONDS": "1"}  # the killed processes' sweep lease runs out at once
    web, worker = fleet.serve(workers=0, **sweeps), fleet.worker(workers=1, **sweeps)
    github_app.send_pull_request("opened")
    waiting_since = "SELECT deadline FROM check_runs WHERE deadline IS NOT NULL"
    [(deadline,)] = wait_until(lambda: _rows(scaled, waiting_since), timeout=30, what="the run waiting")
    wait_until(lambda: _rows(scaled, "SELECT id FROM jobs WHERE state = 'done'"), what="its job done")
    web.kill()
    worker.kill()
    [waiting] = fake.runs_for(head, "receipt")
    assert waiting["status"] == "in_progress", "killed before the deadline"
    client = redis.Redis.from_url(scaled.queue_url)
    client.delete(*client.scan_iter(match=f"huey.*{scaled.queue_name}*"))
    time.sleep(max(0.0, (deadline - utcnow()).total_seconds()) + 0.5)  # the fleet is down past it
    fleet.serve(workers=0, **sweeps)
    fleet.worker(workers=1, **sweeps)
    [ended] = _completed(github_app, head, timeout=60)
    assert ended["id"] == waiting["id"] and ended["conclusion"] == "failure"
    assert ended["output"]["title"] == "failure: semantic timed out: test"


def test_a_failed_delivery_is_redelivered_once_however_many_processes_pass_over_it(
    github_app: AppWorld, fleet: AppHost, scaled: Scaled
) -> None:
    """Each process of the fleet passes over GitHub's failed deliveries as it starts: while GitHub
    has not yet made the attempt one of them asked for, the others find the request in the store."""
    fake = github_app.fake
    port = free_port()
    github_app.webhooks_to(f"http://127.0.0.1:{port}/webhook")  # nothing listens there yet
    failed = github_app.send_pull_request("opened")
    assert not failed.ok

    def asked() -> list[Recorded]:
        return fake.calls("POST", rf"/app/hook/deliveries/{failed.id}/attempts")

    def passes() -> int:
        return len(fake.calls("GET", r"/app/hook/deliveries"))

    often = {"RECEIPT_REDELIVER_SECONDS": "0.1"}  # a pass may follow the last one at once
    held = threading.Event()
    fake.deliverer.call(lambda: held.wait(60))  # GitHub makes the attempts asked for once released
    try:
        fleet.serve(port=port, workers=0, **often)
        wait_until(asked, timeout=30, what="the first pass asking for the delivery")
        for _ in range(2):
            before = passes()
            fleet.worker(workers=1, **often)
            wait_until(lambda: passes() > before, timeout=30, what="the new worker's pass")
    finally:
        held.set()
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    assert run["conclusion"] == "success"
    assert len(asked()) == 1 and passes() >= 3
    assert _rows(scaled, f"SELECT requests FROM redeliveries WHERE guid = '{failed.guid}'") == [(1,)]
