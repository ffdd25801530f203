"""The API what-if's edges, against the fake GitHub: its request budget, the pull request list as
GitHub filters and pages it, and a rate limit that leaves the table out at once."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine.render.whatif_text import pull_whatif_markdown
from bot.gather import GivenFile
from bot.github import whatif
from bot.github.repo import RepoRef
from bot.github.whatif import WhatIfAsk, merged_pulls
from tests.fakegithub.harness import REPO, AppWorld

ASK = WhatIfAsk(
    branch="main", proposed=GivenFile(".github/receipt.yml", b"version: 1\nbudgets: {files: 1}\n"), last=5
)


def whatif_section(*args: Any) -> str:
    return pull_whatif_markdown(whatif.whatif_section(*args))


def _history(world: AppWorld, count: int) -> list[str]:
    return [
        world.merge(world.open_pull({f"src/m{n}.py": f"M = {n}\n"}, number=100 + n)) for n in range(count)
    ]


def test_the_list_keeps_merged_pull_requests_of_the_branch_newest_first(github_app: AppWorld) -> None:
    merges = _history(github_app, 3)
    github_app.open_pull({"src/x.py": "X = 1\n"}, number=50).state = "closed"  # closed, never merged
    github_app.origin.git("branch", "release", "main")
    other = github_app.open_pull({"src/r.py": "R = 1\n"}, number=60, base_ref="release")
    github_app.merge(other)  # merged, but into another branch
    found = merged_pulls(github_app.installation_client(), RepoRef.parse(REPO), "main", 10)
    assert [m.merge_commit_sha for m in found] == merges[::-1]
    assert [
        m.number for m in merged_pulls(github_app.installation_client(), RepoRef.parse(REPO), "main", 2)
    ] == [
        102,
        101,
    ]


def test_a_spent_budget_says_so_instead_of_a_table(
    github_app: AppWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    _history(github_app, 2)
    monkeypatch.setattr(whatif, "REQUESTS_PER_CHANGE", 0)
    monkeypatch.setattr(whatif, "WHATIF_READ", whatif.ReadBudget(files=0, bytes=0, where="here"))
    text = whatif_section(github_app.installation_client(), RepoRef.parse(REPO), ASK)
    assert "what-if not computed: its budget of 3 GitHub requests is spent" in text, text


def test_a_rate_limit_is_not_waited_for(github_app: AppWorld) -> None:
    _history(github_app, 1)
    github_app.fake.inject_secondary_rate_limit("GET", r"/repos/acme/widgets/pulls", retry_after=3600)
    text = whatif_section(github_app.installation_client(), RepoRef.parse(REPO), ASK)
    assert "what-if not computed: " in text and "|" not in text, text


def test_the_table_is_computed_within_the_budget(github_app: AppWorld) -> None:
    _history(github_app, 2)
    text = whatif_section(github_app.installation_client(), RepoRef.parse(REPO), ASK)
    assert "2 change(s) compared" in text, text


def test_a_slow_github_runs_it_out_of_time(github_app: AppWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    _history(github_app, 2)
    monkeypatch.setattr(whatif, "WHATIF_SECONDS", 0.5)
    github_app.fake.inject_delay("GET", r"/repos/acme/widgets/git/commits/.*", 1.0)
    text = whatif_section(github_app.installation_client(), RepoRef.parse(REPO), ASK)
    assert "what-if not computed: it took longer than its 0.5 seconds" in text, text
