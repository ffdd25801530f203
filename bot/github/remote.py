"""Gather a pull request's receipt inputs from the API alone: no checkout, nothing from its run.

The diff comes from GitHub (the diff media type, else rebuilt from the files API); everything else
is the shared gather (`bot/gather/core.py`) over the API source.
"""

from __future__ import annotations

from typing import Any

from githubkit import GitHub

from bot.engine import MANIFEST_PATH, Inputs, TestEvidence
from bot.gather import Request, Revisions, gather
from bot.github.diffs import fetch_diff
from bot.github.merges import WAIT_HERE, MergeWaits, base_tip, merge_given, wait_for_merge
from bot.github.pulls import PullRequest, merge_base
from bot.github.repo import RepoRef
from bot.github.source import ApiSource


def _revisions(gh: GitHub[Any], repo: RepoRef, pull: PullRequest, base: str) -> Revisions:
    return Revisions(base, pull.head_sha, merge_base(gh, repo, base, pull.head_sha))


def gather_pull(
    gh: GitHub[Any],
    repo: RepoRef,
    pull: PullRequest,
    *,
    tests: TestEvidence,
    manifest_path: str = MANIFEST_PATH,
    reference_path: str | None = None,
    source: ApiSource | None = None,
    merge_waits: MergeWaits = WAIT_HERE,
) -> Inputs:
    """Inputs for `pull` as it is on GitHub now, judged by its base commit's manifest.

    The base is the base branch as it is now (manifest included); when it has moved on from the
    merge-base, what merging does is GitHub's test merge, made on that base. The
    reference patch, like the manifest, is read from the base commit. Raises GitHubError, HeadMoved
    or a ReceiptError (TooLargeToAssess, ManifestError, DiffParseError, UsageError for the reference);
    MergePending when `merge_waits` asks for it.
    """
    source = source or ApiSource(gh, repo)
    revisions = _revisions(gh, repo, pull, base_tip(gh, repo, pull))
    merge = None
    if not revisions.fast_forward:
        tested = wait_for_merge(gh, repo, pull, waits=merge_waits)
        if tested.base != revisions.base:  # the base branch moved on again meanwhile
            revisions = _revisions(gh, repo, pull, tested.base)
        merge = merge_given(gh, repo, tested, source)
    request = Request(
        manifest_path=manifest_path,
        reference_at_base=reference_path,
        repo=repo.full_name,
        pr=pull.number,
        pull_request=pull.facts,
        description=pull.description,
    )

    def diff() -> bytes:  # fetched once the policy is read: a change too large to fetch is judged under it
        return fetch_diff(gh, repo, pull, source, revisions.merge_base).data

    return gather(source, revisions, diff, request, merge=merge, tests=tests)
