"""Pull requests: one by number, those whose head is a commit, and the merge-base of a range."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from githubkit import GitHub

from bot.engine import Description, PullRequestFacts
from bot.github.errors import UnexpectedResponse, translated
from bot.github.repo import RepoRef

PER_PAGE = 100
MAX_OPEN_PULL_PAGES = 10


@dataclass(frozen=True, slots=True)
class PullRequest:
    number: int
    state: str
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    head_repo: str | None  # None when the fork was deleted
    author: str | None
    labels: tuple[str, ...]
    changed_files: int | None
    title: str | None = None
    body: str | None = None
    mergeable: bool | None = None  # null while GitHub computes the test merge (bot/github/merges.py)
    merge_commit_sha: str | None = None  # the test merge commit (refs/pull/N/merge), maybe stale

    @property
    def facts(self) -> PullRequestFacts:
        return PullRequestFacts(author=self.author, labels=self.labels, head_branch=self.head_ref)

    @property
    def description(self) -> Description:
        return Description.of_pull_request(self.title, self.body)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def pull_from_json(data: Any) -> PullRequest:
    """A pull request from the REST shape (also the webhook payload's `pull_request`)."""
    try:
        head, base = data["head"], data["base"]
        head_repo = head.get("repo")
        user = data.get("user")
        return PullRequest(
            number=int(data["number"]),
            state=str(data.get("state", "open")),
            base_ref=str(base["ref"]),
            base_sha=str(base["sha"]),
            head_ref=str(head["ref"]),
            head_sha=str(head["sha"]),
            head_repo=str(head_repo["full_name"]) if isinstance(head_repo, dict) else None,
            author=str(user["login"]) if isinstance(user, dict) else None,
            labels=tuple(str(label["name"]) for label in data.get("labels") or ()),
            changed_files=int(data["changed_files"]) if data.get("changed_files") is not None else None,
            title=_text(data.get("title")),
            body=_text(data.get("body")),
            mergeable=data["mergeable"] if isinstance(data.get("mergeable"), bool) else None,
            merge_commit_sha=_text(data.get("merge_commit_sha")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedResponse(200, f"pull request without {exc}") from exc


def get_pull(gh: GitHub[Any], repo: RepoRef, number: int) -> PullRequest:
    with translated():
        return pull_from_json(gh.rest.pulls.get(repo.owner, repo.name, number).json())


def pulls_with_head(gh: GitHub[Any], repo: RepoRef, sha: str) -> list[PullRequest]:
    """Open pull requests whose head commit is `sha`.

    Workflow-run and check payloads carry no pull requests for forks, so the head SHA is the key:
    first the commit's associated pull requests, then (forks are not always associated) the open
    pull requests of the repository.
    """
    with translated():
        associated = gh.rest.repos.list_pull_requests_associated_with_commit(
            repo.owner, repo.name, sha, per_page=PER_PAGE
        ).json()
    found = [p for p in map(pull_from_json, associated) if p.head_sha == sha and p.state == "open"]
    if found:
        return found
    for page in range(1, MAX_OPEN_PULL_PAGES + 1):
        with translated():
            listed = gh.rest.pulls.list(
                repo.owner, repo.name, state="open", per_page=PER_PAGE, page=page
            ).json()
        found.extend(p for p in map(pull_from_json, listed) if p.head_sha == sha)
        if len(listed) < PER_PAGE:
            break
    return found


def merge_base(gh: GitHub[Any], repo: RepoRef, base: str, head: str) -> str:
    """The merge-base of `base` and `head`, as GitHub's compare endpoint computes it."""
    with translated():
        data = gh.rest.repos.compare_commits(repo.owner, repo.name, f"{base}...{head}", per_page=1).json()
    try:
        return str(data["merge_base_commit"]["sha"])
    except (KeyError, TypeError) as exc:
        raise UnexpectedResponse(200, f"comparison of {base}...{head} without a merge-base") from exc
