"""Response bodies in GitHub's shapes, built from @octokit/webhooks-examples payloads."""

from __future__ import annotations

import base64
import copy
import json
import zlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.fakegithub import gitdata
from tests.fakegithub.apps import FakeApp, FakeInstallation
from tests.fakegithub.state import FakePull
from tests.fakegithub.testmerge import Mergeability

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub

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


def repository(
    full_name: str, repo_id: int | None = None, *, default_branch: str = "main", private: bool = False
) -> dict[str, Any]:
    """A repository as payloads and pull requests carry it (the fixture's, moved onto `full_name`)."""
    data = copy.deepcopy(_rewritten("pull_request.opened.json", full_name)["repository"])
    owner = full_name.split("/", maxsplit=1)[0]
    data["owner"] = user(owner, data["owner"]["type"])
    data.update(default_branch=default_branch, private=private, visibility="private" if private else "public")
    data.setdefault("topics", [])
    if repo_id is not None:
        data.update(id=repo_id, node_id=f"R_{repo_id}")
    return data


def full_repository(full_name: str, repo_id: int, *, default_branch: str, private: bool) -> dict[str, Any]:
    """`GET /repos/{owner}/{repo}`: the repository with the fields only that endpoint sends."""
    data = repository(full_name, repo_id, default_branch=default_branch, private=private)
    data.pop("stargazers", None)
    for key in ("created_at", "pushed_at"):
        if isinstance(data.get(key), int):
            data[key] = "2019-05-15T15:19:25Z"
    data.update(
        has_discussions=False, has_downloads=True, subscribers_count=0, network_count=0, is_template=False,
        topics=[], allow_forking=True, web_commit_signoff_required=False, temp_clone_token=None,
        permissions={"admin": False, "maintain": False, "push": False, "triage": False, "pull": True},
    )  # fmt: skip
    return data


def user(login: str, kind: str = "User") -> dict[str, Any]:
    """A simple user (or organization) with an id stable per login."""
    uid = zlib.crc32(login.lower().encode()) % 90_000_000 + 1_000_000
    base = f"{API}/users/{login}"
    return {
        "login": login, "id": uid, "node_id": f"U_{uid}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4", "gravatar_id": "",
        "url": base, "html_url": f"{WEB}/{login}", "followers_url": f"{base}/followers",
        "following_url": f"{base}/following{{/other_user}}", "gists_url": f"{base}/gists{{/gist_id}}",
        "starred_url": f"{base}/starred{{/owner}}{{/repo}}", "subscriptions_url": f"{base}/subscriptions",
        "organizations_url": f"{base}/orgs", "repos_url": f"{base}/repos",
        "events_url": f"{base}/events{{/privacy}}", "received_events_url": f"{base}/received_events",
        "type": kind, "user_view_type": "public", "site_admin": False,
    }  # fmt: skip


def bot_user(slug: str) -> dict[str, Any]:
    return user(f"{slug}[bot]", "Bot")


def app_object(app: FakeApp) -> dict[str, Any]:
    """An App as `GET /app` and `check_run.app` show it."""
    return {
        "id": app.id, "slug": app.slug, "node_id": f"A_{app.id}", "client_id": app.client_id,
        "owner": user(app.owner, "Organization"), "name": app.name, "description": "",
        "external_url": f"https://{app.slug}.example", "html_url": f"{WEB}/apps/{app.slug}",
        "created_at": app.created_at, "updated_at": app.created_at,
        "permissions": dict(app.permissions), "events": list(app.events),
    }  # fmt: skip


GITHUB_ACTIONS_APP = {
    "id": 15368, "slug": "github-actions", "node_id": "MDM6QXBwMTUzNjg=", "client_id": "Iv1.05c79e9ad1f6bdfa",
    "owner": user("github", "Organization"), "name": "GitHub Actions",
    "description": "Automate your workflow from idea to production",
    "external_url": "https://help.github.com/en/actions", "html_url": "https://github.com/apps/github-actions",
    "created_at": "2018-07-30T09:30:17Z", "updated_at": "2019-12-10T19:04:12Z",
    "permissions": {"actions": "write", "checks": "write", "contents": "write", "metadata": "read",
                    "pull_requests": "write", "statuses": "write"},
    "events": ["check_run", "check_suite", "pull_request", "push", "workflow_dispatch", "workflow_run"],
}  # fmt: skip


