"""`receipt whatif`: the last merged changes of a branch (its first-parent history, as `replay
tasks` reads it), each judged exactly as `receipt check --base PARENT --head COMMIT --no-tests`
judges it, under the manifest of its base and under a new one. The per-change judging is shared
with the App and the Action (bot/gather/whatif.py); the comparison is the engine's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.engine import MANIFEST_PATH, MAX_MANIFEST_BYTES, Description, DescriptionSource, Inputs
from bot.engine.whatif import WhatIfRow
from bot.gather import GivenFile, Request, Revisions
from bot.gather.whatif import NO_TESTS_REASON, whatif_row
from bot.local.check import CheckOptions, inputs_at, read_given, request_of
from bot.local.git import Git
from bot.replay.tasks import Selection, parse_message, select_commits


@dataclass(frozen=True, slots=True)
class WhatIfOptions:
    repo: Path
    manifest: Path
    branch: str = "HEAD"
    last: int = 20
    manifest_path: str = MANIFEST_PATH


def whatif_rows(options: WhatIfOptions) -> list[WhatIfRow]:
    """One row per first-parent commit that has a parent, newest first."""
    git = Git.open(options.repo)
    new = read_given(options.manifest, f"{options.manifest}: cannot read manifest", MAX_MANIFEST_BYTES)
    return first_parent_rows(git, options.branch, options.last, new, manifest_path=options.manifest_path)


def first_parent_rows(
    git: Git, rev: str, last: int, new: GivenFile, *, manifest_path: str = MANIFEST_PATH
) -> list[WhatIfRow]:
    """The last `last` commits of `rev`'s first-parent history, each that has a parent (a shallow
    clone's boundary has none) judged under its parent's manifest and under `new`."""
    check = CheckOptions(
        repo=git.root, manifest_path=manifest_path, no_tests=True, no_tests_reason=NO_TESTS_REASON
    )
    rows = []
    for commit in select_commits(git, Selection(branch=rev, last=last)):
        if not commit.parents:
            continue
        parent = commit.parents[0]
        revisions = Revisions(parent, commit.sha, git.merge_base(parent, commit.sha))

        def read(request: Request, revisions: Revisions = revisions) -> Inputs:
            return inputs_at(git, revisions, check, request)

        message = Description(git.commit_message(commit.sha), DescriptionSource.COMMIT_MESSAGE)
        request = request_of(check, repo=git.origin_repo(), description=message)
        rows.append(whatif_row(commit.sha, parse_message(commit.message)[0], read, request, new))
    return rows
