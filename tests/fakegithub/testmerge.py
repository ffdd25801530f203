"""A pull request's test merge, computed as GitHub computes it: asynchronously, on demand.

GitHub merges the head onto the tip of the base branch in a background job and keeps the result at
`refs/pull/{n}/merge` (`merge_commit_sha`, parents: the base tip, then the head). Whenever the head
or the base branch moves, the next reads answer `mergeable: null` (`mergeable_state: unknown`)
while the job runs — `fake.mergeability_reads` of them (1 by default: GitHub's first answer after
a push), `merge_commit_sha` still naming the previous test merge. Then `mergeable` is true with the
new merge commit, or false (`dirty`) when the merge conflicts; a conflict writes no merge commit.
The merge is made with git plumbing (merge-tree, commit-tree, update-ref) like the merge queue's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.fakegithub import gitdata

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub, FakePull


@dataclass
class MergeJob:
    """What GitHub knows of one pull request's test merge."""

    key: tuple[str, str] | None = None  # (base tip, head) the current job is for
    reads_left: int = 0  # reads still answered `mergeable: null`
    mergeable: bool | None = None
    commit: str | None = None  # the latest test merge commit (stays after the base or head moves)


@dataclass(frozen=True)
class Mergeability:
    mergeable: bool | None
    mergeable_state: str
    merge_commit_sha: str | None


def mergeability(fake: FakeGitHub, pull: FakePull) -> Mergeability:
    """The pull request's test merge as one read of it sees it (a read may start or finish the job)."""
    if pull.state != "open":
        return Mergeability(None, "unknown", pull.merge.commit)
    root = fake.repos[pull.repo]
    tip = gitdata.resolve(root, f"refs/heads/{pull.base_ref}")
    with fake.lock:
        state = pull.merge
        if state.key != (tip, pull.head_sha):
            state.key, state.reads_left, state.mergeable = (tip, pull.head_sha), fake.mergeability_reads, None
        if state.reads_left > 0:
            state.reads_left -= 1
            return Mergeability(None, "unknown", state.commit)
        if state.mergeable is None:
            made = _merge(root, pull, tip)
            state.mergeable = made is not None
            state.commit = made or state.commit
        return Mergeability(state.mergeable, "clean" if state.mergeable else "dirty", state.commit)


def _merge(root: Path, pull: FakePull, tip: str) -> str | None:
    try:
        tree = gitdata.git(root, "merge-tree", "--write-tree", tip, pull.head_sha).decode().split()[0]
    except gitdata.GitDataError:
        return None  # merge-tree exits 1 on a conflict
    message = f"Merge {pull.head_sha} into {tip}\n"
    identity = ("-c", "user.name=GitHub", "-c", "user.email=noreply@github.com")
    made = gitdata.git(
        root, *identity, "commit-tree", tree, "-p", tip, "-p", pull.head_sha, stdin=message.encode()
    )
    sha = made.decode().strip()
    gitdata.git(root, "update-ref", f"refs/pull/{pull.number}/merge", sha)
    return sha
