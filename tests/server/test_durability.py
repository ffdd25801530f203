"""Nothing acknowledged is lost: kill -9 of the server after its 202, of a worker mid-job."""

from __future__ import annotations

import sqlite3
import time

from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost
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
