"""Pull requests: one, a list, the pull requests of a commit, the files API and the diff media type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from tests.fakegithub import gitdata, shapes, testmerge
from tests.fakegithub.answers import DOCS, not_found
from tests.fakegithub.answers import page as paginate
from tests.fakegithub.state import FakeGitHub, FakePull


def repo_root(fake: FakeGitHub, owner: str, repo: str) -> Path:
    root = fake.repos.get(f"{owner}/{repo}")
    if root is None:
        raise not_found()
    return root


def router(fake: FakeGitHub) -> APIRouter:
    api = APIRouter()

    def the_pull(owner: str, repo: str, number: int) -> FakePull:
        found = fake.pulls.get((f"{owner}/{repo}", number))
        if found is None:
            raise not_found()
        return found

    @api.get("/repos/{owner}/{repo}/pulls/{number}")
    def get_pull(owner: str, repo: str, number: int, request: Request) -> Response:
        root = repo_root(fake, owner, repo)
        p = the_pull(owner, repo, number)
        if "diff" in request.headers.get("accept", ""):
            return _diff(fake, root, p)
        return JSONResponse(shapes.pull(p, root, fake, testmerge.mergeability(fake, p)))

    @api.get("/repos/{owner}/{repo}/pulls")
    def list_pulls(owner: str, repo: str, state: str = "open", per_page: int = 30, page: int = 1) -> Any:
        root = repo_root(fake, owner, repo)
        full = f"{owner}/{repo}"
        pulls = sorted(
            (p for (r, _), p in fake.pulls.items() if r == full and (state == "all" or p.state == state)),
            key=lambda p: -p.number,
        )
        return [shapes.pull(p, root, fake) for p in paginate(pulls, per_page, page)]

    @api.get("/repos/{owner}/{repo}/pulls/{number}/files")
    def list_files(owner: str, repo: str, number: int, per_page: int = 30, page: int = 1) -> Any:
        root = repo_root(fake, owner, repo)
        p = the_pull(owner, repo, number)
        base = gitdata.merge_base(root, p.base_sha, p.head_sha)
        changes = gitdata.file_changes(root, base, p.head_sha)[: fake.limits.max_listed_files]
        limit = fake.limits.max_patch_bytes
        return [
            shapes.file_entry(p.repo, p.head_sha, c, with_patch=len((c.patch or "").encode()) <= limit)
            for c in paginate(changes, per_page, page)
        ]

    @api.get("/repos/{owner}/{repo}/commits/{sha}/pulls")
    def pulls_for_commit(owner: str, repo: str, sha: str) -> Any:
        root = repo_root(fake, owner, repo)
        full = f"{owner}/{repo}"
        return [
            shapes.pull(p, root, fake)
            for p in fake.pulls_for_head(full, sha, forks=fake.associate_fork_commits)
        ]

    return api


def _diff(fake: FakeGitHub, root: Path, p: FakePull) -> Response:
    base = gitdata.merge_base(root, p.base_sha, p.head_sha)
    return diff_answer(fake, gitdata.diff_text(root, base, p.head_sha))


def diff_answer(fake: FakeGitHub, text: bytes) -> Response:
    """The diff media type, or GitHub's 406 past its limits (pull request and compare alike)."""
    files = text.count(b"\ndiff --git ") + text.startswith(b"diff --git ")
    lines = text.count(b"\n")
    limits = fake.limits
    if files > limits.max_files or lines > limits.max_lines or len(text) > limits.max_bytes:
        return JSONResponse(
            shapes.error(
                406,
                "Sorry, the diff exceeded the maximum number of files (300). Consider using "
                "'List pull requests files' API or locally cloning the repository instead.",
                doc=f"{DOCS}/pulls/pulls#list-pull-requests-files",
                errors=[{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
            ),
            status_code=406,
        )
    return Response(text, media_type="application/vnd.github.diff; charset=utf-8")
