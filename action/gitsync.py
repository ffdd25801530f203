"""Make the checkout hold what the receipt needs: the base and head commits and their merge-base.

actions/checkout leaves a shallow clone of the merge commit by default. The base and head commits
are fetched by SHA (GitHub serves any commit of the repository's network, fork heads included),
then the history is deepened, doubling each round, until `git merge-base` finds the common
ancestor or there is nothing left to fetch.
"""

from __future__ import annotations

from bot.engine import ReceiptError
from bot.local.git import Git, GitError

REMOTE = "origin"
FIRST_DEEPEN = 50
MAX_ROUNDS = 12


class SyncError(ReceiptError):
    """The checkout cannot provide the commits the receipt is about."""


def is_shallow(git: Git) -> bool:
    return git.run("rev-parse", "--is-shallow-repository").decode().strip() == "true"


def _shallow_state(git: Git) -> bytes:
    path = git.run("rev-parse", "--git-path", "shallow").decode().strip()
    target = git.root / path
    return target.read_bytes() if target.exists() else b""


def _fetch(git: Git, *args: str) -> None:
    try:
        git.run("fetch", "--quiet", "--no-tags", "--no-recurse-submodules", *args)
    except GitError as exc:
        raise SyncError(
            f"git fetch from {REMOTE} failed: {exc.stderr.splitlines()[-1] if exc.stderr else exc}"
        ) from exc


def ensure_commits(git: Git, *shas: str) -> None:
    """Fetch whichever of `shas` the checkout lacks (shallowly when the checkout is shallow)."""
    missing = [sha for sha in shas if not git.exists(sha)]
    if not missing:
        return
    depth = ("--depth=1",) if is_shallow(git) else ()
    _fetch(git, *depth, REMOTE, *missing)
    still = [sha for sha in missing if not git.exists(sha)]
    if still:
        raise SyncError(f"commit {still[0]} is not in the checkout and {REMOTE} did not provide it")


def find_merge_base(git: Git, base: str, head: str) -> str:
    """The merge-base of `base` and `head`, deepening a shallow checkout until it appears."""
    depth = FIRST_DEEPEN
    for _ in range(MAX_ROUNDS):
        try:
            return git.merge_base(base, head)
        except GitError:
            pass
        if not is_shallow(git):
            break
        before = _shallow_state(git)
        _fetch(git, f"--deepen={depth}", REMOTE, base, head)
        if _shallow_state(git) == before:
            break
        depth *= 2
    else:
        raise SyncError(
            f"no merge-base of base {base[:12]} and head {head[:12]} after deepening the clone "
            f"{MAX_ROUNDS} times; check out with fetch-depth: 0"
        )
    raise SyncError(
        f"base {base[:12]} and head {head[:12]} have no common ancestor in the full history: "
        "the histories are unrelated or the base is unreachable from the head"
    )


def ensure_history(git: Git, rev: str, count: int) -> None:
    """Deepen a shallow checkout until `rev` has `count` first-parent commits with their parents
    (or its history ends)."""
    have = git.run("rev-list", "--first-parent", f"--max-count={count + 1}", "--end-of-options", rev)
    if len(have.split()) > count or not is_shallow(git):
        return
    _fetch(git, f"--deepen={count}", REMOTE, rev)
