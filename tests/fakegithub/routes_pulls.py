"""Pull requests: one, a list, the pull requests of a commit, the files API and the diff media type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from tests.fakegithub import gitdata, shapes, testmerge
from tests.fakegithub.answers import DOCS, invalid, link_header, not_found
from tests.fakegithub.answers import page as paginate
from tests.fakegithub.state import DiffLimits, FakeGitHub, FakePull


def repo_root(fake: FakeGitHub, owner: str, repo: str) -> Path:
    root = fake.repos.get(f"{owner}/{repo}")
    if root is None:
        raise not_found()
    return root


_STATES = ("open", "closed", "all")
_SORTS = ("created", "updated", "popularity", "long-running")
_DIRECTIONS = ("asc", "desc")


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
    def list_pulls(
        owner: str, repo: str, request: Request, state: str = "open", base: str | None = None,
        head: str | None = None, sort: str = "created", direction: str | None = None,
        per_page: int = 30, page: int = 1,
    ) -> Any:  # fmt: skip
        root = repo_root(fake, owner, repo)
        problems = [
            f"{value!r} is not a member of {list(allowed)}."
            for value, allowed in ((state, _STATES), (sort, _SORTS), (direction or "desc", _DIRECTIONS))
            if value not in allowed
        ]
        if problems:
            raise invalid(problems, "pulls/pulls#list-pull-requests")
        full = f"{owner}/{repo}"
        pulls = [
            p for (r, _), p in fake.pulls.items()
            if r == full and (state == "all" or p.state == state) and base in (None, p.base_ref)
            and head in (None, f"{(p.head_repo or full).split('/')[0]}:{p.head_ref}")
        ]  # fmt: skip
        # GitHub's default direction: desc, except asc when sorting by creation without one
        descending = (direction or ("asc" if sort == "created" else "desc")) == "desc"
        key = (lambda p: (p.updated, p.number)) if sort == "updated" else (lambda p: p.number)
        pulls.sort(key=key, reverse=descending)
        query = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page")}
        link = link_header(str(request.url).split("?")[0], query, page_number=page, per_page=per_page,
                           total=len(pulls))  # fmt: skip
        body = [shapes.pull(p, root, fake) for p in paginate(pulls, per_page, page)]
        return JSONResponse(body, headers={"link": link} if link else {})

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


def _exceeded(limits: DiffLimits, text: bytes) -> str | None:
    """GitHub's message for the first of its diff limits `text` exceeds, or None."""
    files = text.count(b"\ndiff --git ") + text.startswith(b"diff --git ")
    if files > limits.max_files:
        return (
            f"Sorry, the diff exceeded the maximum number of files ({limits.max_files}). Consider using "
            "'List pull requests files' API or locally cloning the repository instead."
        )
    if text.count(b"\n") > limits.max_lines:
        return f"Sorry, the diff exceeded the maximum number of lines ({limits.max_lines})"
    if len(text) > limits.max_bytes:  # GitHub's wording for this one is not on record: the fake's own
        return f"Sorry, the diff exceeded the maximum size ({limits.max_bytes:,} bytes)"
    return None


def diff_answer(fake: FakeGitHub, text: bytes) -> Response:
    """The diff media type, or GitHub's 406 past its limits (pull request and compare alike)."""
    exceeded = _exceeded(fake.limits, text)
    if exceeded is not None:
        return JSONResponse(
            shapes.error(
                406,
                exceeded,
                doc=f"{DOCS}/pulls/pulls#list-pull-requests-files",
                errors=[{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
            ),
            status_code=406,
        )
    return Response(text, media_type="application/vnd.github.diff; charset=utf-8")
