"""Nothing acknowledged is lost: kill -9 of the server after its 202, of a worker mid-job."""

from __future__ import annotations

import json
import sqlite3
import time
from urllib.parse import urlsplit

from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost, free_port
from tests.server.forward import Forwarder
from tests.server.test_app import _completed


def _running_jobs(host: AppHost) -> list[tuple[int]]:
    with sqlite3.connect(host.tmp / "app.sqlite3") as db:
        return db.execute("SELECT id FROM jobs WHERE state = 'running'").fetchall()


def test_kill_9_right_after_the_202_then_restart_and_the_run_lands(
    github_app: AppWorld, host: AppHost
) -> None:
    server = host.serve(workers=0)  # acknowledges and records, runs nothing
    assert github_app.send_pull_request("opened").status_code == 202
    server.kill()
    assert not github_app.fake.runs_for(github_app.pull.head_sha, "receipt")
    host.serve(workers=2)
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"


def test_a_worker_killed_mid_job_leaves_the_job_to_run_again(github_app: AppWorld, host: AppHost) -> None:
    host.serve(workers=0)
    first = host.worker(workers=1)
    held = github_app.fake.inject_delay("GET", r"/repos/.*/compare/.*", 30.0, times=1)
    github_app.send_pull_request("opened")
    wait_until(lambda: held.times == 0 and _running_jobs(host), timeout=20, what="the job held mid-way")
    first.kill()
    time.sleep(3.5)  # the lease (3 s in tests) runs out
    host.worker(workers=1)
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=30)
    assert run["conclusion"] == "success"
    assert len(github_app.fake.runs_for(github_app.pull.head_sha, "receipt")) == 1


def test_github_unreachable_then_back_the_run_still_ends(github_app: AppWorld, host: AppHost) -> None:
    host.serve(RECEIPT_JOB_ATTEMPTS="2")
    # Three rounds of GitHub's answers fail: both attempts, and the first try at ending the run.
    github_app.fake.inject_server_error("POST", r"/app/installations/\d+/access_tokens", status=503, times=12)
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    assert run["conclusion"] == "failure"
    assert "503" in run["output"]["summary"] and "Re-evaluate" in run["output"]["summary"]


def _job(host: AppHost, where: str) -> list[tuple[int, str]]:
    """The attempts and last error of the jobs `where` says (SQL), if any."""
    with sqlite3.connect(host.tmp / "app.sqlite3") as db:
        return db.execute(f"SELECT attempts, last_error FROM jobs WHERE {where}").fetchall()


def test_github_answering_every_call_with_502_until_the_attempts_are_spent_then_back(
    github_app: AppWorld, host: AppHost
) -> None:
    fake = github_app.fake
    host.serve()
    wait_until(lambda: fake.calls("GET", r"/app/hook/deliveries"), what="the start-up redelivery pass")
    failing = fake.inject_server_error(r".*", r".*", status=502, times=1_000_000)
    asked = len(fake.requests)
    github_app.send_pull_request("opened")
    [(attempts, error)] = wait_until(lambda: _job(host, "concluding"), timeout=30, what="the attempts spent")
    assert attempts == 3 and ": 502: " in error
    failing.times = 0  # GitHub answers again
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    summary = run["output"]["summary"]
    assert (run["conclusion"], run["output"]["title"]) == (
        "failure",
        "GitHub could not give what the receipt needs",
    )
    assert f"After 3 attempts: {error}" in summary and "Re-evaluate" in summary
    assert {r.status for r in fake.requests[asked:]} >= {502, 201}


def test_github_refusing_connections_the_job_is_retried_then_the_run_ends_with_the_reason(
    github_app: AppWorld, host: AppHost
) -> None:
    with Forwarder(urlsplit(github_app.api_url).port or 80) as github:  # closed: the port refuses
        host.serve(RECEIPT_GITHUB_API_URL=f"http://127.0.0.1:{github.port}")
        github_app.send_pull_request("opened")
        [(attempts, error)] = wait_until(
            lambda: _job(host, "concluding"), timeout=30, what="the attempts spent"
        )
        assert attempts == 3 and "no answer" in error and "Connection refused" in error, error
        github.open()
        [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    summary = run["output"]["summary"]
    assert (
        run["conclusion"] == "failure"
        and f"After 3 attempts: {error}" in summary
        and "Re-evaluate" in summary
    )


def test_github_never_reachable_the_job_is_given_up_at_the_horizon(
    github_app: AppWorld, host: AppHost
) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    host.serve(RECEIPT_GITHUB_API_URL=closed, RECEIPT_GIVE_UP_AFTER_HOURS=str(2 / 3600))
    github_app.send_pull_request("opened")
    [(attempts, error)] = wait_until(
        lambda: _job(host, "state = 'failed'"), timeout=60, what="the job given up"
    )
    assert attempts >= 3 and "Connection refused" in error
    given_up = [json.loads(line) for line in host.logs().splitlines() if '"job given up"' in line]
    assert [line["outcome"] for line in given_up] == ["failed"]


def test_a_token_github_stops_accepting_is_dropped_and_a_new_one_fetched(
    github_app: AppWorld, host: AppHost
) -> None:
    fake = github_app.fake
    host.serve()
    github_app.send_pull_request("opened")
    _completed(github_app, github_app.pull.head_sha)
    # the job's requests are all answered only once it is done (a run completes before its last one)
    wait_until(lambda: _job(host, "state = 'done'"), what="the first job done")
    [held] = fake.issued  # the one token the App has cached
    fake.revoke_token(held)
    revoked_at = len(fake.requests)
    before = github_app.push({"src/calc.py": "def add(a, b):\n    return b + a\n"})
    github_app.send_pull_request("synchronize", before=before)
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"
    [refused, *_] = [r for r in fake.requests[revoked_at:] if r.status == 401]
    assert refused.path.startswith("/repos/"), "the job met the refusal with the cached token"
    [fresh] = [t for t in fake.issued if t != held]
    used = {r.credential for r in fake.requests[revoked_at:] if r.path.startswith("/repos/")}
    assert used == {"", fresh}  # "": the refused request (the fake records no credential it refuses)


def test_a_secondary_rate_limit_is_waited_out(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.fake.inject_secondary_rate_limit("POST", r"/repos/.*/check-runs", retry_after=1, times=1)
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"


def test_a_primary_rate_limit_waits_for_its_reset(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.fake.rate.limit = 2  # the token and one more request this hour
    github_app.send_pull_request("opened")

    def postponed() -> list[tuple[str, str]]:
        with sqlite3.connect(host.tmp / "app.sqlite3") as db:
            rows = db.execute(
                "SELECT not_before, last_error FROM jobs WHERE state = 'pending' AND not_before IS NOT NULL"
            ).fetchall()
        return [r for r in rows if "rate limit" in (r[1] or "").lower()]

    [(not_before, _)] = wait_until(postponed, timeout=20, what="the job postponed to the reset")
    with sqlite3.connect(host.tmp / "app.sqlite3") as db:
        (now,) = db.execute("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')").fetchone()
    from datetime import datetime

    wait = (datetime.fromisoformat(not_before) - datetime.fromisoformat(now)).total_seconds()
    assert 1800 < wait <= 3700, wait