def installation_object(inst: FakeInstallation, app: FakeApp) -> dict[str, Any]:
    account = user(inst.account, inst.account_type)
    return {
        "id": inst.id, "client_id": app.client_id, "account": account,
        "repository_selection": inst.repository_selection,
        "access_tokens_url": f"{API}/app/installations/{inst.id}/access_tokens",
        "repositories_url": f"{API}/installation/repositories",
        "html_url": f"{WEB}/organizations/{inst.account}/settings/installations/{inst.id}",
        "app_id": app.id, "app_slug": app.slug, "target_id": account["id"], "target_type": inst.account_type,
        "permissions": dict(inst.permissions), "events": list(inst.events),
        "created_at": inst.created_at, "updated_at": inst.created_at, "single_file_name": None,
        "has_multiple_single_files": False, "single_file_paths": [],
        "suspended_by": None, "suspended_at": inst.suspended_at,
    }  # fmt: skip


def server_error(status: int) -> dict[str, Any]:
    """The bodies GitHub's front end sends with 5xx."""
    messages = {
        500: "Server Error",
        502: "Server Error",
        503: "Service Unavailable",
        504: "We couldn't respond to your request in time. Sorry about that. Please try resubmitting "
        "your request and contact us if the problem persists.",
    }
    return {
        "message": messages.get(status, "Server Error"),
        "documentation_url": "https://docs.github.com/rest",
    }


def repo_of(fake: FakeGitHub, full_name: str) -> dict[str, Any]:
    """The repository object for `full_name` with the fake's id and default branch."""
    repo_id = fake.repo_id(full_name)
    info = fake.repo_info[full_name]
    return repository(full_name, repo_id, default_branch=info.default_branch, private=info.private)


def pull(
    p: FakePull, root: Path, fake: FakeGitHub | None = None, merge: Mergeability | None = None
) -> dict[str, Any]:
    """`merge`: the test merge as one read of the pull request sees it (testmerge.py); without it
    (lists, webhook payloads) `mergeable` is null and `merge_commit_sha` the latest test merge."""
    data = _rewritten("pull_request.opened.json", p.repo)["pull_request"]
    base = gitdata.merge_base(root, p.base_sha, p.head_sha)
    changes = gitdata.file_changes(root, base, p.head_sha)
    data["number"] = p.number
    data["id"] = 1_000_000 + p.number
    data["node_id"] = f"PR_{data['id']}"
    url, issue = f"{API}/repos/{p.repo}/pulls/{p.number}", f"{API}/repos/{p.repo}/issues/{p.number}"
    html = f"{WEB}/{p.repo}/pull/{p.number}"
    data.update(
        url=url, html_url=html, diff_url=f"{html}.diff", patch_url=f"{html}.patch", issue_url=issue,
        commits_url=f"{url}/commits", review_comments_url=f"{url}/comments", comments_url=f"{issue}/comments",
        statuses_url=f"{API}/repos/{p.repo}/statuses/{p.head_sha}",
    )  # fmt: skip
    data["title"], data["state"], data["body"], data["draft"] = p.title, p.state, p.body, p.draft
    data["user"] = user(p.author, "Bot" if p.author.endswith("[bot]") else "User")
    label = {
        "id": 1,
        "node_id": "L",
        "url": "",
        "name": "",
        "color": "f29513",
        "default": False,
        "description": None,
    }
    data["labels"] = [
        dict(label, id=zlib.crc32(name.encode()), name=name, url=f"{API}/repos/{p.repo}/labels/{name}")
        for name in p.labels
    ]
    data["base"].update(ref=p.base_ref, sha=p.base_sha, label=f"{p.repo.split('/')[0]}:{p.base_ref}")
    data["base"]["repo"] = repository(p.repo) if fake is None else repo_of(fake, p.repo)
    data["base"]["user"] = data["base"]["repo"]["owner"]
    head_repo = p.head_repo
    data["head"].update(
        ref=p.head_ref, sha=p.head_sha, label=f"{(head_repo or p.repo).split('/')[0]}:{p.head_ref}"
    )
    if head_repo is None:
        data["head"]["repo"] = None
    else:
        data["head"]["repo"] = repository(head_repo) if fake is None else repo_of(fake, head_repo)
        data["head"]["repo"]["fork"] = head_repo != p.repo
        data["head"]["user"] = data["head"]["repo"]["owner"]
    data["commits"] = gitdata.count(root, f"{base}..{p.head_sha}")
    data["additions"] = sum(c.additions for c in changes)
    data["deletions"] = sum(c.deletions for c in changes)
    data["changed_files"] = len(changes)
    data["merged"], data["merged_at"], data["closed_at"] = False, None, None
    data["mergeable"], data["mergeable_state"], data["merge_commit_sha"] = (
        (merge.mergeable, merge.mergeable_state, merge.merge_commit_sha)
        if merge is not None
        else (None, "unknown", p.merge.commit)
    )
    data["rebaseable"] = data["mergeable"]
    data.setdefault("auto_merge", None)
    data.setdefault("active_lock_reason", None)
    if p.state == "closed":
        data["closed_at"] = data["updated_at"]
    return data


