"""The App with the tuning knobs: `mode: observe` never posts failure, and a waiver written from the
entry the summary printed makes the same finding pass (issue 16), end to end over the fake GitHub."""

from __future__ import annotations

import re

from tests.fakegithub.harness import AppWorld, wait_until
from tests.server.appprocess import AppHost

LOCKFILE = {"package-lock.json": "{}\n"}  # a protected path: a failing finding


def _completed(world: AppWorld, head: str) -> dict:  # type: ignore[type-arg]
    def done() -> list[dict]:  # type: ignore[type-arg]
        return [r for r in world.fake.runs_for(head, "receipt") if r["status"] == "completed"]

    return wait_until(done, timeout=20.0, what=f"a completed receipt run on {head[:12]}")[0]


def _reopen(world: AppWorld, manifest: str, number: int) -> None:
    world.commit_to_base({".github/receipt.yml": manifest})
    world.pull = world.open_pull(LOCKFILE, number=number)


def test_observe_mode_posts_neutral_and_says_what_would_have_failed(
    github_app: AppWorld, host: AppHost
) -> None:
    _reopen(github_app, "version: 1\nmode: observe\n", 8)
    host.serve()
    github_app.send_pull_request("opened")
    run = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "neutral", run["output"]
    summary = run["output"]["summary"]
    assert "observe mode; enforce mode: failure" in summary and "would fail in enforce mode" in summary
    assert "protected-path" in summary


def test_a_waiver_from_the_printed_entry_makes_the_finding_pass(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.push(LOCKFILE)
    github_app.send_pull_request("synchronize")
    first = _completed(github_app, github_app.pull.head_sha)
    assert first["conclusion"] == "failure"
    entry = re.search(r"- id: (protected-path:[0-9a-f]{16})\n", first["output"]["summary"])
    assert entry is not None, first["output"]["summary"]
    waiver = f"version: 1\nwaivers:\n  - {{id: '{entry.group(1)}', reason: lockfile reviewed, expires: 2999-01-01}}\n"
    _reopen(github_app, waiver, 8)
    github_app.send_pull_request("opened")
    run = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success", run["output"]["summary"]
    assert "waived by waivers\\[0\\] until 2999-01-01: lockfile reviewed" in run["output"]["summary"]


def test_observe_mode_makes_a_change_too_large_to_assess_neutral(github_app: AppWorld, host: AppHost) -> None:
    """The policy is read before the change is fetched: a change GitHub cannot list whole is still
    unassessed, said as such, but under `mode: observe` it blocks nothing."""
    github_app.commit_to_base({".github/receipt.yml": "version: 1\nmode: observe\n"})
    github_app.fake.limits.max_files = 0
    github_app.pull = github_app.open_pull({f"src/gen/f{n}.py": f"x = {n}\n" for n in range(3001)}, number=10)
    host.serve()
    github_app.send_pull_request("opened")
    run = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "neutral", run["output"]
    assert run["output"]["title"] == "observe mode: too large to assess"
    assert "in `mode: enforce` it would fail" in run["output"]["summary"]
