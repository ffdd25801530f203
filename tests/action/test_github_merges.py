"""GitHub's test merge through the fake over real HTTP: waited for while `mergeable` is null,
refused when it is of another head, and the same merge side as `git merge-tree` gives locally."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from bot.engine import evaluate, semantic
from bot.github.client import RetryPolicy, make_client
from bot.github.diffs import HeadMoved
from bot.github.merges import MergePending, MergeWaits, base_tip, wait_for_merge
from bot.github.pulls import get_pull
from bot.github.remote import gather_pull
from bot.github.repo import RepoRef
from bot.local.check import CheckOptions, inputs_at, request_of, resolve_revisions
from bot.local.git import Git
from bot.local.inspect import inspect_receipt
from tests.action.scenario import REPO, WRITE_TOKEN, Scenario

REPO_REF = RepoRef.parse(REPO)
POLICY = "version: 1\npaths:\n  protect: ['protected/**']\n"
UTIL = "def double(x):\n    return x * 2\n"


def _client(scenario: Scenario):  # type: ignore[no-untyped-def]
    retry = RetryPolicy(backoff_seconds=0, max_rate_limit_wait=timedelta(seconds=5))
    return make_client(WRITE_TOKEN, base_url=scenario.github.url, retry=retry)


def _moved_base(scenario: Scenario) -> str:
    """A pull request changing src/util.py; then the base moves it into protected/ (the event's
    `base.sha` still names the fork point)."""
    scenario.base({".github/receipt.yml": POLICY, "src/util.py": UTIL})
    scenario.pr({"src/util.py": UTIL.replace("* 2", "* 3")})
    scenario.origin.checkout("main")
    scenario.origin.move("src/util.py", "protected/util.py")
    return scenario.origin.commit("util is protected now")


def test_the_api_and_merge_tree_judge_the_same_merge(scenario: Scenario) -> None:
    tip = _moved_base(scenario)
    gh = _client(scenario)
    pull = get_pull(gh, REPO_REF, scenario.number)
    assert pull.base_sha != tip and base_tip(gh, REPO_REF, pull) == tip

    api = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence())).as_json()
    git = Git.open(scenario.origin.root)
    options = CheckOptions(repo=scenario.origin.root, base=tip, head=pull.head_sha, no_tests=True)
    request = request_of(options, repo=REPO, pr=pull.number, pull_request=pull.facts,
                         description=pull.description)  # fmt: skip
    inputs = inputs_at(git, resolve_revisions(git, tip, pull.head_sha), options, request)
    local = evaluate(replace(inputs, tests=semantic.TestEvidence())).as_json()

    assert [(v["rule"], v["path"]) for v in api["scope"]["violations"]] == [
        ("protected-path", "protected/util.py")
    ]
    assert api["scope"] == local["scope"] and api["locality"] == local["locality"]
    api_merge, local_merge = api["subject"].pop("merge"), local["subject"].pop("merge")
    assert api["subject"] == local["subject"] and api["subject"]["base"] == tip
    assert (api_merge["source"], local_merge["source"]) == ("github", "merge-tree")
    assert (
        api_merge["commit"] == scenario.origin.git("rev-parse", f"refs/pull/{scenario.number}/merge").strip()
    )
    assert api_merge["tree"] == local_merge["tree"] and api_merge["change"] == local_merge["change"]
    assert local_merge["commit"] is None
    api["subject"]["merge"] = api_merge
    report = inspect_receipt(api, git)  # the merge commit is in the repository: its digest verifies
    assert report.ok and any(
        line.startswith("ok        subject.merge.change.digest") for line in report.lines
    )


def test_mergeable_null_is_waited_for_with_growing_waits(scenario: Scenario) -> None:
    _moved_base(scenario)
    scenario.github.state.mergeability_reads = 3
    gh = _client(scenario)
    pull = get_pull(gh, REPO_REF, scenario.number)  # a first read: GitHub starts its job
    slept: list[float] = []

    merged = wait_for_merge(gh, REPO_REF, pull, waits=MergeWaits((0.1, 0.2, 0.4, 0.8)), sleep=slept.append)

    assert slept == [0.1, 0.2] and merged.problem is None
    assert merged.commit == scenario.origin.git("rev-parse", f"refs/pull/{scenario.number}/merge").strip()


def test_a_test_merge_never_computed_cannot_be_assessed(scenario: Scenario) -> None:
    _moved_base(scenario)
    scenario.github.state.mergeability_reads = 100
    gh = _client(scenario)
    pull = get_pull(gh, REPO_REF, scenario.number)
    slept: list[float] = []

    merged = wait_for_merge(gh, REPO_REF, pull, waits=MergeWaits((1.0, 2.0)), sleep=slept.append)

    assert slept == [1.0, 2.0] and merged.commit is None
    assert merged.problem is not None and "had not computed the test merge" in merged.problem
    assert "after 3 seconds (mergeable: null)" in merged.problem


def test_a_caller_that_cannot_wait_is_told_to_look_again_and_its_last_look_counts_every_wait(
    scenario: Scenario,
) -> None:
    _moved_base(scenario)
    scenario.github.state.mergeability_reads = 100
    gh = _client(scenario)
    pull = get_pull(gh, REPO_REF, scenario.number)
    slept: list[float] = []

    with pytest.raises(MergePending) as pending:
        wait_for_merge(gh, REPO_REF, pull, waits=MergeWaits((0.5,), pending=True), sleep=slept.append)
    assert slept == [0.5] and pending.value.head == pull.head_sha
    with pytest.raises(MergePending):
        gather_pull(
            gh, REPO_REF, pull, tests=semantic.TestEvidence(), merge_waits=MergeWaits((), pending=True)
        )

    merged = wait_for_merge(gh, REPO_REF, pull, waits=MergeWaits((), before=58.5), sleep=slept.append)
    assert slept == [0.5] and merged.problem is not None
    assert "after 58.5 seconds (mergeable: null)" in merged.problem


def test_a_merge_commit_of_an_older_head_is_never_taken(scenario: Scenario) -> None:
    tip = _moved_base(scenario)
    gh = _client(scenario)
    fake = scenario.github.state
    fake.mergeability_reads = 0
    fake_pull = fake.pulls[(REPO, scenario.number)]
    get_pull(gh, REPO_REF, scenario.number)
    older = fake_pull.merge.commit
    assert older is not None
    scenario.origin.checkout(fake_pull.head_sha)  # a push; GitHub still answers with the old merge
    scenario.origin.write("docs/more.md", "more\n")
    fake_pull.head_sha = scenario.origin.commit("more")
    scenario.origin.checkout("main")
    fake_pull.merge.key, fake_pull.merge.reads_left, fake_pull.merge.mergeable = (
        (tip, fake_pull.head_sha),
        0,
        True,
    )
    pull = get_pull(gh, REPO_REF, scenario.number)
    assert pull.mergeable and pull.merge_commit_sha == older

    merged = wait_for_merge(gh, REPO_REF, pull, waits=MergeWaits((0.0,)), sleep=lambda _s: None)

    assert merged.commit is None and merged.problem is not None
    assert "had not computed the test merge" in merged.problem


def test_a_conflict_and_a_moved_head(scenario: Scenario) -> None:
    scenario.base({"src/util.py": UTIL})
    scenario.pr({"src/util.py": UTIL.replace("* 2", "* 3")})
    scenario.origin.checkout("main")
    scenario.origin.write("src/util.py", UTIL.replace("* 2", "* 4"))
    scenario.origin.commit("the same line")
    gh = _client(scenario)
    pull = get_pull(gh, REPO_REF, scenario.number)

    merged = wait_for_merge(gh, REPO_REF, pull, sleep=lambda _s: None)
    assert merged.commit is None and merged.problem is not None
    assert "does not merge cleanly onto main (mergeable: false)" in merged.problem
    receipt = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence()))
    assert receipt.verdict.conclusion == "failure" and [v.rule.value for v in receipt.scope] == ["merge"]

    scenario.github.state.pulls[(REPO, scenario.number)].head_sha = scenario.base_sha
    with pytest.raises(HeadMoved):
        wait_for_merge(gh, REPO_REF, pull, sleep=lambda _s: None)
