"""What merging the change would do to the base: `base..merge result`, beside `merge-base..head`.

A branch forked before the base renamed a file into a protected directory still modifies that
file when merged, though `merge-base..head` names only the old path. Gatherers hand the engine the
merge side as data (the merge result, its diff against the base, or why it cannot be known); path
rules are judged on the union of both sides and budgets on the larger, each finding naming the
side it comes from.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from bot.engine.change import Change
from bot.engine.findings import RuleId, Violation


class MergeSource(StrEnum):
    """Who computed the merge result."""

    FAST_FORWARD = "fast-forward"  # the base is the merge-base: merging gives the head's tree
    MERGE_TREE = "merge-tree"  # `git merge-tree --write-tree`, in receipt's scratch repository
    GITHUB = "github"  # GitHub's test merge commit (`merge_commit_sha`, `refs/pull/N/merge`)


@dataclass(frozen=True, slots=True)
class MergeSide:
    """The merge result and `base..merge` as a change (no texts: only paths and lines are judged).

    `unassessable` says why the merge cannot be known (a conflict, GitHub reporting the pull
    request unmergeable, or its test merge not computed in time); `change` is then None.
    `added_since_fork`: the paths of `change` absent from the merge-base, which the base branch
    added (or renamed a file to) since the fork.
    """

    source: MergeSource
    tree: str | None = None
    commit: str | None = None
    change: Change | None = None
    added_since_fork: frozenset[str] = frozenset()
    unassessable: str | None = None
    conflicts: tuple[str, ...] = ()


def unassessable_violations(merge: MergeSide | None) -> Iterator[Violation]:
    """A merge that cannot be known is a scope failure: what merging would change is unjudged."""
    if merge is None or merge.unassessable is None:
        return
    yield Violation(
        RuleId.MERGE,
        None,
        None,
        f"Cannot assess what merging this change would do to the base: {merge.unassessable}. The "
        "receipt judges the merge as well as merge-base..head, and fails closed while it cannot "
        "see the merge. Bring the branch up to date with its base (merge or rebase) and resolve "
        "any conflicts, then evaluate it again.",
        "merge-conflict" if merge.conflicts else "merge-unknown",
    )


def merge_note(merge: MergeSide, path: str) -> str:
    """Why a path only the merge side touches is touched at all."""
    if path in merge.added_since_fork:
        return "the base branch added it, or renamed a file to it, since this branch forked"
    return "the base branch changed it since this branch forked"
