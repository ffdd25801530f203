"""What-if over the API: a pull request that edits the manifest gets, below its receipt, how the
base branch's recently merged pull requests would be judged under its proposed manifest.

Each merged pull request is judged as it was merged: its merge commit's first parent to its merge
commit (a merge commit or a squash: the whole pull request; a rebase merge: its last commit), as
`receipt whatif` judges a commit of first-parent history, through the same shared judging
(bot/gather/whatif.py). The receipt never waits on it: the what-if has its own request budget and
client (no rate-limit waits, one retry), and any failure to list or read becomes "what-if not
computed: <reason>" in place of the table.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from githubkit import GitHub

from bot.engine import Description, DescriptionSource, Inputs, ReceiptError
from bot.engine.whatif import Over, PullWhatIf, WhatIfRow
from bot.gather import GivenFile, Request, Revisions, gather
from bot.gather.source import ReadBudget
from bot.gather.whatif import MAX_LAST, proposed_manifest, whatif_row
from bot.github.cache import ObjectCache
from bot.github.client import RetryPolicy
from bot.github.diffs import fetch_range_diff
from bot.github.errors import GitHubError, UnexpectedResponse, translated
from bot.github.repo import RepoRef
from bot.github.source import ApiSource

PER_PAGE = 100
MAX_LIST_PAGES = 3  # closed but unmerged pull requests are skipped; past this many pages, stop
REQUESTS_PER_CHANGE = 40  # a commit, a compare, two manifests, two trees, the change's blobs
# The Python tree `references` follows is read once for all the changes (blobs are cached by
# content), within a smaller budget than a receipt's own: over it, `references` says so
WHATIF_READ = ReadBudget(files=200, bytes=4 << 20, where="the what-if's API source")
# Fail fast: a rate limit or an outage leaves the table out rather than holding the receipt back
WHATIF_RETRY = RetryPolicy(server_retries=1, backoff_seconds=0.5, rate_limit_retries=0)
WHATIF_SECONDS = 60.0  # no request starts after this long; each may take WHATIF_REQUEST_SECONDS
WHATIF_REQUEST_SECONDS = 10.0


class BudgetSpent(Exception):
    """Raised from the client's request hook once the what-if has made its allowed requests."""


@dataclass
class RequestBudget:
    """How many requests the what-if may make, and until when (monotonic seconds)."""

    limit: int
    seconds: float = WHATIF_SECONDS
    made: int = 0
    started: float = field(default_factory=time.monotonic)
    refused: str | None = None  # why the hook refused a request (githubkit wraps what it raises)

    @property
    def spent(self) -> bool:
        return self.made > self.limit or time.monotonic() - self.started > self.seconds

    @property
    def reason(self) -> str:
        if self.made > self.limit:
            return f"its budget of {self.limit} GitHub requests is spent"
        return f"it took longer than its {self.seconds:g} seconds"

    def count(self, _request: httpx.Request) -> None:
        self.made += 1
        if self.spent:
            self.refused = self.reason
            raise BudgetSpent(self.refused)


@dataclass(frozen=True, slots=True)
class Merged:
    number: int
    title: str
    merge_commit_sha: str


@dataclass(frozen=True, slots=True)
class WhatIfAsk:
    """What the pull request's what-if compares: `last` merged pull requests into `branch`,
    under `proposed` (the pull request's manifest)."""

    branch: str
    proposed: GivenFile
    last: int


def _budgeted(gh: GitHub[Any], budget: RequestBudget) -> GitHub[Any]:
    """A client like `gh` (its token, its response hooks) whose requests `budget` counts."""
    hooks: dict[str, list[Any]] = {k: list(v) for k, v in (gh.config.event_hooks or {}).items()}
    hooks.setdefault("request", []).append(budget.count)
    timeout = httpx.Timeout(WHATIF_REQUEST_SECONDS)
    config = dataclasses.replace(gh.config, event_hooks=hooks, auto_retry=WHATIF_RETRY, timeout=timeout)
    return GitHub(gh.auth, config=config)


def _merged(item: Any) -> Merged | None:
    if not isinstance(item, Mapping) or not item.get("merged_at"):
        return None
    number, sha, title = item.get("number"), item.get("merge_commit_sha"), item.get("title")
    if not isinstance(number, int) or not isinstance(sha, str) or len(sha) != 40:
        raise UnexpectedResponse(200, "a merged pull request without a number or a merge_commit_sha")
    return Merged(number, title if isinstance(title, str) else "", sha)


