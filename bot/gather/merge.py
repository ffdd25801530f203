"""The merge side every gatherer shares: what merging the change would do to the base.

A shell computes the merge its own way (`git merge-tree` in receipt's scratch repository, or
GitHub's test merge commit) and hands over a `MergeGiven`; reading `base..merge` as a change, and
the fast-forward case where no merge is needed, are the same for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine import Change, MergeSide, MergeSource, change_digest, parse_bounded, touched_paths
from bot.gather.source import Revisions, Source


@dataclass(frozen=True, slots=True)
class MergeGiven:
    """A merge as a shell computed it: the result (a tree, and the commit when there is one) with
    the diff bytes of `base..result`; or, with `problem`, why there is none (a conflict…)."""

    source: MergeSource
    tree: str | None = None
    commit: str | None = None
    diff: bytes | None = None
    problem: str | None = None
    conflicts: tuple[str, ...] = ()


def merge_side(source: Source, revisions: Revisions, change: Change, given: MergeGiven | None) -> MergeSide:
    """`given` read as a change; None for a fast-forward (merging then gives the head's own tree,
    and `base..merge` is the change itself)."""
    base, head = revisions.base, revisions.head
    if given is None:
        if not revisions.fast_forward:
            raise ValueError("a merge result is needed when the base has moved on from the merge-base")
        return MergeSide(MergeSource.FAST_FORWARD, tree=source.tree_id(head), commit=head, change=change)
    result = given.commit or given.tree
    if given.problem is not None or result is None or given.diff is None:
        why = given.problem or "no merge result was computed"
        return MergeSide(given.source, given.tree, given.commit, unassessable=why, conflicts=given.conflicts)
    diff = parse_bounded(given.diff)  # TooLargeToAssess past what one receipt reads
    paths = touched_paths(diff)
    before, after = source.entries(base, paths), source.entries(result, paths)
    at_fork = source.entries(revisions.merge_base, paths)
    return MergeSide(
        given.source,
        given.tree,
        given.commit,
        change=Change(diff, change_digest(diff, before, after)),
        added_since_fork=frozenset(p for p in paths if p not in at_fork),
    )
