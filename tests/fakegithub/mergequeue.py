"""Merge queues: a queued pull request becomes a real merge commit on a `gh-readonly-queue` branch.

GitHub builds the group's head by merging the pull request onto the tip of the base branch and
pushes it to `refs/heads/gh-readonly-queue/{base}/pr-{number}-{sha}`; the `merge_group` event names
that head and the base it was built on. The commit is made with git plumbing (merge-tree,
commit-tree, update-ref), so the test repository's work tree is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tests.fakegithub import gitdata

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub, FakePull


@dataclass(frozen=True)
class MergeGroup:
    repo: str
    number: int
    base_ref: str
    base_sha: str
    head_ref: str  # without refs/heads/
    head_sha: str


def add_merge_group(fake: FakeGitHub, pull: FakePull) -> MergeGroup:
    root = fake.repos[pull.repo]
    base_sha = gitdata.resolve(root, f"refs/heads/{pull.base_ref}")
    merged = gitdata.git(root, "merge-tree", "--write-tree", base_sha, pull.head_sha).decode().split()
    if not merged:
        raise gitdata.GitDataError(f"pull request #{pull.number} does not merge onto {pull.base_ref}")
    message = f"Merge pull request #{pull.number} from {pull.head_ref}\n\n{pull.title}\n"
    identity = ("-c", "user.name=GitHub", "-c", "user.email=noreply@github.com")
    made = gitdata.git(root, *identity, "commit-tree", merged[0], "-p", base_sha, "-p", pull.head_sha,
                       stdin=message.encode())  # fmt: skip
    head_sha = made.decode().strip()
    head_ref = f"gh-readonly-queue/{pull.base_ref}/pr-{pull.number}-{pull.head_sha}"
    gitdata.git(root, "update-ref", f"refs/heads/{head_ref}", head_sha)
    group = MergeGroup(pull.repo, pull.number, pull.base_ref, base_sha, head_ref, head_sha)
    with fake.lock:
        fake.merge_groups.append(group)
    return group


def remove_merge_group(fake: FakeGitHub, group: MergeGroup) -> None:
    """GitHub deletes the queue branch when the group leaves the queue."""
    gitdata.git(fake.repos[group.repo], "update-ref", "-d", f"refs/heads/{group.head_ref}")
    with fake.lock:
        fake.merge_groups.remove(group)