def minimal_pull(p: FakePull, fake: FakeGitHub) -> dict[str, Any]:
    """A pull request as check runs, suites and workflow runs list it."""

    def side(repo: str, ref: str, sha: str) -> dict[str, Any]:
        return {"ref": ref, "sha": sha, "repo": {"id": fake.repo_id(repo), "url": f"{API}/repos/{repo}",
                                                 "name": repo.split("/")[1]}}  # fmt: skip

    return {
        "url": f"{API}/repos/{p.repo}/pulls/{p.number}",
        "id": 1_000_000 + p.number,
        "number": p.number,
        "head": side(p.head_repo or p.repo, p.head_ref, p.head_sha),
        "base": side(p.repo, p.base_ref, p.base_sha),
    }


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


def person(p: tuple[str, str, str]) -> dict[str, Any]:
    """A commit's author or committer (name, email, date)."""
    return {"name": p[0], "email": p[1], "date": p[2]}


def commit(repo: str, info: gitdata.CommitInfo) -> dict[str, Any]:
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


def git_commit(repo: str, info: gitdata.CommitInfo) -> dict[str, Any]:
    """A commit as the Git database API gives it (`GET /repos/{o}/{r}/git/commits/{sha}`)."""
    return {
        "sha": info.sha,
        "node_id": f"C_{info.sha[:10]}",
        "url": f"{API}/repos/{repo}/git/commits/{info.sha}",
        "html_url": f"{WEB}/{repo}/commit/{info.sha}",
        "author": person(info.author),
        "committer": person(info.committer),
        "message": info.message,
        "tree": {"sha": info.tree, "url": f"{API}/repos/{repo}/git/trees/{info.tree}"},
        "parents": [
            {"sha": p, "url": f"{API}/repos/{repo}/git/commits/{p}", "html_url": f"{WEB}/{repo}/commit/{p}"}
            for p in info.parents
        ],
        "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None,
                         "verified_at": None},
    }  # fmt: skip


def simple_commit(info: gitdata.CommitInfo) -> dict[str, Any]:
    """A commit as `head_commit` in suites, workflow runs and merge groups."""
    return {
        "id": info.sha,
        "tree_id": info.tree,
        "message": info.message,
        "timestamp": info.committer[2],
        "author": {"name": info.author[0], "email": info.author[1]},
        "committer": {"name": info.committer[0], "email": info.committer[1]},
    }


def check_run(
    repo: str,
    run_id: int,
    body: dict[str, Any],
    now: str,
    *,
    app: dict[str, Any] | None = None,
    suite_id: int | None = None,
    pull_requests: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
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
        status="queued",
        conclusion=None,
        started_at=now,
        completed_at=None,
        pull_requests=pull_requests or [],
    )
    template["output"] = {
        "title": None,
        "summary": None,
        "text": None,
        "annotations_count": 0,
        "annotations_url": f"{API}/repos/{repo}/check-runs/{run_id}/annotations",
    }
    template["check_suite"] = {"id": suite_id if suite_id is not None else 5_000_000_000 + run_id}
    template["app"] = copy.deepcopy(app or GITHUB_ACTIONS_APP)
    template.pop("deployment", None)
    return template


