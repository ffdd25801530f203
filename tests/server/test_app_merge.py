"""The App judges what merging does: GitHub's test merge, waited for while `mergeable` is null,
diffed against the base it was made on; a pull request GitHub reports unmergeable fails."""

from __future__ import annotations

import time
from typing import Any

import httpx

from bot.server.settings import Settings
from bot.server.work import merge_delay, merge_waits
from tests.fakegithub import FakePull
from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost

PROTECT = "version: 1\npaths:\n  protect: ['protected/**']\n"
FIXED = {"src/calc.py": "def add(a, b):\n    return a + b\n"}


def _completed_run(world: AppWorld, head: str) -> dict[str, Any]:
    def done() -> list[dict[str, Any]]:
        return [r for r in world.fake.runs_for(head, "receipt") if r["status"] == "completed"]

    [run] = wait_until(done, timeout=30.0, what=f"a completed receipt run on {head[:12]}")
    return run


def _waiting_run(world: AppWorld, head: str) -> dict[str, Any]:
    """The head's one receipt run, once there is one (in progress while the test merge is awaited)."""
    [run] = wait_until(lambda: world.fake.runs_for(head, "receipt"), timeout=30, what="the waiting run")
    return run


def _receipt(run: dict[str, Any]) -> dict[str, Any]:
    url = run["details_url"].replace("?", ".json?", 1)
    answer = httpx.get(url)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _pull_reads(world: AppWorld, number: int) -> int:
    return len(world.fake.calls("GET", rf"/repos/{world.repo}/pulls/{number}"))


def _renamed_into_protected(world: AppWorld) -> tuple[FakePull, str]:
    """Pull request #8 changes src/calc.py; then the base moves it into protected/ (returned: the
    pull request and the base's new tip)."""
    world.commit_to_base({".github/receipt.yml": PROTECT})
    pull = world.open_pull(FIXED, number=8)
    world.origin.checkout("main")
    world.origin.move("src/calc.py", "protected/calc.py")
    return pull, world.origin.commit("calc is protected now")


