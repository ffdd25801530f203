"""The App judges what merging does: GitHub's test merge, waited for while `mergeable` is null,
diffed against the base it was made on; a pull request GitHub reports unmergeable fails."""

from __future__ import annotations

from typing import Any

import httpx

from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost

PROTECT = "version: 1\npaths:\n  protect: ['protected/**']\n"
FIXED = {"src/calc.py": "def add(a, b):\n    return a + b\n"}


def _completed_run(world: AppWorld, head: str) -> dict[str, Any]:
    def done() -> list[dict[str, Any]]:
        return [r for r in world.fake.runs_for(head, "receipt") if r["status"] == "completed"]

    [run] = wait_until(done, timeout=30.0, what=f"a completed receipt run on {head[:12]}")
    return run


def _receipt(run: dict[str, Any]) -> dict[str, Any]:
    url = run["details_url"].replace("?", ".json?", 1)
    answer = httpx.get(url)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _pull_reads(world: AppWorld, number: int) -> int:
    return len(world.fake.calls("GET", rf"/repos/{world.repo}/pulls/{number}"))


def test_a_file_the_base_renamed_into_a_protected_directory_fails_once_github_has_merged(
    github_app: AppWorld, host: AppHost
) -> None:
    world = github_app
    world.commit_to_base({".github/receipt.yml": PROTECT})
    pull = world.open_pull(FIXED, number=8)
    world.origin.checkout("main")
    world.origin.move("src/calc.py", "protected/calc.py")
    base = world.origin.commit("calc is protected now")
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