def check_suite(
    repo: dict[str, Any],
    suite_id: int,
    *,
    app: dict[str, Any],
    head_sha: str,
    head_branch: str | None,
    head_commit: dict[str, Any],
    before: str | None,
    created_at: str,
) -> dict[str, Any]:
    full = repo["full_name"]
    return {
        "id": suite_id,
        "node_id": f"CS_{suite_id}",
        "head_branch": head_branch,
        "head_sha": head_sha,
        "status": "queued",
        "conclusion": None,
        "url": f"{API}/repos/{full}/check-suites/{suite_id}",
        "before": before,
        "after": head_sha,
        "pull_requests": [],
        "app": copy.deepcopy(app),
        "repository": repo,
        "created_at": created_at,
        "updated_at": created_at,
        "head_commit": head_commit,
        "latest_check_runs_count": 0,
        "check_runs_url": f"{API}/repos/{full}/check-suites/{suite_id}/check-runs",
        "rerequestable": True,
        "runs_rerequestable": True,
    }


def workflow(repo: str, workflow_id: int, name: str, path: str) -> dict[str, Any]:
    return {
        "id": workflow_id,
        "node_id": f"W_{workflow_id}",
        "name": name,
        "path": path,
        "state": "active",
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        "url": f"{API}/repos/{repo}/actions/workflows/{workflow_id}",
        "html_url": f"{WEB}/{repo}/blob/main/{path}",
        "badge_url": f"{WEB}/{repo}/workflows/{name}/badge.svg",
    }


def workflow_run(
    repo: dict[str, Any],
    head_repo: dict[str, Any],
    run_id: int,
    *,
    name: str,
    workflow_id: int,
    path: str,
    event: str,
    head_sha: str,
    head_branch: str | None,
    head_commit: dict[str, Any],
    suite_id: int,
    run_number: int,
    actor: dict[str, Any],
    created_at: str,
) -> dict[str, Any]:
    full = repo["full_name"]
    url = f"{API}/repos/{full}/actions/runs/{run_id}"
    return {
        "id": run_id, "name": name, "node_id": f"WFR_{run_id}", "head_branch": head_branch,
        "head_sha": head_sha, "path": path, "display_title": head_commit["message"].split("\n")[0],
        "run_number": run_number, "event": event, "status": "queued", "conclusion": None,
        "workflow_id": workflow_id, "check_suite_id": suite_id, "check_suite_node_id": f"CS_{suite_id}",
        "url": url, "html_url": f"{WEB}/{full}/actions/runs/{run_id}", "pull_requests": [],
        "created_at": created_at, "updated_at": created_at, "actor": actor, "triggering_actor": actor,
        "run_attempt": 1, "referenced_workflows": [], "run_started_at": created_at,
        "jobs_url": f"{url}/jobs", "logs_url": f"{url}/logs",
        "check_suite_url": f"{API}/repos/{full}/check-suites/{suite_id}", "artifacts_url": f"{url}/artifacts",
        "cancel_url": f"{url}/cancel", "rerun_url": f"{url}/rerun", "previous_attempt_url": None,
        "workflow_url": f"{API}/repos/{full}/actions/workflows/{workflow_id}", "head_commit": head_commit,
        "repository": repo, "head_repository": head_repo,
    }  # fmt: skip


def git_ref(repo: str, ref: str, sha: str) -> dict[str, Any]:
    return {
        "ref": ref,
        "node_id": f"REF_{zlib.crc32(ref.encode())}",
        "url": f"{API}/repos/{repo}/git/{ref}",
        "object": {"sha": sha, "type": "commit", "url": f"{API}/repos/{repo}/git/commits/{sha}"},
    }


def branch(repo: str, name: str, commit_obj: dict[str, Any], *, protected: bool = False) -> dict[str, Any]:
    return {
        "name": name,
        "commit": commit_obj,
        "_links": {"self": f"{API}/repos/{repo}/branches/{name}", "html": f"{WEB}/{repo}/tree/{name}"},
        "protected": protected,
        "protection": {"enabled": protected, "required_status_checks": {"enforcement_level": "off",
                                                                         "contexts": [], "checks": []}},
        "protection_url": f"{API}/repos/{repo}/branches/{name}/protection",
    }  # fmt: skip