def merged_pulls(gh: GitHub[Any], repo: RepoRef, branch: str, last: int) -> list[Merged]:
    """The `last` most recently updated merged pull requests into `branch`, newest first."""
    found: list[Merged] = []
    for page in range(1, MAX_LIST_PAGES + 1):
        with translated():
            listed = gh.rest.pulls.list(
                repo.owner, repo.name, state="closed", base=branch, sort="updated", direction="desc",
                per_page=PER_PAGE, page=page,
            ).json()  # fmt: skip
        if not isinstance(listed, list):
            raise UnexpectedResponse(200, "the pull request list is not a list")
        found.extend(m for m in map(_merged, listed) if m is not None)
        if len(found) >= last or len(listed) < PER_PAGE:
            break
    return found[:last]


def _first_parent(gh: GitHub[Any], repo: RepoRef, sha: str) -> tuple[str, str] | None:
    """The merge commit's first parent and its message; None for a root commit."""
    with translated():
        data = gh.rest.git.get_commit(repo.owner, repo.name, sha).json()
    try:
        parents, message = data["parents"], str(data["message"])
        return (str(parents[0]["sha"]), message) if parents else None
    except (KeyError, TypeError, IndexError) as exc:
        raise UnexpectedResponse(200, f"a commit without {exc}") from exc


def _row(
    gh: GitHub[Any], repo: RepoRef, source: ApiSource, merged: Merged, ask: WhatIfAsk
) -> WhatIfRow | None:
    found = _first_parent(gh, repo, merged.merge_commit_sha)
    if found is None:
        return None
    parent, message = found
    revisions = Revisions(parent, merged.merge_commit_sha, parent)  # the first parent is an ancestor
    diff = functools.cache(lambda: fetch_range_diff(gh, repo, parent, merged.merge_commit_sha, source).data)

    def read(request: Request) -> Inputs:
        return gather(source, revisions, diff(), request)

    request = Request(
        manifest_path=ask.proposed.name,
        repo=repo.full_name,
        pr=merged.number,
        description=Description(message, DescriptionSource.COMMIT_MESSAGE),
    )
    title = f"#{merged.number} {merged.title}"
    return whatif_row(merged.merge_commit_sha, title, read, request, ask.proposed)


def whatif_rows(
    gh: GitHub[Any], repo: RepoRef, ask: WhatIfAsk, budget: RequestBudget, cache: ObjectCache | None = None
) -> list[WhatIfRow]:
    """Raises GitHubError (a spent budget too: githubkit wraps the hook's refusal); a change that
    cannot be judged is a row's problem."""
    client = _budgeted(gh, budget)
    source = ApiSource(client, repo, shared=cache, budget=WHATIF_READ)
    rows = (_row(client, repo, source, m, ask) for m in merged_pulls(client, repo, ask.branch, ask.last))
    return [r for r in rows if r is not None]


def whatif_section(
    gh: GitHub[Any], repo: RepoRef, ask: WhatIfAsk, cache: ObjectCache | None = None
) -> PullWhatIf:
    """The what-if below the receipt: the rows, or why there are none. Never raises for what
    GitHub answers."""
    budget = RequestBudget(
        MAX_LIST_PAGES + WHATIF_READ.files + REQUESTS_PER_CHANGE * ask.last, WHATIF_SECONDS
    )
    shown = PullWhatIf(ask.proposed.name, Over.MERGED_PULLS, ask.branch, ask.last)
    try:
        rows = whatif_rows(gh, repo, ask, budget, cache)
    except (GitHubError, BudgetSpent, ReceiptError) as exc:
        return dataclasses.replace(shown, not_computed=budget.refused or str(exc))
    return dataclasses.replace(shown, rows=tuple(rows))


def manifest_whatif(
    gh: GitHub[Any],
    repo: RepoRef,
    inputs: Inputs,
    *,
    branch: str,
    last: int,
    cache: ObjectCache | None = None,
) -> PullWhatIf | None:
    """A pull request's what-if over the merged pull requests into `branch`; None, with no
    request made, when it has none (bot/gather/whatif.py decides)."""
    proposed = proposed_manifest(inputs, last)
    if proposed is None:
        return None
    return whatif_section(gh, repo, WhatIfAsk(branch, proposed, min(last, MAX_LAST)), cache)
