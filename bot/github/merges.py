"""GitHub's test merge of a pull request: what merging it would do to the base, from the API.

A pull request merges onto its base branch as it is now, which may have moved on from the
`base.sha` an event or an earlier read named: the branch's tip is read first, and when it is the
merge-base merging is a fast-forward and nothing more is asked. Otherwise: GitHub merges the head
onto the base branch in a background job, and `mergeable` is null until that
job has run (a read starts it), then true with `merge_commit_sha` naming the test merge commit
(`refs/pull/N/merge`, parents: the base commit, then the head), or false when it conflicts. The
pull request is read again, with growing waits, until the answer is in and the merge commit is of
this head; past the last wait the merge cannot be assessed, and the receipt fails closed.

Where waiting would hold a worker that others need (the App), `MergeWaits(pending=True)` raises
MergePending after the last wait instead, and the caller looks again later with a job of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from githubkit import GitHub

from bot.engine import MergeSource
from bot.gather import MergeGiven
from bot.github.diffs import Entries, HeadMoved, fetch_range_diff
from bot.github.errors import NotFound, UnexpectedResponse, translated
from bot.github.pulls import PullRequest, get_pull
from bot.github.repo import RepoRef

MERGE_WAITS = (0.5, 1.0, 2.0, 4.0, 8.0)  # seconds between reads: about 15 s in all


@dataclass(frozen=True, slots=True)
class MergeWaits:
    """How long to wait here for GitHub's answer: the seconds between reads; with `pending`, a merge
    still not computed after them raises MergePending instead of being a problem; `before`, the
    seconds already waited elsewhere (earlier looks of the same job), for the problem's text."""

    waits: tuple[float, ...] = MERGE_WAITS
    pending: bool = False
    before: float = 0.0


WAIT_HERE = MergeWaits()  # an Action's job has nothing else to do meanwhile


class MergePending(Exception):
    """GitHub has not computed the test merge of `head` yet: look again later."""

    def __init__(self, number: int, head: str) -> None:
        super().__init__(f"GitHub is still computing the test merge of #{number} at {head[:12]}")
        self.number = number
        self.head = head


@dataclass(frozen=True, slots=True)
class PullMerge:
    """The test merge GitHub computed: the base it merged onto and the commit; or why there is none."""

    base: str
    commit: str | None = None
    tree: str | None = None
    problem: str | None = None


def base_tip(gh: GitHub[Any], repo: RepoRef, pull: PullRequest) -> str:
    """The commit the pull request's base branch points at now (`pull.base_sha` if it is gone)."""
    try:
        with translated():
            data: Any = gh.rest.git.get_ref(repo.owner, repo.name, f"heads/{pull.base_ref}").json()
    except NotFound:
        return pull.base_sha
    try:
        return str(data["object"]["sha"])
    except (KeyError, TypeError) as exc:
        raise UnexpectedResponse(200, f"branch {pull.base_ref} without {exc}") from exc


def _parents_and_tree(gh: GitHub[Any], repo: RepoRef, sha: str) -> tuple[list[str], str]:
    with translated():
        data = gh.rest.git.get_commit(repo.owner, repo.name, sha).json()
    try:
        return [str(p["sha"]) for p in data["parents"]], str(data["tree"]["sha"])
    except (KeyError, TypeError) as exc:
        raise UnexpectedResponse(200, f"commit {sha[:12]} without {exc}") from exc


def wait_for_merge(
    gh: GitHub[Any],
    repo: RepoRef,
    pull: PullRequest,
    *,
    waits: MergeWaits = WAIT_HERE,
    sleep: Callable[[float], None] = time.sleep,
) -> PullMerge:
    """The test merge of `pull`'s head, waited for; HeadMoved when the head moves meanwhile."""
    base = pull.base_sha
    for wait in (*waits.waits, None):
        now = get_pull(gh, repo, pull.number)
        if now.head_sha != pull.head_sha:
            raise HeadMoved(
                f"pull request #{pull.number} moved from {pull.head_sha[:12]} to {now.head_sha[:12]}"
            )
        base = now.base_sha
        if now.mergeable is False:
            return PullMerge(
                base,
                problem=f"GitHub reports that pull request #{pull.number} does not merge cleanly onto "
                f"{now.base_ref} (mergeable: false): it has conflicts to resolve",
            )
        if now.mergeable and now.merge_commit_sha:
            parents, tree = _parents_and_tree(gh, repo, now.merge_commit_sha)
            if len(parents) == 2 and parents[1] == pull.head_sha:  # not a merge of an older head
                return PullMerge(parents[0], now.merge_commit_sha, tree)
        if wait is not None:
            sleep(wait)
    if waits.pending:
        raise MergePending(pull.number, pull.head_sha)
    return PullMerge(
        base,
        problem=f"GitHub had not computed the test merge of {pull.head_sha[:12]} after "
        f"{waits.before + sum(waits.waits):g} seconds (mergeable: null); evaluate it again once GitHub "
        "shows whether it can be merged",
    )


def merge_given(gh: GitHub[Any], repo: RepoRef, merge: PullMerge, source: Entries) -> MergeGiven:
    """The test merge and its diff against the base it was made on (the compare API)."""
    if merge.problem is not None or merge.commit is None:
        return MergeGiven(MergeSource.GITHUB, problem=merge.problem or "GitHub gave no test merge")
    diff = fetch_range_diff(gh, repo, merge.base, merge.commit, source)
    return MergeGiven(MergeSource.GITHUB, tree=merge.tree, commit=merge.commit, diff=diff.data)
