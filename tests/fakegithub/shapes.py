"""Response bodies in GitHub's shapes, built from @octokit/webhooks-examples payloads."""

from __future__ import annotations

import base64
import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from tests.fakegithub import gitdata
from tests.fakegithub.state import FakePull

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "webhooks"
API = "https://api.github.com"
WEB = "https://github.com"
_TEMPLATE_REPO = "Codertocat/Hello-World"


@cache
def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _rewritten(name: str, repo: str) -> Any:
    owner, short = repo.split("/")
    text = _fixture(name).replace(_TEMPLATE_REPO, repo).replace('"Hello-World"', json.dumps(short))
    return json.loads(text.replace('"login": "Codertocat"', f'"login": {json.dumps(owner)}'))


def error(
    status: int, message: str, *, doc: str = "https://docs.github.com/rest", errors: Any = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message, "documentation_url": doc, "status": str(status)}
    if errors is not None:
        body["errors"] = errors
    return body


def repository(full_name: str) -> dict[str, Any]:
    return copy.deepcopy(_rewritten("pull_request.opened.json", full_name)["repository"])


def pull(p: FakePull, root: Path) -> dict[str, Any]:
    data = _rewritten("pull_request.opened.json", p.repo)["pull_request"]
    base = gitdata.merge_base(root, p.base_sha, p.head_sha)
    changes = gitdata.file_changes(root, base, p.head_sha)
    data["number"] = p.number
    data["id"] = 1_000_000 + p.number
    url, issue = f"{API}/repos/{p.repo}/pulls/{p.number}", f"{API}/repos/{p.repo}/issues/{p.number}"
    html = f"{WEB}/{p.repo}/pull/{p.number}"
    data.update(
        url=url, html_url=html, diff_url=f"{html}.diff", patch_url=f"{html}.patch", issue_url=issue,
        commits_url=f"{url}/commits", review_comments_url=f"{url}/comments", comments_url=f"{issue}/comments",
        statuses_url=f"{API}/repos/{p.repo}/statuses/{p.head_sha}",
    )  # fmt: skip
    data["title"], data["state"], data["body"] = p.title, p.state, p.body
    data["user"]["login"] = p.author
    label = {
        "id": 1,
        "node_id": "L",
        "url": "",
        "name": "",
        "color": "f29513",
        "default": False,
        "description": None,
    }
    data["labels"] = [dict(label, name=name, url=f"{API}/repos/{p.repo}/labels/{name}") for name in p.labels]
    data["base"].update(ref=p.base_ref, sha=p.base_sha, label=f"{p.repo.split('/')[0]}:{p.base_ref}")
    data["base"]["repo"] = repository(p.repo)
    head_repo = p.head_repo
    data["head"].update(
        ref=p.head_ref, sha=p.head_sha, label=f"{(head_repo or p.repo).split('/')[0]}:{p.head_ref}"
    )
    if head_repo is None:
        data["head"]["repo"] = None
    else:
        data["head"]["repo"] = repository(head_repo)
        data["head"]["repo"]["fork"] = head_repo != p.repo
    data["commits"] = gitdata.count(root, f"{base}..{p.head_sha}")
    data["additions"] = sum(c.additions for c in changes)
    data["deletions"] = sum(c.deletions for c in changes)
    data["changed_files"] = len(changes)
    data["merged"], data["mergeable"], data["merged_at"], data["closed_at"] = False, True, None, None
    return data


def file_entry(repo: str, head: str, change: gitdata.FileChange, *, with_patch: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "sha": change.sha,
        "filename": change.filename,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.additions + change.deletions,
        "blob_url": f"{WEB}/{repo}/blob/{head}/{change.filename}",
        "raw_url": f"{WEB}/{repo}/raw/{head}/{change.filename}",
        "contents_url": f"{API}/repos/{repo}/contents/{change.filename}?ref={head}",
    }
    if change.previous_filename is not None:
        entry["previous_filename"] = change.previous_filename
    if with_patch and change.patch is not None:
        entry["patch"] = change.patch
    return entry


def b64(data: bytes) -> str:
    """Base64 as GitHub sends it: wrapped at 60 characters."""
    text = base64.b64encode(data).decode()
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


def commit(repo: str, info: gitdata.CommitInfo) -> dict[str, Any]:
    def person(p: tuple[str, str, str]) -> dict[str, Any]:
        return {"name": p[0], "email": p[1], "date": p[2]}

    return {
        "url": f"{API}/repos/{repo}/commits/{info.sha}",
        "sha": info.sha,
        "node_id": f"C_{info.sha[:10]}",
        "html_url": f"{WEB}/{repo}/commit/{info.sha}",
        "comments_url": f"{API}/repos/{repo}/commits/{info.sha}/comments",
        "commit": {
            "url": f"{API}/repos/{repo}/git/commits/{info.sha}",
            "author": person(info.author),
            "committer": person(info.committer),
            "message": info.message,
            "comment_count": 0,
            "tree": {"sha": info.tree, "url": f"{API}/repos/{repo}/git/trees/{info.tree}"},
        },
        "author": None,
        "committer": None,
        "parents": [{"sha": p, "url": f"{API}/repos/{repo}/commits/{p}"} for p in info.parents],
    }


def check_run(repo: str, run_id: int, body: dict[str, Any], now: str) -> dict[str, Any]:
    template = _rewritten("check_run.completed.json", repo)["check_run"]
    template.update(
        id=run_id,
        node_id=f"CR_{run_id}",
        name=body["name"],
        head_sha=body["head_sha"],
        external_id=body.get("external_id", ""),
        url=f"{API}/repos/{repo}/check-runs/{run_id}",
        html_url=f"{WEB}/{repo}/runs/{run_id}",
        details_url=body.get("details_url", f"{WEB}/{repo}/runs/{run_id}"),
        started_at=now,
        pull_requests=[],
    )
    template["output"] = {
        "title": None,
        "summary": None,
        "text": None,
        "annotations_count": 0,
        "annotations_url": f"{API}/repos/{repo}/check-runs/{run_id}/annotations",
    }
    template["check_suite"] = {"id": 5_000_000_000 + run_id}
    return template
