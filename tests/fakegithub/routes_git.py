"""A repository's git data: the repository itself, branches, commits, refs, compare, trees, blobs
and contents, all read from the real git repository behind it."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from fastapi import APIRouter, Request

from tests.fakegithub import gitdata, shapes
from tests.fakegithub.answers import not_found
from tests.fakegithub.routes_pulls import diff_answer, repo_root
from tests.fakegithub.state import FakeGitHub


def router(fake: FakeGitHub) -> APIRouter:
    api = APIRouter()

    @api.get("/repos/{owner}/{repo}")
    def get_repository(owner: str, repo: str) -> Any:
        repo_root(fake, owner, repo)
        full = f"{owner}/{repo}"
        info = fake.repo_info[full]
        return shapes.full_repository(full, info.id, default_branch=info.default_branch, private=info.private)

    @api.get("/repos/{owner}/{repo}/branches/{branch:path}")
    def get_branch(owner: str, repo: str, branch: str) -> Any:
        root = repo_root(fake, owner, repo)
        try:
            sha = gitdata.resolve(root, f"refs/heads/{branch}")
        except gitdata.GitDataError:
            raise _branch_not_found() from None
        full = f"{owner}/{repo}"
        return shapes.branch(full, branch, shapes.commit(full, gitdata.commit_info(root, sha)))

    @api.get("/repos/{owner}/{repo}/commits/{ref:path}")
    def get_commit(owner: str, repo: str, ref: str) -> Any:
        root = repo_root(fake, owner, repo)
        try:
            sha = gitdata.resolve(root, ref)
        except gitdata.GitDataError:
            raise _unprocessable_ref(ref) from None
        return shapes.commit(f"{owner}/{repo}", gitdata.commit_info(root, sha))

    @api.get("/repos/{owner}/{repo}/git/commits/{sha}")
    def get_git_commit(owner: str, repo: str, sha: str) -> Any:
        root = repo_root(fake, owner, repo)
        if len(sha) != 40 or gitdata.object_type(root, sha) != "commit":
            raise not_found()
        return shapes.git_commit(f"{owner}/{repo}", gitdata.commit_info(root, sha))

    @api.get("/repos/{owner}/{repo}/git/ref/{ref:path}")
    def get_ref(owner: str, repo: str, ref: str) -> Any:
        root = repo_root(fake, owner, repo)
        try:
            sha = gitdata.rev_parse(root, f"refs/{ref}")
        except gitdata.GitDataError:
            raise not_found() from None
        if not ref.startswith(("heads/", "tags/")):
            raise not_found()
        return shapes.git_ref(f"{owner}/{repo}", f"refs/{ref}", sha)

    @api.get("/repos/{owner}/{repo}/git/matching-refs/{ref:path}")
    def matching_refs(owner: str, repo: str, ref: str) -> Any:
        root = repo_root(fake, owner, repo)
        # GitHub matches a plain string prefix (for-each-ref patterns stop at slashes)
        out = gitdata.git(
            root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/", "refs/tags/"
        )
        full = f"{owner}/{repo}"
        found = []
        for line in out.decode().splitlines():
            name, sha = line.split(" ", 1)
            if name.startswith(f"refs/{ref}"):
                found.append(shapes.git_ref(full, name, sha))
        return found

    @api.get("/repos/{owner}/{repo}/compare/{basehead:path}")
    def compare(owner: str, repo: str, basehead: str, request: Request) -> Any:
        root = repo_root(fake, owner, repo)
        base, sep, head = unquote(basehead).partition("...")
        if not sep:
            raise not_found()
        try:
            base_sha, head_sha = gitdata.resolve(root, base), gitdata.resolve(root, head)
            merge_base = gitdata.merge_base(root, base_sha, head_sha)
        except gitdata.GitDataError:
            raise not_found() from None
        if "diff" in request.headers.get("accept", ""):
            return diff_answer(fake, gitdata.diff_text(root, merge_base, head_sha))
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

    @api.get("/repos/{owner}/{repo}/git/trees/{sha}")
    def get_tree(owner: str, repo: str, sha: str, recursive: str | None = None) -> Any:
        root = repo_root(fake, owner, repo)
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

    @api.get("/repos/{owner}/{repo}/git/blobs/{sha}")
    def get_blob(owner: str, repo: str, sha: str) -> Any:
        root = repo_root(fake, owner, repo)
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

    @api.get("/repos/{owner}/{repo}/contents/{path:path}")
    def get_contents(owner: str, repo: str, path: str, ref: str | None = None) -> Any:
        root = repo_root(fake, owner, repo)
        full = f"{owner}/{repo}"
        ref = ref or fake.repo_info[full].default_branch
        spec = f"{ref}:{path}"
        kind = gitdata.object_type(root, spec)
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

    return api


def _branch_not_found() -> Exception:
    from tests.fakegithub.answers import GitHubAnswer

    return GitHubAnswer(
        404,
        shapes.error(
            404, "Branch not found", doc="https://docs.github.com/rest/branches/branches#get-a-branch"
        ),
    )


def _unprocessable_ref(ref: str) -> Exception:
    from tests.fakegithub.answers import unprocessable

    return unprocessable(f"No commit found for SHA: {ref}", "commits/commits#get-a-commit")