def test_a_file_the_base_renamed_into_a_protected_directory_fails_once_github_has_merged(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    pull, base = _renamed_into_protected(world)
    world.fake.mergeability_reads = 2  # GitHub answers `mergeable: null` twice before it knows
    host.serve()

    world.send_pull_request("opened", pull=pull)
    run = _completed_run(world, pull.head_sha)

    assert run["conclusion"] == "failure", run["output"]
    assert _pull_reads(world, 8) >= 3
    receipt = _receipt(run)
    [finding] = receipt["scope"]["violations"]
    assert (finding["rule"], finding["path"]) == ("protected-path", "protected/calc.py")
    assert "when merged onto the base, this change modifies it" in finding["message"]
    merge = receipt["subject"]["merge"]
    test_merge = world.origin.git("rev-parse", "refs/pull/8/merge").strip()
    assert (merge["source"], merge["commit"], merge["problem"]) == ("github", test_merge, None)
    assert receipt["subject"]["base"] == base  # the base GitHub merged onto, as it is now
    assert "GitHub's test merge" in run["output"]["summary"]
    assert any(a["path"] == "protected/calc.py" for a in world.fake.annotations[run["id"]])


def test_a_pull_request_github_reports_unmergeable_fails_with_the_reason(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    pull = world.open_pull(FIXED, number=9)
    world.commit_to_base({"src/calc.py": "def add(a, b):\n    return b + a\n"})
    host.serve()

    world.send_pull_request("opened", pull=pull)
    run = _completed_run(world, pull.head_sha)

    assert run["conclusion"] == "failure", run["output"]
    receipt = _receipt(run)
    [finding] = receipt["scope"]["violations"]
    assert (finding["rule"], finding["id"]) == ("merge", "merge-unknown")
    assert "does not merge cleanly onto main (mergeable: false)" in finding["message"]
    assert receipt["subject"]["merge"]["change"] is None
    assert (
        "Cannot assess what merging this change would do" in run["output"]["text"] + run["output"]["summary"]
    )


def test_near_miss_an_up_to_date_pull_request_does_not_wait_for_the_test_merge(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    world.fake.mergeability_reads = 100  # GitHub would never say: a fast-forward needs no answer
    host.serve()

    world.send_pull_request("opened")
    run = _completed_run(world, world.pull.head_sha)

    assert run["conclusion"] == "success", run["output"]
    assert _receipt(run)["subject"]["merge"]["source"] == "fast-forward"
    assert _pull_reads(world, 7) == 0


def test_a_test_merge_github_is_slow_to_compute_does_not_hold_the_only_worker(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    slow, _ = _renamed_into_protected(world)
    world.fake.mergeability_reads = 4  # the first look (three reads, 1.5 s) and the next find null
    served = host.serve(workers=1)
    up_to_date = world.open_pull({"docs/notes.md": "notes\n"}, number=10)

    world.send_pull_request("opened", pull=slow)
    world.send_pull_request("opened", pull=up_to_date)
    waiting = _waiting_run(world, slow.head_sha)
    assert (waiting["status"], waiting["output"]["title"]) == (
        "in_progress",
        "waiting for GitHub's test merge",
    )
    assert "receipt looks again, for up to 60 seconds" in waiting["output"]["summary"]
    quick = _completed_run(world, up_to_date.head_sha)

    assert quick["conclusion"] == "success", quick["output"]
    assert not [r for r in world.fake.runs_for(slow.head_sha, "receipt") if r["status"] == "completed"]
    run = _completed_run(world, slow.head_sha)
    assert run["conclusion"] == "failure", run["output"]
    [finding] = _receipt(run)["scope"]["violations"]
    assert (finding["rule"], finding["path"]) == ("protected-path", "protected/calc.py")
    assert run["id"] == waiting["id"] and len(world.fake.runs_for(slow.head_sha, "receipt")) == 1
    assert "looking again in 2 s" in host.logs()
    metrics = httpx.get(f"{served.url}/metrics").text
    assert 'receipt_jobs_total{kind="evaluate",outcome="merge_pending"} 2.0' in metrics


def test_a_test_merge_github_never_computes_fails_closed_once_the_wait_is_used_up(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    pull = world.open_pull(FIXED, number=8)
    world.commit_to_base({"docs/elsewhere.md": "the base moved on\n"})
    world.fake.mergeability_reads = 1000
    host.serve(RECEIPT_MERGE_WAIT_SECONDS="4")

    world.send_pull_request("opened", pull=pull)
    run = _completed_run(world, pull.head_sha)

    assert run["conclusion"] == "failure", run["output"]
    [finding] = _receipt(run)["scope"]["violations"]
    assert (finding["rule"], finding["id"]) == ("merge", "merge-unknown")
    assert "had not computed the test merge" in finding["message"]
    assert "after 7.5 seconds (mergeable: null)" in finding["message"]  # 1.5 s in the worker, 2 + 4 put back
    assert _pull_reads(world, 8) == 5


def test_the_looks_at_a_test_merge_wait_longer_each_time_up_to_the_setting() -> None:
    settings = Settings(webhook_secret="s")  # type: ignore[arg-type]
    looks = [merge_waits(settings, n) for n in range(7)]

    assert [look.waits for look in looks[:2]] == [(0.5, 1.0), ()]
    assert [merge_delay(n) for n in range(7)] == [2, 4, 8, 16, 30, 30, 30]
    assert [look.before for look in looks[:6]] == [0, 3.5, 7.5, 15.5, 31.5, 61.5]
    assert [look.pending for look in looks[:6]] == [True] * 5 + [False]
    never = merge_waits(Settings(webhook_secret="s", merge_wait_seconds=0), 0)  # type: ignore[arg-type]
    assert (never.waits, never.pending) == ((0.5, 1.0), False)


def test_a_push_while_the_test_merge_is_awaited_ends_the_waiting_run_and_judges_the_new_head(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    pull, _ = _renamed_into_protected(world)
    world.fake.mergeability_reads = 1000  # GitHub never says, for this head
    host.serve(workers=1)
    world.send_pull_request("opened", pull=pull)
    waiting = _waiting_run(world, pull.head_sha)
    old = pull.head_sha

    world.fake.mergeability_reads = 0  # the new head's test merge is there at the first read
    before = world.push({"docs/more.md": "more\n"}, pull=pull)
    world.send_pull_request("synchronize", pull=pull, before=before)

    ended = _completed_run(world, old)
    assert (ended["id"], ended["conclusion"]) == (waiting["id"], "skipped")
    assert ended["output"]["title"] == "superseded by a newer push"
    run = _completed_run(world, pull.head_sha)
    assert run["conclusion"] == "failure", run["output"]
    [finding] = _receipt(run)["scope"]["violations"]
    assert (finding["rule"], finding["path"]) == ("protected-path", "protected/calc.py")


def test_closing_the_pull_request_while_the_test_merge_is_awaited_ends_the_waiting_run(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    pull, _ = _renamed_into_protected(world)
    world.fake.mergeability_reads = 1000
    host.serve(workers=1)
    world.send_pull_request("opened", pull=pull)
    waiting = _waiting_run(world, pull.head_sha)
    reads = _pull_reads(world, 8)

    pull.state = "closed"
    world.send_pull_request("closed", pull=pull)

    ended = _completed_run(world, pull.head_sha)
    assert (ended["id"], ended["conclusion"]) == (waiting["id"], "cancelled")
    assert "closed" in ended["output"]["summary"]
    time.sleep(4)  # past the next look (2 s after the first): cancelled, it reads nothing
    assert _pull_reads(world, 8) == reads
