"""bot/github against the fake over real HTTP: checks batching, diff fallbacks, retries, errors."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from bot.engine import evaluate, semantic
from bot.engine.errors import TooLargeToAssess
from bot.engine.receipt import Conclusion
from bot.github.checks import CheckRunRequest, left_out_note, publish_check_run
from bot.github.client import RetryPolicy, make_client
from bot.github.diffs import HeadMoved, fetch_diff, quote_path
from bot.github.errors import Forbidden, GitHubError, NotFound, RateLimited
from bot.github.pulls import get_pull, merge_base, pulls_with_head
from bot.github.remote import gather_pull
from bot.github.repo import RepoRef
from bot.github.source import ApiSource
from bot.local.check import CheckOptions, inputs_at, request_of, resolve_revisions
from bot.local.git import Git
from bot.local.inspect import inspect_receipt
from tests.action.scenario import BASE_FILES, READ_TOKEN, REPO, WRITE_TOKEN, Scenario
from tests.fakegithub import FakeServer, Fault

FAST = RetryPolicy(backoff_seconds=0, max_rate_limit_wait=timedelta(seconds=5))
REPO_REF = RepoRef.parse(REPO)


def _client(github: FakeServer, token: str = WRITE_TOKEN):  # type: ignore[no-untyped-def]
    return make_client(token, base_url=github.url, retry=FAST)


def _annotation(n: int) -> dict[str, object]:
    return {"path": f"f{n}.py", "start_line": 1, "end_line": 1, "annotation_level": "failure", "message": "m"}


def _pr(scenario: Scenario, files: dict[str, str]) -> str:
    scenario.base()
    return scenario.pr(files)


def test_annotations_go_in_batches_of_fifty_and_stop_at_the_cap(scenario: Scenario) -> None:
    head = _pr(scenario, {"src/calc.py": "x = 1\n"})
    run = CheckRunRequest(
        head, Conclusion.FAILURE, "t", "s", annotations=[_annotation(n) for n in range(1030)]
    )
    published = publish_check_run(_client(scenario.github), REPO_REF, run)
    assert (published.annotations_sent, published.annotations_left_out) == (1000, 30)
    assert scenario.github.state.check_runs[published.id]["output"]["annotations_count"] == 1000
    assert len(scenario.github.state.calls("PATCH", r".*/check-runs/\d+")) == 19
    assert "30 more annotation(s)" in left_out_note(1030) and left_out_note(1000) == ""


def test_pending_receipt_leaves_the_run_in_progress(scenario: Scenario) -> None:
    head = _pr(scenario, {"src/calc.py": "x = 1\n"})
    published = publish_check_run(
        _client(scenario.github), REPO_REF, CheckRunRequest(head, Conclusion.PENDING, "t", "s")
    )
    assert scenario.github.state.check_runs[published.id]["status"] == "in_progress"


def test_read_only_token_is_forbidden_with_githubs_message(scenario: Scenario) -> None:
    head = _pr(scenario, {"src/calc.py": "x = 1\n"})
    with pytest.raises(Forbidden) as caught:
        publish_check_run(
            _client(scenario.github, READ_TOKEN),
            REPO_REF,
            CheckRunRequest(head, Conclusion.SUCCESS, "t", "s"),
        )
    assert (caught.value.status, caught.value.message) == (403, "Resource not accessible by integration")


def test_fake_validates_what_github_validates(github: FakeServer, scenario: Scenario) -> None:
    head = _pr(scenario, {"src/calc.py": "x = 1\n"})
    url = f"{github.url}/repos/{REPO}/check-runs"
    headers = {"Authorization": f"token {WRITE_TOKEN}"}
    good = {"name": "receipt", "head_sha": head, "status": "completed", "conclusion": "success",
            "output": {"title": "t", "summary": "s"}}  # fmt: skip
    assert httpx.post(url, json=good, headers=headers).status_code == 201
    bad = [
        {
            **good,
            "output": {"title": "t", "summary": "s", "annotations": [_annotation(n) for n in range(51)]},
        },
        {**good, "output": {"title": "t", "summary": "x" * 65_536}},
        {**good, "conclusion": "passed"},
        {"name": "receipt", "head_sha": head, "status": "completed"},
        {"head_sha": head},
        {**good, "head_sha": "f" * 40},
        {
            **good,
            "output": {
                "title": "t",
                "summary": "s",
                "annotations": [{**_annotation(1), "annotation_level": "error"}],
            },
        },
        {**good, "actions": [{"label": "l", "description": "d", "identifier": str(n)} for n in range(4)]},
    ]
    for body in bad:
        answer = httpx.post(url, json=body, headers=headers)
        assert answer.status_code == 422, body
        assert set(answer.json()) >= {"message", "documentation_url"}
    assert httpx.post(url, json=good).status_code == 401
    missing = httpx.get(f"{github.url}/repos/{REPO}/pulls/999", headers=headers)
    assert (missing.status_code, missing.json()["message"]) == (404, "Not Found")


def test_diff_media_type_and_its_files_api_fallback_agree(scenario: Scenario) -> None:
    scenario.base()
    scenario.origin.write("bin/tool", "#!/bin/sh\n", mode=0o644)
    scenario.origin.commit("tool")
    scenario.base_sha = scenario.origin.head()
    scenario.origin.git("mv", "check.py", "checks.py")
    scenario.origin.commit("rename on main first")
    scenario.origin.git("reset", "-q", "--hard", "HEAD~1")
    head = scenario.pr(
        {
            "src/calc.py": "def add(a, b):\n    return a + b\n",
            "src/new.py": "y = 2\n",
            "src/émoji ü.py": "z = 3\n",
            "img.bin": "\0\1\2binary",
        },
        removed=("check.py",),
    )
    (scenario.origin.root / "bin/tool").chmod(0o755)
    gh = _client(scenario.github)
    pull = get_pull(gh, REPO_REF, scenario.number)
    base = merge_base(gh, REPO_REF, pull.base_sha, head)
    source = ApiSource(gh, REPO_REF)
    direct = fetch_diff(gh, REPO_REF, pull, source, base)
    scenario.github.state.limits.max_files = 1
    rebuilt = fetch_diff(gh, REPO_REF, pull, source, base)
    assert (direct.source, rebuilt.source) == ("diff", "files")
    from bot.engine.diff import parse_diff

    def shape(data: bytes) -> list[tuple[object, ...]]:
        files = parse_diff(data).files
        return [(f.old_path, f.new_path, f.status, f.old_mode, f.new_mode, f.binary, f.hunks) for f in files]

    assert shape(direct.data) == shape(rebuilt.data)
    assert [c.status for c in scenario.github.state.calls("GET", rf"/repos/{REPO}/compare/.*")][-1] == 406
    assert scenario.github.state.calls("GET", rf"/repos/{REPO}/pulls/7/files")


def test_a_head_that_moves_while_the_files_api_is_read_is_not_mislabelled(scenario: Scenario) -> None:
    head = _pr(scenario, {"src/calc.py": "x = 1\n"})
    gh = _client(scenario.github)
    pull = get_pull(gh, REPO_REF, scenario.number)
    base = merge_base(gh, REPO_REF, pull.base_sha, head)
    scenario.github.state.limits.max_files = 0
    scenario.origin.checkout("main")
    scenario.origin.write("src/calc.py", "x = 2\n")
    moved = scenario.origin.commit("a later push")
    scenario.github.state.pulls[(REPO, scenario.number)].head_sha = moved
    with pytest.raises(HeadMoved, match="moved from"):
        fetch_diff(gh, REPO_REF, pull, ApiSource(gh, REPO_REF), base)


def test_files_without_a_patch_fail_closed(scenario: Scenario) -> None:
    head = _pr(scenario, {"src/big.py": "x = 1\n" * 50})
    scenario.github.state.limits.max_files = 0
    scenario.github.state.limits.max_patch_bytes = 10
    gh = _client(scenario.github)
    pull = get_pull(gh, REPO_REF, scenario.number)
    with pytest.raises(TooLargeToAssess, match=r"src/big\.py: GitHub omits its diff"):
        fetch_diff(gh, REPO_REF, pull, ApiSource(gh, REPO_REF), merge_base(gh, REPO_REF, pull.base_sha, head))


def test_more_files_than_the_files_api_lists_fail_closed(scenario: Scenario) -> None:
    _pr(scenario, {"src/a.py": "a\n"})
    gh = _client(scenario.github)
    pull = get_pull(gh, REPO_REF, scenario.number)
    from dataclasses import replace

    scenario.github.state.limits.max_files = 0
    with pytest.raises(TooLargeToAssess, match="3,000"):
        fetch_diff(
            gh, REPO_REF, replace(pull, changed_files=3001), ApiSource(gh, REPO_REF),
            merge_base(gh, REPO_REF, pull.base_sha, pull.head_sha),
        )  # fmt: skip


def _parity_pull_request(scenario: Scenario) -> str:
    """A pull request with a rename, a deletion, a binary file, a mode change and an edit."""
    scenario.base(
        {
            **BASE_FILES,
            "src/old_name.py": "def f():\n    return 1\n" * 5,
            "src/gone.py": "x = 1\n",
            "bin/tool.sh": "#!/bin/sh\necho hi\n",
        }
    )
    scenario.origin.branch("feature")
    scenario.origin.git("mv", "src/old_name.py", "src/new_name.py")
    scenario.origin.remove("src/gone.py")
    scenario.origin.write("src/calc.py", "def add(a, b):\n    return a + b\n")
    scenario.origin.write("assets/logo.bin", "\0\1\2\3binary")
    (scenario.origin.root / "bin/tool.sh").chmod(0o755)
    scenario.origin.checkout("main")
    scenario.origin.git("branch", "-D", "feature")
    return scenario.pr({})


@pytest.mark.parametrize("diff_source", ["diff", "files"])
def test_the_api_and_local_git_give_the_same_receipt(
    scenario: Scenario, tmp_path: Path, diff_source: str
) -> None:
    head = _parity_pull_request(scenario)
    if diff_source == "files":
        scenario.github.state.limits.max_files = 0  # the diff media type answers 406
    gh = _client(scenario.github)
    pull = get_pull(gh, REPO_REF, scenario.number)
    from_api = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence()))
    options = CheckOptions(repo=scenario.origin.root, base=pull.base_sha, head=head, no_tests=True)
    git = Git.open(scenario.origin.root)
    revisions = resolve_revisions(git, pull.base_sha, head)
    request = request_of(
        options, repo=REPO, pr=pull.number, pull_request=pull.facts, description=pull.description
    )
    local = evaluate(replace(inputs_at(git, revisions, options, request), tests=semantic.TestEvidence()))
    api_json, local_json = from_api.as_json(), local.as_json()
    assert sorted(api_json) == sorted(local_json)
    for key in api_json:
        assert api_json[key] == local_json[key], key
    kinds = {(f.status, f.binary, f.mode_changed) for f in from_api_change_files(gh, pull)}
    assert {("renamed", False, False), ("deleted", False, False), ("added", True, False)} <= kinds
    assert any(mode_changed for _, _, mode_changed in kinds)
    for body in (api_json, local_json):
        report = inspect_receipt(body, git)
        assert report.ok, report.lines
        assert any(line.startswith("ok        change.digest") for line in report.lines)


def from_api_change_files(gh, pull):  # type: ignore[no-untyped-def]
    return gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence()).change.diff.files


def test_server_errors_are_retried_then_reported(scenario: Scenario) -> None:
    _pr(scenario, {"src/a.py": "a\n"})
    scenario.github.state.inject(Fault("GET", rf"/repos/{REPO}/pulls/7", 502, times=2))
    assert get_pull(_client(scenario.github), REPO_REF, scenario.number).number == 7
    scenario.github.state.inject(Fault("GET", rf"/repos/{REPO}/pulls/7", 503, times=10))
    with pytest.raises(GitHubError) as caught:
        get_pull(_client(scenario.github), REPO_REF, scenario.number)
    assert caught.value.status == 503
    assert len(scenario.github.state.calls("GET", rf"/repos/{REPO}/pulls/7")) == 3 + 4


def test_rate_limits_wait_for_retry_after(scenario: Scenario) -> None:
    _pr(scenario, {"src/a.py": "a\n"})
    body = {
        "message": "You have exceeded a secondary rate limit.",
        "documentation_url": "https://docs.github.com",
    }
    scenario.github.state.inject(Fault("GET", rf"/repos/{REPO}/pulls/7", 403, {"retry-after": "0"}, body))
    assert get_pull(_client(scenario.github), REPO_REF, scenario.number).number == 7
    scenario.github.state.inject(Fault("GET", rf"/repos/{REPO}/pulls/7", 429, {"retry-after": "3600"}, body))
    with pytest.raises(RateLimited):
        get_pull(_client(scenario.github), REPO_REF, scenario.number)


def test_pull_requests_are_found_by_head_sha_even_for_forks(scenario: Scenario) -> None:
    scenario.fork = True
    head = _pr(scenario, {"src/a.py": "a\n"})
    found = pulls_with_head(_client(scenario.github), REPO_REF, head)
    assert [p.number for p in found] == [7]
    assert scenario.github.state.calls("GET", rf"/repos/{REPO}/pulls")
    with pytest.raises(NotFound):
        get_pull(_client(scenario.github), REPO_REF, 8)


def test_quote_path_matches_git() -> None:
    assert quote_path("a/plain.py") == "a/plain.py"
    assert quote_path('a/ü "x"\t.py') == '"a/\\303\\274 \\"x\\"\\t.py"'
