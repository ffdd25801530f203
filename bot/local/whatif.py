"""`receipt whatif`: the last merged changes of a branch (its first-parent history, as `replay
tasks` reads it), each judged exactly as `receipt check --base PARENT --head COMMIT` judges it,
under the manifest of its base and under a new one; no tests are run. The comparison and the
table are the engine's (bot/engine/whatif.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from bot.engine import MANIFEST_PATH, ReceiptError
from bot.engine.whatif import Judged, WhatIfRow, compare
from bot.local.check import CheckOptions, run_check
from bot.local.git import Git
from bot.replay.tasks import Selection, parse_message, select_commits

NO_TESTS_REASON = "receipt whatif runs no tests"


@dataclass(frozen=True, slots=True)
class WhatIfOptions:
    repo: Path
    manifest: Path
    branch: str = "HEAD"
    last: int = 20
    manifest_path: str = MANIFEST_PATH


def _judged(options: CheckOptions) -> Judged:
    try:
        return Judged(run_check(options))
    except ReceiptError as exc:  # too large to assess, an invalid base manifest: that side has no receipt
        return Judged(None, f"{exc.title}: {exc.problem}")


def whatif_rows(options: WhatIfOptions) -> list[WhatIfRow]:
    """One row per first-parent commit that has a parent, newest first."""
    git = Git.open(options.repo)
    rows = []
    for commit in select_commits(git, Selection(branch=options.branch, last=options.last)):
        if not commit.parents:
            continue
        base = CheckOptions(
            repo=options.repo,
            base=commit.parents[0],
            head=commit.sha,
            manifest_path=options.manifest_path,
            no_tests=True,
            no_tests_reason=NO_TESTS_REASON,
        )
        new = replace(base, manifest_file=options.manifest)
        title = parse_message(commit.message)[0]
        rows.append(compare(commit.sha, title, _judged(base), _judged(new)))
    return rows
