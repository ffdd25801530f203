"""Repository data the App reads: the repository, branches, refs for merge queues, and GitHub's
limits on pull-request files and diffs, served from real git repositories."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fakegithub import payloads
from tests.fakegithub.harness import AppWorld
from tests.fakegithub.state import FakePull


@pytest.fixture
def token(github_app: AppWorld) -> str:
    gh = github_app.app_client()
    return gh.rest.apps.create_installation_access_token(github_app.installation.id).parsed_data.token


def _get(world: AppWorld, token: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"Authorization": f"token {token}", **kw.pop("headers", {})}
    return httpx.get(world.api_url + path, headers=headers, **kw)


def test_repository_and_branches(github_app: AppWorld, token: str) -> None:
    repo = _get(github_app, token, "/repos/acme/widgets").json()
    assert (repo["full_name"], repo["default_branch"], repo["id"]) == (
        "acme/widgets",
        "main",
        github_app.fake.repo_id("acme/widgets"),
    )
    branch = _get(github_app, token, "/repos/acme/widgets/branches/main").json()
    assert branch["commit"]["sha"] == github_app.pull.base_sha
    feature = _get(github_app, token, "/repos/acme/widgets/branches/feature").json()
    assert feature["commit"]["sha"] == github_app.pull.head_sha
    missing = _get(github_app, token, "/repos/acme/widgets/branches/nope")
    assert (missing.status_code, missing.json()["message"]) == (404, "Branch not found")


def _mergeability(world: AppWorld, token: str, number: int) -> tuple[Any, ...]:
    pull = _get(world, token, f"/repos/acme/widgets/pulls/{number}").json()
    return pull["mergeable"], pull["mergeable_state"], pull["merge_commit_sha"]


def test_the_test_merge_is_computed_after_a_first_null_and_again_when_the_base_moves(
    github_app: AppWorld, token: str
) -> None:
    world, pull = github_app, github_app.pull
    assert _mergeability(world, token, 7) == (None, "unknown", None)  # GitHub starts its job
    mergeable, state, sha = _mergeability(world, token, 7)
    assert (mergeable, state) == (True, "clean")
    assert world.origin.git("rev-parse", "refs/pull/7/merge").strip() == sha
    assert world.origin.git("rev-list", "--parents", "-n", "1", sha).split()[1:] == [
        pull.base_sha,
        pull.head_sha,
    ]
    listed = _get(world, token, "/repos/acme/widgets/pulls").json()
    assert listed[0]["mergeable"] is None  # lists never carry it

    later = world.commit_to_base({"docs/later.md": "later\n"})
    assert _mergeability(world, token, 7) == (None, "unknown", sha)  # the old merge, while computing
    mergeable, _, again = _mergeability(world, token, 7)
    assert mergeable is True and again != sha
    assert world.origin.git("rev-list", "--parents", "-n", "1", again).split()[1:] == [later, pull.head_sha]


def test_a_conflicting_pull_request_is_not_mergeable_and_gets_no_merge_commit(
    github_app: AppWorld, token: str
) -> None:
    world = github_app
    world.fake.mergeability_reads = 0
    pull = world.open_pull({"src/calc.py": "def add(a, b):\n    return a * b\n"}, number=8)
    world.commit_to_base({"src/calc.py": "def add(a, b):\n    return b - a\n"})
    assert _mergeability(world, token, 8) == (False, "dirty", None)
    assert "refs/pull/8/merge" not in world.origin.git("for-each-ref", "refs/pull/")
    assert pull.merge.mergeable is False


def test_a_merge_group_is_a_real_merge_commit_on_a_readonly_queue_branch(
    github_app: AppWorld, token: str
) -> None:
    fake, pull = github_app.fake, github_app.pull
    later = github_app.commit_to_base({"docs/later.md": "later\n"})
    group = fake.add_merge_group(pull)
    assert group.head_ref == f"gh-readonly-queue/main/pr-7-{pull.head_sha}" and group.base_sha == later
    parents = github_app.origin.git("rev-list", "--parents", "-n", "1", group.head_sha).split()[1:]
    assert parents == [later, pull.head_sha]
    assert (
        github_app.origin.git("show", f"{group.head_sha}:src/calc.py") == "def add(a, b):\n    return a + b\n"
    )
    assert github_app.origin.git("show", f"{group.head_sha}:docs/later.md") == "later\n"
    ref = _get(github_app, token, f"/repos/acme/widgets/git/ref/heads/{group.head_ref}").json()
    assert ref["object"]["sha"] == group.head_sha
    compare = _get(
        github_app, token, f"/repos/acme/widgets/compare/{group.base_sha}...{group.head_sha}"
    ).json()
    assert compare["ahead_by"] == 2 and compare["merge_base_commit"]["sha"] == later
    event = payloads.merge_group(fake, "checks_requested", group, github_app.installation)["merge_group"]
    assert (event["head_sha"], event["base_sha"], event["base_ref"]) == (
        group.head_sha,
        later,
        "refs/heads/main",
    )
    destroyed = payloads.merge_group(fake, "destroyed", group, github_app.installation, reason="invalidated")
    assert destroyed["reason"] == "invalidated"


def _pull_with_many_files(world: AppWorld, count: int, number: int) -> None:
    """A pull request adding `count` files, committed with fast-import (no work-tree writes)."""
    base = world.pull.base_sha
    stream = [
        f"commit refs/heads/many\ncommitter T <t@example.com> 1767225600 +0000\ndata 4\nmany\nfrom {base}\n"
    ]
    stream += [
        f"M 100644 inline src/many/f{n:04}.py\ndata {len(f'x = {n}') + 1}\nx = {n}\n" for n in range(count)
    ]
    world.origin.git("fast-import", "--quiet", stdin="".join(stream).encode())
    head = world.origin.git("rev-parse", "refs/heads/many").strip()
    world.fake.add_pull(FakePull("acme/widgets", number, "main", base, "many", head, "acme/widgets"))


def test_the_files_api_stops_at_3000_files_and_the_diff_at_300(github_app: AppWorld, token: str) -> None:
    _pull_with_many_files(github_app, 3001, 9)
    pull = _get(github_app, token, "/repos/acme/widgets/pulls/9").json()
    assert pull["changed_files"] == 3001
    listed = []
    for page in range(1, 33):
        chunk = _get(
            github_app, token, "/repos/acme/widgets/pulls/9/files", params={"per_page": 100, "page": page}
        ).json()
        listed += chunk
    assert len(listed) == 3000
    diff = _get(
        github_app, token, "/repos/acme/widgets/pulls/9", headers={"Accept": "application/vnd.github.diff"}
    )
    assert diff.status_code == 406 and diff.json()["errors"][0]["code"] == "too_large"


@pytest.mark.parametrize(
    ("lines", "width", "refused"),
    [
        (20_010, 10, "Sorry, the diff exceeded the maximum number of lines (20000)"),
        (19_980, 10, None),  # some 200 kB
        (1_010, 1_000, "Sorry, the diff exceeded the maximum size (1,000,000 bytes)"),  # 1,010 lines
        (990, 1_000, None),
    ],
)
def test_the_diff_stops_at_20000_lines_and_at_1_mb_whatever_the_files(
    github_app: AppWorld, token: str, lines: int, width: int, refused: str | None
) -> None:
    text = "".join(f"{n:0{width - 1}d}\n" for n in range(lines))
    pull = github_app.open_pull({"src/one.txt": text}, number=11)
    accept = {"Accept": "application/vnd.github.diff"}
    diff = _get(github_app, token, "/repos/acme/widgets/pulls/11", headers=accept)
    compared = _get(github_app, token, f"/repos/acme/widgets/compare/{pull.base_sha}...{pull.head_sha}",
                    headers=accept)  # fmt: skip
    assert (compared.status_code, compared.content) == (diff.status_code, diff.content)
    if refused is None:
        assert diff.status_code == 200 and diff.text.count("\n+") == lines + 1  # and `+++ b/src/one.txt`
    else:
        assert diff.status_code == 406
        assert (diff.json()["message"], diff.json()["errors"][0]["code"]) == (refused, "too_large")


def test_large_patches_are_omitted_from_the_files_api(github_app: AppWorld, token: str) -> None:
    github_app.fake.limits.max_patch_bytes = 100
    github_app.open_pull({"src/big.py": "y = 1\n" * 100, "src/small.py": "z = 1\n"}, number=10)
    entries = {f["filename"]: f for f in _get(github_app, token, "/repos/acme/widgets/pulls/10/files").json()}
    assert "patch" not in entries["src/big.py"] and entries["src/small.py"]["patch"].startswith("@@")
    assert entries["src/big.py"]["additions"] == 100


def test_the_pull_request_list_filters_sorts_pages_and_validates_as_github(
    github_app: AppWorld, token: str
) -> None:
    merges = [
        github_app.merge(github_app.open_pull({f"src/m{n}.py": "M = 1\n"}, number=20 + n)) for n in range(3)
    ]
    closed = _get(github_app, token, "/repos/acme/widgets/pulls",
                  params={"state": "closed", "base": "main", "sort": "updated", "direction": "desc", "per_page": 2})  # fmt: skip
    body = closed.json()
    assert [p["number"] for p in body] == [22, 21] and [p["merge_commit_sha"] for p in body] == merges[:0:-1]
    assert all(p["merged"] and p["merged_at"] and p["state"] == "closed" for p in body)
    assert 'rel="next"' in closed.headers["link"] and "state=closed" in closed.headers["link"]
    rest = _get(github_app, token, "/repos/acme/widgets/pulls",
                params={"state": "closed", "sort": "updated", "per_page": 2, "page": 2}).json()  # fmt: skip
    assert [p["number"] for p in rest] == [20]
    assert [p["number"] for p in _get(github_app, token, "/repos/acme/widgets/pulls").json()] == [
        7
    ]  # open only
    other = _get(github_app, token, "/repos/acme/widgets/pulls", params={"state": "closed", "base": "dev"})
    assert other.json() == []
    bad = _get(github_app, token, "/repos/acme/widgets/pulls", params={"state": "merged"})
    assert bad.status_code == 422 and "'merged' is not a member of" in bad.json()["message"]
