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
from bot.github.pulls import PullRequest, merge_base
from bot.github.repo import RepoRef
from bot.github.source import ApiSource


def gather_pull(
    gh: GitHub[Any],
    repo: RepoRef,
    pull: PullRequest,
    *,
    tests: TestEvidence,
    manifest_path: str = MANIFEST_PATH,
    reference_path: str | None = None,
    source: ApiSource | None = None,
) -> Inputs:
    """Inputs for `pull` as it is on GitHub now, judged by its base commit's manifest.

    The reference patch, like the manifest, is read from the base commit. Raises GitHubError or a
    ReceiptError (TooLargeToAssess, ManifestError, DiffParseError, UsageError for the reference).
    """
    source = source or ApiSource(gh, repo)
    revisions = Revisions(pull.base_sha, pull.head_sha, merge_base(gh, repo, pull.base_sha, pull.head_sha))
    fetched = fetch_diff(gh, repo, pull, source, revisions.merge_base)
    request = Request(
        manifest_path=manifest_path,
        reference_at_base=reference_path,
        repo=repo.full_name,
        pr=pull.number,
        pull_request=pull.facts,
        description=pull.description,
    )
    return gather(source, revisions, fetched.data, request, tests=tests)
