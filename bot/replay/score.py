"""An attempt's receipt: the agent's change judged like a pull request, against the gold as reference.

Scope, locality and excess judge `base..agent` (what the agent changed), with the base commit's
manifest (or the run's `--manifest`) and the task's gold patch as the reference. The tests run on
the agent's result with the task's hidden tests laid over it: every path the test patch touches
takes its content from base + test patch, whatever the agent did there. The test run is the
sandboxed one `receipt check` uses, gate included; the replayed repository and the run directory
are hidden from it where the platform allows (the agent's code could otherwise read the answer).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.engine import MANIFEST_PATH, ManifestSource, Receipt, evaluate, load_manifest
from bot.engine.semantic import CheckConclusion, CheckResult
from bot.gather import GivenFile, Request, Revisions, gather
from bot.local.git import Git, GitError
from bot.local.source import LocalSource
from bot.local.testrun import TestRun, run_tests
from bot.replay.agent import commit_tree
from bot.replay.errors import ReplayError
from bot.replay.gitdir import scratch
from bot.replay.tasks import Candidate, Skipped, Task

_ZERO = "0" * 40


@dataclass(frozen=True, slots=True)
class Judging:
    """What every attempt of a run is judged with."""

    environment: Mapping[str, str]  # the caller's; the test command gets what minimal_environment keeps
    hide: tuple[Path, ...]
    manifest: GivenFile | None = None


def hidden_tests_tree(git: Git, task: Task) -> str | None:
    """The tree of base + test patch (None without hidden tests). ReplayError when it does not apply."""
    if not task.test_patch:
        return None
    with tempfile.TemporaryDirectory(prefix="receipt-index-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        try:
            git.run("read-tree", "--end-of-options", task.base, environment=env)
            git.run(
                "apply", "--cached", "--binary", "-", stdin=task.test_patch.encode("utf-8"), environment=env
            )
            return git.run("write-tree", environment=env).decode().strip()
        except GitError as exc:
            raise ReplayError(
                f"task {task.id}: its test patch does not apply to its base: {exc.problem}"
            ) from exc


def with_hidden_tests(git: Git, task: Task, head: str, tests_tree: str | None) -> str:
    """`head` with every path of the task's hidden tests as base + test patch has it."""
    if tests_tree is None:
        return head
    entries = git.ls_tree(tests_tree, task.hidden_tests)
    lines = [
        f"{entries[p][0]} {entries[p][1]}\t{p}" if p in entries else f"0 {_ZERO}\t{p}"
        for p in task.hidden_tests
    ]
    with tempfile.TemporaryDirectory(prefix="receipt-index-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        git.run("read-tree", "--end-of-options", head, environment=env)
        git.run(
            "update-index", "--index-info", stdin="".join(f"{x}\n" for x in lines).encode(), environment=env
        )
        tree = git.run("write-tree", environment=env).decode().strip()
    return commit_tree(git, tree, head, f"{task.id}: hidden tests laid over the attempt")


def score(git: Git, task: Task, head: str, tests_tree: str | None, judging: Judging) -> Receipt:
    """The receipt of `task.base..head` in `git` (the run's directory). Raises a ReceiptError."""
    revisions = Revisions(base=task.base, head=head, merge_base=task.base)
    reference = GivenFile(f"gold patch of task {task.id}", task.gold_patch.encode("utf-8"))
    request = Request(
        manifest_file=judging.manifest,
        reference_file=reference if task.gold_patch else None,
        repo=task.repo,
        pr=task.pr,
    )
    inputs = gather(LocalSource(git), revisions, git.diff(task.base, head), request)
    policy = inputs.manifest.manifest.tests
    evaluated = with_hidden_tests(git, task, head, tests_tree)
    run = TestRun(
        task.test_command, policy.timeout_minutes * 60, judging.environment, policy, task.base, judging.hide
    )
    return evaluate(replace(inputs, tests=run_tests(git, evaluated, run)))


def _tests_on(git: Git, task: Task, head: str, environment: Mapping[str, str]) -> CheckResult:
    """The task's test command on `head`, under the base manifest's tests policy."""
    loaded = load_manifest(git.read_file(task.base, MANIFEST_PATH), MANIFEST_PATH, ManifestSource.BASE)
    policy = loaded.manifest.tests
    run = TestRun(task.test_command, policy.timeout_minutes * 60, environment, policy, task.base)
    return run_tests(git, head, run).checks[0]


def _first_line(check: CheckResult) -> str:
    return check.details.splitlines()[0] if check.details else check.conclusion.value


def verify_tasks(
    repo: Git, candidates: Sequence[Candidate], environment: Mapping[str, str]
) -> list[Candidate]:
    """`--verify`: each task's tests run twice. On the merged change they must pass, else the task
    is skipped as `gold-fails` (its tests prove nothing about an agent). On the base with the
    hidden tests laid over it (what an agent that changes nothing is judged on) they must fail,
    else it is skipped as `passes-on-base` (any attempt would solve it). The commit of the second
    run is made in a scratch git directory, never in the replayed repository."""
    checked: list[Candidate] = []
    with scratch(repo) as git:
        for found in candidates:
            task = found.task
            if task is None:
                checked.append(found)
                continue
            gold = _tests_on(git, task, task.commit, environment)
            if gold.conclusion is not CheckConclusion.SUCCESS:
                checked.append(
                    Candidate(found.commit, skipped=Skipped(task.commit, "gold-fails", _first_line(gold)))
                )
                continue
            unchanged = with_hidden_tests(git, task, task.base, hidden_tests_tree(git, task))
            if _tests_on(git, task, unchanged, environment).conclusion is CheckConclusion.SUCCESS:
                hidden = ", ".join(task.hidden_tests[:3]) or "no hidden tests"
                checked.append(
                    Candidate(found.commit, skipped=Skipped(task.commit, "passes-on-base", hidden))
                )
                continue
            checked.append(found)
    return checked


def numstat_paths(numstat: bytes) -> list[str]:
    """The paths of a `git diff --numstat -z` listing (a rename gives its new path)."""
    fields = numstat.split(b"\0")
    paths: list[str] = []
    i = 0
    while i < len(fields):
        head = fields[i]
        if not head:
            i += 1
            continue
        parts = head.split(b"\t")
        if len(parts) == 3 and parts[2]:
            paths.append(parts[2].decode("utf-8", "replace"))
            i += 1
        else:  # a rename: "A\tD\t" then the old and the new path
            paths.append(fields[i + 2].decode("utf-8", "replace") if i + 2 < len(fields) else "")
            i += 3
    return paths
