"""The fake's HTTP surface: the REST endpoints receipt uses, as GitHub answers them.

No `from __future__ import annotations` here: FastAPI resolves the local `Root` alias at runtime.
"""

import json
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from tests.fakegithub import gitdata, shapes
from tests.fakegithub.state import FakeGitHub, FakePull, Recorded
from tests.fakegithub.validation import check_run_problems

DOCS = "https://docs.github.com/rest"
_WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})


class GitHubAnswer(Exception):
    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def not_found() -> GitHubAnswer:
    return GitHubAnswer(404, shapes.error(404, "Not Found", doc=DOCS))


def create_app(fake: FakeGitHub) -> FastAPI:
    app = FastAPI(title="fake GitHub REST API")

    @app.exception_handler(GitHubAnswer)
    async def _answer(_: Request, exc: GitHubAnswer) -> JSONResponse:
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)

    @app.middleware("http")
    async def _gate(request: Request, call_next: Any) -> Response:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        response = _authorize(fake, request)
        if response is None:
            fault = fake.take_fault(request.method, request.url.path)
            if fault is not None:
                response = JSONResponse(
                    fault.body or shapes.error(fault.status, "fault injected by the test"),
                    status_code=fault.status,
                    headers=fault.headers,
                )
        if response is None:
            response = await call_next(request)
        fake.record(
            Recorded(
                request.method,
                request.url.path,
                dict(request.query_params),
                request.headers.get("accept", ""),
                body,
                response.status_code,
            )
        )
        return response

    def repo_root(owner: str, repo: str) -> Any:
        root = fake.repos.get(f"{owner}/{repo}")
        if root is None:
            raise not_found()
        return root

    Root = Annotated[Any, Depends(repo_root)]

    def the_pull(owner: str, repo: str, number: int) -> FakePull:
        found = fake.pulls.get((f"{owner}/{repo}", number))
        if found is None:
            raise not_found()
        return found

    @app.get("/repos/{owner}/{repo}/pulls/{number}")
    def get_pull(owner: str, repo: str, number: int, root: Root, request: Request) -> Response:
        p = the_pull(owner, repo, number)
        accept = request.headers.get("accept", "")
        if "diff" in accept:
            return _diff(fake, root, p)
        return JSONResponse(shapes.pull(p, root))

    @app.get("/repos/{owner}/{repo}/pulls")
    def list_pulls(
        owner: str, repo: str, root: Root, state: str = "open", per_page: int = 30, page: int = 1
    ) -> Any:
        full = f"{owner}/{repo}"
        pulls = sorted(
            (p for (r, _), p in fake.pulls.items() if r == full and (state == "all" or p.state == state)),
            key=lambda p: -p.number,
        )
        chunk = pulls[(page - 1) * per_page : page * per_page]
        return [shapes.pull(p, root) for p in chunk]

    @app.get("/repos/{owner}/{repo}/pulls/{number}/files")
    def list_files(owner: str, repo: str, number: int, root: Root, per_page: int = 30, page: int = 1) -> Any:
        p = the_pull(owner, repo, number)
        base = gitdata.merge_base(root, p.base_sha, p.head_sha)
        changes = gitdata.file_changes(root, base, p.head_sha)[:3000]
        chunk = changes[(page - 1) * per_page : page * per_page]
        limit = fake.limits.max_patch_bytes
        return [
            shapes.file_entry(p.repo, p.head_sha, c, with_patch=len((c.patch or "").encode()) <= limit)
            for c in chunk
        ]

    @app.get("/repos/{owner}/{repo}/commits/{sha}/pulls")
    def pulls_for_commit(owner: str, repo: str, sha: str, root: Root) -> Any:
        full = f"{owner}/{repo}"
        return [
            shapes.pull(p, root)
            for (r, _), p in sorted(fake.pulls.items())
            if r == full and p.head_sha == sha and p.state == "open"
            and (p.head_repo == full or fake.associate_fork_commits)
        ]  # fmt: skip

    @app.get("/repos/{owner}/{repo}/compare/{basehead}")
    def compare(owner: str, repo: str, basehead: str, root: Root, request: Request) -> Any:
        base, sep, head = basehead.partition("...")
        if not sep:
            raise not_found()
        try:
            base_sha, head_sha = gitdata.resolve(root, base), gitdata.resolve(root, head)
            merge_base = gitdata.merge_base(root, base_sha, head_sha)
        except gitdata.GitDataError:
            raise not_found() from None
        if "diff" in request.headers.get("accept", ""):
            return _diff_answer(fake, gitdata.diff_text(root, merge_base, head_sha))
        full = f"{owner}/{repo}"
        ahead = gitdata.count(root, f"{merge_base}..{head_sha}")
        behind = gitdata.count(root, f"{merge_base}..{base_sha}")
        status = (
            "identical"
            if not ahead and not behind
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        return {
            "url": f"{shapes.API}/repos/{full}/compare/{basehead}",
            "html_url": f"{shapes.WEB}/{full}/compare/{basehead}",
            "permalink_url": f"{shapes.WEB}/{full}/compare/{basehead}",
            "diff_url": f"{shapes.WEB}/{full}/compare/{basehead}.diff",
            "patch_url": f"{shapes.WEB}/{full}/compare/{basehead}.patch",
            "base_commit": shapes.commit(full, gitdata.commit_info(root, base_sha)),
            "merge_base_commit": shapes.commit(full, gitdata.commit_info(root, merge_base)),
            "status": status,
            "ahead_by": ahead,
            "behind_by": behind,
            "total_commits": ahead,
            "commits": [],
        }

    @app.get("/repos/{owner}/{repo}/git/trees/{sha}")
    def get_tree(owner: str, repo: str, sha: str, root: Root, recursive: str | None = None) -> Any:
        if gitdata.object_type(root, sha) not in ("commit", "tree"):
            raise not_found()
        full = f"{owner}/{repo}"
        items = gitdata.tree(root, sha)
        if not recursive:
            items = [i for i in items if "/" not in i.path]
        return {
            "sha": gitdata.rev_parse(root, f"{sha}^{{tree}}"),
            "url": f"{shapes.API}/repos/{full}/git/trees/{sha}",
            "tree": [
                {
                    "path": i.path,
                    "mode": i.mode,
                    "type": i.type,
                    "sha": i.sha,
                    **({"size": i.size} if i.size is not None else {}),
                    "url": f"{shapes.API}/repos/{full}/git/{i.type}s/{i.sha}",
                }
                for i in items
            ],
            "truncated": fake.tree_truncated,
        }

    @app.get("/repos/{owner}/{repo}/git/blobs/{sha}")
    def get_blob(owner: str, repo: str, sha: str, root: Root) -> Any:
        if gitdata.object_type(root, sha) != "blob":
            raise not_found()
        data = gitdata.blob(root, sha)
        return {
            "sha": sha,
            "node_id": f"B_{sha[:10]}",
            "size": len(data),
            "url": f"{shapes.API}/repos/{owner}/{repo}/git/blobs/{sha}",
            "content": shapes.b64(data),
            "encoding": "base64",
        }

    @app.get("/repos/{owner}/{repo}/contents/{path:path}")
    def get_contents(owner: str, repo: str, path: str, root: Root, ref: str = "HEAD") -> Any:
        spec = f"{ref}:{path}"
        kind = gitdata.object_type(root, spec)
        full = f"{owner}/{repo}"
        if kind is None:
            raise not_found()
        if kind == "tree":
            return [
                {
                    "type": "dir" if i.type == "tree" else "file",
                    "name": i.path,
                    "path": f"{path}/{i.path}",
                    "sha": i.sha,
                }
                for i in gitdata.tree(root, spec)
                if "/" not in i.path
            ]
        data = gitdata.blob(root, spec)
        sha = gitdata.rev_parse(root, spec)
        large = len(data) > 1_000_000
        return {
            "type": "file",
            "encoding": "none" if large else "base64",
            "size": len(data),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "content": "" if large else shapes.b64(data),
            "sha": sha,
            "url": f"{shapes.API}/repos/{full}/contents/{path}?ref={ref}",
            "git_url": f"{shapes.API}/repos/{full}/git/blobs/{sha}",
            "html_url": f"{shapes.WEB}/{full}/blob/{ref}/{path}",
            "download_url": f"https://raw.githubusercontent.com/{full}/{ref}/{path}",
            "_links": {"self": "", "git": "", "html": ""},
        }

    @app.post("/repos/{owner}/{repo}/check-runs", status_code=201)
    def create_check_run(owner: str, repo: str, root: Root, body: Annotated[Any, Depends(_json)]) -> Any:
        problems = check_run_problems(body, create=True)
        if not problems and gitdata.object_type(root, str(body["head_sha"])) != "commit":
            problems = [f"head_sha: No commit found for SHA: {body['head_sha']}"]
        if problems:
            raise _invalid(problems, "checks/runs#create-a-check-run")
        run_id = fake.next_id()
        run = shapes.check_run(f"{owner}/{repo}", run_id, body, _now())
        _apply(fake, run, body)
        with fake.lock:
            fake.check_runs[run_id] = run
        return run

    @app.patch("/repos/{owner}/{repo}/check-runs/{run_id}")
    def update_check_run(
        owner: str, repo: str, run_id: int, root: Root, body: Annotated[Any, Depends(_json)]
    ) -> Any:
        run = fake.check_runs.get(run_id)
        if run is None or not run["url"].startswith(f"{shapes.API}/repos/{owner}/{repo}/"):
            raise not_found()
        problems = check_run_problems(body, create=False)
        if problems:
            raise _invalid(problems, "checks/runs#update-a-check-run")
        _apply(fake, run, body)
        return run

    @app.get("/repos/{owner}/{repo}/check-runs/{run_id}")
    def get_check_run(owner: str, repo: str, run_id: int, root: Root) -> Any:
        run = fake.check_runs.get(run_id)
        if run is None:
            raise not_found()
        return run

    @app.get("/repos/{owner}/{repo}/check-runs/{run_id}/annotations")
    def list_annotations(
        owner: str, repo: str, run_id: int, root: Root, per_page: int = 30, page: int = 1
    ) -> Any:
        if run_id not in fake.check_runs:
            raise not_found()
        found = fake.annotations.get(run_id, [])
        return found[(page - 1) * per_page : page * per_page]

    return app


async def _json(request: Request) -> Any:
    try:
        return json.loads(await request.body())
    except ValueError:
        raise GitHubAnswer(400, shapes.error(400, "Problems parsing JSON", doc=DOCS)) from None


def _invalid(problems: list[str], doc: str) -> GitHubAnswer:
    return GitHubAnswer(
        422,
        shapes.error(
            422,
            "Invalid request.\n\n" + "\n".join(problems),
            doc=f"https://docs.github.com/rest/{doc}",
        ),
    )


def _apply(fake: FakeGitHub, run: dict[str, Any], body: dict[str, Any]) -> None:
    for key in ("name", "details_url", "external_id"):
        if key in body:
            run[key] = body[key]
    if "conclusion" in body:
        run["status"], run["conclusion"] = "completed", body["conclusion"]
        run["completed_at"] = body.get("completed_at", _now())
    elif "status" in body:
        run["status"] = body["status"]
    output = body.get("output")
    if isinstance(output, dict):
        for key in ("title", "summary", "text"):
            if key in output:
                run["output"][key] = output[key]
        added = [
            {
                "blob_href": "",
                "start_column": None,
                "end_column": None,
                "title": None,
                "raw_details": None,
                **a,
            }
            for a in output.get("annotations", [])
        ]
        with fake.lock:
            fake.annotations.setdefault(run["id"], []).extend(added)
            run["output"]["annotations_count"] = len(fake.annotations[run["id"]])


def _authorize(fake: FakeGitHub, request: Request) -> JSONResponse | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() not in ("token", "bearer") or token not in fake.tokens:
        return JSONResponse(shapes.error(401, "Bad credentials", doc=DOCS), status_code=401)
    if request.method in _WRITE_METHODS and not fake.tokens[token]:
        return JSONResponse(
            shapes.error(
                403, "Resource not accessible by integration", doc=f"{DOCS}/checks/runs#create-a-check-run"
            ),
            status_code=403,
            headers={"x-accepted-github-permissions": "checks=write"},
        )
    return None


def _diff(fake: FakeGitHub, root: Any, p: FakePull) -> Response:
    base = gitdata.merge_base(root, p.base_sha, p.head_sha)
    return _diff_answer(fake, gitdata.diff_text(root, base, p.head_sha))


def _diff_answer(fake: FakeGitHub, text: bytes) -> Response:
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
