"""`references` over the last commits of real repositories, for review by hand.

    .venv/bin/python bench/references_repos.py GIT_DIR... [--commits N]

Each GIT_DIR is a clone (bare or not) of a public Python repository. For each of its last N
first-parent commits (a merge commit stands for the pull request it merged; with --every-commit,
the last N non-merge commits, a pull request's own steps included), the change from the commit's
first parent is read the way `receipt check` reads it (the shared gather over local git)
and the `references` analysis runs on it. Every finding is printed with its commit, so each one can
be checked against the repository by hand; then the counts and the time the analysis took.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.references.analysis import analyze
from bot.gather import Revisions
from bot.gather.core import Request, base_manifest, build_change, python_tree
from bot.local.git import Git
from bot.local.source import LocalSource


def _commits(git: Git, count: int, *, every: bool) -> list[tuple[str, str]]:
    walk = ["--no-merges"] if every else ["--first-parent"]
    out = git.run("rev-list", *walk, "--parents", f"--max-count={count}", "HEAD").decode()
    pairs = []
    for line in out.splitlines():
        shas = line.split()
        if len(shas) >= 2:
            pairs.append((shas[1], shas[0]))
    return pairs


def review(directory: Path, count: int, *, every: bool) -> tuple[int, int, list[float]]:
    git = Git(directory.resolve())
    name = str(directory)  # as given: a clone's folder, or a bare repository's
    source = LocalSource(git)
    findings = commits = 0
    times: list[float] = []
    for parent, commit in _commits(git, count, every=every):
        revisions = Revisions(parent, commit, parent)
        change = build_change(source, git.diff(parent, commit), revisions)
        loaded = base_manifest(source, revisions, Request())
        started = time.perf_counter()
        tree = python_tree(source, change, loaded, commit)
        result = analyze(change, tree) if tree is not None else None
        times.append(time.perf_counter() - started)
        commits += 1
        if result is None:
            continue
        subject = git.run("log", "-1", "--format=%s", commit).decode().strip()
        for f in result.findings:
            findings += 1
            print(f"{name} {commit[:10]} ({subject[:60]})\n  {f.path}:{f.line}: {f.message}")
        if result.incomplete:
            print(f"{name} {commit[:10]}: not followed: {result.incomplete}")
    return commits, findings, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repositories", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument(
        "--every-commit",
        action="store_true",
        help="every non-merge commit, not only the first-parent line (a pull request's own commits)",
    )
    args = parser.parse_args()
    total = 0
    for directory in args.repositories:
        commits, findings, times = review(directory, args.commits, every=args.every_commit)
        total += findings
        print(
            f"== {directory}: {commits} commits, {findings} finding(s); read + analyze per commit: "
            f"median {statistics.median(times):.3f} s, max {max(times):.3f} s"
        )
    print(f"== {total} finding(s) in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
